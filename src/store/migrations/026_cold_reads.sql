-- 026: fewer b-tree pages per incident a list reads (issue 13, store/fragments.h). On SQLite
-- an incident that no cache holds cost about six cold pages: the incidents' ID index and its
-- row, the fragments' ID index and its row, the tallies' index and their rows. Here:
--   * vote_tallies is kept WITHOUT ROWID: an incident's few tally rows are one b-tree's
--     leaf, found in one descent (the rows are small, so none overflows);
--   * a fragment is keyed by its incident's rowid (n), and carries the facts the visibility
--     rule reads (visibility, slug, duplicate_of, question_version, as they were when it was
--     rendered, which the stale list's triggers keep true while the fragment is valid) and
--     the comment count (kept by the trigger below in the same transaction as the incident's).
-- A list page from the list index (which holds each incident's rowid) then reads a fragment
-- and its tallies by key, without touching the incident's row or any ID index. A reader
-- uses a fragment only when its row names the incident it expects (incident_id) and no
-- stale row names it; anything else (a rowid VACUUM renumbered, a stale or missing
-- fragment) is read by ID, as on PostgreSQL, where nothing here changes.
-- This migration copies every fragment: minutes at a million incidents (docs/operators.md).

-- @sqlite-only (store/migrate.c: SQLite alone)
ALTER TABLE vote_tallies RENAME TO vote_tallies_025;
CREATE TABLE vote_tallies (
    incident_id      TEXT NOT NULL REFERENCES incidents (id),
    question_version INTEGER NOT NULL,
    rooting          TEXT NOT NULL CHECK (rooting IN ('home', 'away', 'neutral', 'undisclosed',
                                                      'unspecified')),
    slot             INTEGER NOT NULL DEFAULT 0,
    correct          BIGINT NOT NULL DEFAULT 0,
    incorrect        BIGINT NOT NULL DEFAULT 0,
    unsure           BIGINT NOT NULL DEFAULT 0,
    PRIMARY KEY (incident_id, question_version, rooting, slot)
) WITHOUT ROWID;
INSERT INTO vote_tallies (incident_id, question_version, rooting, slot, correct, incorrect,
                          unsure)
    SELECT incident_id, question_version, rooting, slot, correct, incorrect, unsure
    FROM vote_tallies_025 ORDER BY incident_id, question_version, rooting, slot;
DROP TABLE vote_tallies_025;

ALTER TABLE incident_fragments RENAME TO incident_fragments_025;
CREATE TABLE incident_fragments (
    n                INTEGER PRIMARY KEY, -- the incident's rowid
    incident_id      TEXT NOT NULL,
    visibility       TEXT NOT NULL,
    slug             TEXT,
    duplicate_of     TEXT,
    question_version INTEGER,
    comment_count    INTEGER NOT NULL,
    body             TEXT NOT NULL
);
-- in the incidents' rowid order: the new table is written in key order, without a sort
INSERT INTO incident_fragments (n, incident_id, visibility, slug, duplicate_of,
                                question_version, comment_count, body)
    SELECT i.rowid, i.id, i.visibility, i.slug, i.duplicate_of, i.question_version,
           i.comment_count, f.body
    FROM incidents i CROSS JOIN incident_fragments_025 f ON f.incident_id = i.id
    ORDER BY i.rowid;
DROP TABLE incident_fragments_025;

-- the comment count moves without making the fragment stale (it is spliced in at read time)
CREATE TRIGGER fragment_comment_count AFTER UPDATE OF comment_count ON incidents BEGIN
    UPDATE incident_fragments SET comment_count = NEW.comment_count
        WHERE n = NEW.rowid AND incident_id = NEW.id;
END;

-- @postgresql-only (nothing: PostgreSQL reads by ID; its tables are heaps with indexes)
SELECT 1;
