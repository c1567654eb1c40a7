-- 029: the change feed of the Fan Verdict tallies (issue 13, store/tallies.h). A SQLite
-- process keeps a copy of every incident's tallies in memory, so that a list page of incidents
-- no cache holds reads each one's fragment and not its tally rows too (at a million incidents
-- those are pages from the kernel's cache past SQLite's map: about 2 ms of a cold page of
-- 100). The copy follows the database through this table:
--   * tally_marks holds one row per incident whose tally rows were ever written, with the
--     sequence number of the last write: every insert, update and delete of vote_tallies, by
--     any writer (a ballot, an import, a merge, a hand edit in sqlite3), sets it to one more
--     than the largest, in the writer's own transaction. SQLite has one writer at a time, so
--     the numbers follow commit order: a reader that has applied every mark up to n in one
--     snapshot has every change up to n, and asks for the marks above n next time.
--   * The table is bounded by the incidents (a row is replaced, never added twice), so it
--     needs no pruning; its index on seq finds the marks above n in one descent.
-- Nothing is copied: the process reads every tally once at start, then the marks above the
-- largest it read then.

-- @sqlite-only (PostgreSQL's reads take the tallies with the facts, store/fragments.c)
CREATE TABLE tally_marks (
    incident_id TEXT PRIMARY KEY,
    seq         INTEGER NOT NULL
) WITHOUT ROWID;
CREATE INDEX tally_marks_by_seq ON tally_marks (seq);
-- (an upsert, not INSERT OR REPLACE: a trigger's conflict clause gives way to the outer
-- statement's, and the ballot's own upsert of its tally row would make a REPLACE an ABORT)
CREATE TRIGGER tally_mark_insert AFTER INSERT ON vote_tallies BEGIN
    INSERT INTO tally_marks (incident_id, seq)
        VALUES (NEW.incident_id, (SELECT coalesce(max(seq), 0) + 1 FROM tally_marks))
        ON CONFLICT (incident_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER tally_mark_update AFTER UPDATE ON vote_tallies BEGIN
    INSERT INTO tally_marks (incident_id, seq)
        VALUES (OLD.incident_id, (SELECT coalesce(max(seq), 0) + 1 FROM tally_marks))
        ON CONFLICT (incident_id) DO UPDATE SET seq = excluded.seq;
    INSERT INTO tally_marks (incident_id, seq)
        SELECT NEW.incident_id, (SELECT coalesce(max(seq), 0) + 1 FROM tally_marks)
        WHERE NEW.incident_id IS NOT OLD.incident_id
        ON CONFLICT (incident_id) DO UPDATE SET seq = excluded.seq;
END;
CREATE TRIGGER tally_mark_delete AFTER DELETE ON vote_tallies BEGIN
    INSERT INTO tally_marks (incident_id, seq)
        VALUES (OLD.incident_id, (SELECT coalesce(max(seq), 0) + 1 FROM tally_marks))
        ON CONFLICT (incident_id) DO UPDATE SET seq = excluded.seq;
END;

-- @postgresql-only (nothing yet)
SELECT 1;
