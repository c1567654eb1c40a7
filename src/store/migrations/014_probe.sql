-- 014: the write probe of GET /readyz (issue 14 item 8). /readyz updates this
-- one row in a transaction it rolls back (store_write_probe), so a database that takes no
-- writes (default_transaction_read_only, a standby) makes the node unready. The table holds
-- one row for ever.
CREATE TABLE store_probe (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    n  BIGINT NOT NULL
);
INSERT INTO store_probe (id, n) VALUES (1, 0);
