-- 013: ballot stuffing by dropping the voter cookie (issue 14, item 3; docs/pages.md "The
-- Fan Verdict's integrity", domain/ballotlimit.h).

-- Whether a voter has cast any ballot yet (the new-voter window): one index probe.
CREATE INDEX ballots_voter ON ballots (voter);

-- @postgresql-only (store/migrate.c applies what follows on PostgreSQL alone)

-- The whole ballot write in one statement and one round trip, now with the windows of
-- domain/ballotlimit.h (app/ballot.c, store/votes.c ballots_cast_server). This overload
-- takes the windows as arrays in the rule's order — voter, address, anonymous ballots per
-- address per debate, new voters per address — each a rate_windows subject (NULL: not
-- this ballot's), its limit and its length. The fourth applies only to a voter with no
-- ballot yet, decided here in the same statement. As in migration 009: the deployment
-- write lock is taken in shared mode only, the incident's visibility and version are
-- re-read (o_wait -1: stale, judge again), the window rows are created when missing and
-- locked in subject order, and the rule of domain/ratelimit.c is applied to each. A full
-- window answers o_wait, the whole seconds to wait (> 0), and o_window, its 1-based
-- position (the first full one in the rule's order); else the ballot is written with its
-- tally moved in one slot row and o_wait is 0. The 13-argument function of migration 009
-- stays for nodes of the previous release during a rolling upgrade.
CREATE FUNCTION whistle_cast_ballot(p_incident TEXT, p_visibility TEXT, p_version BIGINT,
                                    p_voter TEXT, p_choice TEXT, p_rooting TEXT, p_now BIGINT,
                                    p_subjects TEXT[], p_limits BIGINT[], p_windows BIGINT[],
                                    p_slot BIGINT, OUT o_wait BIGINT, OUT o_window INT)
LANGUAGE plpgsql AS $$
DECLARE
    subj TEXT[] := p_subjects;
    w RECORD;
    k INT;
    wait BIGINT;
    old_choice TEXT;
    old_rooting TEXT;
    new_group TEXT := coalesce(p_rooting, 'unspecified');
    old_group TEXT;
BEGIN
    o_wait := 0;
    o_window := 0;
    PERFORM pg_advisory_xact_lock_shared(24603125091691621);
    PERFORM 1 FROM incidents WHERE id = p_incident AND visibility = p_visibility
        AND question_version = p_version;
    IF NOT FOUND THEN
        o_wait := -1;
        RETURN;
    END IF;
    IF subj[4] IS NOT NULL AND EXISTS (SELECT 1 FROM ballots WHERE voter = p_voter) THEN
        subj[4] := NULL; -- a voter who has voted before is not new
    END IF;
    INSERT INTO rate_windows (subject, started_at, count)
        SELECT s, p_now, 0 FROM unnest(subj) AS s WHERE s IS NOT NULL ORDER BY s
        ON CONFLICT (subject) DO NOTHING;
    FOR w IN SELECT subject, started_at, count FROM rate_windows
             WHERE subject = ANY (subj) ORDER BY subject FOR UPDATE LOOP
        FOR k IN 1 .. array_length(subj, 1) LOOP
            IF subj[k] = w.subject AND p_now - w.started_at < p_windows[k]
               AND w.count >= p_limits[k] AND (o_window = 0 OR k < o_window) THEN
                wait := (w.started_at + p_windows[k] - p_now + 999999) / 1000000;
                o_wait := greatest(wait, 1);
                o_window := k;
            END IF;
        END LOOP;
    END LOOP;
    IF o_window > 0 THEN
        RETURN;
    END IF;
    UPDATE rate_windows AS r SET
        started_at = CASE WHEN p_now - r.started_at >= x.win THEN p_now ELSE r.started_at END,
        count = CASE WHEN p_now - r.started_at >= x.win THEN 1 ELSE r.count + 1 END
        FROM unnest(subj, p_windows) AS x (s, win)
        WHERE r.subject = x.s;

    SELECT choice, rooting INTO old_choice, old_rooting FROM ballots
        WHERE incident_id = p_incident AND question_version = p_version AND voter = p_voter
        FOR UPDATE;
    IF FOUND THEN
        IF old_choice = p_choice AND coalesce(old_rooting, '') = coalesce(p_rooting, '') THEN
            RETURN; -- the same ballot again: nothing moves
        END IF;
        UPDATE ballots SET choice = p_choice, rooting = p_rooting, updated_at = p_now
            WHERE incident_id = p_incident AND question_version = p_version AND voter = p_voter;
        old_group := coalesce(old_rooting, 'unspecified');
    ELSE
        INSERT INTO ballots (incident_id, question_version, voter, choice, rooting, created_at,
                             updated_at)
            VALUES (p_incident, p_version, p_voter, p_choice, p_rooting, p_now, p_now);
    END IF;
    -- one statement moves both groups' rows (rows in rooting order: no deadlock between
    -- two ballots that move the same two groups in opposite directions)
    INSERT INTO vote_tallies AS t (incident_id, question_version, rooting, slot, correct,
                                   incorrect, unsure)
        SELECT p_incident, p_version, g, p_slot, sum(c), sum(i), sum(u) FROM (
            SELECT new_group AS g, (p_choice = 'correct')::int AS c,
                   (p_choice = 'incorrect')::int AS i, (p_choice = 'unsure')::int AS u
            UNION ALL
            SELECT old_group, -(old_choice = 'correct')::int, -(old_choice = 'incorrect')::int,
                   -(old_choice = 'unsure')::int WHERE old_group IS NOT NULL
        ) d GROUP BY g ORDER BY g
        ON CONFLICT (incident_id, question_version, rooting, slot) DO UPDATE SET
            correct = t.correct + excluded.correct,
            incorrect = t.incorrect + excluded.incorrect,
            unsure = t.unsure + excluded.unsure;
END
$$;
