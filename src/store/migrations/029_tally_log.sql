-- 029: the change feed of the Fan Verdict tallies (issue 13, store/tallies.h). A SQLite
-- process keeps a copy of every incident's tallies in memory, so that a list page of incidents
-- no cache holds reads each one's fragment and not its tally rows too (at a million incidents
-- those are pages from the kernel's cache past SQLite's map: about 2 ms of a cold page of
-- 100). The copy follows the database through this table:
--   * tally_log gets a row, the incident's ID under the next sequence number (its rowid: one
--     more than the largest), for every insert, update and delete of vote_tallies, by any
--     writer (a ballot, an import, a merge, a hand edit in sqlite3), in the writer's own
--     transaction. SQLite has one writer at a time, so the numbers follow commit order: a
--     reader that has applied every row up to n in one snapshot has every change up to n, and
--     asks for the rows above n next time.
--   * Each row takes out the one a million before it: the log keeps the last million changes
--     (a few minutes of the busiest debate), an append at its right end and a delete at its
--     left, both on pages every ballot touches. A process further behind reads every tally
--     again (the log's smallest number tells it).
-- Nothing is copied: a process reads every tally once at start, then the log above the
-- largest number it read then.

-- @sqlite-only (PostgreSQL's reads take the tallies with the facts, store/fragments.c)
CREATE TABLE tally_log (
    seq         INTEGER PRIMARY KEY,
    incident_id TEXT NOT NULL
);
CREATE TRIGGER tally_log_insert AFTER INSERT ON vote_tallies BEGIN
    INSERT INTO tally_log (incident_id) VALUES (NEW.incident_id);
    DELETE FROM tally_log WHERE seq = (SELECT max(seq) FROM tally_log) - 1000000;
END;
CREATE TRIGGER tally_log_update AFTER UPDATE ON vote_tallies BEGIN
    INSERT INTO tally_log (incident_id) VALUES (OLD.incident_id);
    INSERT INTO tally_log (incident_id) SELECT NEW.incident_id
        WHERE NEW.incident_id IS NOT OLD.incident_id;
    DELETE FROM tally_log WHERE seq <= (SELECT max(seq) FROM tally_log) - 1000000
        AND seq > (SELECT max(seq) FROM tally_log) - 1000002;
END;
CREATE TRIGGER tally_log_delete AFTER DELETE ON vote_tallies BEGIN
    INSERT INTO tally_log (incident_id) VALUES (OLD.incident_id);
    DELETE FROM tally_log WHERE seq = (SELECT max(seq) FROM tally_log) - 1000000;
END;

-- @postgresql-only (nothing yet)
SELECT 1;
