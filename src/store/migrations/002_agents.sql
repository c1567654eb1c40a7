-- 002: accounts, agent keys, leads and lead idempotency records.

CREATE TABLE accounts (
    id             TEXT PRIMARY KEY,
    email          TEXT NOT NULL UNIQUE,   -- lower-cased
    display_name   TEXT,                   -- safe contributor name, shown in provenance
    email_verified INTEGER NOT NULL DEFAULT 0,
    banned         INTEGER NOT NULL DEFAULT 0,
    created_at     BIGINT NOT NULL,
    updated_at     BIGINT NOT NULL
);

-- secrets are never stored: only the SHA-256 of the whole key (hex)
CREATE TABLE agent_keys (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    name         TEXT,
    prefix       TEXT NOT NULL,           -- the first characters, to recognise a key in lists
    secret_hash  TEXT NOT NULL UNIQUE,
    scope        TEXT NOT NULL DEFAULT 'submit_lead',
    created_at   BIGINT NOT NULL,
    expires_at   BIGINT NOT NULL,
    revoked_at   BIGINT,
    last_used_at BIGINT
);
CREATE INDEX agent_keys_by_account ON agent_keys (account_id);

CREATE TABLE leads (
    id           TEXT PRIMARY KEY,
    account_id   TEXT NOT NULL REFERENCES accounts (id),
    key_id       TEXT NOT NULL REFERENCES agent_keys (id),
    game_id      TEXT NOT NULL REFERENCES games (id),
    description  TEXT NOT NULL,
    source_urls  TEXT NOT NULL,           -- JSON array of strings
    period       INTEGER,
    clock        TEXT,
    category     TEXT,
    confidence   DOUBLE PRECISION,
    status       TEXT NOT NULL DEFAULT 'pending'
                 CHECK (status IN ('pending', 'running', 'rejected', 'published', 'duplicate',
                                   'failed')),
    incident_id  TEXT REFERENCES incidents (id),
    created_at   BIGINT NOT NULL,
    updated_at   BIGINT NOT NULL
);
-- quota windows: per agent and global, by acceptance time
CREATE INDEX leads_by_account ON leads (account_id, created_at);
CREATE INDEX leads_by_created ON leads (created_at);

-- one lead per (agent, Idempotency-Key); the primary key makes concurrent duplicates
-- impossible whatever the process that serves them
CREATE TABLE lead_idempotency (
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    idem_key    TEXT NOT NULL,
    fingerprint TEXT NOT NULL,            -- SHA-256 of the canonical JSON payload (hex)
    lead_id     TEXT NOT NULL REFERENCES leads (id),
    created_at  BIGINT NOT NULL,
    PRIMARY KEY (account_id, idem_key)
);
CREATE INDEX lead_idempotency_by_age ON lead_idempotency (created_at);
