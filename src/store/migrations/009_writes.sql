-- 009: writes that scale with nodes (issue 20, docs/scale.md).

-- Rolling-window limits as one bounded counter row per subject ("voter:<hash>",
-- "ip:<hash>", "signin-email:…"): a window anchored at its first event, `count` events in
-- it (domain/ratelimit.h is the rule). Replaces the append-only vote_events log, whose
-- count(*) grew with the traffic it limited.
CREATE TABLE rate_windows (
    subject    TEXT PRIMARY KEY,
    started_at BIGINT NOT NULL,
    count      BIGINT NOT NULL
);
DROP TABLE vote_events;

-- Slotted tallies: a ballot moves the counters of one slot row of its (incident, version,
-- rooting) group, so concurrent ballots on one hot incident do not queue on one row;
-- readers sum the slots. SQLite (one writer) always writes slot 0.
CREATE TABLE vote_tally_slots (
    incident_id      TEXT NOT NULL REFERENCES incidents (id),
    question_version INTEGER NOT NULL,
    rooting          TEXT NOT NULL CHECK (rooting IN ('home', 'away', 'neutral', 'undisclosed',
                                                      'unspecified')),
    slot             INTEGER NOT NULL DEFAULT 0,
    correct          BIGINT NOT NULL DEFAULT 0,
    incorrect        BIGINT NOT NULL DEFAULT 0,
    unsure           BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (incident_id, question_version, rooting, slot)
);
INSERT INTO vote_tally_slots (incident_id, question_version, rooting, slot, correct, incorrect,
                              unsure)
    SELECT incident_id, question_version, rooting, 0, correct, incorrect, unsure
    FROM vote_tallies;
DROP TABLE vote_tallies;
ALTER TABLE vote_tally_slots RENAME TO vote_tallies;

-- Named rows a write locks instead of the whole deployment: 'leads' serializes lead
-- submissions for the all-agents daily quota (leads are rare).
CREATE TABLE write_locks (
    name TEXT PRIMARY KEY,
    n    BIGINT NOT NULL DEFAULT 0
);
INSERT INTO write_locks (name) VALUES ('leads');

-- @postgresql-only (store/migrate.c applies what follows on PostgreSQL alone)

-- The whole ballot write in one statement and one round trip (app/ballot.c, store/votes.c
-- ballots_cast_server). The caller has already judged the incident open from what it read
-- (visibility, question version); this function takes the deployment write lock in shared
-- mode (editorial changes take it exclusively, store/pg.c), re-reads those two facts and
-- answers -1 (stale: judge again) when either moved. Then the voter's and the address's
-- window rows are created when missing and locked in subject order, the window rule of
-- domain/ratelimit.c is applied to both (the same rule, restated here: a window anchored at
-- its first event holds `limit` events), and the ballot is inserted or replaced with its
-- tally moved in one slot row. Returns 0 (written) or the whole seconds to wait (> 0).
CREATE FUNCTION whistle_cast_ballot(p_incident TEXT, p_visibility TEXT, p_version BIGINT,
                                    p_voter TEXT, p_choice TEXT, p_rooting TEXT, p_now BIGINT,
                                    p_voter_subject TEXT, p_voter_limit BIGINT,
                                    p_addr_subject TEXT, p_addr_limit BIGINT,
                                    p_window BIGINT, p_slot BIGINT)
RETURNS BIGINT LANGUAGE plpgsql AS $$
DECLARE
    w RECORD;
    lim BIGINT;
    wait BIGINT;
    old_choice TEXT;
    old_rooting TEXT;
    new_group TEXT := coalesce(p_rooting, 'unspecified');
    old_group TEXT;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(24603125091691621);
    PERFORM 1 FROM incidents WHERE id = p_incident AND visibility = p_visibility
        AND question_version = p_version;
    IF NOT FOUND THEN
        RETURN -1;
    END IF;
    INSERT INTO rate_windows (subject, started_at, count)
        VALUES (p_addr_subject, p_now, 0), (p_voter_subject, p_now, 0)
        ON CONFLICT (subject) DO NOTHING;
    FOR w IN SELECT subject, started_at, count FROM rate_windows
             WHERE subject IN (p_voter_subject, p_addr_subject) ORDER BY subject FOR UPDATE LOOP
        lim := CASE WHEN w.subject = p_voter_subject THEN p_voter_limit ELSE p_addr_limit END;
        IF p_now - w.started_at < p_window AND w.count >= lim THEN
            wait := (w.started_at + p_window - p_now + 999999) / 1000000;
            RETURN greatest(wait, 1);
        END IF;
    END LOOP;
    UPDATE rate_windows SET
        started_at = CASE WHEN p_now - started_at >= p_window THEN p_now ELSE started_at END,
        count = CASE WHEN p_now - started_at >= p_window THEN 1 ELSE count + 1 END
        WHERE subject IN (p_voter_subject, p_addr_subject);

    SELECT choice, rooting INTO old_choice, old_rooting FROM ballots
        WHERE incident_id = p_incident AND question_version = p_version AND voter = p_voter
        FOR UPDATE;
    IF FOUND THEN
        IF old_choice = p_choice AND coalesce(old_rooting, '') = coalesce(p_rooting, '') THEN
            RETURN 0; -- the same ballot again: nothing moves
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
    RETURN 0;
END
$$;
