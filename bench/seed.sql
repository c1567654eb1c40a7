-- seed.sql: bulk-load a benchmark data set straight into a migrated Whistle database,
-- without going through `whistle import`. Run by bench/run.sh as
--
--     sqlite3 -bail DB ".parameter set @n N" ".read bench/seed.sql"
--
-- @n incidents over 64 teams and max(1, @n / 10) games; every incident is published, has a
-- current question (version 1), 1 or 2 sources and vote tallies for two or three rooting
-- groups. Everything is derived from the row number, so two loads of the same @n are
-- identical. Follows src/store/migrations/001_init.sql (integer microseconds, lowercase
-- canonical UUIDs, 0/1 booleans). The load is one transaction with the journal off; the
-- database is switched back to WAL at the end, as the server expects.

PRAGMA journal_mode = OFF;
PRAGMA synchronous = OFF;
PRAGMA foreign_keys = OFF;
PRAGMA cache_size = -2000000;

BEGIN;

-- 64 teams: ids bench-t00 .. bench-t63; 0..31 college, 32..63 NFL.
INSERT INTO teams (id, name, abbreviation, logo_url, conference, league, division,
                   short_name, active, aliases)
WITH RECURSIVE t(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM t WHERE k < 63),
named(k, city, mascot) AS (
    SELECT k,
           CASE k % 8 WHEN 0 THEN 'Harbor City' WHEN 1 THEN 'Red Mesa' WHEN 2 THEN 'Lakeshore'
                      WHEN 3 THEN 'Granite Falls' WHEN 4 THEN 'Prairie View'
                      WHEN 5 THEN 'Cedar Ridge' WHEN 6 THEN 'Bayport' ELSE 'North Fork' END,
           CASE k / 8 WHEN 0 THEN 'Gulls' WHEN 1 THEN 'Foxes' WHEN 2 THEN 'Stallions'
                      WHEN 3 THEN 'Comets' WHEN 4 THEN 'Ironmen' WHEN 5 THEN 'Herons'
                      WHEN 6 THEN 'Rangers' ELSE 'Owls' END
    FROM t)
SELECT printf('bench-t%02d', k),
       city || ' ' || mascot,
       upper(substr(replace(city, ' ', ''), 1, 2)) || upper(substr(mascot, 1, 1)) || k,
       printf('https://static.example.com/bench/logos/t%02d.svg', k),
       CASE WHEN k < 32 THEN 'Bench Conference ' || (k / 8 + 1) ELSE NULL END,
       CASE WHEN k < 32 THEN 'college' ELSE 'nfl' END,
       CASE WHEN k < 32 THEN NULL ELSE printf('Division %d', (k - 32) / 4 + 1) END,
       mascot,
       1,
       printf('["%s", "%s %s"]', city, rtrim(substr(city, 1, 4)), mascot)
FROM named;

-- max(1, @n / 10) games; even games are college (teams 0..31), odd games NFL (32..63).
-- away = home + 1 + (g / 32) % 31 (mod 32), so home and away always differ.
INSERT INTO games (id, home_team_id, away_team_id, home_score, away_score, starts_at,
                   kickoff_tbd, period, clock, status, season, week, league, season_type,
                   stage_label, created_at, updated_at, kickoff_known)
WITH RECURSIVE g(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM g
                        WHERE k + 1 < max(1, @n / 10))
SELECT printf('bench:%d-wk%02d-g%07d', 2016 + k % 10, 1 + k % 17, k),
       printf('bench-t%02d', (k % 2) * 32 + k % 32),
       printf('bench-t%02d', (k % 2) * 32 + (k % 32 + 1 + (k / 32) % 31) % 32),
       (k * 7) % 45, (k * 11) % 38,
       1450000000000000 + k * 3600000000,
       0, 4, '0:00', 'final',
       2016 + k % 10, 1 + k % 17,
       CASE WHEN k % 2 = 0 THEN 'college' ELSE 'nfl' END,
       'regular', NULL,
       1450000000000000 + k * 3600000000 - 604800000000,
       1450000000000000 + k * 3600000000 + 14400000000,
       1
FROM g;

-- @n incidents. id: a Knuth multiplicative hash of the row number in the first group (so
-- ids are scattered, like real v4 UUIDs) and the row number itself in the last group (so
-- they are unique). published_at: one per minute plus a sub-second offset (distinct
-- microsecond timestamps).
INSERT INTO incidents (id, game_id, title, play_description, neutral_summary, category,
                       period, clock, original_ruling, final_ruling, replay_involved,
                       consequence, status, origin_kind, provenance, reviewed_at,
                       published_at, created_at, updated_at, visibility, duplicate_of, slug,
                       penalty_called, comment_count, question_version)
WITH RECURSIVE s(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM s WHERE i + 1 < @n),
r(i, g, cat, call, q, mm, ss, pub) AS (
    SELECT i, i % max(1, @n / 10),
           CASE i % 8 WHEN 0 THEN 'penalty' WHEN 1 THEN 'replay' WHEN 2 THEN 'clock'
                      WHEN 3 THEN 'spot' WHEN 4 THEN 'targeting' WHEN 5 THEN 'other'
                      WHEN 6 THEN 'no_call' ELSE 'catch' END,
           CASE i % 6 WHEN 0 THEN 'defensive pass interference'
                      WHEN 1 THEN 'roughing the passer' WHEN 2 THEN 'offensive holding'
                      WHEN 3 THEN 'illegal block in the back' WHEN 4 THEN 'intentional grounding'
                      ELSE 'unnecessary roughness' END,
           1 + i % 4, (i * 7) % 15, (i * 13) % 60,
           1700000000000000 + i * 60000000 + (i * 7919) % 1000000
    FROM s)
SELECT printf('%08x-%04x-4%03x-%x%03x-%012x', (i * 2654435761) % 4294967296,
              (i * 40503) % 65536, (i * 2971) % 4096, 8 + i % 4, (i * 1361) % 4096, i),
       printf('bench:%d-wk%02d-g%07d', 2016 + g % 10, 1 + g % 17, g),
       printf('Disputed %s call on third-and-%d in the %s quarter (bench incident %d)',
              call, 1 + i % 12,
              CASE q WHEN 1 THEN 'first' WHEN 2 THEN 'second' WHEN 3 THEN 'third' ELSE 'fourth' END,
              i),
       printf('On third-and-%d from the %d-yard line with %d:%02d left, the receiver and the defender came together before the ball arrived. The side judge flagged %s, giving the offense a first down; replays show contact by both players.',
              1 + i % 12, 10 + i % 40, mm, ss, call),
       printf('Officials called %s in quarter %d. Replays and both coaches disagree on whether the contact came early enough to warrant the flag. Sample data.',
              call, q),
       cat, q, printf('%d:%02d', mm, ss),
       printf('Flag for %s against the defense', call),
       CASE WHEN i % 3 = 0 THEN NULL ELSE printf('Penalty stands after review; %s enforced', call) END,
       i % 2,
       printf('Automatic first down; the drive ended in a %s', CASE i % 3 WHEN 0 THEN 'touchdown' WHEN 1 THEN 'field goal' ELSE 'punt' END),
       CASE i % 4 WHEN 0 THEN 'developing' WHEN 1 THEN 'corroborated' WHEN 2 THEN 'explained'
                  ELSE 'resolved' END,
       'migration',
       '{"discovery":{"kind":"migration"}}',
       CASE WHEN i % 5 = 0 THEN NULL ELSE pub + 1800000000 END,
       pub, pub - 3600000000, pub,
       'published', NULL,
       printf('bench-incident-%d', i),
       CASE WHEN cat = 'no_call' THEN 0 WHEN i % 7 = 0 THEN NULL ELSE 1 END,
       (i * 31) % 250,
       1
FROM r;

-- One current question (version 1) per incident, inserted in id order so that the primary
-- key index is appended to rather than split.
INSERT INTO questions (incident_id, version, question_type, question_text, option_a_label,
                       option_b_label, unsure_label, stored_a_label, stored_b_label,
                       stored_unsure_label, factual_context, created_at, superseded_at)
SELECT id, 1,
       CASE WHEN category = 'no_call' THEN 'no_call' ELSE 'ruling' END,
       CASE WHEN category = 'no_call'
            THEN 'Should the officials have thrown a flag on this play, given the contact shown on the replays?'
            ELSE 'Was the on-field ruling correct, given what the replays from both angles show about the contact?' END,
       CASE WHEN category = 'no_call' THEN 'Throw the flag' ELSE 'Correct call' END,
       CASE WHEN category = 'no_call' THEN 'Keep the flag down' ELSE 'Incorrect call' END,
       'Not sure from the available angles',
       CASE WHEN category = 'no_call' THEN 'Throw the flag' ELSE 'Correct call' END,
       CASE WHEN category = 'no_call' THEN 'Keep the flag down' ELSE 'Incorrect call' END,
       'Not sure from the available angles',
       '{}', published_at, NULL
FROM incidents ORDER BY id;

-- Sources: position 1 for every incident, position 2 for every other one. Source ids
-- reuse the incident id's groups with a different variant nibble.
INSERT INTO sources (id, incident_id, position, url, title, publisher, source_kind,
                     published_at, added_at, supports, added_by)
SELECT substr(i.id, 1, 19) || printf('%x', 9 + p.n) || substr(i.id, 21), i.id, p.n,
       printf('https://news.example.com/bench/%d/%s-review', p.n, i.slug),
       CASE p.n WHEN 1 THEN 'Officiating review: the flag that decided the drive, frame by frame'
                ELSE 'Post-game press conference transcript, questions on officiating' END,
       CASE p.n WHEN 1 THEN 'Example Sports Desk' ELSE 'Example Broadcast Network' END,
       CASE p.n WHEN 1 THEN 'report' ELSE 'video' END,
       i.published_at - 600000000, i.published_at - 300000000,
       CASE p.n WHEN 1 THEN 'Establishes the game context, the flag and the down and distance; does not settle the timing of the contact'
                ELSE 'Shows the head coach describing the play and the explanation he received from the referee' END,
       NULL
FROM incidents i JOIN (SELECT 1 AS n UNION ALL SELECT 2) p
     ON p.n = 1 OR (i.rowid % 2 = 0)
ORDER BY i.id, p.n;

-- Vote tallies on question version 1: home and away for every incident, unspecified for
-- every third one.
INSERT INTO vote_tallies (incident_id, question_version, rooting, correct, incorrect, unsure)
SELECT i.id, 1, g.rooting,
       (i.rowid * g.a) % 97 + 3, (i.rowid * g.b) % 61 + 1, (i.rowid * g.c) % 13
FROM incidents i JOIN (SELECT 'away' AS rooting, 7 AS a, 5 AS b, 3 AS c
                       UNION ALL SELECT 'home', 11, 3, 5
                       UNION ALL SELECT 'unspecified', 13, 17, 2) g
     ON g.rooting <> 'unspecified' OR i.rowid % 3 = 0
ORDER BY i.id, g.rooting;

-- the game attributes copied onto each incident (migration 010)
UPDATE incidents SET (g_season, g_week, g_league, g_season_type, g_home, g_away) =
    (SELECT g.season, g.week, g.league, g.season_type, g.home_team_id, g.away_team_id
     FROM games g WHERE g.id = incidents.game_id);

COMMIT;

PRAGMA journal_mode = WAL;
