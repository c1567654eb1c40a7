-- 018: cache versions (issue 20 item 5, http/cache.h, store.h store_data_version). The
-- response cache of every node is validated by two numbers: the content version, moved by
-- every committed write but the ballots, and the tally version, moved by every ballot. A
-- ballot then leaves cached bodies without that incident's tallies valid.
--
-- SQLite (one writer): two rows bumped inside the write transaction. PostgreSQL: two
-- sequences bumped right after COMMIT (store/pg.c), which takes no lock; the rows are unused
-- there. A hand edit behind Whistle's back moves neither: docs/operators.md.
CREATE TABLE cache_versions (
    name TEXT PRIMARY KEY,
    n    BIGINT NOT NULL DEFAULT 0
);
INSERT INTO cache_versions (name) VALUES ('content'), ('tally');

-- @postgresql-only
-- setval: last_value reads 1 both before and after the first nextval (is_called), so start
-- past it
CREATE SEQUENCE whistle_content_seq;
CREATE SEQUENCE whistle_tally_seq;
SELECT setval('whistle_content_seq', 1), setval('whistle_tally_seq', 1);
