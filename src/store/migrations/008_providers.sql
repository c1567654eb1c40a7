-- Games from providers (issue 17, docs/games.md): one row per provider source that the
-- worker's games-refresh task keeps current. The claim (next_at moved forward in one
-- conditional UPDATE) lets any number of workers share the schedule; the validators make
-- the next fetch conditional (If-None-Match / If-Modified-Since).
CREATE TABLE provider_sources (
    source         TEXT PRIMARY KEY, -- "nflverse <url or file>", "cfbd <season>"
    etag           TEXT,
    last_modified  TEXT,
    next_at        BIGINT NOT NULL DEFAULT 0, -- not before (microseconds since the epoch)
    checked_at     BIGINT,                    -- last attempt
    synced_at      BIGINT,                    -- last successful sync
    failures       INTEGER NOT NULL DEFAULT 0, -- consecutive failed attempts
    last_outcome   TEXT                       -- the status line of the last attempt
);

-- the provider a game came from (NULL: imported): a sync compares and marks vanished only
-- its own games, whatever their IDs look like
ALTER TABLE games ADD COLUMN provider TEXT;
CREATE INDEX games_by_provider ON games (provider, season);
