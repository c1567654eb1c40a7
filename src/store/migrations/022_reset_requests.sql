-- 022: password-reset requests queued by POST /account/forgot (issue 14 item 8;
-- docs/accounts.md). The request writes one row of this shape for every address typed,
-- registered or not, and returns: the same work either way. The worker's mail lane
-- (worker/outbox.c) takes the oldest row, deletes it, and for an address with an account
-- that is not banned derives the link and queues the email; for any other address it only
-- deletes the row. A row not taken within the link's lifetime (1 hour) is deleted unused.
-- Portable dialect.
CREATE TABLE reset_requests (
    id         TEXT PRIMARY KEY,
    email      TEXT NOT NULL, -- the typed address, normalized (domain/account.c)
    created_at BIGINT NOT NULL
);
CREATE INDEX reset_requests_by_age ON reset_requests (created_at, id);
