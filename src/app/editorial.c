#include "app/editorial.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "domain/lead.h"
#include "domain/vocab.h"
#include "store/admin.h"
#include "store/audit.h"
#include "store/incidents.h"
#include "util/buf.h"
#include "util/jsonw.h"
#include "util/uuid.h"

int app_audit(const struct app_ctx *c, const char *action, const char *target_kind,
              const char *target_id, const char *before_json, const char *after_json,
              const char *reason)
{
    char id[UUID_STR_LEN + 1];
    uuid_v4(id);
    struct audit_record r = {.id = id,
                             .at = c->now,
                             .actor = c->actor ? c->actor : "operator",
                             .role = c->role,
                             .action = action,
                             .target_kind = target_kind,
                             .target_id = target_id,
                             .before_json = before_json,
                             .after_json = after_json,
                             .reason = reason,
                             .request_id = c->request_id};
    return audit_insert(c->s, &r);
}

int app_audit_ahead(struct store *s)
{
    static const char none[] = APP_PLACEHOLDER_ID;
    return audit_insert(
        s, &(struct audit_record){
               .id = none, .actor = none, .action = none, .target_kind = none, .target_id = none});
}

/* A refusal: its words in the context's arena, and its outcome. */
#define say(c, r, outcome, ...) ((r)->message = arena_printf((c)->a, __VA_ARGS__), (outcome))

/* {"key":"value"} with the value JSON-escaped, in the arena. */
static const char *field(const struct app_ctx *c, const char *key, const char *value)
{
    struct buf b = BUF_INIT;
    struct jw w;
    jw_init(&w, &b);
    jw_obj_begin(&w);
    jw_key(&w, key);
    jw_str(&w, value);
    jw_obj_end(&w);
    const char *s = arena_strdup(c->a, b.p);
    buf_release(&b);
    return s;
}

static int load(const struct app_ctx *c, const char *id, struct incident_state *st,
                struct edit_result *r)
{
    int rc = admin_incident_state(c->s, id, st);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return say(c, r, EDIT_MISSING, "no incident %s", id);
    return EDIT_OK;
}

/* The same for an edit that only a published incident takes: `what` says which. */
static int load_published(const struct app_ctx *c, const char *id, struct incident_state *st,
                          struct edit_result *r, const char *what)
{
    int rc = load(c, id, st, r);
    if (rc == EDIT_OK && vocab_find(visibility_names, st->visibility) != VISIBILITY_PUBLISHED)
        return say(c, r, EDIT_REFUSED, "incident %s is %s; %s", id, st->visibility, what);
    return rc;
}

struct target {
    const char *id, *other, *reason;
    const struct source *src;
    const struct question *q;
    const struct incident *fields;
    bool clarify, across_games;
    bool merge;            /* other is the survivor, an incident the merge reads too */
    const char *published; /* the edit takes only a published incident: why (load_published) */
};

/* Every store call an edit makes under its incidents' keys, with placeholder arguments, for
 * store_prepare_ahead (no statement prepared under a lock, app.h). Nothing executes. */
static int edit_statements(struct store *s, void *arg)
{
    static const char none[] = APP_PLACEHOLDER_ID;
    struct arena *a = arg;
    struct incident_state st;
    struct incident inc = {.id = none};
    struct question q = {.type = none, .text = none}, *versions;
    struct source src = {.url = "https://none.invalid/"};
    size_t n;
    int rc = admin_incident_state(s, none, &st);
    if (rc >= 0)
        rc = incidents_get(s, a, none, &inc);
    if (rc >= 0)
        rc = incidents_questions(s, a, none, &versions, &n);
    if (rc >= 0)
        rc = admin_set_visibility(s, none, none, NULL, 0);
    if (rc >= 0)
        rc = admin_set_status(s, none, none, 0);
    if (rc >= 0)
        rc = admin_add_source(s, none, &src, 0);
    if (rc >= 0)
        rc = admin_clarify_question(s, none, 0, &q, 0);
    if (rc >= 0)
        rc = admin_new_question(s, none, &q, 0);
    if (rc >= 0)
        rc = admin_update_editorial(s, &inc, 0);
    if (rc >= 0)
        rc = app_audit_ahead(s);
    return rc < 0 ? rc : 0;
}

/* The body of one edit: begin, the target incident's state under its lock (load, or
 * load_published when t->published says why it must be published), fn with it, commit or
 * roll back; the outcome or APP_UNAVAILABLE.
 * A row write under the key of each incident the edit reads then writes ("incident:<id>":
 * the target, and a merge's survivor, taken in one fixed order), never the deployment's
 * write lock: edits of other incidents, ballots and leads go on meanwhile. */
static int in_tx(const struct app_ctx *c, struct edit_result *r,
                 int (*fn)(const struct app_ctx *, const struct target *,
                           const struct incident_state *, struct edit_result *),
                 const struct target *t)
{
    const char *keys[] = {arena_printf(c->a, "incident:%s", t->id),
                          t->merge ? arena_printf(c->a, "incident:%s", t->other) : NULL};
    struct incident_state st;
    int rc = app_begin_locked(c->s, edit_statements, c->a, keys, 2);
    if (rc >= 0)
        rc = t->published ? load_published(c, t->id, &st, r, t->published) : load(c, t->id, &st, r);
    if (rc == EDIT_OK)
        rc = fn(c, t, &st, r);
    if (rc == EDIT_OK && (rc = store_commit(c->s)) >= 0)
        return EDIT_OK;
    return app_rollback(c, rc, rc);
}

static int withdraw_tx(const struct app_ctx *c, const struct target *t,
                       const struct incident_state *st, struct edit_result *r)
{
    int rc;
    const char *withdrawn = visibility_names[VISIBILITY_WITHDRAWN];
    if (strcmp(st->visibility, withdrawn) == 0)
        return say(c, r, EDIT_REFUSED, "incident %s is already withdrawn", t->id);
    if ((rc = admin_set_visibility(c->s, t->id, withdrawn, NULL, c->now)) < 0 ||
        (rc = app_audit(c, "incident.withdraw", "incident", t->id,
                        field(c, "visibility", st->visibility), field(c, "visibility", withdrawn),
                        t->reason)) < 0)
        return rc;
    return EDIT_OK;
}

int incident_withdraw(const struct app_ctx *c, const char *id, const char *reason,
                      struct edit_result *r)
{
    struct target t = {.id = id, .reason = reason};
    memset(r, 0, sizeof *r);
    return in_tx(c, r, withdraw_tx, &t);
}

static int merge_tx(const struct app_ctx *c, const struct target *t,
                    const struct incident_state *st, struct edit_result *r)
{
    struct incident_state sv;
    int rc = load(c, t->other, &sv, r);
    if (rc != EDIT_OK)
        return rc;
    int vis = vocab_find(visibility_names, st->visibility);
    int survivor_vis = vocab_find(visibility_names, sv.visibility);
    if (vis != VISIBILITY_PUBLISHED)
        return say(c, r, EDIT_REFUSED, "incident %s is %s; only a published incident can be merged",
                   t->id, vis == VISIBILITY_MERGED ? "already a merged duplicate" : st->visibility);
    if (survivor_vis != VISIBILITY_PUBLISHED)
        return say(c, r, EDIT_REFUSED, "survivor %s is %s; the survivor must be published",
                   t->other,
                   survivor_vis == VISIBILITY_MERGED ? "itself a merged duplicate" : sv.visibility);
    if (st->duplicates > 0)
        return say(c, r, EDIT_REFUSED,
                   "incident %s has %lld duplicate(s) merged into it; merging it would make a "
                   "chain (merge those into %s first)",
                   t->id, (long long)st->duplicates, t->other);
    if (strcmp(st->game_id, sv.game_id) != 0 && !t->across_games)
        return say(c, r, EDIT_REFUSED,
                   "incident %s is about game %s but %s is about game %s: a duplicate reports the "
                   "same play of the same game, so readers of %s would land on another game's "
                   "debate (if the game was recorded twice, merge anyway with --force)",
                   t->id, st->game_id, t->other, sv.game_id, t->id);
    if ((rc = admin_set_visibility(c->s, t->id, visibility_names[VISIBILITY_MERGED], t->other,
                                   c->now)) < 0 ||
        (rc = app_audit(c, "incident.merge", "incident", t->id,
                        field(c, "visibility", st->visibility), field(c, "duplicate_of", t->other),
                        t->reason)) < 0)
        return rc;
    return EDIT_OK;
}

int incident_merge(const struct app_ctx *c, const char *id, const char *into, const char *reason,
                   bool across_games, struct edit_result *r)
{
    memset(r, 0, sizeof *r);
    if (strcmp(id, into) == 0)
        return say(c, r, EDIT_INVALID, "an incident cannot be merged into itself");
    struct target t = {
        .id = id, .other = into, .reason = reason, .across_games = across_games, .merge = true};
    return in_tx(c, r, merge_tx, &t);
}

static int status_tx(const struct app_ctx *c, const struct target *t,
                     const struct incident_state *st, struct edit_result *r)
{
    (void)r;
    int rc;
    if ((rc = admin_set_status(c->s, t->id, t->other, c->now)) < 0 ||
        (rc = app_audit(c, "incident.set_status", "incident", t->id, field(c, "status", st->status),
                        field(c, "status", t->other), NULL)) < 0)
        return rc;
    return EDIT_OK;
}

int incident_set_status(const struct app_ctx *c, const char *id, const char *status,
                        struct edit_result *r)
{
    memset(r, 0, sizeof *r);
    char values[200];
    if (vocab_find(maturity_names, status) < 0)
        return say(c, r, EDIT_INVALID, "status must be one of %s",
                   strlist_join(maturity_names, values, sizeof values));
    struct target t = {.id = id, .other = status};
    return in_tx(c, r, status_tx, &t);
}

/* Later reporting (api-v1.md "Incident status": developing → corroborated / explained) is
 * cited here before the status moves. */
static int source_tx(const struct app_ctx *c, const struct target *t,
                     const struct incident_state *st, struct edit_result *r)
{
    (void)st;
    int rc = admin_add_source(c->s, t->id, t->src, c->now);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return say(c, r, EDIT_DUPLICATE, "incident %s already cites %s", t->id, t->src->url);
    if ((rc = app_audit(c, "incident.add_source", "incident", t->id, NULL,
                        field(c, "source_url", t->src->url), NULL)) < 0)
        return rc;
    return EDIT_OK;
}

int incident_add_source(const struct app_ctx *c, const char *id, const struct source *src,
                        struct edit_result *r)
{
    char kinds[200];
    memset(r, 0, sizeof *r);
    if (vocab_find(source_kind_names, src->kind) < 0)
        return say(c, r, EDIT_INVALID, "kind must be one of %s",
                   strlist_join(source_kind_names, kinds, sizeof kinds));
    if (!src->url || strlen(src->url) > 2000 || !lead_url_valid(src->url))
        return say(c, r, EDIT_INVALID, "url must be an absolute http or https URL");
    if (!src->title || !*src->title || strlen(src->title) > 500)
        return say(c, r, EDIT_INVALID, "title must be 1 to 500 bytes");
    if (!src->supports || !*src->supports || strlen(src->supports) > 2000)
        return say(c, r, EDIT_INVALID, "supports must be 1 to 2000 bytes");
    if (src->publisher && (!*src->publisher || strlen(src->publisher) > 200))
        return say(c, r, EDIT_INVALID, "publisher must be 1 to 200 bytes");
    struct target t = {
        .id = id, .src = src, .published = "sources can be added to published incidents only"};
    return in_tx(c, r, source_tx, &t);
}

/* The store calls of a source removal under the incident's lock, with placeholder
 * arguments, for store_prepare_ahead (no statement prepared under the lock, app.h). */
static int remove_statements(struct store *s, void *arg)
{
    (void)arg;
    static const char none[] = APP_PLACEHOLDER_ID;
    struct incident_state st;
    int rc = admin_incident_state(s, none, &st);
    if (rc >= 0)
        rc = admin_remove_source(s, none, "https://none.invalid/", 0);
    if (rc >= 0)
        rc = app_audit_ahead(s);
    return rc < 0 ? rc : 0;
}

int incident_remove_source(const struct app_ctx *c, const char *id, const char *url,
                           const char *reason, struct edit_result *r)
{
    memset(r, 0, sizeof *r);
    if (!url || !*url || strlen(url) > 2000)
        return say(c, r, EDIT_INVALID, "url must name a cited source (1 to 2000 bytes)");
    if (reason && strlen(reason) > 500)
        return say(c, r, EDIT_INVALID, "reason must be at most 500 bytes");
    /* a row write (ARCHITECTURE.md "Storage rules"): the incident's own lock key, not the
     * deployment's write lock; the audit record is built before any lock is taken */
    const char *before = field(c, "source_url", url);
    char lock[64];
    snprintf(lock, sizeof lock, "incident:%s", id);
    struct incident_state st;
    store_prepare_ahead(c->s, remove_statements, NULL);
    int rc = store_begin_row_write(c->s);
    if (rc >= 0)
        rc = store_lock_key(c->s, lock);
    if (rc >= 0)
        rc = load_published(c, id, &st, r, "sources can be removed from published incidents only");
    if (rc != EDIT_OK)
        goto out;
    rc = admin_remove_source(c->s, id, url, c->now);
    if (rc == 0)
        rc = say(c, r, EDIT_MISSING, "incident %s does not cite %s", id, url);
    else if (rc > 0)
        rc = app_audit(c, "incident.remove_source", "incident", id, before, NULL, reason);
    if (rc == EDIT_OK)
        rc = store_commit(c->s);
    if (rc == EDIT_OK)
        return EDIT_OK;
out:
    return app_rollback(c, rc, rc);
}

static bool same(const char *x, const char *y)
{
    return strcmp(x ? x : "", y ? y : "") == 0;
}

static int question_tx(const struct app_ctx *c, const struct target *t,
                       const struct incident_state *st, struct edit_result *r)
{
    int rc;
    struct question *versions = NULL;
    size_t n = 0;
    if ((rc = incidents_questions(c->s, c->a, t->id, &versions, &n)) < 0)
        return rc;
    const struct question *cur = NULL;
    for (size_t k = 0; k < n; k++)
        if (versions[k].version == st->question_version)
            cur = &versions[k];
    struct question q = *t->q;
    char after[64];
    if (t->clarify) {
        /* api-v1.md DebateQuestion rule 2: a synonymous label clarification keeps the version
         * and the ballots; a change of question or context needs a new version */
        if (!cur)
            return say(c, r, EDIT_REFUSED, "incident %s has no current question to clarify", t->id);
        if (!same(cur->type, q.type) || !same(cur->text, q.text) ||
            !same(cur->factual_context_json, q.factual_context_json))
            return say(c, r, EDIT_REFUSED,
                       "a clarification changes labels only; the question type, text or factual "
                       "context differs (set a new version instead)");
        if ((rc = admin_clarify_question(c->s, t->id, cur->version, &q, c->now)) < 0)
            return rc;
        r->version = cur->version;
    } else {
        q.version = n ? versions[n - 1].version + 1 : 1;
        q.created_at = c->now;
        if ((rc = admin_new_question(c->s, t->id, &q, c->now)) < 0)
            return rc;
        r->version = q.version;
    }
    snprintf(after, sizeof after, "{\"question_version\":%lld,\"clarified\":%s}",
             (long long)r->version, t->clarify ? "true" : "false");
    char before[48];
    if (cur)
        snprintf(before, sizeof before, "{\"question_version\":%lld}", (long long)cur->version);
    else
        snprintf(before, sizeof before, "{\"question_version\":null}");
    if ((rc = app_audit(c, t->clarify ? "incident.clarify_question" : "incident.set_question",
                        "incident", t->id, before, after, NULL)) < 0)
        return rc;
    return EDIT_OK;
}

int incident_set_question(const struct app_ctx *c, const char *id, const struct question *q,
                          bool clarify, struct edit_result *r)
{
    memset(r, 0, sizeof *r);
    struct target t = {
        .id = id, .q = q, .clarify = clarify, .published = "its question cannot change"};
    return in_tx(c, r, question_tx, &t);
}

/* ---- incident_edit ---- */

static const char *edit_invalid(const struct incident *f)
{
    if (!f->title || !*f->title || strlen(f->title) > 300)
        return "title must be 1 to 300 bytes";
    if (!f->play_description || !*f->play_description || strlen(f->play_description) > 5000)
        return "play description must be 1 to 5000 bytes";
    if (!f->neutral_summary || !*f->neutral_summary || strlen(f->neutral_summary) > 2000)
        return "neutral summary must be 1 to 2000 bytes";
    if (f->period != MODEL_NULL && (f->period < 1 || f->period > 10))
        return "period must be 1 to 10 (or empty)";
    if (f->clock && !lead_clock_valid(f->clock))
        return "clock must be M:SS or MM:SS (or empty)";
    const char *opt[] = {f->original_ruling, f->final_ruling, f->consequence};
    for (size_t k = 0; k < 3; k++)
        if (opt[k] && (!*opt[k] || strlen(opt[k]) > 500))
            return "rulings and consequence must be up to 500 bytes (or empty)";
    if (f->replay_involved < -1 || f->replay_involved > 1 || f->penalty_called < -1 ||
        f->penalty_called > 1)
        return "replay and penalty called must be yes, no or unknown";
    return NULL;
}

struct diff {
    struct jw before, after;
    struct buf bb, ab;
    int n;
};

static void diff_str(struct diff *d, const char *key, const char *was, const char *now)
{
    if (same(was, now) && (was == NULL) == (now == NULL))
        return;
    d->n++;
    jw_key(&d->before, key);
    jw_str(&d->before, was);
    jw_key(&d->after, key);
    jw_str(&d->after, now);
}

static void diff_int(struct diff *d, const char *key, int64_t was, int64_t now, int64_t null)
{
    if (was == now)
        return;
    d->n++;
    jw_key(&d->before, key);
    jw_int(&d->before, was == null ? JW_NULL_INT : was);
    jw_key(&d->after, key);
    jw_int(&d->after, now == null ? JW_NULL_INT : now);
}

static int edit_tx(const struct app_ctx *c, const struct target *t, const struct incident_state *st,
                   struct edit_result *r)
{
    const struct incident *f = t->fields;
    (void)st;
    int rc;
    struct incident cur;
    if ((rc = incidents_get(c->s, c->a, t->id, &cur)) < 0)
        return rc;
    if (rc == 0)
        return say(c, r, EDIT_MISSING, "no incident %s", t->id);
    struct diff d = {.bb = BUF_INIT, .ab = BUF_INIT};
    jw_init(&d.before, &d.bb);
    jw_init(&d.after, &d.ab);
    jw_obj_begin(&d.before);
    jw_obj_begin(&d.after);
    diff_str(&d, "title", cur.title, f->title);
    diff_str(&d, "play_description", cur.play_description, f->play_description);
    diff_str(&d, "neutral_summary", cur.neutral_summary, f->neutral_summary);
    diff_int(&d, "period", cur.period, f->period, MODEL_NULL);
    diff_str(&d, "clock", cur.clock, f->clock);
    diff_str(&d, "original_ruling", cur.original_ruling, f->original_ruling);
    diff_str(&d, "final_ruling", cur.final_ruling, f->final_ruling);
    diff_int(&d, "replay_involved", cur.replay_involved, f->replay_involved, -1);
    diff_str(&d, "consequence", cur.consequence, f->consequence);
    diff_int(&d, "penalty_called", cur.penalty_called, f->penalty_called, -1);
    jw_obj_end(&d.before);
    jw_obj_end(&d.after);
    if (d.n == 0)
        rc = say(c, r, EDIT_INVALID, "no field changed");
    else {
        struct incident u = *f;
        u.id = t->id;
        rc = admin_update_editorial(c->s, &u, c->now);
        if (rc >= 0)
            rc = app_audit(c, "incident.edit", "incident", t->id, d.bb.p, d.ab.p, t->reason);
        if (rc >= 0)
            rc = EDIT_OK;
    }
    buf_release(&d.bb);
    buf_release(&d.ab);
    return rc;
}

int incident_edit(const struct app_ctx *c, const char *id, const struct incident *f,
                  const char *reason, struct edit_result *r)
{
    memset(r, 0, sizeof *r);
    const char *bad = edit_invalid(f);
    if (bad)
        return say(c, r, EDIT_INVALID, "%s", bad);
    if (reason && strlen(reason) > 500)
        return say(c, r, EDIT_INVALID, "reason must be at most 500 bytes");
    struct target t = {.id = id,
                       .fields = f,
                       .reason = reason,
                       .published = "only a published incident can be edited"};
    return in_tx(c, r, edit_tx, &t);
}
