/*
 * POST /incidents/{slug}/vote: one ballot per voter per question version, replaced on a
 * revote; the aggregates move in the same transaction (ARCHITECTURE.md storage rules).
 * CSRF: a token tied to the voter cookie plus a same-origin Origin/Referer check.
 */
#include <jansson.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "api/render.h"
#include "app/app.h"
#include "domain/account.h"
#include "domain/voter.h"
#include "domain/votes.h"
#include "store/incidents.h"
#include "store/votes.h"
#include "util/form.h"
#include "util/jsonw.h"
#include "util/timefmt.h"
#include "web/results.h"
#include "web/web.h"

#define ERR_CSRF         "csrf_failed"
#define ERR_VOTE_CLOSED  "vote_closed"
#define ERR_RATE_LIMITED "rate_limited"
#define WINDOW_US        (INT64_C(60) * 1000000)

struct vote_req {
    bool json;
    const char *choice, *csrf, *rooting; /* rooting NULL: none declared */
    int64_t version;
};

/* Answers an error in the request's own format: JSON error body or HTML error page. */
static void fail(struct request *req, bool json, int status, const char *code, const char *msg)
{
    if (json)
        reply_error_code(req, status, code, "%s", msg);
    else
        web_error_page(req, status, "%s", msg);
}

static int parse_body(struct request *req, struct vote_req *v, char *err, size_t errlen)
{
    const char *ct = http_header(req, "Content-Type");
    v->version = 0;
    v->choice = v->csrf = v->rooting = NULL;
    const char *body = req->body.p ? req->body.p : "";
    if (ct && strncasecmp(ct, "application/json", 16) == 0) {
        v->json = true;
        json_error_t jerr;
        json_t *doc = json_loadb(body, req->body.len, JSON_REJECT_DUPLICATES, &jerr);
        if (!json_is_object(doc)) {
            json_decref(doc);
            snprintf(err, errlen, "body must be a JSON object {choice, question_version, csrf}");
            return -1;
        }
        const char *k;
        json_t *x;
        json_object_foreach(doc, k, x)
        {
            if (strcmp(k, "choice") && strcmp(k, "question_version") && strcmp(k, "csrf") &&
                strcmp(k, "rooting")) {
                snprintf(err, errlen, "unsupported field %.40s", k);
                json_decref(doc);
                return -1;
            }
        }
        json_t *c = json_object_get(doc, "choice"), *q = json_object_get(doc, "question_version"),
               *t = json_object_get(doc, "csrf"), *r = json_object_get(doc, "rooting");
        if (r && !json_is_null(r) && !json_is_string(r)) {
            json_decref(doc);
            snprintf(err, errlen, "rooting must be a string or null");
            return -1;
        }
        if (json_is_string(r) && json_string_length(r) > 0)
            v->rooting = arena_strdup(&req->arena, json_string_value(r));
        v->choice = json_is_string(c) ? arena_strdup(&req->arena, json_string_value(c)) : NULL;
        v->csrf = json_is_string(t) ? arena_strdup(&req->arena, json_string_value(t)) : NULL;
        v->version = json_is_integer(q) ? (int64_t)json_integer_value(q) : 0;
        json_decref(doc);
    } else if (ct && strncasecmp(ct, "application/x-www-form-urlencoded", 33) == 0) {
        v->json = false;
        struct form_pair pairs[8];
        int n = form_parse(&req->arena, body, req->body.len, pairs, 8);
        if (n < 0) {
            snprintf(err, errlen, "the form body is malformed");
            return -1;
        }
        for (int i = 0; i < n; i++) {
            /* a repeated field has no single meaning: refuse it rather than pick one */
            for (int j = 0; j < i; j++)
                if (strcmp(pairs[j].name, pairs[i].name) == 0) {
                    snprintf(err, errlen, "field %.40s is repeated", pairs[i].name);
                    return -1;
                }
            if (strcmp(pairs[i].name, "choice") == 0) {
                v->choice = pairs[i].value;
            } else if (strcmp(pairs[i].name, "csrf") == 0) {
                v->csrf = pairs[i].value;
            } else if (strcmp(pairs[i].name, "rooting") == 0) {
                v->rooting = pairs[i].value[0] ? pairs[i].value : NULL;
            } else if (strcmp(pairs[i].name, "question_version") == 0) {
                if (qp_parse_int(pairs[i].value, &v->version) < 0)
                    v->version = 0;
            } else {
                snprintf(err, errlen, "unsupported field %.40s", pairs[i].name);
                return -1;
            }
        }
    } else {
        v->json = false;
        snprintf(err, errlen, "send the ballot as a form or as application/json");
        return -1;
    }
    if (!v->choice || (strcmp(v->choice, "correct") && strcmp(v->choice, "incorrect") &&
                       strcmp(v->choice, "unsure"))) {
        snprintf(err, errlen, "choice must be correct (option A), incorrect (option B) or unsure");
        return -1;
    }
    if (v->version < 1) {
        snprintf(err, errlen, "question_version must be a positive integer");
        return -1;
    }
    if (v->rooting && strcmp(v->rooting, "home") && strcmp(v->rooting, "away") &&
        strcmp(v->rooting, "neutral") && strcmp(v->rooting, "undisclosed")) {
        snprintf(err, errlen,
                 "rooting must be home, away, neutral, undisclosed (prefer not to "
                 "say) or empty (no answer)");
        return -1;
    }
    return 0;
}

void web_vote(struct request *req)
{
    struct vote_req v;
    char err[300], voter_id[VOTER_ID_LEN + 1], voter[VOTER_HASH_LEN + 1];
    if (api_no_query(req) < 0)
        return;
    int bad = parse_body(req, &v, err, sizeof err);
    struct store *s = store_thread();
    if (!s) {
        fail(req, v.json, 503, "unavailable", "the service is temporarily unavailable");
        return;
    }
    /* a signed-in voter (api-v1.md: "authenticated users also vote") votes as their
     * account with an optional rooting interest; the voter and CSRF checks come before
     * anything else is revealed */
    struct session_row sess;
    int signed_in = web_session(req, s, time_now_us(), &sess);
    if (signed_in < 0) {
        if (signed_in == STORE_GONE || signed_in == STORE_ERR)
            store_thread_drop();
        fail(req, v.json, 503, "unavailable", "the service is temporarily unavailable");
        return;
    }
    if (!signed_in && !voter_check_cookie(http_cookie(req, VOTER_COOKIE_NAME), voter_id)) {
        fail(req, v.json, 403, ERR_CSRF,
             "no valid voter cookie: open the incident page, then vote from it");
        return;
    }
    if (!web_same_origin(req)) {
        fail(req, v.json, 403, ERR_CSRF, "cross-origin ballot refused (Origin/Referer)");
        return;
    }
    if (bad < 0) {
        fail(req, v.json, 400, "invalid_request", err);
        return;
    }
    if (signed_in ? !account_session_csrf_ok(sess.hash, v.csrf)
                  : !voter_csrf_ok(voter_id, v.csrf)) {
        fail(req, v.json, 403, ERR_CSRF, "missing or wrong CSRF token: reload the page");
        return;
    }
    if (signed_in && sess.account.banned) {
        fail(req, v.json, 403, "forbidden", "this account is suspended");
        return;
    }
    if (!signed_in && v.rooting) {
        fail(req, v.json, 400, "invalid_request",
             "rooting needs a signed-in account: anonymous ballots carry no rooting interest");
        return;
    }
    if (signed_in)
        account_voter(sess.account.id, voter);
    else
        voter_hash("ballot", voter_id, voter);
    char addr[64], addr_subject[VOTER_HASH_LEN + 8], voter_subject[VOTER_HASH_LEN + 8],
        ip_hash[VOTER_HASH_LEN + 1];
    http_client_addr(req, addr, sizeof addr);
    voter_hash("ip", addr, ip_hash);
    snprintf(addr_subject, sizeof addr_subject, "ip:%s", ip_hash);
    snprintf(voter_subject, sizeof voter_subject, "voter:%s", voter);

    struct incident_ref ref;
    int64_t retry = 0, now;
    int rc = store_begin_write(s);
    if (rc < 0)
        goto failed;
    now = time_now_us();
    rc = incidents_resolve(s, req->param, &ref);
    if (rc < 0)
        goto failed;
    if (rc == 0 || strcmp(ref.visibility, "withdrawn") == 0) {
        store_rollback(s);
        fail(req, v.json, 404, "not_found", "no debate here");
        return;
    }
    const char *closed = NULL;
    if (strcmp(ref.visibility, "merged") == 0)
        closed = "this incident was merged into another debate: vote there";
    else if (ref.question_version == INT64_MIN)
        closed = "this incident has no Fan Verdict question";
    else if (ref.question_version != v.version)
        closed = "this question version has been superseded: reload the page to see the "
                 "current question";
    if (closed) {
        store_rollback(s);
        fail(req, v.json, 409, ERR_VOTE_CLOSED, closed);
        return;
    }
    const struct whistle_limits *lim = req->cfg->limits;
    int limited = app_rate_limited(s, voter_subject, lim->vote_per_voter, WINDOW_US, now, &retry);
    if (limited == 0)
        limited = app_rate_limited(s, addr_subject, lim->vote_per_ip, WINDOW_US, now, &retry);
    if (limited < 0) {
        rc = limited;
        goto failed;
    }
    if (limited) {
        store_rollback(s);
        char ra[24];
        snprintf(ra, sizeof ra, "%lld", (long long)retry);
        reply_header(req, "Retry-After", arena_strdup(&req->arena, ra));
        fail(req, v.json, 429, ERR_RATE_LIMITED, "too many ballots; wait a minute");
        return;
    }
    if ((rc = ballot_cast(s, ref.id, v.version, voter, v.choice, v.rooting, now)) < 0 ||
        (rc = app_rate_record(s, voter_subject, WINDOW_US, now)) < 0 ||
        (rc = app_rate_record(s, addr_subject, WINDOW_US, now)) < 0 || (rc = store_commit(s)) < 0)
        goto failed;

    if (!v.json) {
        struct buf path = BUF_INIT;
        buf_printf(&path, "/incidents/%s#verdict", ref.slug[0] ? ref.slug : ref.id);
        web_redirect(req, 303, path.p);
        buf_release(&path);
        return;
    }
    struct incident inc;
    const char *survivor = NULL;
    rc = incidents_get(s, &req->arena, ref.id, &inc, &survivor);
    if (rc != INCIDENT_FOUND) {
        rc = rc < 0 ? rc : STORE_ERR;
        goto failed_after_commit;
    }
    struct buf html = BUF_INIT;
    web_results(&html, &inc.question, &inc.votes);
    struct jw w;
    jw_init(&w, &req->out);
    jw_obj_begin(&w);
    jw_key(&w, "data");
    jw_obj_begin(&w);
    jw_key(&w, "choice");
    jw_str(&w, v.choice);
    jw_key(&w, "question_version");
    jw_int(&w, v.version);
    if (signed_in) { /* anonymous ballots carry no rooting: the key is theirs alone */
        jw_key(&w, "rooting");
        jw_str(&w, v.rooting);
    }
    jw_key(&w, "votes");
    render_votes(&w, &inc.votes);
    jw_key(&w, "results_html");
    jw_str(&w, html.p);
    jw_obj_end(&w);
    jw_obj_end(&w);
    buf_release(&html);
    reply_json(req, 200);
    return;
failed:
    store_rollback(s);
failed_after_commit:
    if (rc == STORE_GONE || rc == STORE_ERR)
        store_thread_drop();
    reply_header(req, "Retry-After", "5");
    fail(req, v.json, 503, "unavailable", "the service is temporarily unavailable; retry later");
}
