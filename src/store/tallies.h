#ifndef WHISTLE_STORE_TALLIES_H
#define WHISTLE_STORE_TALLIES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "domain/model.h"
#include "store/store.h"

/*
 * The process's copy of the Fan Verdict tallies (issue 13; store/fragments.h): every
 * incident's tally rows summed over their slots, per question version, in memory. A list page
 * of incidents that no cache holds then reads each one's fragment and takes its tallies from
 * here, where it read the tallies' b-tree too (at a million incidents a page from the kernel's
 * cache past SQLite's map per incident: about 2 ms of a cold page of 100; on PostgreSQL a
 * probe of the tallies' index per incident in the same statement).
 *
 * It follows the database through a change feed that every write of vote_tallies, by any
 * connection, process or node, appends to in its own transaction:
 * - SQLite (migration 029): the incident under the next number of tally_log (the log keeps
 *   the last million). SQLite has one writer, so numbers follow commit order; the copy knows
 *   the largest number it has applied and the store's versions (store_data_version: content,
 *   tally) it read in the same snapshot.
 * - PostgreSQL (migration 031): the incident under the writing transaction's ID. Writers
 *   commit in any order, so the copy keeps the snapshot it last read the log in, and the
 *   changes since are the rows of the transactions that snapshot did not see (at or past its
 *   xmax, or in progress then). A catch-up runs after the caller read its versions at, so its
 *   snapshot holds every write up to at: the copy then holds at. The worker trims the log
 *   (tallies_prune); a copy whose snapshot is older than what was trimmed reads it all again.
 * A read at versions v uses the copy only when it holds v (tallies_cover): every write that
 * moved a version up to v, ballots and whatever else writes tallies, is in it. When it holds
 * less, the request's thread applies the log since in one statement (bounded: more than
 * TALLIES_CATCH_UP entries behind, or past what the log still keeps, the copy is read again
 * whole, on the loading thread), unless another thread is doing so, and then reads the
 * tallies from the database as before. A hand edit of vote_tallies moves no version: it
 * reaches the copy with the next write that does (as it reaches the response cache,
 * docs/operators.md).
 *
 * Memory: about 125 bytes an incident with tallies (a million: 120 MiB), at most max_bytes;
 * past it the copy is dropped and every read takes its tallies from the database.
 */

/* The log entries one request's thread applies at most; further behind, the copy is read whole
 * by the loading thread. */
#define TALLIES_CATCH_UP 4096

/* Starts the copy for the database at uri with at most max_bytes (0: none) and its loading
 * thread. Call once, before the threads that read start. */
void tallies_setup(const char *uri, size_t max_bytes);
/* The tests: an empty copy of at most max_bytes (0: none) without a thread, then loaded on s
 * (tallies_load); a catch-up applies at most catch_up log entries (0: TALLIES_CATCH_UP), past which
 * nothing answers until tallies_load. */
void tallies_setup_empty(size_t max_bytes, size_t catch_up);
/* Reads every tally and the versions in one snapshot on s, replacing the copy: 0, or a
 * negative store_rc (the copy is then not used until it loads). */
int tallies_load(struct store *s);
bool tallies_enabled(void);
/* Whether the copy holds at least versions at (catching up on s when it holds less, unless
 * another thread is): true when tallies_get may answer for a read at those versions. at must
 * have been read before s's snapshot (not inside a transaction begun before at was read). */
bool tallies_cover(struct store *s, const uint64_t at[2]);
/* The tallies of incident id's question version qv into *v (zeros with none): false when the
 * copy cannot say (a count past its width, no copy), and then *v is untouched. */
bool tallies_get(const char *id, int64_t qv, struct votes *v);
/* Incidents answered from the copy, catch-ups run, reads that found it behind (and read the
 * database), whole loads, incidents and bytes held, whether it holds the database: GET
 * /metrics, the log. */
struct tallies_counts {
    int64_t hits, catch_ups, behind, loads;
    size_t entries, bytes;
    bool loaded;
};
void tallies_counts(struct tallies_counts *c);

/* How many transaction IDs of PostgreSQL's log the worker's housekeeping keeps before the
 * oldest transaction running (a node further behind reads its copy again). */
#define TALLIES_LOG_KEEP_XIDS 1000000
/* Housekeeping: deletes PostgreSQL's log rows of transactions more than keep IDs before the
 * oldest one running and moves the log's horizon just past the largest it deleted; with none
 * to delete it writes nothing (no version moves). SQLite's log trims itself: nothing to do.
 * 0 or a negative store_rc. */
int tallies_prune(struct store *s, int64_t keep);

#endif
