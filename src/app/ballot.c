#include "app/ballot.h"
#include "app/metrics.h"

#include <stdio.h>
#include <string.h>

#include "domain/incident.h"
#include "domain/vocab.h"
#include "store/incidents.h"
#include "store/votes.h"

/* The field rules; NULL when the input is acceptable, else the reason. */
static const char *invalid(const struct ballot_input *in)
{
    if (vocab_find(choice_names, in->choice) < 0)
        return "choice must be correct (option A), incorrect (option B) or unsure";
    if (in->version < 1)
        return "question_version must be a positive integer";
    if (in->rooting && vocab_find(ballot_rooting_names, in->rooting) < 0)
        return "rooting must be home, away, neutral, undisclosed (prefer not to say) or empty "
               "(no answer)";
    if (!in->account && in->rooting)
        return "rooting needs a signed-in account: anonymous ballots carry no rooting interest";
    return NULL;
}

/* Why the debate takes no ballot of this version; NULL when it does. */
static const char *closed(const struct incident_ref *ref, int64_t version)
{
    if (incident_public_state(ref->visibility, ref->survivor_visibility) ==
        INCIDENT_PUBLIC_REDIRECT)
        return "this incident was merged into another debate: vote there";
    if (ref->question_version == INT64_MIN)
        return "this incident has no Fan Verdict question";
    if (ref->question_version != version)
        return "this question version has been superseded: reload the page to see the current "
               "question";
    return NULL;
}

/* The incident rules on what was read: BALLOT_OK when the debate takes this ballot. */
static int judge(const struct incident_ref *ref, int found, int64_t version, const char **message)
{
    /* withdrawn, or a duplicate of a debate that is gone: 404 (domain/incident.h); a merged
     * duplicate of a published survivor is closed: 409, vote there */
    if (found == 0 ||
        incident_public_state(ref->visibility, ref->survivor_visibility) == INCIDENT_PUBLIC_GONE)
        return BALLOT_MISSING;
    *message = closed(ref, version);
    return *message ? BALLOT_CLOSED : BALLOT_OK;
}

/* A committed ballot: counted (GET /metrics) and answered. */
static int done(const struct app_ctx *c, const struct incident_ref *ref, struct ballot_result *out)
{
    app_count(APP_COUNT_BALLOTS);
    out->incident_id = arena_strdup(c->a, ref->id);
    out->key = arena_strdup(c->a, ref->slug[0] ? ref->slug : ref->id);
    return BALLOT_OK;
}

/* The portable path (SQLite, one writer): judge, check and write in one write transaction. */
static int cast_in_transaction(const struct app_ctx *c, const struct ballot_input *in,
                               const struct ballot_write *w, struct ballot_result *out)
{
    struct incident_ref ref;
    int result = APP_UNAVAILABLE;
    int rc = store_begin_write(c->s);
    if (rc < 0)
        goto out;
    if ((rc = incidents_locate(c->s, in->key, &ref)) < 0)
        goto out;
    if ((result = judge(&ref, rc, in->version, &out->message)) != BALLOT_OK)
        goto out;
    result = APP_UNAVAILABLE;
    rc = app_rate_limited(c->s, w->voter_subject, in->limit_voter, BALLOT_WINDOW_US, c->now,
                          &out->retry_s);
    if (rc == 0)
        rc = app_rate_limited(c->s, w->addr_subject, in->limit_address, BALLOT_WINDOW_US, c->now,
                              &out->retry_s);
    if (rc < 0)
        goto out;
    if (rc > 0) {
        result = BALLOT_RATE_LIMITED;
        goto out;
    }
    if ((rc = ballots_put(c->s, ref.id, in->version, in->voter, in->choice, in->rooting, c->now)) <
            0 ||
        (rc = app_rate_record(c->s, w->voter_subject, BALLOT_WINDOW_US, c->now)) < 0 ||
        (rc = app_rate_record(c->s, w->addr_subject, BALLOT_WINDOW_US, c->now)) < 0 ||
        (rc = store_commit(c->s)) < 0)
        goto out;
    return done(c, &ref, out);
out:
    store_rollback(c->s);
    return result;
}

int ballot_cast(const struct app_ctx *c, const struct ballot_input *in, struct ballot_result *out)
{
    memset(out, 0, sizeof *out);
    out->message = invalid(in);
    if (out->message)
        return BALLOT_INVALID;
    if (in->suspended)
        return BALLOT_FORBIDDEN;
    char ip_hash[VOTER_HASH_LEN + 1], voter_subject[VOTER_HASH_LEN + 8],
        addr_subject[VOTER_HASH_LEN + 8];
    voter_hash("ip", in->address, ip_hash);
    snprintf(addr_subject, sizeof addr_subject, "ip:%s", ip_hash);
    snprintf(voter_subject, sizeof voter_subject, "voter:%s", in->voter);

    struct ballot_write w = {
        .version = in->version,
        .voter = in->voter,
        .choice = in->choice,
        .rooting = in->rooting,
        .now = c->now,
        .window_us = BALLOT_WINDOW_US,
        .voter_subject = voter_subject,
        .addr_subject = addr_subject,
        .voter_limit = in->limit_voter,
        .addr_limit = in->limit_address,
    };
    /* PostgreSQL: judge the incident from a plain read, then one statement writes the whole
     * ballot (store/votes.h ballots_cast_server) unless the incident moved in between */
    struct incident_ref ref;
    for (int tries = 0; tries < 3; tries++) {
        int rc = incidents_locate(c->s, in->key, &ref);
        if (rc < 0)
            return APP_UNAVAILABLE;
        int judged = judge(&ref, rc, in->version, &out->message);
        if (judged != BALLOT_OK)
            return judged;
        w.incident_id = ref.id;
        w.visibility = ref.visibility;
        rc = ballots_cast_server(c->s, &w, &out->retry_s);
        if (rc < 0)
            return APP_UNAVAILABLE;
        if (rc == BALLOT_WRITE_NO_SERVER_PATH)
            return cast_in_transaction(c, in, &w, out);
        if (rc == BALLOT_WRITE_LIMITED)
            return BALLOT_RATE_LIMITED;
        if (rc == BALLOT_WRITE_DONE)
            return done(c, &ref, out);
    }
    return APP_UNAVAILABLE; /* the incident kept moving under the ballot */
}
