-- 005: the private scout interface (issue 7, docs/scout.md): scout credentials with their
-- budgets, bounded runs, budget reservations, per-key checkpoints and collected signals.

-- secrets are never stored: only the SHA-256 of the whole credential (hex)
CREATE TABLE scout_credentials (
    id             TEXT PRIMARY KEY,
    name           TEXT NOT NULL,
    prefix         TEXT NOT NULL,          -- the first characters, to recognise it in lists
    secret_hash    TEXT NOT NULL UNIQUE,
    x_per_day      BIGINT NOT NULL,        -- X reads per UTC day
    model_per_day  BIGINT NOT NULL,        -- model micro-USD per UTC day
    x_per_run      BIGINT NOT NULL,
    model_per_run  BIGINT NOT NULL,
    run_seconds    BIGINT NOT NULL,        -- the lease of a run
    disabled       INTEGER NOT NULL DEFAULT 0,
    created_at     BIGINT NOT NULL,
    expires_at     BIGINT,                 -- null: never expires
    revoked_at     BIGINT,
    last_used_at   BIGINT
);

-- What a credential has reserved per UTC day and kind. Reservations are granted by one
-- conditional UPDATE (used + units <= limit), so two concurrent reserves on any number of
-- nodes can never overspend.
CREATE TABLE scout_spend (
    credential_id TEXT NOT NULL REFERENCES scout_credentials (id),
    day           BIGINT NOT NULL,         -- start of the UTC day, microseconds
    kind          TEXT NOT NULL CHECK (kind IN ('x', 'model')),
    used          BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (credential_id, day, kind)
);

-- A run: its id is chosen by the client (a retried begin finds it). active_key holds the
-- run's key while it runs and null afterwards: the unique constraint allows one active run
-- per credential and key (nulls never collide).
CREATE TABLE scout_runs (
    id              TEXT PRIMARY KEY,
    credential_id   TEXT NOT NULL REFERENCES scout_credentials (id),
    run_key         TEXT NOT NULL,
    active_key      TEXT,
    status          TEXT NOT NULL CHECK (status IN ('running', 'completed', 'expired')),
    started_at      BIGINT NOT NULL,
    expires_at      BIGINT NOT NULL,
    x_cap           BIGINT NOT NULL,
    model_cap       BIGINT NOT NULL,
    x_used          BIGINT NOT NULL DEFAULT 0,
    model_used      BIGINT NOT NULL DEFAULT 0,
    begin_receipt   TEXT NOT NULL,         -- the begin answer, returned again on a retry
    finished_at     BIGINT,
    finish_hash     TEXT,                  -- SHA-256 (hex) of the finish body bytes
    finish_receipt  TEXT,                  -- the finish answer, returned again on a retry
    evaluations     TEXT,                  -- compact JSON, proposals only
    report          TEXT,                  -- compact JSON
    UNIQUE (credential_id, active_key)
);
CREATE INDEX scout_runs_by_credential ON scout_runs (credential_id, started_at);

-- Every granted reservation (spent whether or not the call was made).
CREATE TABLE scout_reservations (
    id          TEXT PRIMARY KEY,
    run_id      TEXT NOT NULL REFERENCES scout_runs (id),
    kind        TEXT NOT NULL CHECK (kind IN ('x', 'model')),
    units       BIGINT NOT NULL,
    day         BIGINT NOT NULL,
    created_at  BIGINT NOT NULL
);
CREATE INDEX scout_reservations_by_run ON scout_reservations (run_id);

-- The checkpoints a scout stored for one of its keys (replaced by each finish that
-- carries them).
CREATE TABLE scout_checkpoints (
    credential_id TEXT NOT NULL REFERENCES scout_credentials (id),
    run_key       TEXT NOT NULL,
    checkpoints   TEXT NOT NULL,           -- compact JSON object
    run_id        TEXT NOT NULL REFERENCES scout_runs (id),
    updated_at    BIGINT NOT NULL,
    PRIMARY KEY (credential_id, run_key)
);

-- Collected signals, deduplicated across runs and credentials: the same canonical URL or
-- the same content hash is one observation (INSERT … ON CONFLICT DO NOTHING).
CREATE TABLE scout_signals (
    id             TEXT PRIMARY KEY,
    run_id         TEXT NOT NULL REFERENCES scout_runs (id),
    credential_id  TEXT NOT NULL REFERENCES scout_credentials (id),
    url            TEXT NOT NULL,
    canonical_url  TEXT NOT NULL UNIQUE,
    content_hash   TEXT UNIQUE,            -- null for texts too short to identify content
    domain         TEXT NOT NULL,          -- registrable domain of the URL
    author         TEXT,
    posted_at      BIGINT,
    body           TEXT,
    game_id        TEXT,
    period         INTEGER,
    clock          TEXT,
    score          INTEGER NOT NULL,
    created_at     BIGINT NOT NULL
);
CREATE INDEX scout_signals_by_play ON scout_signals (game_id, period);
