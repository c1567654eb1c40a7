-- 031: the change feed of the Fan Verdict tallies on PostgreSQL (issue 13, store/tallies.h).
-- A node keeps a copy of every incident's tallies in memory, as a SQLite process does
-- (migration 029), so that a list page of incidents no cache holds reads each one's fragment
-- and not its tally rows too. SQLite's log is numbered in commit order because SQLite has one
-- writer; here many transactions write at once and commit in any order, so a number handed
-- out when a row is written says nothing about when it becomes visible. The log records the
-- writing transaction instead:
--   * tally_log gets a row, the transaction's ID (pg_current_xact_id()) and the incident's,
--     for every insert, update and delete of vote_tallies, by any writer (a ballot, an
--     import, a merge, a hand edit in psql), in the writer's own transaction.
--   * A node remembers the snapshot (pg_current_snapshot()) in which it last read the log.
--     The changes since are exactly the rows of transactions that snapshot did not see:
--     those with an ID at or past its xmax, and those it lists as in progress (its xip). Both
--     are ranges of the index on xid, so a catch-up reads what changed and nothing else,
--     whatever order the writers committed in.
--   * The worker's housekeeping (once a minute) deletes the rows of transactions more than a
--     million IDs before the oldest one still running, and moves tally_log_horizon just past
--     the largest ID it deleted, in the same transaction (nothing to delete: nothing written).
--     A node whose last snapshot's xmin is below the horizon may have missed a deleted row: it
--     reads every tally again.

-- @postgresql-only (SQLite's feed is migration 029)
CREATE TABLE tally_log (
    xid         xid8 NOT NULL,
    incident_id TEXT NOT NULL
);
CREATE INDEX tally_log_xid ON tally_log (xid);
CREATE TABLE tally_log_horizon (
    id  INTEGER PRIMARY KEY CHECK (id = 1),
    xid xid8 NOT NULL
);
INSERT INTO tally_log_horizon (id, xid) VALUES (1, '0');
CREATE FUNCTION whistle_tally_log() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP <> 'DELETE' THEN
        INSERT INTO tally_log (xid, incident_id) VALUES (pg_current_xact_id(), NEW.incident_id);
    END IF;
    IF TG_OP = 'DELETE' OR (TG_OP = 'UPDATE' AND NEW.incident_id IS DISTINCT FROM OLD.incident_id) THEN
        INSERT INTO tally_log (xid, incident_id) VALUES (pg_current_xact_id(), OLD.incident_id);
    END IF;
    RETURN NULL;
END
$$;
CREATE TRIGGER tally_log AFTER INSERT OR UPDATE OR DELETE ON vote_tallies
    FOR EACH ROW EXECUTE FUNCTION whistle_tally_log();
