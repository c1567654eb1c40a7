#ifndef WHISTLE_APP_BALLOT_H
#define WHISTLE_APP_BALLOT_H

#include <stdbool.h>
#include <stdint.h>

#include "app/app.h"
#include "domain/voter.h"

/*
 * Casting a Fan Verdict ballot (api-v1.md "Votes"; docs/pages.md): one live ballot per
 * voter and question version, replaced on a revote, the tallies moved in the same
 * transaction; per-voter and per-address limits over a rolling minute.
 */
enum ballot_outcome {
    BALLOT_OK = 0,
    BALLOT_INVALID,      /* a field is wrong: result->message names it (400) */
    BALLOT_FORBIDDEN,    /* the account is suspended (403) */
    BALLOT_MISSING,      /* no such debate, or withdrawn (404) */
    BALLOT_CLOSED,       /* merged, no question, or a superseded version: message (409) */
    BALLOT_RATE_LIMITED, /* result->retry_s (429) */
    /* APP_UNAVAILABLE (-1): the store failed; nothing was written */
};

#define BALLOT_WINDOW_US (INT64_C(60) * 1000000)

struct ballot_input {
    const char *key;     /* the incident's page key: slug, former slug or UUID */
    int64_t version;     /* the question version the voter saw (>= 1) */
    const char *choice;  /* correct (option A), incorrect (option B), unsure */
    const char *rooting; /* home, away, neutral, undisclosed; NULL: none declared */
    const char *voter;   /* the stored voter identity (voter_hash / account_voter) */
    bool account;        /* the voter is a signed-in account (may declare rooting) */
    bool suspended;      /* ... whose account is suspended */
    const char *address; /* the client address, as text */
    int limit_voter;     /* ballots per voter per minute */
    int limit_address;   /* ballots per client address per minute */
};

struct ballot_result {
    const char *incident_id; /* BALLOT_OK: the incident voted on */
    const char *key;         /* and its page key */
    const char *message;     /* INVALID / CLOSED: why, for people */
    int64_t retry_s;         /* RATE_LIMITED: seconds until another ballot is allowed */
};

/* Validates the input, then casts the ballot in one write transaction. Returns a
 * ballot_outcome or APP_UNAVAILABLE; strings of *out live in c->a. */
int ballot_cast(const struct app_ctx *c, const struct ballot_input *in, struct ballot_result *out);

#endif
