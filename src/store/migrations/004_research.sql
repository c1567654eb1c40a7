-- 004: lead research (issue 4): claims with leases, retries, the fetch record of every
-- source URL, and an audit trail of every transition.

-- claim_token: the claim a worker holds (random; a worker whose lease expired and whose
-- lead was claimed again can no longer finish it). lease_until: when another worker may
-- retry a running lead. next_attempt_at: a transient failure's backoff. candidate_at: the
-- lead passed the gates and waits for publication (its public status stays running).
-- duplicate_lead: the earlier lead this one duplicates (incident_id holds the incident).
-- reason: the last decision's reason, for operators.
ALTER TABLE leads ADD COLUMN claim_token TEXT;
ALTER TABLE leads ADD COLUMN lease_until BIGINT;
ALTER TABLE leads ADD COLUMN attempts INTEGER NOT NULL DEFAULT 0;
ALTER TABLE leads ADD COLUMN next_attempt_at BIGINT;
ALTER TABLE leads ADD COLUMN candidate_at BIGINT;
ALTER TABLE leads ADD COLUMN duplicate_lead TEXT;
ALTER TABLE leads ADD COLUMN reason TEXT;
CREATE INDEX leads_by_status ON leads (status, created_at, id);
CREATE INDEX leads_by_game ON leads (game_id, created_at);

-- one row per source URL of a lead and research attempt that completed (rows of a failed
-- attempt are replaced by the next one)
CREATE TABLE lead_fetches (
    lead_id       TEXT NOT NULL REFERENCES leads (id),
    position      INTEGER NOT NULL,
    url           TEXT NOT NULL,
    final_url     TEXT,
    http_status   INTEGER,
    content_type  TEXT,
    title         TEXT,
    publisher     TEXT,
    content_hash  TEXT,
    bytes         BIGINT NOT NULL DEFAULT 0,
    domain        TEXT,              -- registrable domain of the final URL
    mentions      INTEGER NOT NULL DEFAULT 0, -- the page names one of the game's teams
    error         TEXT,              -- NULL when a response was received
    fetched_at    BIGINT NOT NULL,
    PRIMARY KEY (lead_id, position)
);

-- the audit trail: every transition and decision, with time and reason
CREATE TABLE lead_events (
    lead_id     TEXT NOT NULL REFERENCES leads (id),
    seq         INTEGER NOT NULL,
    at          BIGINT NOT NULL,
    event       TEXT NOT NULL,       -- claimed, resolved, fetched, gate, candidate, published, …
    from_status TEXT,
    to_status   TEXT,
    actor       TEXT NOT NULL,       -- worker, operator, auto
    reason      TEXT NOT NULL,
    PRIMARY KEY (lead_id, seq)
);

-- sources by URL, for deduplication against published incidents
CREATE INDEX sources_by_url ON sources (url);
