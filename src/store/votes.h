#ifndef WHISTLE_STORE_VOTES_H
#define WHISTLE_STORE_VOTES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "domain/model.h"
#include "store/store.h"
#include "util/arena.h"

/*
 * Ballots, their aggregates, ballot rate-limit events, the incident lookups behind the
 * human pages, and server settings. Callers own transactions.
 */

/* The server secret (32 bytes) stored under name, created from the CSPRNG when missing. */
int settings_secret(struct store *s, const char *name, unsigned char out[32]);
/* A plain setting: 1 with its value copied into out (n bytes, terminated), 0 when unset, or a
 * negative store_rc (STORE_ERR too when the value is longer than out: never truncated). */
int settings_get(struct store *s, const char *name, char *out, size_t n);
/* Sets name to value (inserted or replaced) in the caller's transaction; 0 or a store_rc. */
int settings_put(struct store *s, const char *name, const char *value);

/* Casts or replaces the ballot of voter on (incident, version) and moves the tallies by the
 * difference, in the caller's transaction. choice is correct|incorrect|unsure; rooting may
 * be NULL (anonymous). Returns 0 (or a negative store_rc). */
int ballots_put(struct store *s, const char *incident_id, int64_t version, const char *voter,
                const char *choice, const char *rooting, int64_t now);
/* The voter's current choice on (incident, version) into out (size 16): 1 found, 0 no
 * ballot (out ""). */
int ballots_choice(struct store *s, const char *incident_id, int64_t version, const char *voter,
                   char out[16]);
/* The same with the ballot's rooting interest ("" when none): 1 found, 0 no ballot. */
int ballots_get(struct store *s, const char *incident_id, int64_t version, const char *voter,
                char choice[16], char rooting[16]);

/* A subject's rate window (rate_windows, domain/ratelimit.h): its event count and the time
 * it started; 0 and 0 when the subject has none. */
int rate_windows_get(struct store *s, const char *subject, int64_t *count, int64_t *started);
int rate_windows_put(struct store *s, const char *subject, int64_t count, int64_t started);
/* Forgets every window that started at or before `before` (housekeeping; `before` must be
 * older than the longest window). */
int rate_windows_prune(struct store *s, int64_t before);

/* Tally slot rows per (incident, version, rooting) on the server-side path. */
#define BALLOT_TALLY_SLOTS 16

/* Whether voter has cast any ballot, on any incident: 1 yes, 0 no (a new voter), or a
 * negative store_rc. Served by the ballots_voter index (migration 013). */
int ballots_voter_known(struct store *s, const char *voter);

/* The rate windows of one ballot write, in the order of domain/ballotlimit.h: voter,
 * address, anonymous per debate, new voter. */
#define BALLOT_WRITE_WINDOWS 4

/* One ballot write, judged by the caller from what it read of the incident. */
struct ballot_write {
    const char *incident_id, *visibility; /* as read: the write is refused when it moved */
    int64_t version;                      /* the incident's question version, as read */
    const char *voter, *choice, *rooting; /* rooting may be NULL */
    int64_t now;
    /* each window: its rate_windows subject (NULL: it does not apply), limit and length.
     * The last (new voter) applies only when the voter has no ballot yet: the server-side
     * path decides that itself, in the same statement */
    const char *subject[BALLOT_WRITE_WINDOWS];
    int64_t limit[BALLOT_WRITE_WINDOWS], window_us[BALLOT_WRITE_WINDOWS];
};
enum {
    BALLOT_WRITE_DONE = 0,
    BALLOT_WRITE_LIMITED = 1,        /* a rate window is full: *retry_s, *window */
    BALLOT_WRITE_STALE = 2,          /* the incident's visibility or version moved: judge again */
    BALLOT_WRITE_NO_SERVER_PATH = 3, /* this driver has none: run the portable steps */
};
/* What a standing ballot's answer shows: the tallies of the version voted on after it, and
 * that version's labels (question: version and the three labels; the rest NULL). */
struct ballot_answer {
    struct question question;
    struct votes votes;
};
/* The whole ballot (rate windows, ballot, tally) in one statement, its own transaction, and
 * after its commit the tally version's move (store_step_write): one round trip, where the
 * driver has a server-side path (PostgreSQL: whistle_ballot, migration 024, over
 * whistle_cast_ballot, migration 013; the tally moves in a random one of BALLOT_TALLY_SLOTS
 * slot rows). On BALLOT_WRITE_DONE the same round trip filled *ans (labels in a). A
 * BALLOT_WRITE_* value or a negative store_rc; on BALLOT_WRITE_LIMITED *window is the index
 * of the first full window. */
int ballots_cast_server(struct store *s, struct arena *a, const struct ballot_write *w,
                        int64_t *retry_s, int *window, struct ballot_answer *ans);

#endif
