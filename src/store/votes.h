#ifndef WHISTLE_STORE_VOTES_H
#define WHISTLE_STORE_VOTES_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

/*
 * Ballots, their aggregates, ballot rate-limit events, the incident lookups behind the
 * human pages, and server settings. Callers own transactions.
 */

/* The server secret (32 bytes) stored under name, created from the CSPRNG when missing. */
int settings_secret(struct store *s, const char *name, unsigned char out[32]);

/* Casts or replaces the ballot of voter on (incident, version) and moves the tallies by the
 * difference, in the caller's transaction. choice is correct|incorrect|unsure; rooting may
 * be NULL (anonymous). Returns 0 (or a negative store_rc). */
int ballots_put(struct store *s, const char *incident_id, int64_t version, const char *voter,
                const char *choice, const char *rooting, int64_t now);
/* The voter's current choice on (incident, version) into out (size 16), "" when none. */
int ballots_choice(struct store *s, const char *incident_id, int64_t version, const char *voter,
                   char out[16]);
/* The same with the ballot's rooting interest ("" when none or no ballot). */
int ballots_get(struct store *s, const char *incident_id, int64_t version, const char *voter,
                char choice[16], char rooting[16]);

/* Ballot events of subject after `since`: count and the oldest time. */
int vote_events_count(struct store *s, const char *subject, int64_t since, int64_t *count,
                      int64_t *oldest);
/* Records an event and forgets the subject's events at or before `forget_before`. */
int vote_events_record(struct store *s, const char *subject, int64_t now, int64_t forget_before);
/* Forgets every vote-limit event at or before `before` (housekeeping). */
int vote_events_prune(struct store *s, int64_t before);

#endif
