#include "research/pipeline.h"

#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "domain/lead.h"
#include "domain/limits.h"
#include "domain/research.h"
#include "domain/vocab.h"
#include "research/fetch.h"
#include "store/admin.h"
#include "store/games.h"
#include "store/scout.h"
#include "util/log.h"
#include "util/timefmt.h"
#include "util/urlhost.h"
#include "util/uuid.h"

#define MAX_NAMES 32

/* Everything one attempt learns, carried from the fetches into the final transaction. */
struct attempt {
    struct arena *a;
    const struct research_lead *l;
    struct game g;
    struct research_facts f;
    struct research_fetch_row rows[LEAD_URLS_MAX];
    const char *urls[LEAD_URLS_MAX];
    int nurls;
    struct store *s;
    int64_t now;
};

/* Appends the strings of the JSON array json (NULL, not JSON or no array: none) to out, up to
 * max of them, as copies in a. Returns how many. */
static size_t json_strings(struct arena *a, const char *json, const char **out, size_t max)
{
    json_t *arr = json ? json_loads(json, 0, NULL) : NULL;
    size_t n = 0;
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        if (json_is_string(v) && n < max)
            out[n++] = arena_strdup(a, json_string_value(v));
    }
    json_decref(arr);
    return n;
}

/* The names a page must mention to be about the game: every name, short name,
 * abbreviation and alias of both teams. */
static size_t team_names(struct arena *a, const struct game *g, const char **names, size_t max)
{
    size_t n = 0;
    const struct team *teams[] = {&g->home, &g->away};
    for (size_t t = 0; t < 2; t++) {
        const struct team *tm = teams[t];
        const char *own[] = {tm->name, tm->short_name, tm->abbreviation};
        for (size_t k = 0; k < 3 && n < max; k++)
            if (own[k])
                names[n++] = own[k];
        n += json_strings(a, tm->aliases_json, names + n, max - n);
    }
    return n;
}

/* Fetches every source of the lead at once, within the overall deadline. -1 when the worker
 * is stopping (nothing learnt: the caller gives the claim back). */
static int fetch_all(struct attempt *t, const struct worker_config *cfg)
{
    const char *names[MAX_NAMES];
    size_t nnames = team_names(t->a, &t->g, names, MAX_NAMES);
    struct fetch_policy p = FETCH_POLICY_DEFAULT;
    p.allow = cfg->allow;
    p.nallow = (size_t)cfg->nallow;
    if (cfg->fetch_timeout_us > 0)
        p.timeout_ms = (long)(cfg->fetch_timeout_us / 1000);
    if (cfg->fetch_deadline_us > 0)
        p.deadline_ms = (long)(cfg->fetch_deadline_us / 1000);
    if (cfg->fetch_max_bytes > 0)
        p.max_bytes = (size_t)cfg->fetch_max_bytes;
    const char *domains[LEAD_URLS_MAX];
    int ndomains = 0;
    struct fetch_result results[LEAD_URLS_MAX];
    if (fetch_urls(&p, t->urls, t->nurls, time_now_us(), cfg->stop, results) < 0) {
        for (int i = 0; i < t->nurls; i++)
            fetch_result_release(&results[i]);
        return -1;
    }
    for (int i = 0; i < t->nurls; i++) {
        struct fetch_result *r = &results[i];
        struct research_fetch_row *row = &t->rows[i];
        char domain[256] = "";
        const char *where = r->final_url ? r->final_url : t->urls[i];
        if (url_registrable_domain(where, domain, sizeof domain) < 0)
            domain[0] = '\0';
        bool ok = !r->error && r->status >= 200 && r->status <= 299;
        *row = (struct research_fetch_row){
            .position = i,
            .url = t->urls[i],
            .final_url = arena_strdup(t->a, r->final_url),
            .content_type = arena_strdup(t->a, r->content_type),
            .title = arena_strdup(t->a, r->title),
            .publisher = arena_strdup(t->a, r->publisher),
            .content_hash = r->hash[0] ? arena_strdup(t->a, r->hash) : NULL,
            .domain = domain[0] ? arena_strdup(t->a, domain) : NULL,
            .error = r->error ? r->error : (ok ? NULL : "http_status"),
            .http_status = r->status,
            .bytes = (int64_t)r->bytes,
            .fetched_at = r->fetched_at,
            .mentions = ok && research_mentions(r->text, r->text_len, names, nnames),
        };
        if (ok) {
            t->f.fetched++;
        } else if (research_fetch_transient(r->error, r->status)) {
            t->f.transient++;
        }
        if (row->mentions && row->domain) {
            bool seen = false;
            for (int k = 0; k < ndomains && !seen; k++)
                seen = strcmp(domains[k], row->domain) == 0;
            if (!seen)
                domains[ndomains++] = row->domain;
        }
        fetch_result_release(r);
    }
    t->f.mention_domains = ndomains;
    return 0;
}

/* ---- deduplication (step 4) ---- */

struct dup {
    const struct research_lead *l;
    int window_s;
    const char *const *urls;
    int nurls;
    char incident_id[ID_LEN];
    char lead_id[ID_LEN];
    char why[200]; /* the longest: 28 bytes of words, an id, a URL cut to WHY_URL_MAX + 3 */
};

/* A source URL for a duplicate's reason (dup.why): whole when it fits beside the words, else
 * its first bytes and an ellipsis that says it was cut (a reason is prose for the operator;
 * the URL itself stays whole in the lead's fetch records). */
#define WHY_URL_MAX 120
static const char *why_url(char out[WHY_URL_MAX + 4], const char *url)
{
    size_t n = strlen(url);
    if (n <= WHY_URL_MAX)
        return url;
    n = WHY_URL_MAX - 1;
    while (n > 0 && ((unsigned char)url[n] & 0xC0) == 0x80)
        n--; /* never split a UTF-8 sequence */
    memcpy(out, url, n);
    memcpy(out + n, "\xe2\x80\xa6", 4); /* U+2026 and the terminator */
    return out;
}

static int dup_incident(void *ctx, const struct research_play *p)
{
    struct dup *d = ctx;
    if (!research_same_play(d->l->period, d->l->clock, d->l->category, p->period, p->clock,
                            p->category, d->window_s))
        return 0;
    snprintf(d->incident_id, sizeof d->incident_id, "%s", p->id);
    snprintf(d->why, sizeof d->why, "same play as published incident %s (period %lld, %s)", p->id,
             (long long)p->period, p->clock ? p->clock : "no clock");
    return 1;
}

static bool urls_overlap(const char *json, const char *const *urls, int n, const char **hit)
{
    json_t *arr = json ? json_loads(json, 0, NULL) : NULL;
    bool found = false;
    size_t i;
    json_t *v;
    json_array_foreach(arr, i, v)
    {
        for (int k = 0; k < n && !found; k++)
            if (json_is_string(v) && urls[k] && strcmp(json_string_value(v), urls[k]) == 0) {
                found = true;
                *hit = urls[k];
            }
    }
    json_decref(arr);
    return found;
}

static int dup_lead(void *ctx, const struct research_play *p)
{
    struct dup *d = ctx;
    const char *hit = NULL;
    if (research_same_play(d->l->period, d->l->clock, d->l->category, p->period, p->clock,
                           p->category, d->window_s))
        snprintf(d->why, sizeof d->why, "same play as earlier lead %s", p->id);
    else if (urls_overlap(p->urls_json, d->urls, d->nurls, &hit))
        snprintf(d->why, sizeof d->why, "earlier lead %s cites the same source URL", p->id);
    else
        return 0;
    /* link to the play's first report and, when it is public, its incident */
    snprintf(d->lead_id, sizeof d->lead_id, "%s",
             p->duplicate_lead && p->duplicate_lead[0] ? p->duplicate_lead : p->id);
    snprintf(d->incident_id, sizeof d->incident_id, "%s", p->incident_id ? p->incident_id : "");
    return 1;
}

/* Returns 1 when the lead duplicates a published incident or an earlier lead (d filled),
 * 0 when not, or a negative store_rc. */
static int find_duplicate(struct attempt *t, const struct research_policy *pol, struct dup *d)
{
    const char *all[2 * LEAD_URLS_MAX];
    int n = 0;
    for (int i = 0; i < t->nurls; i++) {
        all[n++] = t->urls[i];
        if (t->rows[i].final_url && strcmp(t->rows[i].final_url, t->urls[i]) != 0)
            all[n++] = t->rows[i].final_url;
    }
    *d = (struct dup){.l = t->l, .window_s = pol->clock_window_s, .urls = all, .nurls = n};
    int rc = research_game_incidents_each(t->s, t->l->game_id, dup_incident, d);
    if (rc < 0 || d->incident_id[0])
        return rc < 0 ? rc : 1;
    for (int i = 0; i < n; i++) {
        rc = research_incident_by_source(t->s, t->l->game_id, all[i], d->incident_id);
        if (rc != 0) {
            char cut[WHY_URL_MAX + 4];
            if (rc > 0)
                snprintf(d->why, sizeof d->why, "published incident %s cites %s", d->incident_id,
                         why_url(cut, all[i]));
            return rc;
        }
    }
    rc = research_earlier_leads_each(t->s, t->l->game_id, t->l->id, t->l->created_at, dup_lead, d);
    if (rc < 0 || d->lead_id[0])
        return rc < 0 ? rc : 1;
    for (int i = 0; i < n; i++) {
        char dl[ID_LEN] = "";
        rc = research_lead_by_url(t->s, t->l->game_id, t->l->id, t->l->created_at, all[i],
                                  d->lead_id, d->incident_id, dl);
        if (rc != 0) {
            if (rc > 0) {
                if (dl[0])
                    snprintf(d->lead_id, sizeof d->lead_id, "%s", dl);
                char cut[WHY_URL_MAX + 4];
                snprintf(d->why, sizeof d->why, "an earlier lead's research fetched %s",
                         why_url(cut, all[i]));
            }
            return rc;
        }
    }
    return 0;
}

/* ---- outcomes ---- */

static int event(struct attempt *t, const char *name, const char *from, const char *to,
                 const char *actor, const char *reason)
{
    return research_event(t->s, t->l->id, t->now, name, from, to, actor, reason);
}

struct gate_log {
    struct attempt *t;
    int rc;
};

static void log_gate(void *ctx, const char *gate, bool passed, const char *reason)
{
    struct gate_log *g = ctx;
    char text[400];
    snprintf(text, sizeof text, "%s %s: %s", gate, passed ? "passed" : "failed", reason);
    if (g->rc >= 0)
        g->rc = event(g->t, "gate", NULL, NULL, "worker", text);
}

/* Writes the outcome with the claim check. 1 written, 0 claim lost, <0 store_rc. */
static int outcome(struct attempt *t, const char *token, const struct research_outcome *o,
                   const char *event_name)
{
    int rc = research_set_outcome(t->s, t->l->id, token, o, t->now);
    if (rc <= 0)
        return rc;
    rc = event(t, event_name, lead_status_names[LEAD_STATUS_RUNNING], o->status, "worker",
               o->reason);
    return rc < 0 ? rc : 1;
}

static const char *fetch_summary(struct attempt *t, char *out, size_t n)
{
    snprintf(out, n,
             "%d of %d sources answered 2xx (%d transient failures); %d distinct domains "
             "name the teams",
             t->f.fetched, t->f.urls, t->f.transient, t->f.mention_domains);
    return out;
}

/* The final transaction of an attempt that got as far as the fetches. */
static int conclude(struct attempt *t, const struct worker_config *cfg,
                    const struct research_policy *pol, const char *token)
{
    char text[400];
    struct research_decision d;
    struct research_outcome o = {.status = lead_status_names[LEAD_STATUS_RUNNING],
                                 .next_attempt_at = INT64_MIN};
    int rc = event(t, "fetched", NULL, NULL, "worker", fetch_summary(t, text, sizeof text));
    if (rc < 0)
        return rc;
    if ((rc = research_save_fetches(t->s, t->l->id, t->rows, t->nurls)) < 0)
        return rc;
    research_after_fetch(&t->f, pol, &d);
    if (d.verdict == RESEARCH_RETRY) {
        o.status = lead_status_names[LEAD_STATUS_PENDING];
        o.reason = d.reason;
        o.next_attempt_at = t->now + research_backoff_us(pol, t->f.attempts);
        return outcome(t, token, &o, "retry");
    }
    if (d.verdict != RESEARCH_CONTINUE) {
        o.status = lead_status_names[d.verdict == RESEARCH_FAILED ? LEAD_STATUS_FAILED
                                                                  : LEAD_STATUS_REJECTED];
        o.reason = d.reason;
        return outcome(t, token, &o, o.status);
    }
    struct dup dup;
    if ((rc = find_duplicate(t, pol, &dup)) < 0)
        return rc;
    if (rc == 1) {
        o.status = lead_status_names[LEAD_STATUS_DUPLICATE];
        o.reason = dup.why;
        o.incident_id = dup.incident_id[0] ? dup.incident_id : NULL;
        o.duplicate_lead = dup.lead_id[0] ? dup.lead_id : NULL;
        return outcome(t, token, &o, "duplicate");
    }
    if ((rc = event(t, "deduplicated", NULL, NULL, "worker",
                    "no published incident or earlier lead of the game reports this play")) < 0)
        return rc;
    /* scout signals (issue 7, docs/scout.md) count only when the server enables them:
     * signals of completed scout runs about this game and play, one per registrable domain */
    t->f.scout_enabled = cfg->limits->scout_candidates;
    if (cfg->limits->scout_candidates && t->l->period != INT64_MIN) {
        rc =
            scout_play_support(t->s, t->l->game_id, t->l->period, t->l->clock, pol->clock_window_s);
        if (rc < 0)
            return rc;
        t->f.scout_domains = rc;
    }
    struct gate_log gl = {t, 0};
    research_gates(&t->f, pol, log_gate, &gl, &d);
    if (gl.rc < 0)
        return gl.rc;
    if (d.verdict != RESEARCH_CANDIDATE) {
        o.status = lead_status_names[LEAD_STATUS_REJECTED];
        o.reason = d.reason;
        return outcome(t, token, &o, "rejected");
    }
    if (!cfg->auto_publish) {
        o.status = lead_status_names[LEAD_STATUS_RUNNING];
        o.candidate = true;
        o.reason = "candidate: every publication gate passed; waiting for an operator";
        return outcome(t, token, &o, "candidate");
    }
    if ((rc = event(t, "candidate", NULL, NULL, "worker",
                    "every publication gate passed; auto-publish is on")) < 0)
        return rc;
    struct research_publish_opts po = {.actor = "auto"};
    char incident[ID_LEN];
    return research_publish(t->s, t->a, t->l, token, &po, t->now, incident);
}

static int resolve_game(struct attempt *t)
{
    int rc = games_get(t->s, t->a, t->l->game_id, &t->g);
    if (rc < 0)
        return rc;
    t->f.game_found = rc == 1;
    if (t->f.game_found) {
        t->f.game_status = t->g.status;
        t->f.game_starts_at = t->g.starts_at;
        t->f.game_period = t->g.period;
    }
    t->f.period = t->l->period;
    t->f.clock = t->l->clock;
    t->f.attempts = t->l->attempts;
    /* the submitted URLs, a JSON array of strings */
    t->nurls = (int)json_strings(t->a, t->l->source_urls_json, t->urls, LEAD_URLS_MAX);
    t->f.urls = t->nurls;
    return 0;
}

/* Runs fn in a write transaction, committing when it returns >= 0; a lost claim (0) is
 * logged and rolled back. A row write: the claim token (every write of the lead checks it)
 * keeps two workers apart, and a publication takes the publication key alone
 * (research_publish, its statements prepared first); never the deployment's write lock. */
static int in_write(struct attempt *t, const struct worker_config *cfg,
                    const struct research_policy *pol, const char *token,
                    const struct research_decision *resolved)
{
    store_prepare_ahead(t->s, research_publish_statements, t->a);
    int rc = store_begin_row_write(t->s);
    if (rc < 0)
        return rc;
    t->now = time_now_us();
    if (resolved) {
        struct research_outcome o = {.status = lead_status_names[LEAD_STATUS_REJECTED],
                                     .reason = resolved->reason,
                                     .next_attempt_at = INT64_MIN};
        rc = outcome(t, token, &o, "rejected");
    } else {
        rc = conclude(t, cfg, pol, token);
    }
    if (rc <= 0) {
        store_rollback(t->s);
        if (rc == 0)
            log_warn("research",
                     "lead %s: the claim was lost to another worker; its result "
                     "is discarded",
                     t->l->id);
        return rc;
    }
    return store_commit(t->s);
}

int research_step(struct store *s, const struct worker_config *cfg, int64_t now)
{
    struct research_policy pol = RESEARCH_POLICY_DEFAULT;
    if (cfg->min_domains > 0)
        pol.min_domains = cfg->min_domains;
    unsigned char raw[16];
    char token[33];
    randombytes_buf(raw, sizeof raw);
    sodium_bin2hex(token, sizeof token, raw, sizeof raw);

    struct arena a;
    arena_init(&a);
    struct research_lead l = {0};
    struct attempt t = {.a = &a, .l = &l, .s = s, .now = now};
    /* the claim locks the lead it picks and skips those others hold (research_claim) */
    int rc = store_begin_row_write(s);
    if (rc < 0)
        goto out;
    rc = research_claim(s, &a, now, cfg->lease_us, token, &l);
    if (rc == 1) {
        char why[160];
        snprintf(why, sizeof why, "claimed for research (attempt %d)", l.attempts);
        rc = research_event(s, l.id, now, "claimed",
                            l.attempts > 1 ? NULL : lead_status_names[LEAD_STATUS_PENDING],
                            lead_status_names[LEAD_STATUS_RUNNING], "worker", why);
    }
    if (rc < 0 || (rc = store_commit(s)) < 0) {
        store_rollback(s);
        goto out;
    }
    if (!l.id) {
        rc = 0;
        goto out;
    }
    if ((rc = store_begin_read(s)) < 0)
        goto out;
    rc = resolve_game(&t);
    store_commit(s);
    if (rc < 0)
        goto out;
    struct research_decision d;
    research_resolve(&t.f, time_now_us(), &d);
    if (d.verdict == RESEARCH_REJECTED) {
        rc = in_write(&t, cfg, &pol, token, &d);
    } else if (fetch_all(&t, cfg) < 0) {
        /* the worker is stopping mid-fetch: the lead goes back to the queue as it was, this
         * attempt not counted, so a restart picks it up at once (nothing is lost) */
        rc = store_begin_row_write(s); /* one conditional update under the claim token */
        if (rc >= 0)
            rc = research_release(s, l.id, token, time_now_us());
        if (rc >= 0)
            rc = store_commit(s);
        if (rc < 0)
            store_rollback(s); /* the lease runs out and the lead is retried */
        else
            log_info("research", "lead %s: worker stopping, given back unresearched", l.id);
        rc = rc < 0 ? rc : 0;
        goto out;
    } else {
        rc = in_write(&t, cfg, &pol, token, NULL);
    }
    if (rc >= 0) {
        log_info("research", "lead %s researched (attempt %d)", l.id, l.attempts);
        rc = 1;
    }
out:
    arena_release(&a);
    return rc;
}
