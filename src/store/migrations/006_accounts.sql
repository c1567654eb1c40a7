-- 006: browser accounts (issue 6): passwords, single-use email links, sessions and the
-- email outbox. Failed sign-ins are rate-limit events in vote_events (003), under subjects
-- "signin-email:<hash>" and "signin-ip:<hash>". Portable dialect (SQLite and PostgreSQL).

-- argon2id hashes in libsodium's encoded form; NULL for accounts made by the operator CLI
-- (`whistle key create`), which can set a password through "forgot password"
ALTER TABLE accounts ADD COLUMN password_hash TEXT;
ALTER TABLE accounts ADD COLUMN password_changed_at BIGINT;
ALTER TABLE accounts ADD COLUMN verified_at BIGINT;

-- single-use links sent by email: only the SHA-256 of the token (hex) is stored
CREATE TABLE account_tokens (
    token_hash  TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    purpose     TEXT NOT NULL CHECK (purpose IN ('verify', 'reset')),
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    used_at     BIGINT
);
CREATE INDEX account_tokens_by_account ON account_tokens (account_id, purpose);
CREATE INDEX account_tokens_by_expiry ON account_tokens (expires_at);

-- browser sessions: only the SHA-256 of the cookie's token (hex) is stored
CREATE TABLE sessions (
    token_hash  TEXT PRIMARY KEY,
    account_id  TEXT NOT NULL REFERENCES accounts (id),
    created_at  BIGINT NOT NULL,
    expires_at  BIGINT NOT NULL,
    revoked_at  BIGINT
);
CREATE INDEX sessions_by_account ON sessions (account_id);
CREATE INDEX sessions_by_expiry ON sessions (expires_at);

-- email waiting for the worker; the body (which holds a single-use link) is erased once
-- the message is sent or given up
CREATE TABLE outbox (
    id              TEXT PRIMARY KEY,
    recipient       TEXT NOT NULL,
    subject         TEXT NOT NULL,
    body            TEXT NOT NULL,
    created_at      BIGINT NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    next_attempt_at BIGINT NOT NULL,
    claimed_until   BIGINT,
    sent_at         BIGINT,
    failed_at       BIGINT,
    last_error      TEXT
);
CREATE INDEX outbox_due ON outbox (sent_at, failed_at, next_attempt_at);
-- the per-recipient hourly limit
CREATE INDEX outbox_by_recipient ON outbox (recipient, created_at);
