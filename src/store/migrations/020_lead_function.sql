-- 020: an agent lead in one statement and one round trip on PostgreSQL (issue 20 item 2,
-- app/lead.c, store/agents.c leads_submit_server, docs/scale.md). SQLite keeps the steps of
-- app/lead.c in one BEGIN IMMEDIATE transaction.

-- @postgresql-only (store/migrate.c applies what follows on PostgreSQL alone)

-- The whole lead write as one call, its own transaction: the same steps, in the same order,
-- as the portable path of app/lead.c, with every lock taken and released inside it. The
-- deployment write lock in shared mode (as a ballot), then the 'leads' row of write_locks
-- (leads take turns among themselves: the all-agents daily quota and the idempotency
-- records are read-check-write). Each later statement of this function takes its snapshot
-- after that lock was granted (READ COMMITTED, a VOLATILE function), so it sees every lead
-- committed before: quotas are exact under parallel submissions on every node, and one lead
-- is accepted per (account, Idempotency-Key) under parallel retries.
--
-- The acceptance time o_now is p_now, the node's clock read just before the call, or the
-- newest lead's time when that is later (a call that waited for the lock behind a lead
-- stamped after p_now, or a node whose clock is behind another's): acceptance times follow
-- commit order, as the portable path's clock read under the lock makes them, so no lead
-- counted in a window is younger than the `now` it is counted at (the receipt's reset and
-- Retry-After never exceed the window).
--
-- p_windows and p_limits are the quota rules of domain/quota.h in their order: the agent's
-- minute, the agent's day, all agents' day (lengths in µs, leads per window). The windows
-- are counted over the leads accepted in them; a window never holds more leads than its
-- limit (a refused lead is not stored), so each count reads at most `limit` index entries,
-- a bound that does not grow with the traffic. o_counts and o_oldest are each window's
-- count and oldest acceptance time (NULL when empty), for the receipt (domain/quota.c
-- quota_decide, in C).
--
-- o_outcome: 0 accepted (the lead, its idempotency record and the key's last use written),
-- 1 replayed (o_lead is the Idempotency-Key's earlier lead, of the same payload; the key's
-- last use written), 2 unknown game, 3 a quota window is full, 4 the Idempotency-Key's
-- earlier lead o_lead has another payload (nothing written in 2, 3 and 4).
CREATE FUNCTION whistle_submit_lead(p_account TEXT, p_key TEXT, p_idem TEXT,
                                    p_fingerprint TEXT, p_retention BIGINT, p_lead TEXT,
                                    p_game TEXT, p_description TEXT, p_source_urls TEXT,
                                    p_period BIGINT, p_clock TEXT, p_category TEXT,
                                    p_confidence DOUBLE PRECISION, p_now BIGINT,
                                    p_windows BIGINT[], p_limits BIGINT[],
                                    OUT o_outcome INT, OUT o_now BIGINT, OUT o_lead TEXT,
                                    OUT o_counts BIGINT[], OUT o_oldest BIGINT[])
LANGUAGE plpgsql AS $$
DECLARE
    found_fp TEXT;
    minute_n BIGINT;
    minute_old BIGINT;
    day_n BIGINT;
    day_old BIGINT;
    all_n BIGINT;
    all_old BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock_shared(24603125091691621);
    PERFORM 1 FROM write_locks WHERE name = 'leads' FOR UPDATE;
    o_now := greatest(p_now, (SELECT max(created_at) FROM leads));

    -- the idempotency lookup comes first: a replay is answered even past the quota
    SELECT fingerprint, lead_id INTO found_fp, o_lead FROM lead_idempotency
        WHERE account_id = p_account AND idem_key = p_idem AND created_at > o_now - p_retention;
    IF FOUND AND found_fp <> p_fingerprint THEN
        o_outcome := 4;
        RETURN;
    ELSIF NOT FOUND THEN
        o_lead := NULL;
        IF NOT EXISTS (SELECT 1 FROM games WHERE id = p_game) THEN
            o_outcome := 2;
            RETURN;
        END IF;
    END IF;

    SELECT count(*) FILTER (WHERE created_at > o_now - p_windows[1]),
           min(created_at) FILTER (WHERE created_at > o_now - p_windows[1]),
           count(*), min(created_at)
        INTO minute_n, minute_old, day_n, day_old
        FROM leads WHERE account_id = p_account AND created_at > o_now - p_windows[2];
    SELECT count(*), min(created_at) INTO all_n, all_old FROM leads
        WHERE created_at > o_now - p_windows[3];
    o_counts := ARRAY[minute_n, day_n, all_n];
    o_oldest := ARRAY[minute_old, day_old, all_old];

    IF o_lead IS NOT NULL THEN
        UPDATE agent_keys SET last_used_at = o_now WHERE id = p_key;
        o_outcome := 1;
        RETURN;
    END IF;
    IF minute_n >= p_limits[1] OR day_n >= p_limits[2] OR all_n >= p_limits[3] THEN
        o_outcome := 3;
        RETURN;
    END IF;

    -- forget this agent's expired records first: a key reused after the retention period
    -- starts a new lead under the same (account, key) primary key
    DELETE FROM lead_idempotency WHERE account_id = p_account AND created_at <= o_now - p_retention;
    INSERT INTO leads (id, account_id, key_id, game_id, description, source_urls, period, clock,
                       category, confidence, status, created_at, updated_at)
        VALUES (p_lead, p_account, p_key, p_game, p_description, p_source_urls, p_period,
                p_clock, p_category, p_confidence, 'pending', o_now, o_now);
    INSERT INTO lead_idempotency (account_id, idem_key, fingerprint, lead_id, created_at)
        VALUES (p_account, p_idem, p_fingerprint, p_lead, o_now);
    UPDATE agent_keys SET last_used_at = o_now WHERE id = p_key;
    o_lead := p_lead;
    o_outcome := 0;
END
$$;
