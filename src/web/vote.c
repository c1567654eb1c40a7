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
#include "app/ballot.h"
#include "app/incident.h"
#include "domain/account.h"
#include "domain/limits.h"
#include "domain/voter.h"
#include "util/form.h"
#include "util/jsonw.h"
#include "util/timefmt.h"
#include "web/results.h"
#include "web/web.h"

#define ERR_CSRF         "csrf_failed"
#define ERR_VOTE_CLOSED  "vote_closed"
#define ERR_RATE_LIMITED "rate_limited"

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

/* The one "unavailable" answer, as JSON or as the page. */
static void unavailable(struct request *req, bool json)
{
    if (json)
        reply_unavailable(req);
    else
        web_unavailable(req);
}

static int parse_body(struct request *req, struct vote_req *v, char *err, size_t errlen)
{
    const char *ct = http_header(req, "Content-Type");
    v->version = 0;
    v->choice = v->csrf = v->rooting = NULL;
    const char *body = req->body.p;
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
    return 0;
}

/* Why a ballot was refused by a limit, in words (docs/pages.md "The Fan Verdict's
 * integrity"): which limit, and what to do. */
static const char *limited_message(struct request *req, const struct ballot_result *r)
{
    long long h = (long long)(r->retry_s + 3599) / 3600, m = (long long)(r->retry_s + 59) / 60;
    switch (r->limited_by) {
    case BALLOT_WINDOW_ANON:
        return arena_printf(&req->arena,
                            "this network address has already cast %d anonymous ballots on this "
                            "debate today, the most the Fan Verdict counts from one address; "
                            "sign in to vote, or try again in about %lld hour%s",
                            r->limit, h, h == 1 ? "" : "s");
    case BALLOT_WINDOW_NEW_VOTER:
        return arena_printf(&req->arena,
                            "%d new anonymous voters have already voted from this network "
                            "address in the last hour; sign in to vote, or try again in about "
                            "%lld minute%s",
                            r->limit, m, m == 1 ? "" : "s");
    default:
        return "too many ballots; wait a minute";
    }
}

void web_vote(struct request *req)
{
    struct vote_req v;
    char err[300], voter_id[VOTER_ID_LEN + 1], voter[VOTER_HASH_LEN + 1], addr[64];
    if (api_no_query(req) < 0)
        return;
    int bad = parse_body(req, &v, err, sizeof err);
    struct app_ctx c = {.s = store_thread(), .a = &req->arena, .request_id = req->id};
    if (!c.s) {
        unavailable(req, v.json);
        return;
    }
    c.now = time_now_us();
    /* a signed-in voter (api-v1.md: "authenticated users also vote") votes as their
     * account with an optional rooting interest; the voter and CSRF checks come before
     * anything else is revealed */
    struct session_row sess;
    int signed_in = web_session(req, c.s, c.now, &sess);
    if (signed_in < 0) {
        unavailable(req, v.json);
        return;
    }
    const char *back = arena_printf(&req->arena, "/incidents/%s", req->param);
    if (!signed_in && !voter_check_cookie(http_cookie(req, VOTER_COOKIE_NAME), voter_id)) {
        if (!v.json)
            web_form_refused(req, WEB_REFUSED_TOKEN, back);
        else
            fail(req, true, 403, ERR_CSRF,
                 "no valid voter cookie: open the incident page, then vote from it");
        return;
    }
    if (!web_same_origin(req)) {
        if (!v.json)
            web_form_refused(req, WEB_REFUSED_ORIGIN, back);
        else
            fail(req, true, 403, ERR_CSRF, "cross-origin ballot refused (Origin/Referer)");
        return;
    }
    if (bad < 0) {
        fail(req, v.json, 400, "invalid_request", err);
        return;
    }
    if (signed_in ? !account_session_csrf_ok(sess.hash, v.csrf)
                  : !voter_csrf_ok(voter_id, v.csrf)) {
        if (!v.json)
            web_form_refused(req, WEB_REFUSED_TOKEN, back);
        else
            fail(req, true, 403, ERR_CSRF, "missing or wrong CSRF token: reload the page");
        return;
    }
    if (signed_in)
        account_voter(sess.account.id, voter);
    else
        voter_hash("ballot", voter_id, voter);
    http_client_addr(req, addr, sizeof addr);
    struct ballot_input in = {.key = req->param,
                              .version = v.version,
                              .choice = v.choice,
                              .rooting = v.rooting,
                              .voter = voter,
                              .account = signed_in,
                              .suspended = signed_in && sess.account.banned,
                              .address = addr,
                              .limit_voter = req->cfg->limits->vote_per_voter,
                              .limit_address = req->cfg->limits->vote_per_ip,
                              .limit_anon = req->cfg->limits->anon_vote_per_ip,
                              .limit_new_voter = req->cfg->limits->new_voter_per_ip,
                              .answer = v.json};
    struct ballot_result r;
    switch (ballot_cast(&c, &in, &r)) {
    case BALLOT_OK:
        break;
    case BALLOT_INVALID:
        fail(req, v.json, 400, "invalid_request", r.message);
        return;
    case BALLOT_FORBIDDEN:
        fail(req, v.json, 403, "forbidden", "this account is suspended");
        return;
    case BALLOT_MISSING:
        fail(req, v.json, 404, "not_found", "no debate here");
        return;
    case BALLOT_CLOSED:
        fail(req, v.json, 409, ERR_VOTE_CLOSED, r.message);
        return;
    case BALLOT_RATE_LIMITED: {
        char ra[24];
        snprintf(ra, sizeof ra, "%lld", (long long)r.retry_s);
        reply_header(req, "Retry-After", arena_strdup(&req->arena, ra));
        fail(req, v.json, 429, ERR_RATE_LIMITED, limited_message(req, &r));
        return;
    }
    default:
        unavailable(req, v.json);
        return;
    }
    if (!v.json) {
        struct buf path = BUF_INIT;
        buf_printf(&path, "/incidents/%s#verdict", r.key);
        web_redirect(req, 303, path.p);
        buf_release(&path);
        return;
    }
    /* the JSON answer carries the tallies after this ballot (ballot_cast's answer) */
    struct buf html = BUF_INIT;
    web_results(&html, &r.answer.question, &r.answer.votes);
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
    render_votes(&w, &r.answer.votes);
    jw_key(&w, "results_html");
    jw_str(&w, html.p);
    jw_obj_end(&w);
    jw_obj_end(&w);
    buf_release(&html);
    reply_json(req, 200);
}
