#ifndef WHISTLE_STORE_BODIES_H
#define WHISTLE_STORE_BODIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/arena.h"

/*
 * The process's copy of the fragments' bodies (PostgreSQL, issue 13; store/fragments.h): each
 * incident's pre-rendered JSON as last seen, compressed (LZ4, with a dictionary of the first
 * bodies the process saw: a fragment is mostly the keys and URLs every other one has, about
 * 4 KiB in 384 bytes, decompressed in under a microsecond), under its incident's ID and the body's
 * hash (migration 028: hashtextextended(body, 0), kept by the database's trigger in the statement
 * that stores the body). A read asks PostgreSQL for a page's facts, tallies and hashes without the
 * bodies, and takes each body from here when the hash is the one it read, so that a page of 100
 * incidents no cache holds costs PostgreSQL a hundred small rows, not 400 KB of bodies.
 *
 * What makes an entry right is the hash alone, read in the same statement as the facts that
 * say the fragment is valid (no stale row names it): a body stored here is the text that had
 * that hash, whatever the versions were then, so writes and ballots leave the copy as it is
 * (where the fragments' cache is keyed by the versions and starts afresh at each move). A
 * hash collision between two renders of one incident (2^-64) is the only way to a wrong body.
 *
 * bodies_setup (whistle serve) loads every body on a thread of its own, then keeps what the
 * reads bring; at most max_bytes (the least used go first). Without it nothing is kept and
 * every read takes its bodies from the database, as before (the CLI, SQLite).
 */

/* Starts the copy for the PostgreSQL database at uri with at most max_bytes (0, or a SQLite
 * uri: none) and its loading thread. Call once, before the threads that read start. */
void bodies_setup(const char *uri, size_t max_bytes);
/* An empty copy of at most max_bytes without a loading thread (the tests); 0: none. */
void bodies_setup_empty(size_t max_bytes);
bool bodies_enabled(void);
/* Whether the loading thread is done (or there is none: bodies_setup_empty): from then on a
 * read asks PostgreSQL for the hashes alone and the bodies the copy has not. */
bool bodies_loaded(void);
/* The tests' switch between the two: as while the copy loads, or as once it has. */
void bodies_set_loaded(bool done);
/* The body of incident id whose hash is hash, decompressed into a (NUL-terminated): true with
 * *body and *len, false when the copy holds none with that hash. */
bool bodies_get(struct arena *a, const char *id, int64_t hash, const char **body, size_t *len);
/* Keeps body (len bytes) as incident id's, whose hash the database read as hash. */
void bodies_put(const char *id, int64_t hash, const char *body, size_t len);
/* Bodies answered and not, entries, bytes held, and whether the loading is done: GET
 * /metrics, the log. */
void bodies_counts(int64_t *hits, int64_t *misses, size_t *entries, size_t *bytes, bool *loaded);

#endif
