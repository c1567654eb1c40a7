-- 030: SQLite's fragments compressed (issue 13, store/fragcodec.h). A fragment's body is about
-- 4 KiB of JSON, so each row took a b-tree leaf and an overflow page of its own: at a million
-- incidents 8 GB that the kernel's page cache does not keep whole, two cold pages for every
-- incident a list page had not read. Stored compressed (LZ4, against a dictionary of the
-- first bodies) a body takes about 400 bytes: ten to a page, the table a tenth of the size.
--   * fragment_dicts holds the dictionaries: 32 KiB of stored bodies as they were, under a
--     random 63-bit ID (unique across databases, so that a process's copy of a dictionary is
--     never taken for another database's). The first writer that finds none and 8 plain
--     bodies stored makes one, in its transaction; a dictionary is never changed or removed.
--   * incident_fragments.body stays the column: TEXT is a plain body (as before, and still
--     read), a BLOB the compressed one: a byte 1, the dictionary's ID, the plain length and
--     LZ4's block. `whistle migrate` compresses the plain ones (docs/operators.md).

-- @sqlite-only
CREATE TABLE fragment_dicts (
    id   INTEGER PRIMARY KEY,
    dict BLOB NOT NULL
);

-- @postgresql-only (nothing: a PostgreSQL node keeps its own compressed copy, store/bodies.h)
SELECT 1;
