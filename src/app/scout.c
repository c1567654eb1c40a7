/*
 * The scout ops (app/scout.h): each runs inside one write transaction, writes its answer
 * and returns OP_COMMIT or OP_ROLLBACK, or a negative store_rc.
 */
#include "app/scout.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <sodium.h>

#include "domain/agentkey.h"
#include "domain/scout.h"
#include "store/admin.h"
#include "util/jsonw.h"
#include "util/log.h"
#include "util/timefmt.h"

int scout_authenticate(const struct app_ctx *c, const char *bearer, struct scout_credential *out,
                       const char **why)
{
    /* api-v1.md Authentication rule 3: a missing credential is 403 here, and neither a
     * browser session nor any cookie stands in for one */
    static const char *const unread[] = {
        [BEARER_NONE] = "a scout credential is required: Authorization: Bearer ws_… (browser "
                        "sessions and agent keys are not accepted)",
        [BEARER_FOREIGN] = "an agent key (wk_…) works only on the agent endpoints; the scout "
                           "interface needs a scout credential (ws_…)",
        [BEARER_MALFORMED] = "the scout credential is malformed (wrong prefix, length or checksum)",
    };
    *why = NULL;
    char hash[AGENT_KEY_HASH_HEX + 1];
    enum bearer_read got = bearer_credential(bearer, SCOUT_KEY_PREFIX, AGENT_KEY_PREFIX, hash);
    if (got != BEARER_WELL_FORMED) {
        *why = unread[got];
        return SCOUT_AUTH_REFUSED;
    }
    int rc = scout_credential_by_hash(c->s, hash, out);
    if (rc < 0)
        return APP_UNAVAILABLE;
    if (rc == 0) {
        *why = "the scout credential is not valid";
        return SCOUT_AUTH_REFUSED;
    }
    switch (scout_credential_state(c->now, out->expires_at, out->revoked_at, out->disabled)) {
    case SCOUT_CRED_REVOKED:
        *why = "the scout credential has been revoked";
        return SCOUT_AUTH_REFUSED;
    case SCOUT_CRED_EXPIRED:
        *why = "the scout credential has expired";
        return SCOUT_AUTH_REFUSED;
    default:
        return SCOUT_AUTH_OK;
    }
}

/* ---- answers ----------------------------------------------------------------------- */

static void reply_skip(struct buf *answer, enum scout_skip why)
{
    struct jw w;
    jw_init(&w, answer);
    jw_obj_begin(&w);
    jw_kbool(&w, "skip", true);
    jw_kstr(&w, "reason", scout_skip_reason(why));
    jw_obj_end(&w);
}

static void kinds(struct jw *w, const char *name, const int64_t v[SCOUT_NKINDS])
{
    jw_key(w, name);
    jw_obj_begin(w);
    for (int k = 0; k < SCOUT_NKINDS; k++)
        jw_kint(w, scout_kind_name(k), v[k]);
    jw_obj_end(w);
}

/* What run r may still reserve of each kind given the credential's spend today. */
static void run_left(const struct scout_credential *c, const struct scout_run *r,
                     const int64_t day_used[SCOUT_NKINDS], int64_t left[SCOUT_NKINDS])
{
    for (int k = 0; k < SCOUT_NKINDS; k++)
        left[k] = scout_run_remaining(r->cap[k], r->used[k], c->per_day[k], day_used[k]);
}

/* Opens a run's answer object with its runId, key and status, and a running run's lease
 * (startedAt, expiresAt); the caller writes the rest and closes the object. */
static void run_head(struct jw *w, const struct scout_run *r, bool running)
{
    jw_obj_begin(w);
    jw_kstr(w, "runId", r->id);
    jw_kstr(w, "key", r->key);
    jw_kstr(w, "status", running ? "running" : "completed");
    if (running) {
        jw_ktime(w, "startedAt", r->started_at);
        jw_ktime(w, "expiresAt", r->expires_at);
    }
}

/* A running run as status shows it. */
struct run_writer {
    struct jw *w;
    const struct scout_credential *c;
    const int64_t *day_used;
};

static void write_run(struct jw *w, const struct scout_credential *c, const struct scout_run *r,
                      const int64_t day_used[SCOUT_NKINDS])
{
    int64_t left[SCOUT_NKINDS];
    run_left(c, r, day_used, left);
    run_head(w, r, true);
    kinds(w, "caps", r->cap);
    kinds(w, "used", r->used);
    kinds(w, "remaining", left);
    jw_obj_end(w);
}

static int write_run_cb(void *ctx, const struct scout_run *r)
{
    struct run_writer *rw = ctx;
    write_run(rw->w, rw->c, r, rw->day_used);
    return 0;
}

/* ---- ops --------------------------------------------------------------------------- */

struct op {
    struct buf *answer;
    struct store *s;
    struct arena *a;
    int64_t now;
    const struct scout_credential *cred;
    struct scout_request in;
    bool candidates;
    int outcome;         /* SCOUT_OUT_ANSWER unless an op refuses */
    const char *message; /* the refusal's words */
    const char *request_id;
    struct scout_run run;    /* an op on a run: the caller's run named by runId (own_run) */
    enum scout_run_state st; /* and its state now */
};

/* Records a refusal: its outcome and words (the transaction's fate is the op's return). */
#define refuse(o, out, ...) ((o)->outcome = (out), (o)->message = arena_printf((o)->a, __VA_ARGS__))

/* Each op runs inside a write transaction, answers the request and returns OP_COMMIT or
 * OP_ROLLBACK (what to do with the transaction), or a negative store_rc (nothing answered). */
enum { OP_COMMIT = 0, OP_ROLLBACK = 1 };

static int op_status(struct op *o)
{
    int64_t day = scout_day_start(o->now), used[SCOUT_NKINDS];
    int rc = scout_spend_used(o->s, o->cred->id, day, used);
    if (rc < 0)
        return rc;
    struct scout_run active;
    int have_active = 0;
    struct buf cp = BUF_INIT;
    int have_cp = 0;
    if (o->in.key) {
        if ((have_active = scout_run_active(o->s, o->cred->id, o->in.key, o->now, &active)) < 0)
            return have_active;
        if ((have_cp = scout_checkpoints_get(o->s, o->cred->id, o->in.key, &cp)) < 0)
            return have_cp;
    }
    struct jw w;
    jw_init(&w, o->answer);
    jw_obj_begin(&w);
    jw_kbool(&w, "enabled", !o->cred->disabled);
    jw_kbool(&w, "candidateCreation", o->candidates);
    char date[TIME_ISO_MAX];
    time_format_iso(day, date);
    date[10] = '\0';
    jw_kstr(&w, "day", date);
    jw_ktime(&w, "resetsAt", day + SCOUT_DAY_US);
    jw_key(&w, "budgets");
    jw_obj_begin(&w);
    for (int k = 0; k < SCOUT_NKINDS; k++) {
        jw_key(&w, scout_kind_name(k));
        jw_obj_begin(&w);
        jw_kint(&w, "limit", o->cred->per_day[k]);
        jw_kint(&w, "used", used[k]);
        jw_kint(&w, "remaining", scout_remaining(o->cred->per_day[k], used[k]));
        jw_obj_end(&w);
    }
    jw_obj_end(&w);
    jw_key(&w, "perRun");
    jw_obj_begin(&w);
    for (int k = 0; k < SCOUT_NKINDS; k++)
        jw_kint(&w, scout_kind_name(k), o->cred->per_run[k]);
    jw_kint(&w, "seconds", o->cred->run_seconds);
    jw_obj_end(&w);
    jw_kstr(&w, "key", o->in.key);
    jw_key(&w, "activeRun");
    if (have_active == 1)
        write_run(&w, o->cred, &active, used);
    else
        jw_null(&w);
    jw_key(&w, "checkpoints");
    if (have_cp == 1)
        jw_raw(&w, cp.p);
    else
        jw_null(&w);
    jw_key(&w, "activeRuns");
    jw_arr_begin(&w);
    struct run_writer rw = {&w, o->cred, used};
    rc = scout_runs_active_each(o->s, o->cred->id, o->now, write_run_cb, &rw);
    buf_release(&cp);
    if (rc < 0)
        return rc;
    jw_arr_end(&w);
    jw_obj_end(&w);
    return 0;
}

/* Answers 409 to an op on a run that is not running. An expired run is marked so, which
 * frees its key for a new run. Returns OP_COMMIT or a negative store_rc. */
static int not_running(struct op *o, const struct scout_run *r, enum scout_run_state st)
{
    if (st == SCOUT_RUN_COMPLETED) {
        refuse(o, SCOUT_OUT_RUN_COMPLETED, "run %s is completed; begin a new run with a new runId",
               r->id);
        return OP_COMMIT;
    }
    int rc = scout_run_expire(o->s, o->cred->id, NULL, r->id, o->now);
    if (rc < 0)
        return rc;
    refuse(o, SCOUT_OUT_RUN_EXPIRED,
           "run %s expired at its lease end; begin a new run with a new runId", r->id);
    return OP_COMMIT;
}

/* Finds the run named by runId into o->run, checks it belongs to the caller and sets o->st,
 * its state now (scout_op does it before an op on a run): 0 found (answered nothing),
 * OP_ROLLBACK answered 400, or a negative store_rc. An unknown runId and another
 * credential's get the same answer. */
static int own_run(struct op *o)
{
    int rc = scout_run_get(o->s, o->in.run_id, &o->run);
    if (rc < 0)
        return rc;
    if (rc == 0 || strcmp(o->run.credential_id, o->cred->id) != 0) {
        refuse(o, SCOUT_OUT_FOREIGN_RUN, "runId %s is not a run of this scout credential",
               o->in.run_id);
        return OP_ROLLBACK;
    }
    o->st = scout_run_state(o->now, o->run.status, o->run.expires_at);
    return 0;
}

static int op_begin(struct op *o)
{
    struct scout_run r;
    int rc = scout_run_get(o->s, o->in.run_id, &r);
    if (rc < 0)
        return rc;
    if (rc == 1) {
        /* a retried begin: the same receipt, as long as the run is the same and running */
        if (strcmp(r.credential_id, o->cred->id) != 0) {
            refuse(o, SCOUT_OUT_FOREIGN_RUN, "runId %s is not a run of this scout credential",
                   o->in.run_id);
            return OP_ROLLBACK;
        }
        if (strcmp(r.key, o->in.key) != 0) {
            refuse(o, SCOUT_OUT_CONFLICT, "runId %s was begun with a different key", r.id);
            return OP_ROLLBACK;
        }
        enum scout_run_state st = scout_run_state(o->now, r.status, r.expires_at);
        if (st != SCOUT_RUN_RUNNING)
            return not_running(o, &r, st);
        rc = scout_run_receipt(o->s, r.id, false, o->answer);
        if (rc < 0)
            return rc;
        return 0;
    }
    if ((rc = scout_run_expire(o->s, o->cred->id, o->in.key, NULL, o->now)) < 0)
        return rc;
    struct scout_run active;
    int have_active = scout_run_active(o->s, o->cred->id, o->in.key, o->now, &active);
    if (have_active < 0)
        return have_active;
    int64_t day = scout_day_start(o->now), used[SCOUT_NKINDS], left[SCOUT_NKINDS];
    if ((rc = scout_spend_used(o->s, o->cred->id, day, used)) < 0)
        return rc;
    for (int k = 0; k < SCOUT_NKINDS; k++)
        left[k] = scout_run_remaining(o->cred->per_run[k], 0, o->cred->per_day[k], used[k]);
    enum scout_skip skip = scout_begin_decision(o->cred->disabled, have_active == 1, left);
    if (skip != SCOUT_GO) {
        reply_skip(o->answer, skip);
        return 0;
    }
    struct buf cp = BUF_INIT;
    int have_cp = scout_checkpoints_get(o->s, o->cred->id, o->in.key, &cp);
    if (have_cp < 0)
        return have_cp;
    memset(&r, 0, sizeof r);
    snprintf(r.id, sizeof r.id, "%s", o->in.run_id);
    snprintf(r.credential_id, sizeof r.credential_id, "%s", o->cred->id);
    snprintf(r.key, sizeof r.key, "%s", o->in.key);
    r.started_at = o->now;
    r.expires_at = scout_lease_end(o->now, o->cred->run_seconds);
    for (int k = 0; k < SCOUT_NKINDS; k++)
        r.cap[k] = o->cred->per_run[k];
    struct jw w;
    jw_init(&w, o->answer);
    run_head(&w, &r, true);
    kinds(&w, "remaining", left);
    jw_key(&w, "checkpoints");
    if (have_cp == 1)
        jw_raw(&w, cp.p);
    else
        jw_null(&w);
    jw_obj_end(&w);
    buf_release(&cp);
    rc = scout_run_insert(o->s, &r, o->answer->p);
    if (rc < 0) {
        buf_reset(o->answer);
        return rc;
    }
    log_info("scout", "run %s began for credential %s key %.100s rid=%s", r.id, o->cred->id, r.key,
             o->request_id);
    return 0;
}

static int op_reserve(struct op *o)
{
    struct scout_run r = o->run;
    int rc;
    if (o->st != SCOUT_RUN_RUNNING)
        return not_running(o, &r, o->st);
    if (o->cred->disabled) {
        reply_skip(o->answer, SCOUT_SKIP_DISABLED);
        return 0;
    }
    enum scout_kind k = o->in.kind;
    int64_t day = scout_day_start(o->now), used[SCOUT_NKINDS];
    if ((rc = scout_spend_used(o->s, o->cred->id, day, used)) < 0)
        return rc;
    /* the arithmetic first (it also keeps huge units away from SQL overflow); then the two
     * conditional updates, which are what make the grant atomic across processes */
    if (!scout_reserve_fits(o->in.units, r.cap[k], r.used[k], o->cred->per_day[k], used[k])) {
        reply_skip(o->answer, SCOUT_SKIP_BUDGET);
        return OP_ROLLBACK;
    }
    if ((rc = scout_run_take(o->s, r.id, k, o->in.units, o->now)) < 0)
        return rc;
    if (rc == 1)
        rc = scout_spend_take(o->s, o->cred->id, day, k, o->in.units, o->cred->per_day[k]);
    if (rc < 0)
        return rc;
    if (rc == 0) {
        reply_skip(o->answer, SCOUT_SKIP_BUDGET);
        return OP_ROLLBACK; /* undoes the run's share, granted just before */
    }
    if ((rc = scout_reservation_insert(o->s, r.id, k, o->in.units, day, o->now)) < 0)
        return rc;
    r.used[k] += o->in.units;
    used[k] += o->in.units;
    int64_t left[SCOUT_NKINDS];
    run_left(o->cred, &r, used, left);
    struct jw w;
    jw_init(&w, o->answer);
    jw_obj_begin(&w);
    jw_kstr(&w, "runId", r.id);
    jw_kstr(&w, "kind", scout_kind_name(k));
    jw_kint(&w, "units", o->in.units);
    jw_ktime(&w, "expiresAt", r.expires_at);
    kinds(&w, "remaining", left);
    jw_obj_end(&w);
    return 0;
}

static int op_finish(struct op *o)
{
    struct scout_run r = o->run;
    int rc;
    if (o->st == SCOUT_RUN_COMPLETED) {
        /* api-v1.md operation rule 6: only the byte-identical payload is a retry */
        if (sodium_memcmp(r.finish_hash, o->in.body_hash, 64) != 0) {
            refuse(o, SCOUT_OUT_CONFLICT,
                   "run %s was already finished with a different payload; only the "
                   "identical payload may be retried",
                   r.id);
            return OP_ROLLBACK;
        }
        if ((rc = scout_run_receipt(o->s, r.id, true, o->answer)) < 0)
            return rc;
        return 0;
    }
    if (o->st == SCOUT_RUN_EXPIRED)
        return not_running(o, &r, o->st);
    struct buf rejected = BUF_INIT;
    struct jw rw;
    jw_init(&rw, &rejected);
    jw_arr_begin(&rw);
    int64_t accepted = 0, duplicates = 0;
    for (size_t i = 0; i < o->in.nsignals; i++) {
        struct scout_signal sig;
        char field[16], err[300];
        json_t *item = json_array_get(o->in.signals, i);
        if (scout_signal_parse(item, &sig, field, err, sizeof err) < 0) {
            jw_obj_begin(&rw);
            jw_kint(&rw, "index", (int64_t)i);
            jw_kstr(&rw, "field", field[0] ? field : NULL);
            jw_kstr(&rw, "message", err);
            jw_obj_end(&rw);
            continue;
        }
        int known = sig.game_id ? admin_game_exists(o->s, sig.game_id) : 0;
        rc = known < 0 ? known
                       : scout_signal_insert(o->s, r.id, o->cred->id, &sig,
                                             scout_signal_score(&sig, known == 1), o->now);
        scout_signal_release(&sig);
        if (rc < 0) {
            buf_release(&rejected);
            return rc;
        }
        if (rc == 1)
            accepted++;
        else
            duplicates++;
    }
    jw_arr_end(&rw);
    if (o->in.checkpoints_json &&
        (rc = scout_checkpoints_put(o->s, o->cred->id, r.key, o->in.checkpoints_json, r.id,
                                    o->now)) < 0) {
        buf_release(&rejected);
        return rc;
    }
    struct jw w;
    jw_init(&w, o->answer);
    run_head(&w, &r, false);
    jw_kint(&w, "accepted", accepted);
    jw_kint(&w, "duplicates", duplicates);
    jw_key(&w, "rejected");
    jw_raw(&w, rejected.p);
    jw_obj_end(&w);
    buf_release(&rejected);
    rc = scout_run_complete(o->s, r.id, o->now, o->in.body_hash, o->answer->p,
                            o->in.evaluations_json, o->in.report_json);
    if (rc < 0)
        return rc;
    /* another finish of this run committed first (possible where the database lets two
     * writers in at once): decide again on the committed state */
    if (rc == 0)
        return STORE_CONSTRAINT;
    log_info("scout", "run %s completed: %lld accepted, %lld duplicates rid=%s", r.id,
             (long long)accepted, (long long)duplicates, o->request_id);
    return 0;
}

int scout_op(const struct app_ctx *c, const struct scout_credential *cred, bool candidates,
             const char *body, size_t len, struct buf *answer, const char **message)
{
    /* on_run: an op on a run, which the caller must own (own_run first) */
    static const struct {
        int (*fn)(struct op *);
        bool on_run;
    } ops[] = {
        [SCOUT_OP_STATUS] = {op_status, false},
        [SCOUT_OP_BEGIN] = {op_begin, false},
        [SCOUT_OP_RESERVE] = {op_reserve, true},
        [SCOUT_OP_FINISH] = {op_finish, true},
    };
    struct op o = {.answer = answer,
                   .s = c->s,
                   .a = c->a,
                   .now = c->now,
                   .cred = cred,
                   .candidates = candidates,
                   .request_id = c->request_id ? c->request_id : "-"};
    char err[400];
    *message = NULL;
    if (scout_request_parse(body, len, &o.in, err, sizeof err) < 0) {
        *message = arena_strdup(c->a, err);
        return SCOUT_OUT_INVALID;
    }
    /* a retried request may meet a concurrent one at a unique constraint (the same runId,
     * or a second run for the key): roll back and decide again on the committed state */
    int rc = 0;
    for (int attempt = 0; attempt < 3; attempt++) {
        /* a row write, never the deployment's write lock: every rule of an op (the daily
         * spend, the one active run per key, a run's reservations) is the credential's, and
         * the op's first statement updates the credential's row, so the ops of one
         * credential take turns on that row lock while others' run side by side; each later
         * statement (READ COMMITTED) sees what the previous op committed */
        if ((rc = store_begin_row_write(o.s)) < 0)
            break;
        if ((rc = scout_credential_touch(o.s, cred->id, time_now_us())) < 0)
            break;
        /* the clock is read again under the row lock: leases and days follow commit order */
        o.now = time_now_us();
        buf_reset(answer);
        o.outcome = SCOUT_OUT_ANSWER;
        o.message = NULL;
        rc = ops[o.in.op].on_run ? own_run(&o) : 0;
        if (rc == 0)
            rc = ops[o.in.op].fn(&o);
        if (rc == STORE_CONSTRAINT) {
            store_rollback(o.s);
            continue;
        }
        if (rc < 0)
            break;
        if (rc == OP_ROLLBACK) {
            store_rollback(o.s);
        } else if ((rc = store_commit(o.s)) < 0) {
            break;
        }
        scout_request_release(&o.in);
        *message = o.message;
        return o.outcome;
    }
    store_rollback(o.s);
    buf_reset(answer);
    scout_request_release(&o.in);
    return APP_UNAVAILABLE;
}
