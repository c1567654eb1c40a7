-- 027: PostgreSQL's fragments carry the facts a read needs (issue 13, store/fragments.h), as
-- SQLite's have since 026: a page of incidents that no cache holds then reads each one's
-- fragment row and tally rows by ID, without the incident's row (one index descent and one
-- heap fetch fewer an incident, and no lateral subquery: 100 cold incidents at a million
-- cost PostgreSQL 6.0-8.4 ms before and 4.8 after, BENCHMARKS.md session 27).
--   * visibility, slug, duplicate_of and question_version are the incident's as they were
--     when the fragment was rendered: a trigger copies them from the incident's row in the
--     statement that stores the body, whatever wrote it (so a node of the previous release,
--     during a rolling upgrade, stores them too). A change to any of them marks the fragment
--     stale in its transaction (023's triggers), and a reader uses a fragment only when no
--     stale row names it, so they are true whenever it is used.
--   * comment_count moves without making the fragment stale (it is spliced in at read time):
--     a trigger on the incident keeps it, in the same transaction as the incident's, as an
--     upsert; a row with no body yet (an incident not rendered) holds only the count. A new
--     row's count is copied from the incident with its facts; a body stored over an existing
--     row leaves the count alone. Either order of a render and a comment then ends with the
--     comment's count: whichever writes the row second waits for the first's commit, and a
--     render that comes second keeps the count the comment wrote.
-- The table is copied rather than altered in place, so that it stays one row version per
-- incident on its pages (21 s at a million incidents).
-- And the stale list's vacuums always clean its index: the list is a queue (a million rows
-- inserted and deleted by a migration's render, a few by each write), and PostgreSQL skips
-- an index's cleanup when under 2 % of the table's pages hold dead rows. The entries left
-- behind were walked by every read's check of the list (after a million renders, 494 index
-- pages and half a millisecond a page of incidents, for a list with no row).

-- @sqlite-only (nothing: 026 did this on SQLite)
SELECT 1;

-- @postgresql-only
CREATE TABLE incident_fragments_027 (
    incident_id      TEXT PRIMARY KEY,
    visibility       TEXT,
    slug             TEXT,
    duplicate_of     TEXT,
    question_version BIGINT,
    comment_count    BIGINT NOT NULL DEFAULT 0,
    body             TEXT -- NULL: no fragment yet (the row holds the comment count alone)
);
INSERT INTO incident_fragments_027 (incident_id, visibility, slug, duplicate_of,
                                    question_version, comment_count, body)
    SELECT i.id, i.visibility, i.slug, i.duplicate_of, i.question_version, i.comment_count,
           f.body
    FROM incident_fragments f JOIN incidents i ON i.id = f.incident_id;
DROP TABLE incident_fragments;
ALTER TABLE incident_fragments_027 RENAME TO incident_fragments;
ALTER INDEX incident_fragments_027_pkey RENAME TO incident_fragments_pkey;
ANALYZE incident_fragments;

CREATE FUNCTION whistle_fragment_facts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    comments BIGINT;
BEGIN
    SELECT i.visibility, i.slug, i.duplicate_of, i.question_version, i.comment_count
        INTO NEW.visibility, NEW.slug, NEW.duplicate_of, NEW.question_version, comments
        FROM incidents i WHERE i.id = NEW.incident_id;
    IF TG_OP = 'INSERT' THEN
        NEW.comment_count := coalesce(comments, 0);
    END IF;
    RETURN NEW;
END $$;
CREATE TRIGGER fragment_facts BEFORE INSERT OR UPDATE OF body ON incident_fragments
    FOR EACH ROW WHEN (NEW.body IS NOT NULL) EXECUTE FUNCTION whistle_fragment_facts();

CREATE FUNCTION whistle_fragment_comment_count() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO incident_fragments (incident_id, comment_count)
        VALUES (NEW.id, NEW.comment_count)
        ON CONFLICT (incident_id) DO UPDATE SET comment_count = excluded.comment_count;
    RETURN NULL;
END $$;
CREATE TRIGGER fragment_comment_count AFTER UPDATE OF comment_count ON incidents
    FOR EACH ROW WHEN (OLD.comment_count IS DISTINCT FROM NEW.comment_count)
    EXECUTE FUNCTION whistle_fragment_comment_count();

ALTER TABLE fragment_stale SET (vacuum_index_cleanup = on);
