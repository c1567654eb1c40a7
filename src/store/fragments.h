#ifndef WHISTLE_STORE_FRAGMENTS_H
#define WHISTLE_STORE_FRAGMENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "domain/model.h"
#include "store/store.h"
#include "util/arena.h"

/*
 * Pre-rendered incident fragments (migration 023, issue 13): the JSON of an incident as the
 * API shows it (api/render.h render_incident_fragment), without its tallies and comment
 * count. A fragment is valid while no fragment_stale row names its incident; the
 * database's triggers insert that row in the same transaction as every change to what it
 * shows, so a reader never gets a stale one, on any node.
 */

/* What one read of an incident by ID finds: the facts the visibility rule needs, the live
 * parts (comment count, the current question version's tallies), and the valid fragment if
 * any. Arena-owned. */
struct incident_facts {
    const char *id;
    bool found; /* the incident exists */
    const char *visibility, *slug, *duplicate_of;
    const char *survivor_slug, *survivor_visibility; /* a merged duplicate's survivor */
    int64_t comment_count;
    int64_t question_version; /* STORE_NULL_INT when the incident has no question */
    struct votes votes;       /* zero without a question */
    const char *fragment;     /* NULL when none is valid */
    size_t fragment_len;
    /* with list (fragments_read): the incident's list form as the API writes it (the base URL,
     * comment count and tallies in place), kept with the cache's entry by fragments_keep_list,
     * instead of the fragment; NULL when the entry holds none */
    const char *list_json;
    size_t list_len;
    bool from_cache; /* answered by the cache (else by the statement, and kept in it) */
    /* PostgreSQL's keyed read: the fragment's body hash (migration 028), when hashed */
    bool hashed;
    int64_t body_hash;
};

/* The facts of n incidents by ID in one statement, one snapshot without a transaction
 * (out[i] for ids[i]). The tallies read are not told to the tally watcher
 * (store/incidents.h): the caller says which it shows (incidents_tallies_shown). 0 or a
 * negative store_rc.
 *
 * at: the store's versions (store_data_version: content, tally) read before this read, or
 * NULL. With them and the process's cache (fragments_cache_setup), an incident whose facts
 * and fragment were read at exactly those versions is answered from memory, and the others
 * from the statement, then kept under those versions. Every committed write but a ballot
 * moves the content version, every ballot the tally version, on every node (the response
 * cache's rule, http/cache.h): an entry is never used once anything it holds may have
 * changed. A fragment rebuilt after a write moves no version, but the write before it did.
 * Versions read before the data they tag make an entry at worst older than its tag says,
 * never newer: a request that read newer versions does not use it.
 *
 * keys: NULL, or each incident's key from the list index (listindex_ids: its SQLite rowid).
 * With keys on SQLite, the incidents a cache does not answer are read by key first, in one
 * statement that reads a valid fragment's own copy of the facts and no incident row or ID
 * index (migration 026), and those without a valid fragment under their key (stale, not
 * rendered, a key that is no longer theirs) by ID in a second: each incident's facts are
 * one snapshot's, a page's at most two. On PostgreSQL (keys ignored) the same by ID: the
 * valid fragments with their own copy of the facts and the incidents' tally rows in one
 * statement (migration 027), then the others through their incidents' rows. Once the node's
 * copy of the bodies has loaded (store/bodies.h), that statement reads each body's hash
 * instead of the body (migration 028): the bodies come from the copy under those hashes, and
 * those it lacks from a second statement, each only while its hash is still the one read. */
int fragments_read(struct store *s, struct arena *a, const uint64_t *at, const char *const *ids,
                   const int64_t *keys, size_t n, bool list, struct incident_facts *out);
/* The statement fragments_read reads by ID with on the driver (pg: PostgreSQL's), up to its
 * ID column (store_select_ids appends the condition): its columns are the ID, visibility,
 * slug, duplicate_of, the survivor's slug and visibility, comment count, question version,
 * the valid fragment, and one tally row's rooting, correct, incorrect and unsure; a row for
 * each of the current question's tally rows, or one. On PostgreSQL only the first of an
 * incident's rows carries its fragment. For the tests that check what it sends. */
const char *fragments_facts_sql(bool pg);
/* The facts of n incidents through that statement alone, by ID and the incident's row: no
 * cache, no read from the fragments' own copy of the facts. What the tests compare
 * fragments_read with. 0 or a negative store_rc. */
int fragments_read_rows(struct store *s, struct arena *a, const char *const *ids, size_t n,
                        struct incident_facts *out);
/* Keeps json (len bytes), the list form the API wrote for incident id from what
 * fragments_read answered at versions at, with the cache's entry of id read at exactly those
 * versions (nothing when there is none, or it holds one already): a later fragments_read with
 * list at those versions answers it instead of the fragment, and no version move ever lets it
 * be used again (it goes with its entry). The bytes are a pure function of the entry and the
 * process's base URL (one per process). */
void fragments_keep_list(const uint64_t at[2], const char *id, const char *json, size_t len);

/* The process's cache of fragments_read's answers, of at most max_bytes (0: none; the
 * oldest go first, but one read since it last came round is kept a second time), emptied.
 * At start-up, before any read (whistle serve --fragment-cache-mb; a test between two
 * databases); without it nothing is cached (CLI commands). One process, one database: the
 * versions tell the states of one store apart. */
void fragments_cache_setup(size_t max_bytes);
/* An incident read from the database is kept only on its second read within a window (the
 * doorkeeper: a walk over incidents read once neither costs a copy each nor pushes out those
 * read often); on by default. Off, every read is kept: the tests of the cache's own rules. */
void fragments_cache_doorkeeper(bool on);
/* Whether fragments_cache_setup made a cache. */
bool fragments_cache_enabled(void);
/* Incidents answered from the cache and not, and the bytes it holds (GET /metrics). */
void fragments_cache_counts(int64_t *hits, int64_t *misses, size_t *bytes);

/* Up to max incident IDs whose fragment is stale or missing. 0 or a negative store_rc. */
int fragments_stale(struct store *s, struct arena *a, size_t max, const char ***ids, size_t *n);
/* Inside a write transaction: takes the incident off the stale list; 1 taken (this
 * transaction renders it), 0 another took it, or a negative store_rc. */
int fragments_claim(struct store *s, const char *id);
/* Stores the fragment of an incident (a NUL-terminated body); body NULL removes it. On
 * SQLite compressed once the database has a dictionary (store/fragcodec.h). */
int fragments_put(struct store *s, const char *id, const char *body);
/* SQLite: compresses the fragments stored plain (before migration 030, or before the
 * database had a dictionary), 256 a write transaction that moves no version; *done of them.
 * Stops early when none can be (fewer than 8 bodies stored). 0 or a negative store_rc. */
int fragments_compress(struct store *s, size_t *done);
/* SQLite: the fragments' table written again in key order, so that rows compressed in place
 * share pages (SQLite does not merge the pages an update shrinks: a million compressed in
 * place kept their million leaves). One write transaction that moves no version; the table's
 * definition is its own (sqlite_master). 0 or a negative store_rc. */
int fragments_pack(struct store *s);

#endif
