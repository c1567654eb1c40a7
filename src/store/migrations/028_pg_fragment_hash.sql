-- 028: each PostgreSQL fragment carries its body's hash (issue 13, store/bodies.h): a node
-- keeps the bodies it has seen, compressed, under their incident and hash, and a page of
-- incidents asks PostgreSQL for the facts, tallies and hashes alone, taking each body from
-- the node's copy when the hash is the one it read (a page of 100 that no cache holds sent
-- 400 KB of bodies, half of the statement's time, BENCHMARKS.md session 28).
--   * body_hash is hashtextextended(body, 0), PostgreSQL's own 64-bit hash of the text, set
--     by the trigger that copies the facts, in the statement that stores the body, whatever
--     wrote it. A body and its hash are one row version, so a reader that takes the hash
--     with the facts (no stale row names the fragment) knows the body it stands for.
--   * It stands before the body, so that a read of it never deforms the body.
-- The table is copied, as in 027 (one row version per incident on its pages).

-- @sqlite-only (nothing: the node's copy of the bodies is PostgreSQL's)
SELECT 1;

-- @postgresql-only
CREATE TABLE incident_fragments_028 (
    incident_id      TEXT PRIMARY KEY,
    visibility       TEXT,
    slug             TEXT,
    duplicate_of     TEXT,
    question_version BIGINT,
    comment_count    BIGINT NOT NULL DEFAULT 0,
    body_hash        BIGINT, -- hashtextextended(body, 0); NULL with no body
    body             TEXT    -- NULL: no fragment yet (the row holds the comment count alone)
);
INSERT INTO incident_fragments_028 (incident_id, visibility, slug, duplicate_of,
                                    question_version, comment_count, body_hash, body)
    SELECT incident_id, visibility, slug, duplicate_of, question_version, comment_count,
           hashtextextended(body, 0), body
    FROM incident_fragments;
DROP TABLE incident_fragments;
ALTER TABLE incident_fragments_028 RENAME TO incident_fragments;
ALTER INDEX incident_fragments_028_pkey RENAME TO incident_fragments_pkey;
ANALYZE incident_fragments;

CREATE OR REPLACE FUNCTION whistle_fragment_facts() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    comments BIGINT;
BEGIN
    SELECT i.visibility, i.slug, i.duplicate_of, i.question_version, i.comment_count
        INTO NEW.visibility, NEW.slug, NEW.duplicate_of, NEW.question_version, comments
        FROM incidents i WHERE i.id = NEW.incident_id;
    IF TG_OP = 'INSERT' THEN
        NEW.comment_count := coalesce(comments, 0);
    END IF;
    NEW.body_hash := hashtextextended(NEW.body, 0);
    RETURN NEW;
END $$;
-- the triggers went with the table they were on; the comment count's is on incidents
CREATE TRIGGER fragment_facts BEFORE INSERT OR UPDATE OF body ON incident_fragments
    FOR EACH ROW WHEN (NEW.body IS NOT NULL) EXECUTE FUNCTION whistle_fragment_facts();
