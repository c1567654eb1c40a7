#include "app/ballot.h"

#include <stdio.h>
#include <string.h>

#include "domain/incident.h"
#include "store/incidents.h"
#include "store/votes.h"

static const char *const choices[] = {"correct", "incorrect", "unsure", NULL};
static const char *const roots[] = {"home", "away", "neutral", "undisclosed", NULL};

static bool one_of(const char *v, const char *const *names)
{
    for (; v && *names; names++)
        if (strcmp(v, *names) == 0)
            return true;
    return false;
}

/* The field rules; NULL when the input is acceptable, else the reason. */
static const char *invalid(const struct ballot_input *in)
{
    if (!one_of(in->choice, choices))
        return "choice must be correct (option A), incorrect (option B) or unsure";
    if (in->version < 1)
        return "question_version must be a positive integer";
    if (in->rooting && !one_of(in->rooting, roots))
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

    struct incident_ref ref;
    int result = APP_UNAVAILABLE;
    int rc = store_begin_write(c->s);
    if (rc < 0)
        goto out;
    if ((rc = incidents_locate(c->s, in->key, &ref)) < 0)
        goto out;
    /* withdrawn, or a duplicate of a debate that is gone: 404 (domain/incident.h); a merged
     * duplicate of a published survivor is closed: 409, vote there */
    if (rc == 0 ||
        incident_public_state(ref.visibility, ref.survivor_visibility) == INCIDENT_PUBLIC_GONE) {
        result = BALLOT_MISSING;
        goto out;
    }
    out->message = closed(&ref, in->version);
    if (out->message) {
        result = BALLOT_CLOSED;
        goto out;
    }
    rc = app_rate_limited(c->s, voter_subject, in->limit_voter, BALLOT_WINDOW_US, c->now,
                          &out->retry_s);
    if (rc == 0)
        rc = app_rate_limited(c->s, addr_subject, in->limit_address, BALLOT_WINDOW_US, c->now,
                              &out->retry_s);
    if (rc < 0)
        goto out;
    if (rc > 0) {
        result = BALLOT_RATE_LIMITED;
        goto out;
    }
    if ((rc = ballots_put(c->s, ref.id, in->version, in->voter, in->choice, in->rooting, c->now)) <
            0 ||
        (rc = app_rate_record(c->s, voter_subject, BALLOT_WINDOW_US, c->now)) < 0 ||
        (rc = app_rate_record(c->s, addr_subject, BALLOT_WINDOW_US, c->now)) < 0 ||
        (rc = store_commit(c->s)) < 0)
        goto out;
    out->incident_id = arena_strdup(c->a, ref.id);
    out->key = arena_strdup(c->a, ref.slug[0] ? ref.slug : ref.id);
    return BALLOT_OK;
out:
    store_rollback(c->s);
    return result;
}
