/*
 * /desk (issue 16; docs/desk.md): the editorial desk. Candidates (researched leads that
 * passed every gate) are published or rejected; published incidents are searched and
 * edited (fields, sources, maturity, question), withdrawn or merged; the audit log is read.
 *
 * Safe by construction: every /desk handler below is defined by DESK_PAGE / DESK_POST,
 * which run the one role gate (gate()) before the handler's body: a signed-in account with
 * the editor or admin role (admin-only pages ask for admin), and for a POST a form read
 * whole, the same origin and the session's CSRF token. A body never runs without a
 * struct desk, and only gate() makes one. Every write is a use case (app/editorial.h,
 * app/candidate.h) that records one audit entry in its transaction.
 */
#include <assert.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "app/accounts.h"
#include "app/candidate.h"
#include "app/comments.h"
#include "app/desk.h"
#include "app/editorial.h"
#include "app/scoutkeys.h"
#include "domain/quota.h"
#include "domain/vocab.h"
#include "http/query.h"
#include "util/form.h"
#include "util/html.h"
#include "util/timefmt.h"
#include "util/uuid.h"
#include "web/web.h"

#define DESK_FORM_MAX  32
#define DESK_PAGE_SIZE 50

struct desk {
    struct app_ctx c;
    struct session_row sess;
    char actor[48];
    char csrf[ACCOUNT_CSRF_LEN + 1];
    struct form_pair form[DESK_FORM_MAX];
    int nform;
};

/* ---- the gate ---- */

static void forbidden(struct request *req, bool admin)
{
    web_error_page(req, 403,
                   admin ? "admins only: an operator gives the role with `whistle account grant "
                           "EMAIL admin`"
                         : "editors only: an operator gives the role with `whistle account grant "
                           "EMAIL editor`");
}

/* Reads the form of a desk POST into d (every pair; a repeated field is refused): NULL, or
 * why the form is refused (answered 400 after the CSRF check). */
static const char *read_form(struct request *req, struct desk *d)
{
    const char *ct = http_header(req, "Content-Type");
    if (!ct || strncmp(ct, "application/x-www-form-urlencoded", 33) != 0)
        return "send the form as application/x-www-form-urlencoded";
    d->nform = form_parse(&req->arena, req->body.p ? req->body.p : "", req->body.len, d->form,
                          DESK_FORM_MAX);
    if (d->nform < 0) {
        d->nform = 0;
        return "the form body is malformed or has too many fields";
    }
    for (int i = 0; i < d->nform; i++)
        for (int j = 0; j < i; j++)
            if (strcmp(d->form[i].name, d->form[j].name) == 0)
                return "a field of the form is repeated";
    return NULL;
}

static const char *fv(const struct desk *d, const char *name)
{
    for (int i = 0; i < d->nform; i++)
        if (strcmp(d->form[i].name, name) == 0)
            return d->form[i].value;
    return NULL;
}

/* An optional text field: NULL when absent or empty. */
static const char *fopt(const struct desk *d, const char *name)
{
    const char *v = fv(d, name);
    return v && *v ? v : NULL;
}

/* The role gate of every /desk route: 1 with *d ready (session, role, context, CSRF token,
 * and for a POST the form checked), 0 when it answered. */
static int gate(struct request *req, struct desk *d, bool admin, bool post, bool reauth)
{
    memset(d, 0, sizeof *d);
    if (http_header(req, "Authorization")) {
        web_error_page(req, 403, "the desk takes a signed-in browser session only");
        return 0;
    }
    if (post && web_no_query(req) < 0)
        return 0;
    d->c = (struct app_ctx){.a = &req->arena, .now = time_now_us(), .request_id = req->id};
    int signed_in;
    d->c.s = web_page_store(req, d->c.now, &d->sess, &signed_in);
    if (!d->c.s)
        return 0;
    if (!signed_in) {
        if (post)
            web_error_page(req, 403, "sign in first");
        else
            web_redirect(req, 303, "/account/signin?next=/desk");
        return 0;
    }
    const char *role;
    if (desk_role(&d->c, d->sess.account.id, d->sess.account.banned, &role) != APP_OK) {
        web_unavailable(req);
        return 0;
    }
    if (!role || (admin && strcmp(role, "admin") != 0)) {
        forbidden(req, admin);
        return 0;
    }
    snprintf(d->actor, sizeof d->actor, "account:%s", d->sess.account.id);
    d->c.actor = d->actor;
    d->c.role = role;
    account_session_csrf(d->sess.hash, d->csrf);
    if (post) {
        /* the same origin and the CSRF token come first, whatever the form holds */
        const char *bad = read_form(req, d);
        if (web_post_guard(req, &d->sess, fv(d, "csrf")) < 0)
            return 0;
        if (bad) {
            web_error_page(req, 400, "%s", bad);
            return 0;
        }
        /* the admin actions (ban, role grant, a scout credential) re-authenticate — the
         * password, or a fresh two-factor code when two-factor is on — on the password pool:
         * their routes carry ROUTE_PASSWORD (routes.c) */
        assert(!reauth || !req->route || (req->route->flags & ROUTE_PASSWORD));
        if (reauth) {
            int rc = account_reauth(&d->c, &d->sess.account, fv(d, "password"), fv(d, "code"));
            if (rc == APP_UNAVAILABLE) {
                web_unavailable(req);
                return 0;
            }
            if (rc != ACCOUNT_OK) {
                web_error_page(req, 403,
                               rc == ACCOUNT_WRONG_CODE
                                   ? "the two-factor code is wrong or was used already: enter "
                                     "the next one (or your password)"
                                   : "enter your own password again to confirm this action");
                return 0;
            }
        }
    }
    return 1;
}

#define DESK_ROUTE(name, admin, post, reauth)                                                      \
    static void page_##name(struct request *req, struct desk *d);                                  \
    void web_desk_##name(struct request *req)                                                      \
    {                                                                                              \
        struct desk d;                                                                             \
        if (gate(req, &d, admin, post, reauth))                                                    \
            page_##name(req, &d);                                                                  \
    }
#define DESK_PAGE(name)         DESK_ROUTE(name, false, false, false)
#define DESK_POST(name)         DESK_ROUTE(name, false, true, false)
#define DESK_ADMIN_PAGE(name)   DESK_ROUTE(name, true, false, false)
#define DESK_ADMIN_POST(name)   DESK_ROUTE(name, true, true, false)
#define DESK_ADMIN_REAUTH(name) DESK_ROUTE(name, true, true, true)

DESK_PAGE(candidates)
DESK_PAGE(lead)
DESK_POST(lead_publish)
DESK_POST(lead_reject)
DESK_PAGE(incidents)
DESK_PAGE(incident)
DESK_PAGE(audit)
DESK_PAGE(quotas)
DESK_ADMIN_PAGE(accounts)
DESK_ADMIN_PAGE(account)
DESK_ADMIN_REAUTH(account_ban)
DESK_ADMIN_POST(account_unban)
DESK_ADMIN_REAUTH(account_role)
DESK_ADMIN_POST(key_revoke)
DESK_ADMIN_PAGE(scout_keys)
DESK_ADMIN_REAUTH(scout_key_create)
DESK_ADMIN_POST(scout_key_change)

/* ---- page pieces ---- */

static void begin(struct request *req, const struct desk *d, const char *title)
{
    struct buf *b = &req->out;
    web_page_begin(b, title);
    html_raw(b, "<nav class=\"desk-nav\" aria-label=\"Desk\"><a href=\"/desk\">Candidates</a> "
                "<a href=\"/desk?status=failed\">Failed leads</a> "
                "<a href=\"/desk/incidents\">Incidents</a> <a href=\"/desk/audit\">Audit log</a> "
                "<a href=\"/desk/quotas\">Lead quotas</a>");
    if (d->c.role && strcmp(d->c.role, "admin") == 0)
        html_raw(b, " <a href=\"/desk/accounts\">Accounts</a> <a href=\"/desk/scout-keys\">Scout "
                    "credentials</a>");
    html_raw(b, "</nav>");
}

static void end(struct request *req)
{
    web_page_reply(req, 200);
}

/* What a write redirects with (?done=…), shown once as a notice. */
static const char *const dones[] = {
    "published", "rejected",  "edited",    "status",   "source",  "source-removed",
    "question",  "clarified", "withdrawn", "merged",   "banned",  "unbanned",
    "role",      "revoked",   "budget",    "disabled", "enabled", NULL};

/* Checks the query of a desk page against specs, whose last entry the caller leaves for
 * "done": 0, or -1 after answering 400. */
static int query(struct request *req, struct qp_spec *specs, size_t n, struct qp_value *v)
{
    specs[n - 1] = (struct qp_spec){"done", QP_ENUM, 0, 0, 0, dones};
    return web_query(req, specs, n, v);
}

/* The query of a page that takes only "done" (into *done): 0, or -1 after answering 400. */
static int done_query(struct request *req, struct qp_value *done)
{
    struct qp_spec specs[1];
    return query(req, specs, 1, done);
}

static void notice(struct buf *b, const struct qp_value *done)
{
    if (!done->set)
        return;
    html_fmt(b, "<p class=\"notice\" id=\"notice\" role=\"status\">Done: %t.</p>", done->s);
}

/* A record page's <h1> (title escaped), then the notice of *done. */
static void heading(struct buf *b, const char *title, const struct qp_value *done)
{
    html_fmt(b, "<h1>%t</h1>", title);
    notice(b, done);
}

/* A desk form: <h2>heading</h2> (NULL: none), then the form opened with its id and class,
 * posting to the path printed from fmt, and its CSRF field. */
static void form_open(struct buf *b, const struct desk *d, const char *heading, const char *id,
                      const char *cls, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void form_open(struct buf *b, const struct desk *d, const char *heading, const char *id,
                      const char *cls, const char *fmt, ...)
{
    struct buf action = BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&action, fmt, ap);
    va_end(ap);
    web_text_if(b, "<h2>", heading, "</h2>");
    html_fmt(b, "<form method=\"post\" class=\"%a\" id=\"%a\" action=\"%a\">", cls, id, action.p);
    web_hidden(b, "csrf", d->csrf);
    buf_release(&action);
}

/* <option>s of names (NULL-terminated), the one equal to selected (NULL: none) selected. */
static void options(struct buf *b, const char *const *names, const char *selected)
{
    for (size_t k = 0; names[k]; k++) {
        html_fmt(b, "%r%t</option>",
                 selected && strcmp(selected, names[k]) == 0 ? "<option selected>" : "<option>",
                 names[k]);
    }
}

static void text_input(struct buf *b, const char *name, const char *label, const char *value,
                       bool required, int max)
{
    html_fmt(b, "<label>%t <input name=\"%a\" maxlength=\"%d\" value=\"%a\"%r></label>", label,
             name, max, value, required ? " required" : "");
}

static void text_area(struct buf *b, const char *name, const char *label, const char *value,
                      bool required, int max)
{
    html_fmt(b,
             "<label>%t <textarea name=\"%a\" rows=\"4\" maxlength=\"%d\"%r>%t</textarea>"
             "</label>",
             label, name, max, required ? " required" : "", value);
}

/* yes / no / unknown for a tri-state field (-1 unknown). */
static void tri_select(struct buf *b, const char *name, const char *label, int v)
{
    html_fmt(b,
             "<label>%t <select name=\"%a\"><option value=\"\"%r>unknown</option><option "
             "value=\"yes\"%r>yes</option><option value=\"no\"%r>no</option></select></label>",
             label, name, v < 0 ? " selected" : "", v == 1 ? " selected" : "",
             v == 0 ? " selected" : "");
}

static void submit(struct buf *b, const char *label)
{
    html_fmt(b, "<button type=\"submit\">%t</button></form>", label);
}

/* The Fan Verdict question fields (type, text, three labels), prefilled from q. */
static void question_fields(struct buf *b, const struct question *q)
{
    html_fmt(b,
             "<datalist id=\"question-types\"><option value=\"call_correctness\"><option "
             "value=\"no_call\"></datalist><label>Question type <input name=\"question_type\" "
             "list=\"question-types\" maxlength=\"100\" value=\"%a\"></label>",
             q && q->type ? q->type : "");
    text_input(b, "question_text", "Question text", q ? q->text : NULL, false, 500);
    text_input(b, "option_a_label", "Option A label", q ? q->a_label : NULL, false, 200);
    text_input(b, "option_b_label", "Option B label", q ? q->b_label : NULL, false, 200);
    text_input(b, "unsure_label", "Unsure label", q ? q->unsure_label : NULL, false, 200);
}

/* The question of a form: 1 read into q, 0 none given, -1 partly given (answered 400). */
static int question_of(struct request *req, const struct desk *d, struct question *q)
{
    static const char *const names[] = {"question_type", "question_text", "option_a_label",
                                        "option_b_label", "unsure_label"};
    const char *v[5];
    int given = 0;
    for (int k = 0; k < 5; k++)
        given += (v[k] = fopt(d, names[k])) != NULL;
    if (given == 0)
        return 0;
    for (int k = 0; k < 5; k++)
        if (!v[k] || strlen(v[k]) > 500) {
            web_error_page(req, 400,
                           "a Fan Verdict question needs all five fields (type, text, three "
                           "labels), each 1 to 500 bytes; %s is missing or too long",
                           names[k]);
            return -1;
        }
    memset(q, 0, sizeof *q);
    q->type = v[0];
    q->text = v[1];
    q->a_label = q->stored_a = v[2];
    q->b_label = q->stored_b = v[3];
    q->unsure_label = q->stored_unsure = v[4];
    q->factual_context_json = "{}";
    q->version = MODEL_NULL;
    q->superseded_at = MODEL_NULL;
    return 1;
}

/* <a href="/desk/DIR/ID">ID</a>: a link to a desk record (dir "incidents/" or "leads/"). */
static void record_link(struct buf *b, const char *dir, const char *id)
{
    html_fmt(b, "<a href=\"/desk/%r%a\">%t</a>", dir, id, id);
}

static void audit_rows(struct buf *b, const struct audit_record *r, size_t n, bool target)
{
    if (n == 0) {
        html_raw(b, "<p class=\"empty\">No audit records.</p>");
        return;
    }
    html_raw(b, "<div class=\"table-wrap\"><table class=\"audit\"><thead><tr><th>When</th>"
                "<th>Who</th><th>Action</th>");
    if (target)
        html_raw(b, "<th>Target</th>");
    html_raw(b, "<th>Before</th><th>After</th><th>Reason</th><th>Request</th></tr></thead>"
                "<tbody>");
    for (size_t i = 0; i < n; i++) {
        html_raw(b, "<tr><td>");
        web_time(b, r[i].at);
        html_fmt(b, "</td><td>%t", r[i].actor);
        web_text_if(b, " (", r[i].role, ")");
        html_fmt(b, "</td><td class=\"action\">%t", r[i].action);
        if (target) {
            html_fmt(b, "</td><td>%t ", r[i].target_kind);
            if (strcmp(r[i].target_kind, "incident") == 0 ||
                strcmp(r[i].target_kind, "lead") == 0) {
                record_link(b, strcmp(r[i].target_kind, "incident") == 0 ? "incidents/" : "leads/",
                            r[i].target_id);
            } else {
                html_text(b, r[i].target_id);
            }
        }
        html_fmt(b,
                 "</td><td><code>%t</code></td><td><code>%t</code></td><td>%t</td><td>%t</td>"
                 "</tr>",
                 r[i].before_json, r[i].after_json, r[i].reason, r[i].request_id);
    }
    html_raw(b, "</tbody></table></div>");
}

/* After a write: 303 to the path printed from fmt, with ?done=what. */
static void done_to(struct request *req, const char *what, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void done_to(struct request *req, const char *what, const char *fmt, ...)
{
    struct buf to = BUF_INIT;
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(&to, fmt, ap);
    va_end(ap);
    buf_printf(&to, "?done=%s", what);
    web_redirect(req, 303, to.p);
    buf_release(&to);
}

/* The UUID of the route's segment, or -1 after answering 404. */
static int param_id(struct request *req, char id[UUID_STR_LEN + 1])
{
    if (uuid_normalize(req->param, id) < 0) {
        web_error_page(req, 404, "no such record: the desk addresses records by UUID");
        return -1;
    }
    return 0;
}

/* A record's page: its query ("done" only, into *done), then its UUID: 0, or -1 after
 * answering 400 or 404. */
static int record_query(struct request *req, char id[UUID_STR_LEN + 1], struct qp_value *done)
{
    if (done_query(req, done) < 0 || param_id(req, id) < 0)
        return -1;
    return 0;
}

/* The outcome of a desk read of one record: 0 read and found, else -1 after answering 503
 * or 404. */
static int loaded(struct request *req, int rc, const bool *found, const char *what, const char *id)
{
    if (rc != APP_OK) {
        web_unavailable(req);
        return -1;
    }
    if (!*found) { /* read after the call that set it */
        web_error_page(req, 404, "no %s %s", what, id);
        return -1;
    }
    return 0;
}

/* A use case's outcome as an answer: 0 when it is 0 (done), else -1 after answering with
 * status[rc] (and the use case's *message), or 503 for APP_UNAVAILABLE. One table per
 * family of use cases below: the one place a refusal becomes a status. */
static int answered(struct request *req, int rc, const int *status, size_t n,
                    const char *const *message)
{
    if (rc == 0)
        return 0;
    if (rc < 0 || (size_t)rc >= n || !status[rc])
        web_unavailable(req);
    else
        web_error_page(req, status[rc], "%s", *message ? *message : "refused");
    return -1;
}
#define ANSWERED(req, rc, table, message)                                                          \
    answered(req, rc, table, sizeof table / sizeof table[0], message)

static const int candidate_status[] = {
    [CANDIDATE_MISSING] = 404, [CANDIDATE_NOT_CANDIDATE] = 409, [CANDIDATE_INVALID] = 400};
static const int edit_status[] = {
    [EDIT_INVALID] = 400, [EDIT_MISSING] = 404, [EDIT_REFUSED] = 409, [EDIT_DUPLICATE] = 409};
static const int scoutkey_status[] = {
    [SCOUTKEY_INVALID] = 400, [SCOUTKEY_MISSING] = 404, [SCOUTKEY_REVOKED] = 409};

/* ---- candidates ---- */

/* "candidate" (research done, waiting for an operator) and every lead status */
#define DESK_LEAD_STATUS(id, name, ...) name,
static const char *const lead_statuses[] = {"candidate",
                                            VOCAB_LEAD_STATUSES(DESK_LEAD_STATUS) NULL};

static void page_candidates(struct request *req, struct desk *d)
{
    struct qp_spec specs[] = {{"status", QP_ENUM, 0, 0, 0, lead_statuses}, {0}};
    struct qp_value v[2];
    if (query(req, specs, 2, v) < 0)
        return;
    const char *status = v[0].set ? v[0].s : "candidate";
    struct research_lead *l;
    size_t n;
    if (desk_leads(&d->c, status, 200, &l, &n) != APP_OK) {
        web_unavailable(req);
        return;
    }
    struct buf *b = &req->out;
    begin(req, d, "Editorial desk");
    bool cand = strcmp(status, "candidate") == 0;
    html_fmt(b, "<h1>%t", cand ? "Candidates" : "Leads");
    if (!cand) {
        html_fmt(b, ": %t", status);
    }
    html_raw(b, "</h1><form class=\"filter\" method=\"get\" action=\"/desk\"><label>Status "
                "<select name=\"status\">");
    options(b, lead_statuses, status);
    html_raw(b, "</select></label> <button type=\"submit\">Show</button></form>");
    notice(b, &v[1]);
    html_raw(b, "<ol class=\"leads\" id=\"leads\">");
    for (size_t i = 0; i < n; i++) {
        html_fmt(b, "<li class=\"lead\" data-id=\"%a\"><a href=\"/desk/leads/%a\">%t", l[i].id,
                 l[i].id, l[i].game_id);
        if (l[i].period != INT64_MIN)
            html_printf(b, " · Q%lld", (long long)l[i].period);
        web_text_if(b, " ", l[i].clock, "");
        web_text_if(b, " · ", l[i].category, "");
        html_raw(b, "</a> <span class=\"meta\">");
        web_time(b, l[i].created_at);
        html_fmt(b, " · by %t</span><p class=\"lead-text\">%t</p>",
                 l[i].contributor ? l[i].contributor : "an agent", l[i].description);
        if (!cand && l[i].reason) {
            html_fmt(b, "<p class=\"gate\">Gate: %t</p>", l[i].reason);
        }
        html_raw(b, "</li>");
    }
    html_raw(b, "</ol>");
    if (n == 0)
        html_raw(b, "<p id=\"leads-empty\">No leads here.</p>");
    end(req);
}

/* ---- record pages (a lead, an incident, an account) ---- */

/*
 * A record page is written by record_page from a struct record_kind: the record's reader,
 * the page's title and its sections in page order (each a record_section). A struct record
 * is what the reader filled; everything it points to is in the request's arena.
 */
struct record {
    union {
        struct desk_lead lead;
        struct desk_incident incident;
        struct desk_account account;
    } u;
    bool found;
    const char *id;              /* the route's UUID */
    const char *title;           /* the <h1> (the reader sets it) */
    const struct qp_value *done; /* the page's "done" notice */
    struct key_info *keys;       /* an account's agent keys */
    size_t nkeys;
};
typedef void record_section(struct buf *b, const struct desk *d, const struct record *r);
struct record_kind {
    const char *what;  /* "no WHAT ID" (404) */
    const char *title; /* the page's title; NULL: the record's */
    int (*read)(struct desk *d, const char *id, struct record *r); /* an app_outcome */
    record_section *const sections[8];                             /* NULL-terminated */
};

/* The record page of kind k: the query ("done" only) and UUID of the route, the record
 * read (503 or 404 when it cannot be), then the desk layout and k's sections. */
static void record_page(struct request *req, struct desk *d, const struct record_kind *k)
{
    char id[UUID_STR_LEN + 1];
    struct qp_value v[1];
    if (record_query(req, id, v) < 0)
        return;
    struct record r = {.id = id, .done = v};
    if (loaded(req, k->read(d, id, &r), &r.found, k->what, id) < 0)
        return;
    begin(req, d, k->title ? k->title : r.title);
    for (size_t s = 0; k->sections[s]; s++)
        k->sections[s](&req->out, d, &r);
    end(req);
}

/* A record's <h1> (its title) and the notice. */
static void titled(struct buf *b, const struct desk *d, const struct record *r)
{
    (void)d;
    heading(b, r->title, r->done);
}

/* The lead page (lead_record): the lead (desk_lead) with its fetch records, research trail,
 * audit and, for a candidate, the publish and reject forms. Each reader of a record kind
 * (struct record_kind.read) fills r->u and r->found (and r->title where the page shows the
 * record's) and returns the use case's outcome; each section writes its part of the page
 * into b from r. */
static int read_lead(struct desk *d, const char *id, struct record *r)
{
    int rc = desk_lead(&d->c, id, &r->u.lead);
    r->found = rc == APP_OK && r->u.lead.found;
    return rc;
}

static void lead_heading(struct buf *b, const struct desk *d, const struct record *r)
{
    (void)d;
    html_fmt(b, "<h1>Lead <code>%t</code></h1>", r->u.lead.lead.id);
    notice(b, r->done);
}

static void lead_facts(struct buf *b, const struct desk *d, const struct record *r)
{
    (void)d;
    const struct desk_lead *L = &r->u.lead;
    const struct research_lead *l = &L->lead;
    html_fmt(b, "<dl class=\"facts\"><dt>Status</dt><dd id=\"lead-status\">%t",
             L->candidate ? "candidate" : l->status);
    web_text_if(b, " — ", l->reason, "");
    html_fmt(b, "</dd><dt>Submitter</dt><dd>%t</dd><dt>Game</dt><dd>%t</dd><dt>Play</dt><dd>",
             l->contributor ? l->contributor : "an agent key", l->game_id);
    if (l->period != INT64_MIN)
        html_printf(b, "Q%lld ", (long long)l->period);
    html_fmt(b, "%t %t</dd><dt>Submitted</dt><dd>", l->clock, l->category);
    web_time(b, l->created_at);
    html_fmt(b, "</dd></dl><h2>Lead text</h2><p class=\"lead-text\">%t</p>", l->description);
    if (l->incident_id) {
        html_raw(b, "<p>Incident: ");
        record_link(b, "incidents/", l->incident_id);
        html_raw(b, "</p>");
    }
}

static void lead_fetches(struct buf *b, const struct desk *d, const struct record *r)
{
    (void)d;
    const struct desk_lead *L = &r->u.lead;
    html_raw(b, "<h2>Fetch records</h2><div class=\"table-wrap\"><table class=\"fetches\"><thead>"
                "<tr><th>URL</th><th>Final URL</th><th>Status</th><th>Bytes</th>"
                "<th>Publisher domain</th><th>When</th></tr></thead><tbody>");
    for (size_t i = 0; i < L->nfetches; i++) {
        const struct research_fetch_row *f = &L->fetches[i];
        html_fmt(b, "<tr><td>%t</td><td>%t</td><td>", f->url, f->final_url);
        if (f->http_status >= 0)
            html_printf(b, "%ld", f->http_status);
        web_text_if(b, " ", f->error, "");
        html_fmt(b, "</td><td>%lld</td><td>%t</td><td>", (long long)f->bytes, f->domain);
        web_time(b, f->fetched_at);
        html_raw(b, "</td></tr>");
    }
    html_raw(b, "</tbody></table></div>");
}

static void lead_trail(struct buf *b, const struct desk *d, const struct record *r)
{
    (void)d;
    const struct desk_lead *L = &r->u.lead;
    html_raw(b, "<h2>Research trail</h2><ol class=\"events\">");
    for (size_t i = 0; i < L->nevents; i++) {
        const struct research_event_row *e = &L->events[i];
        html_raw(b, "<li>");
        web_time(b, e->at);
        html_fmt(b, " %t (%t)", e->event, e->actor);
        web_text_if(b, ": ", e->reason, "");
        html_raw(b, "</li>");
    }
    html_raw(b, "</ol>");
}

static void lead_history(struct buf *b, const struct desk *d, const struct record *r)
{
    (void)d;
    html_raw(b, "<h2>Audit</h2>");
    audit_rows(b, r->u.lead.audit, r->u.lead.naudit, false);
}

/* A candidate's publish and reject forms. */
static void lead_forms(struct buf *b, const struct desk *d, const struct record *r)
{
    const struct research_lead *l = &r->u.lead.lead;
    if (r->u.lead.candidate) {
        form_open(b, d, "Publish as Developing", "publish", "desk-form", "/desk/leads/%s/publish",
                  l->id);
        text_input(b, "title", "Neutral title", NULL, true, 300);
        text_area(b, "summary", "Neutral summary", NULL, true, 2000);
        text_area(b, "description", "Play description (empty: the lead text)", NULL, false, 5000);
        html_raw(b, "<fieldset><legend>Fan Verdict question (optional; a no-call debate is "
                    "allowed)</legend>");
        question_fields(b, NULL);
        html_raw(b, "</fieldset>");
        submit(b, "Publish");
        form_open(b, d, "Reject", "reject", "desk-form", "/desk/leads/%s/reject", l->id);
        text_input(b, "reason", "Reason", NULL, true, 500);
        submit(b, "Reject");
    }
}

static const struct record_kind lead_record = {
    "lead",
    "Lead",
    read_lead,
    {lead_heading, lead_facts, lead_fetches, lead_trail, lead_history, lead_forms, NULL}};

static void page_lead(struct request *req, struct desk *d)
{
    record_page(req, d, &lead_record);
}

static void page_lead_publish(struct request *req, struct desk *d)
{
    char id[UUID_STR_LEN + 1];
    if (param_id(req, id) < 0)
        return;
    struct question q;
    int has = question_of(req, d, &q);
    if (has < 0)
        return;
    struct candidate_publish_input in = {.title = fv(d, "title"),
                                         .summary = fv(d, "summary"),
                                         .description = fopt(d, "description"),
                                         .question = has ? &q : NULL};
    if (!in.title || !in.summary) {
        web_error_page(req, 400, "a title and a neutral summary are required");
        return;
    }
    struct candidate_result r;
    int rc = candidate_publish(&d->c, id, &in, &r);
    if (ANSWERED(req, rc, candidate_status, &r.message) < 0)
        return;
    done_to(req, "published", "/desk/incidents/%s", r.incident_id);
}

static void page_lead_reject(struct request *req, struct desk *d)
{
    char id[UUID_STR_LEN + 1];
    if (param_id(req, id) < 0)
        return;
    struct candidate_result r;
    int rc = candidate_reject(&d->c, id, fv(d, "reason"), &r);
    if (ANSWERED(req, rc, candidate_status, &r.message) < 0)
        return;
    done_to(req, "rejected", "/desk");
}

/* ---- incidents ---- */

static void page_incidents(struct request *req, struct desk *d)
{
    const char *const *cats = category_names;
    struct qp_spec specs[] = {{"q", QP_TEXT, 0, 200, 0, NULL},
                              {"game", QP_TEXT, 0, 255, 0, NULL},
                              {"team", QP_TEXT, 0, 255, 0, NULL},
                              {"status", QP_ENUM_OR_EMPTY, 0, 0, 0, maturity_names},
                              {"category", QP_ENUM_OR_EMPTY, 0, 0, 0, cats},
                              {"page", QP_INT, 1, 4000, 1, NULL},
                              {0}};
    struct qp_value v[7];
    if (query(req, specs, 7, v) < 0)
        return;
    const char *text = v[0].set ? v[0].s : NULL;
    struct incident_filter f = web_filter(text && *text ? 500 : DESK_PAGE_SIZE);
    f.game_id = v[1].set ? v[1].s : NULL;
    f.team_id = v[2].set ? v[2].s : NULL;
    f.status = v[3].set ? v[3].s : NULL;
    f.category = v[4].set ? v[4].s : NULL;
    f.offset = (v[5].i - 1) * f.limit;
    struct incident *list;
    size_t n;
    bool more;
    if (desk_incidents(&d->c, &f, text, &list, &n, &more) != APP_OK) {
        web_unavailable(req);
        return;
    }
    struct buf *b = &req->out;
    begin(req, d, "Incidents");
    html_raw(b, "<h1>Incidents</h1><form class=\"filter\" method=\"get\" "
                "action=\"/desk/incidents\">");
    text_input(b, "q", "Title", text, false, 200);
    text_input(b, "game", "Game ID", f.game_id, false, 255);
    text_input(b, "team", "Team ID", f.team_id, false, 255);
    html_raw(b, "<label>Status <select name=\"status\"><option value=\"\">any</option>");
    options(b, maturity_names, f.status);
    html_raw(b, "</select></label><label>Category <select name=\"category\"><option "
                "value=\"\">any</option>");
    options(b, cats, f.category);
    html_raw(b, "</select></label> <button type=\"submit\">Search</button></form>"
                "<ol class=\"incidents\" id=\"incidents\">");
    for (size_t i = 0; i < n; i++) {
        html_fmt(b,
                 "<li><a href=\"/desk/incidents/%a\">%t</a> <span class=\"meta\">%t · %t at %t "
                 "· ",
                 list[i].id, list[i].title, list[i].status, list[i].away_name, list[i].home_name);
        web_time(b, list[i].published_at);
        html_raw(b, "</span></li>");
    }
    html_raw(b, "</ol>");
    if (n == 0)
        html_raw(b, "<p id=\"incidents-empty\">No incidents match.</p>");
    if (more && !(text && *text))
        html_printf(b, "<p><a rel=\"next\" href=\"/desk/incidents?page=%lld\">Next</a></p>",
                    (long long)v[5].i + 1);
    end(req);
}

/* The incident page (incident_record): the incident (desk_incident), titled by its title,
 * with its facts, sources, change history and, when published, the editorial forms. */
static int read_incident(struct desk *d, const char *id, struct record *r)
{
    int rc = desk_incident(&d->c, id, &r->u.incident);
    r->found = rc == APP_OK && r->u.incident.found;
    r->title = r->found ? r->u.incident.inc.title : NULL;
    return rc;
}

/* Only a published incident is edited (a withdrawn or merged one is read only). */
static bool published(const struct record *r)
{
    return strcmp(r->u.incident.inc.visibility, "published") == 0;
}

static void incident_facts(struct buf *b, const struct desk *d, const struct record *r)
{
    (void)d;
    const struct incident *i = &r->u.incident.inc;
    html_fmt(b, "<dl class=\"facts\"><dt>Visibility</dt><dd id=\"visibility\">%t", i->visibility);
    if (i->duplicate_of) {
        html_raw(b, " into ");
        record_link(b, "incidents/", i->duplicate_of);
    }
    html_fmt(b,
             "</dd><dt>Maturity</dt><dd id=\"maturity\">%t</dd><dt>Public page</dt><dd><a "
             "href=\"/incidents/%a\">/incidents/%t</a> (the URL never changes with the "
             "title)</dd><dt>Game</dt><dd>%t</dd><dt>Provenance</dt><dd><code>%t</code></dd>"
             "</dl>",
             i->status, i->slug ? i->slug : i->id, i->slug ? i->slug : i->id, i->game_id,
             i->provenance_json);
}

/* The editorial fields and maturity forms of a published incident. */
static void incident_fields(struct buf *b, const struct desk *d, const struct record *r)
{
    const struct incident *i = &r->u.incident.inc;
    if (published(r)) {
        form_open(b, d, "Editorial fields", "edit", "desk-form", "/desk/incidents/%s/edit", i->id);
        text_input(b, "title", "Title", i->title, true, 300);
        text_area(b, "play_description", "Play description", i->play_description, true, 5000);
        text_area(b, "neutral_summary", "Neutral summary", i->neutral_summary, true, 2000);
        char period[24] = "";
        if (i->period != MODEL_NULL)
            snprintf(period, sizeof period, "%lld", (long long)i->period);
        text_input(b, "period", "Period", period, false, 2);
        text_input(b, "clock", "Clock (M:SS)", i->clock, false, 5);
        text_input(b, "original_ruling", "Original ruling", i->original_ruling, false, 500);
        text_input(b, "final_ruling", "Final ruling", i->final_ruling, false, 500);
        tri_select(b, "replay_involved", "Replay involved", i->replay_involved);
        text_input(b, "consequence", "Consequence", i->consequence, false, 500);
        tri_select(b, "penalty_called", "Penalty called", i->penalty_called);
        text_input(b, "reason", "Reason for the change (optional)", NULL, false, 500);
        submit(b, "Save");

        form_open(b, d, "Maturity", "status", "desk-form inline", "/desk/incidents/%s/status",
                  i->id);
        html_raw(b, "<label>Status <select name=\"status\">");
        options(b, maturity_names, i->status);
        html_raw(b, "</select></label> ");
        submit(b, "Set maturity");
    }
}

/* The sources, each with its removal form when the incident is published. */
static void incident_sources(struct buf *b, const struct desk *d, const struct record *r)
{
    const struct desk_incident *D = &r->u.incident;
    const struct incident *i = &D->inc;
    html_raw(b, "<h2>Sources</h2><ol class=\"sources\" id=\"sources\">");
    for (size_t k = 0; k < D->nsources; k++) {
        html_fmt(b, "<li><a rel=\"nofollow noopener\" href=\"%a\">%t</a> (%t) — %t",
                 D->sources[k].url, D->sources[k].title, D->sources[k].kind,
                 D->sources[k].supports);
        if (published(r)) {
            char fid[48];
            snprintf(fid, sizeof fid, "remove-source-%zu", k);
            form_open(b, d, NULL, fid, "inline-form", "/desk/incidents/%s/sources/remove", i->id);
            web_hidden(b, "url", D->sources[k].url);
            submit(b, "Remove");
        }
        html_raw(b, "</li>");
    }
    html_raw(b, "</ol>");
}

/* The source, question, withdrawal and merge forms of a published incident. */
static void incident_actions(struct buf *b, const struct desk *d, const struct record *r)
{
    const struct desk_incident *D = &r->u.incident;
    const struct incident *i = &D->inc;
    if (published(r)) {
        form_open(b, d, NULL, "source", "desk-form", "/desk/incidents/%s/sources", i->id);
        text_input(b, "url", "URL", NULL, true, 2000);
        text_input(b, "title", "Title", NULL, true, 500);
        text_input(b, "publisher", "Publisher (optional)", NULL, false, 200);
        html_raw(b, "<label>Kind <select name=\"kind\">");
        options(b, source_kind_names, NULL);
        html_raw(b, "</select></label>");
        text_input(b, "supports", "What it supports", NULL, true, 2000);
        submit(b, "Add source");

        html_raw(b, "<h2>Fan Verdict question</h2>");
        if (i->has_question)
            html_printf(b, "<p id=\"question-version\">Version %lld is current.</p>",
                        (long long)i->question.version);
        else
            html_raw(b, "<p id=\"question-version\">No question yet.</p>");
        form_open(b, d, NULL, "question", "desk-form", "/desk/incidents/%s/question", i->id);
        question_fields(b, i->has_question ? &i->question : NULL);
        if (i->has_question) {
            html_fmt(b,
                     "<label><input type=\"checkbox\" name=\"clarify\" value=\"yes\"> A "
                     "synonymous clarification of the labels (keeps the version and its "
                     "ballots)</label><p class=\"warning\" id=\"archive-warning\">A new "
                     "version archives the <strong id=\"ballots\">%lld</strong> ballot%r of "
                     "version %lld.</p>",
                     (long long)D->ballots, D->ballots == 1 ? "" : "s",
                     (long long)i->question.version);
            if (D->ballots > 0)
                html_raw(b, "<label><input type=\"checkbox\" name=\"confirm\" value=\"yes\"> "
                            "I confirm: archive them (not needed for a clarification)</label>");
        }
        submit(b, "Save question");

        form_open(b, d, "Withdraw", "withdraw", "desk-form", "/desk/incidents/%s/withdraw", i->id);
        text_input(b, "reason", "Reason", NULL, true, 500);
        submit(b, "Withdraw");

        form_open(b, d, "Merge into a survivor", "merge", "desk-form", "/desk/incidents/%s/merge",
                  i->id);
        text_input(b, "into", "Survivor incident ID", NULL, true, 36);
        text_input(b, "reason", "Reason", NULL, false, 500);
        html_raw(b, "<label><input type=\"checkbox\" name=\"across_games\" value=\"yes\"> "
                    "The survivor belongs to another game: merge anyway (a duplicate normally "
                    "reports the same play of the same game)</label>");
        submit(b, "Merge");
    }
}

static void incident_history(struct buf *b, const struct desk *d, const struct record *r)
{
    (void)d;
    html_raw(b, "<h2>Change history</h2>");
    audit_rows(b, r->u.incident.audit, r->u.incident.naudit, false);
}

static const struct record_kind incident_record = {"incident",
                                                   NULL,
                                                   read_incident,
                                                   {titled, incident_facts, incident_fields,
                                                    incident_sources, incident_actions,
                                                    incident_history, NULL}};

static void page_incident(struct request *req, struct desk *d)
{
    record_page(req, d, &incident_record);
}

static void back(struct request *req, const char *id, const char *what)
{
    done_to(req, what, "/desk/incidents/%s", id);
}

/* "yes" 1, "no" 0, "" or absent -1; -2 otherwise. */
static int tri_of(const char *v)
{
    if (!v || !*v)
        return -1;
    return strcmp(v, "yes") == 0 ? 1 : strcmp(v, "no") == 0 ? 0 : -2;
}

static bool ticked(const struct desk *d, const char *name)
{
    return fv(d, name) && strcmp(fv(d, name), "yes") == 0;
}

/*
 * The incident actions (POST /desk/incidents/{id}/…): each reads its form and calls one use
 * case of app/editorial.h, returning its outcome (or DESK_ANSWERED when it refused the form
 * itself); incident_post does the rest — the incident's ID from the path, the outcome as a
 * status (edit_status), the redirect back with ?done=. *done is preset to the action's.
 */
#define DESK_ANSWERED (-100)
typedef int incident_action(struct request *req, struct desk *d, const char *id,
                            struct edit_result *r, const char **done);

static void incident_post(struct request *req, struct desk *d, incident_action *act,
                          const char *done)
{
    char id[UUID_STR_LEN + 1];
    if (param_id(req, id) < 0)
        return;
    struct edit_result r = {0};
    int rc = act(req, d, id, &r, &done);
    if (rc == DESK_ANSWERED || ANSWERED(req, rc, edit_status, &r.message) < 0)
        return;
    back(req, id, done);
}

#define DESK_INCIDENT_POST(name, done)                                                             \
    static int act_##name(struct request *req, struct desk *d, const char *id,                     \
                          struct edit_result *r, const char **done_);                              \
    static void page_incident_##name(struct request *req, struct desk *d)                          \
    {                                                                                              \
        incident_post(req, d, act_##name, done);                                                   \
    }                                                                                              \
    DESK_POST(incident_##name)

DESK_INCIDENT_POST(edit, "edited")
DESK_INCIDENT_POST(status, "status")
DESK_INCIDENT_POST(source, "source")
DESK_INCIDENT_POST(source_remove, "source-removed")
DESK_INCIDENT_POST(question, "question")
DESK_INCIDENT_POST(withdraw, "withdrawn")
DESK_INCIDENT_POST(merge, "merged")

/* An optional reason of at most 500 bytes: 0, or DESK_ANSWERED after a 400. */
static int reason_of(struct request *req, const struct desk *d, bool required, const char *what,
                     const char **reason)
{
    *reason = fopt(d, "reason");
    if ((required && !*reason) || (*reason && strlen(*reason) > 500)) {
        web_error_page(req, 400, "%s needs %s (1 to 500 bytes)", what,
                       required ? "a reason" : "a shorter reason");
        return DESK_ANSWERED;
    }
    return 0;
}

static int act_edit(struct request *req, struct desk *d, const char *id, struct edit_result *r,
                    const char **done)
{
    (void)done;
    struct incident f = {.title = fv(d, "title"),
                         .play_description = fv(d, "play_description"),
                         .neutral_summary = fv(d, "neutral_summary"),
                         .clock = fopt(d, "clock"),
                         .original_ruling = fopt(d, "original_ruling"),
                         .final_ruling = fopt(d, "final_ruling"),
                         .consequence = fopt(d, "consequence"),
                         .period = MODEL_NULL,
                         .replay_involved = tri_of(fv(d, "replay_involved")),
                         .penalty_called = tri_of(fv(d, "penalty_called"))};
    const char *period = fopt(d, "period");
    if (period && qp_parse_int(period, &f.period) < 0) {
        web_error_page(req, 400, "period must be 1 to 10 (or empty)");
        return DESK_ANSWERED;
    }
    return incident_edit(&d->c, id, &f, fopt(d, "reason"), r);
}

static int act_status(struct request *req, struct desk *d, const char *id, struct edit_result *r,
                      const char **done)
{
    (void)req, (void)done;
    return incident_set_status(&d->c, id, fv(d, "status"), r);
}

static int act_source(struct request *req, struct desk *d, const char *id, struct edit_result *r,
                      const char **done)
{
    (void)req, (void)done;
    struct source src = {.url = fv(d, "url"),
                         .title = fv(d, "title"),
                         .publisher = fopt(d, "publisher"),
                         .kind = fv(d, "kind"),
                         .supports = fv(d, "supports"),
                         .published_at = MODEL_NULL};
    return incident_add_source(&d->c, id, &src, r);
}

static int act_source_remove(struct request *req, struct desk *d, const char *id,
                             struct edit_result *r, const char **done)
{
    (void)req, (void)done;
    return incident_remove_source(&d->c, id, fv(d, "url"), fopt(d, "reason"), r);
}

static int act_question(struct request *req, struct desk *d, const char *id, struct edit_result *r,
                        const char **done)
{
    struct question q;
    int has = question_of(req, d, &q);
    if (has < 0)
        return DESK_ANSWERED;
    if (has == 0) {
        web_error_page(req, 400, "a Fan Verdict question needs its type, text and three labels");
        return DESK_ANSWERED;
    }
    bool clarify = ticked(d, "clarify");
    if (!clarify && !ticked(d, "confirm")) {
        /* a new version archives the current ballots: the editor confirms that number */
        struct desk_incident D;
        if (desk_incident(&d->c, id, &D) != APP_OK)
            return APP_UNAVAILABLE;
        if (D.found && D.ballots > 0) {
            web_error_page(req, 409,
                           "a new question version archives the %lld ballot%s of version %lld: "
                           "tick \"I confirm\" (or mark a synonymous clarification)",
                           (long long)D.ballots, D.ballots == 1 ? "" : "s",
                           (long long)D.inc.question.version);
            return DESK_ANSWERED;
        }
    }
    if (clarify)
        *done = "clarified";
    return incident_set_question(&d->c, id, &q, clarify, r);
}

static int act_withdraw(struct request *req, struct desk *d, const char *id, struct edit_result *r,
                        const char **done)
{
    (void)done;
    const char *reason;
    if (reason_of(req, d, true, "a withdrawal", &reason) < 0)
        return DESK_ANSWERED;
    return incident_withdraw(&d->c, id, reason, r);
}

static int act_merge(struct request *req, struct desk *d, const char *id, struct edit_result *r,
                     const char **done)
{
    (void)done;
    char into[UUID_STR_LEN + 1];
    if (!fv(d, "into") || uuid_normalize(fv(d, "into"), into) < 0) {
        web_error_page(req, 400, "the survivor must be an incident ID (a UUID)");
        return DESK_ANSWERED;
    }
    const char *reason;
    if (reason_of(req, d, false, "a merge", &reason) < 0)
        return DESK_ANSWERED;
    return incident_merge(&d->c, id, into, reason, ticked(d, "across_games"), r);
}

/* ---- the audit log ---- */

static void page_audit(struct request *req, struct desk *d)
{
    static const char *const kinds[] = {"incident",  "lead",  "account", "comment",
                                        "agent_key", "scout", NULL};
    struct qp_spec specs[] = {{"kind", QP_ENUM_OR_EMPTY, 0, 0, 0, kinds},
                              {"target", QP_TEXT, 0, 255, 0, NULL},
                              {"page", QP_INT, 1, 4000, 1, NULL},
                              {"action", QP_TEXT, 0, 100, 0, NULL},
                              {0}};
    struct qp_value v[5];
    if (query(req, specs, 5, v) < 0)
        return;
    const char *kind = v[0].set ? v[0].s : NULL;
    const char *target = v[1].set ? v[1].s : NULL;
    const char *action = v[3].set ? v[3].s : NULL;
    struct audit_record *r;
    size_t n;
    int64_t page = v[2].i;
    if (desk_audit(&d->c, kind, target, action, DESK_PAGE_SIZE + 1, (page - 1) * DESK_PAGE_SIZE, &r,
                   &n) != APP_OK) {
        web_unavailable(req);
        return;
    }
    bool more = n > DESK_PAGE_SIZE;
    if (more)
        n = DESK_PAGE_SIZE;
    struct buf *b = &req->out;
    begin(req, d, "Audit log");
    html_raw(b, "<h1>Audit log</h1><form class=\"filter\" method=\"get\" action=\"/desk/audit\">"
                "<label>Target kind <select name=\"kind\"><option value=\"\">any</option>");
    options(b, kinds, kind);
    html_raw(b, "</select></label>");
    text_input(b, "target", "Target ID", target, false, 255);
    text_input(b, "action", "Action", action, false, 100);
    html_raw(b, " <button type=\"submit\">Filter</button></form><div id=\"audit\">");
    audit_rows(b, r, n, true);
    html_raw(b, "</div>");
    if (more) {
        html_raw(b, "<p><a rel=\"next\" href=\"/desk/audit?");
        const char *keep[][2] = {{"kind", kind}, {"target", target}, {"action", action}};
        for (size_t k = 0; k < 3; k++)
            if (keep[k][1]) {
                html_fmt(b, "%r=", keep[k][0]);
                buf_put_urlencoded(b, keep[k][1]);
                html_raw(b, "&amp;");
            }
        html_printf(b, "page=%lld\">Next</a></p>", (long long)page + 1);
    }
    end(req);
}

/* ---- accounts and keys (admin) ---- */

static void page_accounts(struct request *req, struct desk *d)
{
    struct qp_spec specs[] = {{"q", QP_TEXT, 0, 254, 0, NULL}, {0}};
    struct qp_value v[2];
    if (query(req, specs, 2, v) < 0)
        return;
    const char *text = v[0].set ? v[0].s : NULL;
    struct account_row *list;
    size_t n;
    if (desk_accounts(&d->c, text, DESK_PAGE_SIZE, &list, &n) != APP_OK) {
        web_unavailable(req);
        return;
    }
    struct buf *b = &req->out;
    begin(req, d, "Accounts");
    html_raw(b, "<h1>Accounts</h1><form class=\"filter\" method=\"get\" "
                "action=\"/desk/accounts\">");
    text_input(b, "q", "Email contains", text, false, 254);
    html_raw(b, " <button type=\"submit\">Find</button></form><ol class=\"accounts\" "
                "id=\"accounts\">");
    for (size_t i = 0; i < n; i++) {
        html_fmt(b, "<li><a href=\"/desk/accounts/%a\">%t</a>", list[i].id, list[i].email);
        if (list[i].banned)
            html_raw(b, " <span class=\"state\">banned</span>");
        if (!list[i].verified)
            html_raw(b, " <span class=\"state\">unverified</span>");
        html_raw(b, "</li>");
    }
    html_raw(b, "</ol>");
    if (n == 0)
        html_raw(b, "<p id=\"accounts-empty\">No accounts match.</p>");
    end(req);
}

static void password_input(struct buf *b)
{
    html_raw(b, "<label>Your password (to confirm) <input type=\"password\" name=\"password\" "
                "autocomplete=\"current-password\"></label><label>or, with two-factor on, a "
                "code <input name=\"code\" inputmode=\"numeric\" autocomplete=\"one-time-code\" "
                "pattern=\"[0-9]{6}\" maxlength=\"6\"></label>");
}

/* The account page (account_record): the account (desk_account) and its agent keys
 * (APP_UNAVAILABLE when the keys cannot be read), titled by its email. */
static int read_account(struct desk *d, const char *id, struct record *r)
{
    int rc = desk_account(&d->c, id, &r->u.account);
    r->found = rc == APP_OK && r->u.account.found;
    if (!r->found)
        return rc;
    r->title = r->u.account.account.email;
    if (key_list(&d->c, r->title, &r->keys, &r->nkeys) != KEY_OK)
        return APP_UNAVAILABLE;
    return APP_OK;
}

/* The account's facts, its ban (or unban) and role forms. */
static void account_facts(struct buf *b, const struct desk *d, const struct record *r)
{
    const struct desk_account *A = &r->u.account;
    html_fmt(b,
             "<dl class=\"facts\"><dt>Display name</dt><dd>%t</dd><dt>State</dt><dd "
             "id=\"account-state\">%r%r</dd><dt>Roles</dt><dd id=\"roles\">%r%r%r%r</dd></dl>",
             A->display_name[0] ? A->display_name : "(none)",
             A->account.banned ? "banned" : "active",
             A->account.verified ? ", verified" : ", unverified", A->moderator ? "moderator " : "",
             A->editor ? "editor " : "", A->admin ? "admin" : "",
             !A->moderator && !A->editor && !A->admin ? "none" : "");
    const char *act = A->account.banned ? "unban" : "ban";
    form_open(b, d, A->account.banned ? "Unban" : "Ban", act, "desk-form", "/desk/accounts/%s/%s",
              r->id, act);
    text_input(b, "reason", "Reason", NULL, !A->account.banned, 500);
    if (!A->account.banned) {
        html_raw(b, "<p>A ban ends the account's sessions at once and stops its keys.</p>");
        password_input(b);
    }
    submit(b, A->account.banned ? "Unban" : "Ban");
    form_open(b, d, "Roles", "role", "desk-form", "/desk/accounts/%s/roles", r->id);
    html_raw(b, "<label>Role <select name=\"role\"><option>editor</option><option>moderator"
                "</option><option>admin</option></select></label><label>Change <select "
                "name=\"change\"><option>grant</option><option>revoke</option></select></label>");
    password_input(b);
    submit(b, "Change role");
}

/* The account's agent keys, each active one with its revocation form. */
static void account_keys(struct buf *b, const struct desk *d, const struct record *r)
{
    const struct key_info *keys = r->keys;
    html_raw(b, "<h2>Agent keys</h2><ul class=\"keys\" id=\"keys\">");
    for (size_t i = 0; i < r->nkeys; i++) {
        html_fmt(b, "<li>%t <code>%t…</code> %t", keys[i].name ? keys[i].name : "(unnamed)",
                 keys[i].prefix, agent_key_state_name(keys[i].state));
        if (keys[i].state == AGENT_KEY_ACTIVE) {
            form_open(b, d, NULL, "revoke-key", "inline-form", "/desk/keys/%s/revoke", keys[i].id);
            submit(b, "Revoke");
        }
        html_raw(b, "</li>");
    }
    html_raw(b, "</ul>");
    if (r->nkeys == 0)
        html_raw(b, "<p>No keys.</p>");
}

static void account_history(struct buf *b, const struct desk *d, const struct record *r)
{
    (void)d;
    html_raw(b, "<h2>History</h2>");
    audit_rows(b, r->u.account.audit, r->u.account.naudit, false);
}

static const struct record_kind account_record = {
    "account",
    "Account",
    read_account,
    {titled, account_facts, account_keys, account_history, NULL}};

static void page_account(struct request *req, struct desk *d)
{
    record_page(req, d, &account_record);
}

/* The account of the route: 0 with *A, else -1 after answering. */
static int target_account(struct request *req, struct desk *d, char id[UUID_STR_LEN + 1],
                          struct desk_account *A)
{
    if (param_id(req, id) < 0)
        return -1;
    return loaded(req, desk_account(&d->c, id, A), &A->found, "account", id);
}

static void account_path(struct request *req, const char *id, const char *what)
{
    done_to(req, what, "/desk/accounts/%s", id);
}

static void ban(struct request *req, struct desk *d, bool banned)
{
    char id[UUID_STR_LEN + 1];
    struct desk_account A;
    if (target_account(req, d, id, &A) < 0)
        return;
    const char *reason = fopt(d, "reason");
    if ((banned && !reason) || (reason && strlen(reason) > 500)) {
        web_error_page(req, 400, "a ban needs a reason (1 to 500 bytes)");
        return;
    }
    if (A.account.banned == banned) {
        web_error_page(req, 409, "account %s is %s", id, banned ? "already banned" : "not banned");
        return;
    }
    if (banned && strcmp(id, d->sess.account.id) == 0) {
        web_error_page(req, 409, "an admin cannot ban their own account");
        return;
    }
    enum account_outcome rc = account_set_banned(&d->c, A.account.email, banned, reason);
    if (rc == ACCOUNT_NOT_FOUND) {
        web_error_page(req, 404, "no account %s", id);
        return;
    }
    if (rc != ACCOUNT_OK) {
        web_unavailable(req);
        return;
    }
    account_path(req, id, banned ? "banned" : "unbanned");
}

static void page_account_ban(struct request *req, struct desk *d)
{
    ban(req, d, true);
}

static void page_account_unban(struct request *req, struct desk *d)
{
    ban(req, d, false);
}

static void page_account_role(struct request *req, struct desk *d)
{
    char id[UUID_STR_LEN + 1];
    struct desk_account A;
    if (target_account(req, d, id, &A) < 0)
        return;
    const char *change = fv(d, "change");
    if (!change || (strcmp(change, "grant") != 0 && strcmp(change, "revoke") != 0)) {
        web_error_page(req, 400, "change must be grant or revoke");
        return;
    }
    struct comment_result r;
    int rc = account_role_change(&d->c, A.account.email, fv(d, "role"),
                                 strcmp(change, "grant") == 0, &r);
    if (rc == APP_UNAVAILABLE) {
        web_unavailable(req);
        return;
    }
    if (rc != COMMENT_OK) {
        web_error_page(req, rc == COMMENT_MISSING ? 404 : 400, "%s", r.message);
        return;
    }
    account_path(req, id, "role");
}

static void page_key_revoke(struct request *req, struct desk *d)
{
    char id[UUID_STR_LEN + 1];
    if (param_id(req, id) < 0)
        return;
    switch (key_revoke(&d->c, NULL, id)) {
    case KEY_OK:
        break;
    case KEY_NOT_FOUND:
        web_error_page(req, 404, "no key %s", id);
        return;
    case KEY_ALREADY_REVOKED:
        web_error_page(req, 409, "key %s was already revoked", id);
        return;
    default:
        web_unavailable(req);
        return;
    }
    done_to(req, "revoked", "/desk/accounts");
}

/* ---- scout credentials (admin) ---- */

/* The five budget inputs, prefilled from c (NULL: empty, the defaults apply). */
static void budget_inputs(struct buf *b, const struct scout_credential *c)
{
    static const char *const labels[SCOUTKEY_NBUDGETS] = {"X reads per day", "Model µUSD per day",
                                                          "X reads per run", "Model µUSD per run",
                                                          "Run seconds"};
    for (int k = 0; k < SCOUTKEY_NBUDGETS; k++) {
        char v[24] = "";
        if (c) {
            const int64_t now[SCOUTKEY_NBUDGETS] = {c->per_day[SCOUT_X], c->per_day[SCOUT_MODEL],
                                                    c->per_run[SCOUT_X], c->per_run[SCOUT_MODEL],
                                                    c->run_seconds};
            snprintf(v, sizeof v, "%lld", (long long)now[k]);
        }
        text_input(b, scoutkey_budget_fields[k].name, labels[k], v, false, 13);
    }
}

/* The budgets of the form (empty fields: not given): 0, or -1 after answering 400. */
static int budget_form(struct request *req, const struct desk *d, struct scoutkey_budget *bud)
{
    memset(bud, 0, sizeof *bud);
    for (int k = 0; k < SCOUTKEY_NBUDGETS; k++) {
        const char *v = fopt(d, scoutkey_budget_fields[k].name);
        if (v && qp_parse_int(v, &bud->v[k]) < 0)
            bud->v[k] = INT64_MIN; /* out of every range: refused below */
        bud->set[k] = v != NULL;
    }
    int k = scoutkey_budget_invalid(bud);
    if (k < 0)
        return 0;
    web_error_page(req, 400, "%s must be an integer from %lld to %lld",
                   scoutkey_budget_fields[k].name, (long long)scoutkey_budget_fields[k].min,
                   (long long)scoutkey_budget_fields[k].max);
    return -1;
}

static void scout_row(struct buf *b, const struct desk *d, const struct scout_credential *c,
                      int64_t now)
{
    enum scout_credential_state st =
        scout_credential_state(now, c->expires_at, c->revoked_at, c->disabled);
    html_fmt(b,
             "<li class=\"scout-key\" data-id=\"%a\"><strong>%t</strong> <code>%t…</code> "
             "<span class=\"state\">%t",
             c->id, c->name, c->prefix, scout_credential_state_name(st));
    html_printf(b,
                "</span><p class=\"meta\">X %lld/day, %lld/run · model %lld/day, %lld/run µUSD · "
                "runs of %llds · created ",
                (long long)c->per_day[SCOUT_X], (long long)c->per_run[SCOUT_X],
                (long long)c->per_day[SCOUT_MODEL], (long long)c->per_run[SCOUT_MODEL],
                (long long)c->run_seconds);
    web_time(b, c->created_at);
    html_raw(b, " · last used ");
    if (c->last_used_at != INT64_MIN)
        web_time(b, c->last_used_at);
    else
        html_raw(b, "never");
    html_raw(b, "</p>");
    if (st != SCOUT_CRED_REVOKED) {
        static const char *const forms[] = {"budget", "disable", "enable", "revoke"};
        struct buf id = BUF_INIT;
        for (size_t k = 0; k < 4; k++) {
            if ((k == 1 && c->disabled) || (k == 2 && !c->disabled))
                continue;
            buf_reset(&id);
            buf_printf(&id, "%s-%s", forms[k], c->id);
            form_open(b, d, NULL, id.p, k == 0 ? "desk-form" : "inline-form",
                      "/desk/scout-keys/%s/%s", c->id, forms[k]);
            if (k == 0)
                budget_inputs(b, c);
            submit(b, k == 0 ? "Set budgets" : k == 1 ? "Disable" : k == 2 ? "Enable" : "Revoke");
        }
        buf_release(&id);
    }
    html_raw(b, "</li>");
}

static void page_scout_keys(struct request *req, struct desk *d)
{
    struct qp_value v[1];
    if (done_query(req, v) < 0)
        return;
    struct scout_credential *list;
    size_t n;
    if (scoutkey_list(&d->c, &list, &n) != SCOUTKEY_OK) {
        web_unavailable(req);
        return;
    }
    struct buf *b = &req->out;
    begin(req, d, "Scout credentials");
    heading(b, "Scout credentials", v);
    html_raw(b, "<p>A scout credential (<code>ws_…</code>) reaches the scout endpoint only; "
                "its secret is shown once, when it is created. A disabled credential still "
                "authenticates but begins no run.</p><ol class=\"scout-keys\" id=\"scout-keys\">");
    for (size_t i = 0; i < n; i++)
        scout_row(b, d, &list[i], d->c.now);
    html_raw(b, "</ol>");
    if (n == 0)
        html_raw(b, "<p id=\"scout-keys-empty\">No scout credentials.</p>");
    form_open(b, d, "Create a credential", "scout-create", "desk-form", "/desk/scout-keys");
    text_input(b, "name", "Name", NULL, true, 100);
    html_raw(b, "<p>Empty budgets take the defaults.</p>");
    budget_inputs(b, NULL);
    text_input(b, "expires_days", "Expires after (days, empty: never)", NULL, false, 4);
    password_input(b);
    submit(b, "Create");
    end(req);
}

/* POST /desk/scout-keys (the admin's password again): the secret is on this page once. */
static void page_scout_key_create(struct request *req, struct desk *d)
{
    struct scoutkey_budget bud;
    if (budget_form(req, d, &bud) < 0)
        return;
    int64_t days = 0;
    const char *exp = fopt(d, "expires_days");
    if (exp && (qp_parse_int(exp, &days) < 0 || days < 1)) {
        web_error_page(req, 400, "expires_days must be from 1 to %d (or empty: never)",
                       SCOUTKEY_EXPIRES_DAYS_MAX);
        return;
    }
    struct scoutkey_new k;
    const char *why = NULL;
    int rc = scoutkey_create(&d->c, fv(d, "name"), &bud, days, &k, &why);
    if (ANSWERED(req, rc, scoutkey_status, &why) < 0)
        return;
    struct buf *b = &req->out;
    begin(req, d, "Scout credential created");
    html_fmt(b,
             "<h1>Scout credential created</h1><p class=\"notice\" role=\"status\">Copy the "
             "secret now: it is shown this once and never stored.</p><dl class=\"facts\"><dt>"
             "Name</dt><dd>%t</dd><dt>ID</dt><dd id=\"scout-key-id\">%t</dd><dt>Secret</dt><dd>"
             "<code id=\"secret\">%t</code></dd></dl><p><a href=\"/desk/scout-keys\">Back to "
             "the credentials</a></p>",
             k.cred.name, k.cred.id, k.secret);
    scoutkey_new_wipe(&k);
    end(req);
}

/* POST /desk/scout-keys/{id}/{budget|disable|enable|revoke}: the change is the suffix. */
static void page_scout_key_change(struct request *req, struct desk *d)
{
    static const struct {
        const char *suffix, *done;
        enum scoutkey_change what;
    } changes[] = {{"/budget", "budget", SCOUTKEY_SET_BUDGET},
                   {"/disable", "disabled", SCOUTKEY_DISABLE},
                   {"/enable", "enabled", SCOUTKEY_ENABLE},
                   {"/revoke", "revoked", SCOUTKEY_REVOKE}};
    size_t k = 0;
    while (strcmp(changes[k].suffix, req->route->suffix) != 0)
        k++; /* the route table names only these */
    char id[UUID_STR_LEN + 1];
    struct scoutkey_budget bud = {0};
    if (param_id(req, id) < 0 ||
        (changes[k].what == SCOUTKEY_SET_BUDGET && budget_form(req, d, &bud) < 0))
        return;
    struct scout_credential c;
    const char *why = NULL;
    int rc = scoutkey_change(&d->c, id, changes[k].what, &bud, &c, &why);
    if (ANSWERED(req, rc, scoutkey_status, &why) < 0)
        return;
    done_to(req, changes[k].done, "/desk/scout-keys");
}

/* ---- lead quotas in use (editors and admins) ---- */

static void used_cell(struct buf *b, int64_t key, int64_t agent, int64_t max)
{
    html_printf(b, "<td>%lld <span class=\"meta\">(agent %lld of %lld)</span></td>", (long long)key,
                (long long)agent, (long long)max);
}

static void page_quotas(struct request *req, struct desk *d)
{
    struct qp_value v[1];
    if (done_query(req, v) < 0)
        return;
    struct desk_quota *q;
    size_t n;
    int64_t global;
    if (desk_quotas(&d->c, 500, &q, &n, &global) != APP_OK) {
        web_unavailable(req);
        return;
    }
    struct buf *b = &req->out;
    begin(req, d, "Lead quotas");
    html_fmt(b,
             "<h1>Lead quotas in use</h1><p>Every window is rolling: a lead counts until its "
             "window has passed since it was accepted. The limits count the agent (every key "
             "of one account together).</p><p id=\"global\">All agents, last 24 hours: <strong>"
             "%lld</strong> of %lld leads.</p><div class=\"table-wrap\"><table "
             "class=\"quotas\" id=\"quotas\"><thead><tr><th>Agent key</th><th>Owner</th><th>"
             "Last minute</th><th>Last 24 hours</th></tr></thead><tbody>",
             (long long)global, (long long)req->cfg->limits->lead_quota[QUOTA_GLOBAL_DAY]);
    for (size_t i = 0; i < n; i++) {
        html_fmt(b, "<tr data-key=\"%a\"><td>%t <code>%t…</code></td><td>%t</td>", q[i].key_id,
                 q[i].key_name ? q[i].key_name : "(unnamed)", q[i].key_prefix, q[i].owner);
        used_cell(b, q[i].key_used[0], q[i].agent_used[0],
                  req->cfg->limits->lead_quota[QUOTA_AGENT_MINUTE]);
        used_cell(b, q[i].key_used[1], q[i].agent_used[1],
                  req->cfg->limits->lead_quota[QUOTA_AGENT_DAY]);
        html_raw(b, "</tr>");
    }
    html_raw(b, "</tbody></table></div>");
    if (n == 0)
        html_raw(b, "<p id=\"quotas-empty\">No agent submitted a lead in the last 24 hours.</p>");
    end(req);
}
