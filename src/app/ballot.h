#ifndef WHISTLE_APP_BALLOT_H
#define WHISTLE_APP_BALLOT_H

#include <stdbool.h>
#include <stdint.h>

#include "app/app.h"
#include "domain/ballotlimit.h"
#include "domain/voter.h"
#include "store/votes.h"

/*
 * Casting a Fan Verdict ballot (api-v1.md "Votes"; docs/pages.md): one live ballot per
 * voter and question version, replaced on a revote, the tallies moved in the same
 * transaction; the windows of domain/ballotlimit.h: per voter and per address over a
 * minute, and for anonymous voters per address per debate per day and new voters per
 * address per hour.
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

struct ballot_input {
    const char *key;     /* the incident's page key: slug, former slug or UUID */
    int64_t version;     /* the question version the voter saw (>= 1) */
    const char *choice;  /* correct (option A), incorrect (option B), unsure */
    const char *rooting; /* home, away, neutral, undisclosed; NULL: none declared */
    const char *voter;   /* the stored voter identity (voter_hash / account_voter) */
    bool account;        /* the voter is a signed-in account (may declare rooting) */
    bool suspended;      /* ... whose account is suspended */
    const char *address; /* the client address, as text (http_client_addr) */
    int limit_voter;     /* ballots per voter per minute */
    int limit_address;   /* ballots per client address per minute */
    int limit_anon;      /* anonymous ballots per client address per debate per day */
    int limit_new_voter; /* new anonymous voters per client address per hour */
    bool answer;         /* fill result->answer (a JSON ballot's answer shows it) */
};

struct ballot_result {
    const char *incident_id;       /* BALLOT_OK: the incident voted on */
    const char *key;               /* and its page key */
    const char *message;           /* INVALID / CLOSED: why, for people */
    int64_t retry_s;               /* RATE_LIMITED: seconds until another ballot is allowed */
    enum ballot_window limited_by; /* RATE_LIMITED: the window that is full */
    int limit;                     /* RATE_LIMITED: its limit */
    /* BALLOT_OK with input.answer: the tallies after this ballot and its question's labels
     * (on PostgreSQL from the ballot's own round trip; elsewhere read after the commit) */
    struct ballot_answer answer;
};

/* Validates the input, then casts the ballot in one write transaction. Returns a
 * ballot_outcome or APP_UNAVAILABLE; strings of *out live in c->a. */
int ballot_cast(const struct app_ctx *c, const struct ballot_input *in, struct ballot_result *out);

/* The cookie secret voter cookies are signed with (domain/voter.h voter_set_secret): read
 * from the database, or created there by the first node that starts, so that every node of
 * a deployment shares it. One write transaction under the deployment's exclusive lock (once
 * per node start). APP_OK with out filled in, or APP_UNAVAILABLE (out undefined). */
int ballot_cookie_secret(const struct app_ctx *c, unsigned char out[32]);

#endif
