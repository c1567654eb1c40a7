-- 003: server settings (the cookie secret) and ballot rate-limit events.

CREATE TABLE settings (
    name  TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

-- one row per accepted ballot and subject ("voter:<hash>" or "ip:<hash>"), for the
-- per-voter and per-address ballot rate limits; rows older than the window are pruned
CREATE TABLE vote_events (
    subject TEXT NOT NULL,
    at      BIGINT NOT NULL
);
CREATE INDEX vote_events_by_subject ON vote_events (subject, at);
