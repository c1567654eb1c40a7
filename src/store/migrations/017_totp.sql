-- 017: optional TOTP two-factor sign-in for staff accounts (issue 16; docs/accounts.md).
-- One secret per account: pending (enabled 0) from enrolment until a code confirms it.
-- last_step is the time step of the last code accepted: a code is used once (domain/totp.h).
-- Portable dialect.
CREATE TABLE account_totp (
    account_id TEXT PRIMARY KEY REFERENCES accounts (id),
    secret     TEXT NOT NULL,
    enabled    INTEGER NOT NULL DEFAULT 0,
    created_at BIGINT NOT NULL,
    last_step  BIGINT
);

-- A sign-in whose password was right and whose code is awaited: a random token (only its
-- SHA-256 stored) that the code form carries, single use, short-lived.
CREATE TABLE signin_challenges (
    token_hash TEXT PRIMARY KEY,
    account_id TEXT NOT NULL REFERENCES accounts (id),
    created_at BIGINT NOT NULL,
    expires_at BIGINT NOT NULL,
    used_at    BIGINT
);
CREATE INDEX signin_challenges_by_expiry ON signin_challenges (expires_at);
