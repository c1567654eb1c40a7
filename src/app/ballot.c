#include "app/ballot.h"
#include "app/incident.h"
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

/* The answer of a ballot cast without a server-side path: a read after the commit (the
 * ballot stands whatever it finds; APP_UNAVAILABLE when the read fails). */
static int answer_read(const struct app_ctx *c, struct ballot_result *out)
{
    struct incident_view iv;
    if (incident_read(c, out->incident_id, 0, NULL, &iv) != INCIDENT_READ_FOUND)
        return APP_UNAVAILABLE;
    out->answer = (struct ballot_answer){.question = iv.inc.question, .votes = iv.inc.votes};
    return BALLOT_OK;
}

_Static_assert(BALLOT_WRITE_WINDOWS == BALLOT_WINDOWS, "the store's windows are the rule's");

#define SUBJECT_MAX 128

/* The windows of one ballot (domain/ballotlimit.h) as the store writes them; `subjects`
 * holds their names. The new-voter window is named whenever the voter is anonymous: whether
 * the voter is new is decided with the write (cast_in_transaction, whistle_cast_ballot). */
static void windows_of(const struct ballot_input *in, const char *incident_id,
                       char subjects[BALLOT_WINDOWS][SUBJECT_MAX], struct ballot_write *w)
{
    char ip[VOTER_HASH_LEN + 1];
    app_address_hash(in->address, ip);
    snprintf(subjects[BALLOT_WINDOW_VOTER], SUBJECT_MAX, "voter:%s", in->voter);
    snprintf(subjects[BALLOT_WINDOW_ADDRESS], SUBJECT_MAX, "ip:%s", ip);
    snprintf(subjects[BALLOT_WINDOW_ANON], SUBJECT_MAX, "anon-ip:%s:%s", ip, incident_id);
    snprintf(subjects[BALLOT_WINDOW_NEW_VOTER], SUBJECT_MAX, "new-voter-ip:%s", ip);
    const int limits[BALLOT_WINDOWS] = {in->limit_voter, in->limit_address, in->limit_anon,
                                        in->limit_new_voter};
    for (int k = 0; k < BALLOT_WINDOWS; k++) {
        bool applies = ballot_window_applies((enum ballot_window)k, in->account, true);
        w->subject[k] = applies ? subjects[k] : NULL;
        w->limit[k] = limits[k];
        w->window_us[k] = ballot_window_us((enum ballot_window)k);
    }
}

static void limited(const struct ballot_write *w, int k, struct ballot_result *out)
{
    out->limited_by = (enum ballot_window)k;
    out->limit = (int)w->limit[k];
}

/* The portable path (SQLite, one writer): judge, check and write in one write transaction. */
static int cast_in_transaction(const struct app_ctx *c, const struct ballot_input *in,
                               struct ballot_write *w, struct ballot_result *out)
{
    struct incident_ref ref;
    char subjects[BALLOT_WINDOWS][SUBJECT_MAX];
    struct ballot_window_state st[BALLOT_WINDOWS];
    int result = APP_UNAVAILABLE;
    int rc = store_begin_write(c->s);
    if (rc < 0)
        goto out;
    if ((rc = incidents_locate(c->s, in->key, &ref)) < 0)
        goto out;
    if ((result = judge(&ref, rc, in->version, &out->message)) != BALLOT_OK)
        goto out;
    result = APP_UNAVAILABLE;
    windows_of(in, ref.id, subjects, w);
    int known = in->account ? 1 : ballots_voter_known(c->s, in->voter);
    if (known < 0)
        goto out;
    for (int k = 0; k < BALLOT_WINDOWS; k++) {
        st[k] = (struct ballot_window_state){
            .applies = ballot_window_applies((enum ballot_window)k, in->account, !known),
            .limit = (int)w->limit[k],
            .window_us = w->window_us[k]};
        if (st[k].applies &&
            (rc = rate_windows_get(c->s, w->subject[k], &st[k].count, &st[k].started)) < 0)
            goto out;
    }
    enum ballot_window full = ballot_windows_check(st, c->now, &out->retry_s);
    if (full != BALLOT_WINDOWS) {
        limited(w, full, out);
        result = BALLOT_RATE_LIMITED;
        goto out;
    }
    if ((rc = ballots_put(c->s, ref.id, in->version, in->voter, in->choice, in->rooting, c->now)) <
        0)
        goto out;
    for (int k = 0; k < BALLOT_WINDOWS; k++)
        if (st[k].applies &&
            (rc = app_rate_record(c->s, w->subject[k], st[k].window_us, c->now)) < 0)
            goto out;
    /* a ballot moves tallies only: cached bodies without this incident's stay valid */
    store_write_tallies_only(c->s);
    if ((rc = store_commit(c->s)) < 0)
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
    struct ballot_write w = {
        .version = in->version,
        .voter = in->voter,
        .choice = in->choice,
        .rooting = in->rooting,
        .now = c->now,
    };
    char subjects[BALLOT_WINDOWS][SUBJECT_MAX];
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
        windows_of(in, ref.id, subjects, &w);
        int full = 0;
        rc = ballots_cast_server(c->s, c->a, &w, &out->retry_s, &full, &out->answer);
        if (rc < 0)
            return APP_UNAVAILABLE;
        if (rc == BALLOT_WRITE_NO_SERVER_PATH) {
            rc = cast_in_transaction(c, in, &w, out);
            return rc == BALLOT_OK && in->answer ? answer_read(c, out) : rc;
        }
        if (rc == BALLOT_WRITE_LIMITED) {
            limited(&w, full, out);
            return BALLOT_RATE_LIMITED;
        }
        if (rc == BALLOT_WRITE_DONE)
            return done(c, &ref, out);
    }
    return APP_UNAVAILABLE; /* the incident kept moving under the ballot */
}

int ballot_cookie_secret(const struct app_ctx *c, unsigned char out[32])
{
    int rc = store_begin_write(c->s);
    if (rc >= 0)
        rc = settings_secret(c->s, "cookie_secret", out);
    if (rc >= 0)
        rc = store_commit(c->s);
    if (rc < 0)
        store_rollback(c->s);
    return rc < 0 ? APP_UNAVAILABLE : APP_OK;
}
