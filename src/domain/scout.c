#include "domain/scout.h"

#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <uriparser/Uri.h>

#include "domain/ids.h"
#include "domain/lead.h"
#include "util/buf.h"
#include "util/jsonin.h"
#include "util/timefmt.h"
#include "util/urlhost.h"
#include "util/uuid.h"

const char *scout_kind_name(enum scout_kind k)
{
    return k == SCOUT_X ? "x" : "model";
}

/* ---- the day, budgets and leases --------------------------------------------------- */

int64_t scout_day_start(int64_t now)
{
    int64_t r = now % SCOUT_DAY_US;
    return now - (r < 0 ? r + SCOUT_DAY_US : r);
}

int64_t scout_remaining(int64_t limit, int64_t used)
{
    return used >= limit ? 0 : limit - used;
}

int64_t scout_run_remaining(int64_t run_cap, int64_t run_used, int64_t day_limit, int64_t day_used)
{
    int64_t run = scout_remaining(run_cap, run_used);
    int64_t day = scout_remaining(day_limit, day_used);
    return run < day ? run : day;
}

bool scout_reserve_fits(int64_t units, int64_t run_cap, int64_t run_used, int64_t day_limit,
                        int64_t day_used)
{
    return units >= 1 && units <= scout_run_remaining(run_cap, run_used, day_limit, day_used);
}

int64_t scout_lease_end(int64_t started, int64_t run_seconds)
{
    return started + run_seconds * INT64_C(1000000);
}

enum scout_run_state scout_run_state(int64_t now, const char *status, int64_t expires_at)
{
    if (status && strcmp(status, "completed") == 0)
        return SCOUT_RUN_COMPLETED;
    if ((status && strcmp(status, "expired") == 0) || now >= expires_at)
        return SCOUT_RUN_EXPIRED;
    return SCOUT_RUN_RUNNING;
}

const char *scout_run_state_name(enum scout_run_state s)
{
    static const char *const names[] = {"running", "completed", "expired"};
    return names[s];
}

enum scout_credential_state scout_credential_state(int64_t now, int64_t expires_at,
                                                   int64_t revoked_at, bool disabled)
{
    if (revoked_at != INT64_MIN)
        return SCOUT_CRED_REVOKED;
    if (expires_at != INT64_MIN && now >= expires_at)
        return SCOUT_CRED_EXPIRED;
    return disabled ? SCOUT_CRED_DISABLED : SCOUT_CRED_ACTIVE;
}

const char *scout_credential_state_name(enum scout_credential_state s)
{
    static const char *const names[] = {"active", "disabled", "revoked", "expired"};
    return names[s];
}

enum scout_skip scout_begin_decision(bool disabled, bool run_active,
                                     const int64_t left[SCOUT_NKINDS])
{
    if (disabled)
        return SCOUT_SKIP_DISABLED;
    if (run_active)
        return SCOUT_SKIP_RUN_ACTIVE;
    for (int k = 0; k < SCOUT_NKINDS; k++)
        if (left[k] > 0)
            return SCOUT_GO;
    return SCOUT_SKIP_BUDGET;
}

const char *scout_skip_reason(enum scout_skip s)
{
    static const char *const names[] = {NULL, "disabled", "run_active", "budget_exhausted"};
    return names[s];
}

/* ---- request bodies ---------------------------------------------------------------- */

bool scout_key_valid(const char *s)
{
    if (!s || !*s)
        return false;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if (*p < 0x20 || *p == 0x7f)
            return false;
    return utf8_length(s) <= SCOUT_KEY_MAX;
}

/* The fields of the body (api-v1.md) and the ops that use each: R required, O optional. */
enum { NONE = 0, OPT = 1, REQ = 2 };
static const struct {
    const char *name;
    unsigned char use[4]; /* status, begin, reserve, finish */
} fields[] = {
    {"op", {REQ, REQ, REQ, REQ}},
    {"key", {OPT, REQ, NONE, NONE}},
    {"runId", {NONE, REQ, REQ, REQ}},
    {"kind", {NONE, NONE, REQ, NONE}},
    {"units", {NONE, NONE, REQ, NONE}},
    {"signals", {NONE, NONE, NONE, REQ}},
    {"evaluations", {NONE, NONE, NONE, OPT}},
    {"checkpoints", {NONE, NONE, NONE, OPT}},
    {"report", {NONE, NONE, NONE, OPT}},
};
#define NFIELDS (sizeof fields / sizeof fields[0])
static const char *const op_names[] = {"status", "begin", "reserve", "finish"};

/* Writes a key for a message: printable ASCII, at most 64 characters. */
static void shown_key(const char *key, char out[65])
{
    size_t k = 0;
    for (; key[k] && k < 64; k++)
        out[k] = (key[k] >= 0x20 && key[k] < 0x7f) ? key[k] : '?';
    out[k] = '\0';
}

/* A free-form object (evaluations, checkpoints, report) as compact JSON of at most max
 * bytes; keys sorted so that equal objects store equal text. */
static int free_object(json_t *doc, const char *name, size_t max, char **out, char *err,
                       size_t errlen)
{
    json_t *v = json_object_get(doc, name);
    if (!v)
        return 0;
    if (!json_is_object(v))
        return err_printf(err, errlen, "%s must be a JSON object", name);
    *out = json_dumps(v, JSON_COMPACT | JSON_SORT_KEYS);
    if (!*out || strlen(*out) > max)
        return err_printf(err, errlen, "%s must be at most %zu bytes of compact JSON", name, max);
    return 0;
}

void scout_request_release(struct scout_request *r)
{
    free(r->evaluations_json);
    free(r->checkpoints_json);
    free(r->report_json);
    json_decref(r->doc);
    memset(r, 0, sizeof *r);
}

int scout_request_parse(const char *body, size_t len, struct scout_request *out, char *err,
                        size_t errlen)
{
    memset(out, 0, sizeof *out);
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)body, len);
    sodium_bin2hex(out->body_hash, sizeof out->body_hash, h, sizeof h);
    json_t *doc = jin_load_body(body, len, err, errlen);
    if (!doc)
        return -1;
    out->doc = doc;
    if (!json_is_object(doc)) {
        err_printf(err, errlen, "body must be a JSON object with an op");
        goto fail;
    }
    json_t *v = json_object_get(doc, "op");
    if (!v) {
        err_printf(err, errlen, "op is required (status, begin, reserve or finish)");
        goto fail;
    }
    const char *op = json_is_string(v) ? json_string_value(v) : NULL;
    int opi = -1;
    for (int i = 0; op && i < 4; i++)
        if (strcmp(op, op_names[i]) == 0)
            opi = i;
    if (opi < 0) {
        err_printf(err, errlen, "op must be one of status, begin, reserve, finish");
        goto fail;
    }
    out->op = (enum scout_op)opi;

    const char *key;
    json_object_foreach(doc, key, v)
    {
        size_t f = 0;
        while (f < NFIELDS && strcmp(key, fields[f].name) != 0)
            f++;
        char shown[65];
        shown_key(key, shown);
        if (f == NFIELDS) {
            err_printf(err, errlen,
                       "unsupported field %s (allowed: op, key, runId, kind, units, signals, "
                       "evaluations, checkpoints, report)",
                       shown);
            goto fail;
        }
        if (fields[f].use[opi] == NONE) {
            err_printf(err, errlen, "%s is not a field of op %s", shown, op_names[opi]);
            goto fail;
        }
    }
    for (size_t f = 0; f < NFIELDS; f++) {
        if (fields[f].use[opi] == REQ && !json_object_get(doc, fields[f].name)) {
            err_printf(err, errlen, "%s is required for op %s", fields[f].name, op_names[opi]);
            goto fail;
        }
    }

    v = json_object_get(doc, "key");
    if (v) {
        if (!json_is_string(v) || !scout_key_valid(json_string_value(v)) ||
            strlen(json_string_value(v)) != json_string_length(v)) {
            err_printf(err, errlen,
                       "key must be a string of 1 to %d characters without control characters",
                       SCOUT_KEY_MAX);
            goto fail;
        }
        out->key = json_string_value(v);
    }
    v = json_object_get(doc, "runId");
    if (v) {
        if (!json_is_string(v) || uuid_normalize(json_string_value(v), out->run_id) < 0) {
            err_printf(err, errlen, "runId must be a UUID (8-4-4-4-12 hexadecimal digits)");
            goto fail;
        }
        out->has_run_id = true;
    }
    v = json_object_get(doc, "kind");
    if (v) {
        const char *k = json_is_string(v) ? json_string_value(v) : "";
        if (strcmp(k, "x") == 0) {
            out->kind = SCOUT_X;
        } else if (strcmp(k, "model") == 0) {
            out->kind = SCOUT_MODEL;
        } else {
            err_printf(err, errlen, "kind must be x (X reads) or model (model micro-USD)");
            goto fail;
        }
    }
    v = json_object_get(doc, "units");
    if (v) {
        if (!json_is_integer(v) || json_integer_value(v) < 1) {
            err_printf(err, errlen, "units must be an integer >= 1");
            goto fail;
        }
        out->units = (int64_t)json_integer_value(v);
    }
    v = json_object_get(doc, "signals");
    if (v) {
        if (!json_is_array(v)) {
            err_printf(err, errlen, "signals must be an array of at most %d objects",
                       SCOUT_SIGNALS_MAX);
            goto fail;
        }
        if (json_array_size(v) > SCOUT_SIGNALS_MAX) {
            err_printf(err, errlen, "signals has %zu items; at most %d are allowed",
                       json_array_size(v), SCOUT_SIGNALS_MAX);
            goto fail;
        }
        out->signals = v;
        out->nsignals = json_array_size(v);
    }
    if (free_object(doc, "evaluations", SCOUT_EVALUATIONS_MAX, &out->evaluations_json, err,
                    errlen) < 0 ||
        free_object(doc, "checkpoints", SCOUT_CHECKPOINTS_MAX, &out->checkpoints_json, err,
                    errlen) < 0 ||
        free_object(doc, "report", SCOUT_REPORT_MAX, &out->report_json, err, errlen) < 0)
        goto fail;
    return 0;
fail:
    scout_request_release(out);
    return -1;
}

/* ---- signals ----------------------------------------------------------------------- */

void scout_signal_release(struct scout_signal *s)
{
    free(s->canonical_url);
    memset(s, 0, sizeof *s);
}

static int bad(char field[16], const char *name, char *err, size_t errlen, const char *what)
{
    snprintf(field, 16, "%s", name);
    return err_printf(err, errlen, "%s %s", name, what);
}

/* An optional string of item: NULL when absent or null; -1 when not a string or longer
 * than max characters (or empty when !empty_ok). */
static int opt_string(const json_t *item, const char *name, size_t max, bool empty_ok,
                      const char **out)
{
    json_t *v = json_object_get(item, name);
    *out = NULL;
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v) || strlen(json_string_value(v)) != json_string_length(v))
        return -1;
    const char *s = json_string_value(v);
    size_t n = utf8_length(s);
    if (n > max || (!empty_ok && n == 0))
        return -1;
    *out = n ? s : NULL;
    return 0;
}

/* The optional string member key of item that ok accepts: 0 with *out (left alone when the
 * member is absent or null), or -1. item owns *out. */
static int opt_checked(const json_t *item, const char *key, bool (*ok)(const char *),
                       const char **out)
{
    json_t *v = json_object_get(item, key);
    if (!v || json_is_null(v))
        return 0;
    if (!json_is_string(v) || !ok(json_string_value(v)))
        return -1;
    *out = json_string_value(v);
    return 0;
}

int scout_signal_parse(const void *p, struct scout_signal *out, char field[16], char *err,
                       size_t errlen)
{
    static const char *const keys[] = {"url",     "author", "posted_at", "text",
                                       "game_id", "period", "clock",     NULL};
    const json_t *item = p;
    memset(out, 0, sizeof *out);
    out->posted_at = INT64_MIN;
    out->period = INT64_MIN;
    field[0] = '\0';
    if (!json_is_object(item))
        return err_printf(err, errlen, "a signal must be a JSON object with a url");
    const char *key;
    json_t *v;
    json_object_foreach((json_t *)item, key, v)
    {
        bool known = false;
        for (size_t i = 0; keys[i]; i++)
            known = known || strcmp(key, keys[i]) == 0;
        if (!known) {
            char shown[65];
            shown_key(key, shown);
            snprintf(field, 16, "%.15s", shown);
            return err_printf(
                err, errlen,
                "unsupported field %s (allowed: url, author, posted_at, text, game_id, "
                "period, clock)",
                shown);
        }
    }
    v = json_object_get(item, "url");
    if (!v)
        return bad(field, "url", err, errlen, "is required");
    if (!json_is_string(v) || json_string_length(v) > SCOUT_URL_MAX ||
        strlen(json_string_value(v)) != json_string_length(v) ||
        !lead_url_valid(json_string_value(v)))
        return bad(field, "url", err, errlen,
                   "must be an absolute http or https URI of at most 2048 bytes");
    out->url = json_string_value(v);
    if (opt_string(item, "author", SCOUT_AUTHOR_MAX, false, &out->author) < 0)
        return bad(field, "author", err, errlen,
                   "must be a string of 1 to 200 characters, or null");
    if (opt_string(item, "text", SCOUT_TEXT_MAX, true, &out->text) < 0)
        return bad(field, "text", err, errlen,
                   "must be a string of at most 5000 characters, or null");
    v = json_object_get(item, "posted_at");
    if (v && !json_is_null(v)) {
        if (!json_is_string(v) || time_parse_iso(json_string_value(v), 0, &out->posted_at) < 0)
            return bad(field, "posted_at", err, errlen,
                       "must be an RFC 3339 date-time (2025-11-29T20:01:02Z), or null");
    }
    if (opt_checked(item, "game_id", entity_id_is_valid, &out->game_id) < 0)
        return bad(field, "game_id", err, errlen,
                   "must be a game ID (1 to 255 characters of A-Z a-z 0-9 . _ : ~ -), or null");
    v = json_object_get(item, "period");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 30)
            return bad(field, "period", err, errlen, "must be an integer from 1 to 30, or null");
        out->period = (int64_t)json_integer_value(v);
    }
    if (opt_checked(item, "clock", lead_clock_valid, &out->clock) < 0)
        return bad(field, "clock", err, errlen,
                   "must be M:SS or MM:SS (minutes 0 to 15, seconds 00 to 59), or null");
    out->canonical_url = scout_canonical_url(out->url);
    if (!out->canonical_url ||
        url_registrable_domain(out->canonical_url, out->domain, sizeof out->domain) < 0) {
        scout_signal_release(out);
        return bad(field, "url", err, errlen, "must be an absolute http or https URI with a host");
    }
    if (out->text)
        scout_content_hash(out->text, out->content_hash);
    return 0;
}

static bool tracking_param(const char *name, size_t n, bool whole_query)
{
    static const char *const names[] = {"fbclid", "gclid",  "dclid",   "msclkid", "igshid",
                                        "mc_cid", "mc_eid", "ref_src", "ref_url", NULL};
    if (whole_query)
        return true;
    if (n >= 4 && strncasecmp(name, "utm_", 4) == 0)
        return true;
    for (size_t i = 0; names[i]; i++)
        if (strlen(names[i]) == n && strncasecmp(name, names[i], n) == 0)
            return true;
    return false;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void put_range(struct buf *b, const UriTextRangeA *r)
{
    if (r->first && r->afterLast > r->first)
        buf_append(b, r->first, (size_t)(r->afterLast - r->first));
}

char *scout_canonical_url(const char *url)
{
    UriUriA uri;
    const char *uerr = NULL;
    if (!url || !lead_url_valid(url) || uriParseSingleUriA(&uri, url, &uerr) != URI_SUCCESS)
        return NULL;
    char *out = NULL;
    struct buf b = BUF_INIT, host = BUF_INIT, query = BUF_INIT;
    char **params = NULL;
    if (uriNormalizeSyntaxA(&uri) != URI_SUCCESS)
        goto out;
    put_range(&host, &uri.hostText);
    if (!host.len)
        goto out;
    for (char *c = host.p; *c; c++)
        if (*c >= 'A' && *c <= 'Z')
            *c = (char)(*c - 'A' + 'a');
    if (host.len > 1 && host.p[host.len - 1] == '.')
        host.p[--host.len] = '\0';
    const char *h = host.p;
    static const char *const strip[] = {"www.", "mobile.", "m.", NULL};
    for (size_t i = 0; strip[i]; i++) {
        size_t n = strlen(strip[i]);
        if (strncmp(h, strip[i], n) == 0 && strchr(h + n, '.')) {
            h += n;
            break;
        }
    }
    bool x = strcmp(h, "twitter.com") == 0 || strcmp(h, "x.com") == 0;
    if (x)
        h = "x.com";
    bool ip6 = uri.hostData.ip6 != NULL || uri.hostData.ipFuture.first != NULL;
    buf_puts(&b, "https://");
    if (ip6)
        buf_putc(&b, '[');
    buf_puts(&b, h);
    if (ip6)
        buf_putc(&b, ']');
    size_t port = (size_t)(uri.portText.afterLast - uri.portText.first);
    if (uri.portText.first && port > 0 &&
        !((port == 2 && strncmp(uri.portText.first, "80", 2) == 0) ||
          (port == 3 && strncmp(uri.portText.first, "443", 3) == 0))) {
        buf_putc(&b, ':');
        put_range(&b, &uri.portText);
    }
    size_t path_start = b.len;
    for (UriPathSegmentA *seg = uri.pathHead; seg; seg = seg->next) {
        buf_putc(&b, '/');
        put_range(&b, &seg->text);
    }
    while (b.len > path_start + 1 && b.p[b.len - 1] == '/')
        b.p[--b.len] = '\0';
    if (b.len == path_start)
        buf_putc(&b, '/');
    /* the query: tracking parameters dropped, the rest sorted */
    if (uri.query.first && uri.query.afterLast > uri.query.first) {
        put_range(&query, &uri.query);
        size_t n = 1;
        for (char *c = query.p; *c; c++)
            n += *c == '&';
        params = calloc(n, sizeof *params);
        if (!params)
            goto out;
        size_t kept = 0;
        for (char *part = query.p; part;) {
            char *amp = strchr(part, '&');
            if (amp)
                *amp = '\0';
            size_t name = strcspn(part, "=");
            if (*part && !tracking_param(part, name, x))
                params[kept++] = part;
            part = amp ? amp + 1 : NULL;
        }
        qsort(params, kept, sizeof *params, cmp_str);
        for (size_t i = 0; i < kept; i++) {
            buf_putc(&b, i ? '&' : '?');
            buf_puts(&b, params[i]);
        }
    }
    out = buf_detach(&b, NULL);
out:
    free(params);
    buf_release(&b);
    buf_release(&host);
    buf_release(&query);
    uriFreeUriMembersA(&uri);
    return out;
}

void scout_content_hash(const char *text, char out[65])
{
    struct buf b = BUF_INIT;
    const char *p = text;
    out[0] = '\0';
    while (*p) {
        size_t ws = strspn(p, " \t\r\n\f\v");
        p += ws;
        if (!*p)
            break;
        size_t n = strcspn(p, " \t\r\n\f\v");
        bool link = (n >= 7 && strncasecmp(p, "http://", 7) == 0) ||
                    (n >= 8 && strncasecmp(p, "https://", 8) == 0);
        if (!link) {
            if (b.len)
                buf_putc(&b, ' ');
            for (size_t i = 0; i < n; i++) {
                char c = p[i];
                buf_putc(&b, (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c);
            }
        }
        p += n;
    }
    if (utf8_length(b.p) >= SCOUT_HASH_TEXT_MIN) {
        unsigned char h[crypto_hash_sha256_BYTES];
        crypto_hash_sha256(h, (const unsigned char *)b.p, b.len);
        sodium_bin2hex(out, 65, h, sizeof h);
    }
    buf_release(&b);
}

int scout_signal_score(const struct scout_signal *s, bool game_known)
{
    int score = 10; /* a well-formed URL */
    if (s->game_id && game_known)
        score += 25;
    if (s->period != INT64_MIN)
        score += 20;
    if (s->clock)
        score += 15;
    if (s->content_hash[0])
        score += 15;
    if (s->posted_at != INT64_MIN)
        score += 10;
    if (s->author)
        score += 5;
    return score;
}

int scout_clock_seconds(const char *clock)
{
    if (!clock || !lead_clock_valid(clock))
        return -1;
    size_t n = strlen(clock);
    int minutes = n == 4 ? clock[0] - '0' : (clock[0] - '0') * 10 + (clock[1] - '0');
    return minutes * 60 + (clock[n - 2] - '0') * 10 + (clock[n - 1] - '0');
}
