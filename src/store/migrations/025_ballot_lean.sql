-- 025: a leaner ballot (issue 20). whistle_ballot (migration 024) ran whistle_cast_ballot
-- (migration 013), then read its answer: thirteen statements a ballot, and in a ballot
-- flood half of PostgreSQL's CPU went to them. This whistle_ballot takes the same arguments
-- and answers the same way, with the same locks, windows and tallies (the outcome of every
-- call and every row it leaves are those of 024's, compared over thousands of random
-- ballots), in these statements of its own, about a third fewer instructions a ballot:
--
-- 1. the deployment lock in shared mode, alone: under READ COMMITTED each statement takes
--    its snapshot when it starts, so every later one sees what an exclusive writer (an
--    import, a migration) committed before the lock was granted;
-- 2. one statement: the incident's visibility and question version (else o_wait -1: stale,
--    judge again), whether the voter has a ballot anywhere (the new-voter window is only for
--    a voter who has none), and the rate_windows rows of the windows that apply, created or
--    locked in subject order and counted at once: a new row is inserted with one ballot, a
--    running window (domain/ratelimit.c) counts one more, an ended one is only locked (ON
--    CONFLICT DO UPDATE locks the row it meets even when its WHERE is false). The counts
--    come back, and the first window in the rule's order that was already full answers
--    o_window (its 1-based position) and o_wait (the whole seconds until it ends); then one
--    UPDATE takes back what was counted, so a refused ballot counts nothing and leaves each
--    row as 024's check left it (a new one at 0);
-- 3. when every window takes the ballot: the ended windows start again at this ballot, and
--    the voter's old ballot is read and replaced (the same ballot again changes nothing);
-- 4. the tally moved by the difference in the p_slot row of each rooting group it touches:
--    one row, or two in rooting order when the group changed (two ballots that move the
--    same two groups in opposite directions never wait for each other);
-- 5. the tallies of the version voted on and its three labels, as migration 024 answered.
--
-- Statement 3 reads the old ballot in its own snapshot and then writes it: that is exact
-- because every ballot of one voter locks that voter's window row in statement 2 (the voter
-- window applies to every ballot, domain/ballotlimit.c, and app/ballot.c names it
-- "voter:<voter>"), so one voter's ballots run one after another and the snapshot taken
-- after the lock sees the last one. A call without that window is refused. The subjects
-- are distinct (each window has its own prefix).
--
-- whistle_cast_ballot stays: nodes of the previous release call it during a rolling upgrade,
-- and it takes the same locks in the same order (windows, ballot, slot rows).

-- @postgresql-only (store/migrate.c applies what follows on PostgreSQL alone)
CREATE OR REPLACE FUNCTION whistle_ballot(p_incident TEXT, p_visibility TEXT, p_version BIGINT,
                                          p_voter TEXT, p_choice TEXT, p_rooting TEXT,
                                          p_now BIGINT, p_subjects TEXT[], p_limits BIGINT[],
                                          p_windows BIGINT[], p_slot BIGINT,
                                          OUT o_wait BIGINT, OUT o_window INT,
                                          OUT o_tallies TEXT, OUT o_a_label TEXT,
                                          OUT o_b_label TEXT, OUT o_unsure_label TEXT)
LANGUAGE plpgsql AS $$
DECLARE
    is_open BOOLEAN;
    has_voted BOOLEAN;
    got TEXT[]; -- the windows statement 2 counted (created, or running and counted)
    got_start BIGINT[];
    got_count BIGINT[];
    expired TEXT[] := '{}';
    i INT;
    wrote BOOLEAN;
    old_choice TEXT;
    old_grp TEXT;
    new_grp TEXT := coalesce(p_rooting, 'unspecified');
    grp TEXT[];
BEGIN
    IF p_subjects[1] IS NULL THEN
        RAISE EXCEPTION 'whistle_ballot: the voter window (the first subject) is required';
    END IF;
    o_wait := 0;
    o_window := 0;
    PERFORM pg_advisory_xact_lock_shared(24603125091691621);

    WITH probe AS (
        SELECT EXISTS (SELECT FROM incidents WHERE id = p_incident AND visibility = p_visibility
                                                AND question_version = p_version) AS open,
               p_subjects[4] IS NOT NULL
               AND EXISTS (SELECT FROM ballots WHERE voter = p_voter) AS voted
    ), counted AS (
        INSERT INTO rate_windows AS w (subject, started_at, count)
        SELECT a.s, p_now, 1
        FROM probe, unnest(p_subjects) WITH ORDINALITY AS a (s, k)
        WHERE probe.open AND a.s IS NOT NULL AND NOT (a.k = 4 AND probe.voted)
        ORDER BY a.s
        ON CONFLICT (subject) DO UPDATE SET count = w.count + 1
        WHERE p_now - w.started_at < p_windows[array_position(p_subjects, w.subject)]
        RETURNING w.subject, w.started_at, w.count
    )
    SELECT p.open, p.voted, array_agg(c.subject), array_agg(c.started_at), array_agg(c.count)
    INTO is_open, has_voted, got, got_start, got_count
    FROM probe p LEFT JOIN counted c ON true
    GROUP BY p.open, p.voted;
    IF NOT is_open THEN
        o_wait := -1;
        RETURN;
    END IF;

    FOR k IN 1 .. array_length(p_subjects, 1) LOOP
        CONTINUE WHEN p_subjects[k] IS NULL OR (k = 4 AND has_voted);
        i := array_position(got, p_subjects[k]);
        IF i IS NULL THEN
            expired := expired || p_subjects[k];
        ELSIF got_count[i] > p_limits[k] AND o_window = 0 THEN
            o_window := k;
            o_wait := greatest((got_start[i] + p_windows[k] - p_now + 999999) / 1000000, 1);
        END IF;
    END LOOP;
    IF o_window > 0 THEN
        UPDATE rate_windows SET count = count - 1 WHERE subject = ANY (got);
        RETURN;
    END IF;

    WITH restarted AS (
        UPDATE rate_windows SET started_at = p_now, count = 1 WHERE subject = ANY (expired)
    ), previous AS (
        SELECT choice, coalesce(rooting, 'unspecified') AS grp FROM ballots
        WHERE incident_id = p_incident AND question_version = p_version AND voter = p_voter
    ), written AS (
        INSERT INTO ballots AS b (incident_id, question_version, voter, choice, rooting,
                                  created_at, updated_at)
        VALUES (p_incident, p_version, p_voter, p_choice, p_rooting, p_now, p_now)
        ON CONFLICT (incident_id, question_version, voter) DO UPDATE
        SET choice = excluded.choice, rooting = excluded.rooting, updated_at = excluded.updated_at
        WHERE b.choice <> excluded.choice
           OR coalesce(b.rooting, '') <> coalesce(excluded.rooting, '')
        RETURNING 1
    )
    SELECT EXISTS (SELECT FROM written), p.choice, p.grp INTO wrote, old_choice, old_grp
    FROM (SELECT 1) one LEFT JOIN previous p ON true;

    IF wrote THEN
        IF old_grp IS NULL OR old_grp = new_grp THEN
            grp := ARRAY[new_grp];
        ELSE
            grp := ARRAY[least(old_grp, new_grp), greatest(old_grp, new_grp)];
        END IF;
        FOR j IN 1 .. array_length(grp, 1) LOOP
            INSERT INTO vote_tallies AS v (incident_id, question_version, rooting, slot, correct,
                                           incorrect, unsure)
            VALUES (p_incident, p_version, grp[j], p_slot,
                    (grp[j] = new_grp AND p_choice = 'correct')::int
                    - coalesce(grp[j] = old_grp AND old_choice = 'correct', false)::int,
                    (grp[j] = new_grp AND p_choice = 'incorrect')::int
                    - coalesce(grp[j] = old_grp AND old_choice = 'incorrect', false)::int,
                    (grp[j] = new_grp AND p_choice = 'unsure')::int
                    - coalesce(grp[j] = old_grp AND old_choice = 'unsure', false)::int)
            ON CONFLICT (incident_id, question_version, rooting, slot) DO UPDATE
            SET correct = v.correct + excluded.correct,
                incorrect = v.incorrect + excluded.incorrect, unsure = v.unsure + excluded.unsure;
        END LOOP;
    END IF;

    SELECT t.items, q.option_a_label, q.option_b_label, q.unsure_label
    INTO o_tallies, o_a_label, o_b_label, o_unsure_label
    FROM (SELECT string_agg(g.rooting || ':' || g.c || ':' || g.i || ':' || g.u, ';'
                            ORDER BY g.rooting) AS items
          FROM (SELECT rooting, sum(correct) AS c, sum(incorrect) AS i, sum(unsure) AS u
                FROM vote_tallies
                WHERE incident_id = p_incident AND question_version = p_version
                GROUP BY rooting) g) t
    LEFT JOIN questions q ON q.incident_id = p_incident AND q.version = p_version;
END
$$;
