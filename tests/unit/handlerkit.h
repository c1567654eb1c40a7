#ifndef WHISTLE_TESTS_HANDLERKIT_H
#define WHISTLE_TESTS_HANDLERKIT_H

/*
 * Handler unit tests without a socket (h2o's t/00unit style): a migrated SQLite file with
 * a small seed, the server's route table installed through http_fake_setup(), and requests
 * built by http_fake_request(). A test asserts the outcome mapping of a handler: status,
 * content type, error code, headers, body — the part of a handler that is its own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <sodium.h>

#include "api/api.h"
#include "app/app.h"
#include "domain/limits.h"
#include "http/http.h"
#include "store/incidents.h"
#include "store/store.h"
#include "domain/account.h"
#include "domain/voter.h"
#include "tmpdb.h"
#include "util/arena.h"
#include "util/timefmt.h"

/* Seed: two teams, a final game and an upcoming one; incident P published with a question
 * and one source, D merged into P, W withdrawn. Times in microseconds. */
#define HK_P    "11111111-1111-4111-8111-111111111111"
#define HK_D    "22222222-2222-4222-8222-222222222222"
#define HK_W    "33333333-3333-4333-8333-333333333333"
#define HK_NONE "44444444-4444-4444-8444-444444444444"
#define HK_SEED                                                                                    \
    "INSERT INTO teams (id, name, abbreviation, league) VALUES"                                    \
    " ('nfl-h', 'Home Team', 'HOM', 'nfl'), ('nfl-a', 'Away Team', 'AWY', 'nfl');"                 \
    "INSERT INTO games (id, home_team_id, away_team_id, home_score, away_score, starts_at,"        \
    " status, season, week, league, season_type, created_at, updated_at, kickoff_known) VALUES"    \
    " ('nfl-g1', 'nfl-h', 'nfl-a', 20, 17, 1700000000000000, 'final', 2025, 3, 'nfl',"             \
    " 'regular', 0, 0, 1),"                                                                        \
    " ('nfl-g2', 'nfl-a', 'nfl-h', NULL, NULL, NULL, 'upcoming', 2025, 4, 'nfl', 'regular',"       \
    " 0, 0, 0);"                                                                                   \
    "INSERT INTO incidents (id, game_id, title, play_description, category, status,"               \
    " origin_kind, provenance, published_at, created_at, updated_at, question_version, slug,"      \
    " visibility, duplicate_of) VALUES"                                                            \
    " ('" HK_P "', 'nfl-g1', 'Late flag', 'A late flag.', 'penalty', 'developing', 'human',"       \
    " '{}', 1700000100000000, 1700000100000000, 1700000100000000, 1, 'late-flag',"                 \
    " 'published', NULL),"                                                                         \
    " ('" HK_D "', 'nfl-g1', 'Late flag again', 'Dup.', 'penalty', 'developing', 'human',"         \
    " '{}', 1700000200000000, 1700000200000000, 1700000200000000, NULL, 'late-flag-again',"        \
    " 'merged', '" HK_P "'),"                                                                      \
    " ('" HK_W "', 'nfl-g1', 'Gone', 'Withdrawn.', 'spot', 'developing', 'human', '{}',"           \
    " 1700000300000000, 1700000300000000, 1700000300000000, NULL, 'gone', 'withdrawn', NULL);"     \
    "INSERT INTO incident_slugs (slug, incident_id) VALUES ('late-flag', '" HK_P "'),"             \
    " ('old-late-flag', '" HK_P "'), ('late-flag-again', '" HK_D "'), ('gone', '" HK_W "');"       \
    "INSERT INTO questions (incident_id, version, question_type, question_text,"                   \
    " option_a_label, option_b_label, unsure_label, stored_a_label, stored_b_label,"               \
    " stored_unsure_label, created_at) VALUES ('" HK_P "', 1, 'call_correct',"                     \
    " 'Was the flag correct?', 'Correct', 'Incorrect', 'Unsure', 'Correct', 'Incorrect',"          \
    " 'Unsure', 1700000100000000);"                                                                \
    "INSERT INTO sources (id, incident_id, position, url, title, source_kind, added_at,"           \
    " supports) VALUES ('s1', '" HK_P "', 0, 'https://example.com/a', 'Report', 'report',"         \
    " 1700000100000000, 'the flag')"

struct hk {
    struct tmpdb *db;
    struct server_config cfg;
    struct whistle_limits limits;
    struct arena a;   /* what use cases called with c return; hk_close releases it */
    struct app_ctx c; /* a use-case context over db and a (now 0, no actor) */
};

/* Opens the seeded database as the server's (store_thread) and installs the routes. */
static inline struct hk *hk_open(const char *extra_sql)
{
    struct hk *k = calloc(1, sizeof *k);
    if (!k || sodium_init() < 0)
        return NULL;
    arena_init(&k->a);
    k->db = tmpdb_open(HK_SEED);
    if (!k->db || (extra_sql && store_exec(k->db->s, extra_sql) != STORE_DONE))
        return NULL;
    k->c = (struct app_ctx){.s = k->db->s, .a = &k->a};
    k->cfg.base_url = "http://127.0.0.1:8080";
    k->cfg.listen = "127.0.0.1:8080";
    k->cfg.threads = 1;
    k->limits = (struct whistle_limits){
        .vote_per_voter = 10,
        .vote_per_ip = 60,
        .anon_vote_per_ip = 20,
        .new_voter_per_ip = 30,
        .signin_per_account = 5,
        .signin_per_ip = 20,
        .mail_forms_per_ip = 20,
        .max_agent_keys = 5,
        .lead_quota = {QUOTA_AGENT_MINUTE_MAX, QUOTA_AGENT_DAY_MAX, QUOTA_GLOBAL_DAY_MAX}};
    k->cfg.limits = &k->limits;
    store_thread_setup(k->db->path);
    http_fake_setup(&k->cfg, api_routes, api_nroutes);
    return k;
}

static inline void hk_close(struct hk *k)
{
    arena_release(&k->a);
    tmpdb_close(k->db);
    free(k);
}

/* The fixture's use-case context (k->c) at now, to call use cases with; what they return
 * is the fixture's (k->a) until hk_close. */
static inline struct app_ctx hk_ctx(struct hk *k, int64_t now)
{
    struct app_ctx c = k->c;
    c.now = now;
    return c;
}

/* A request through the route table; free with http_fake_free(). */
static inline struct request *hk_do(const char *method, const char *target,
                                    const struct http_fake *fake, const char *body)
{
    return http_fake_request(method, target, fake, body);
}

/* incidents_locate over HK_SEED's page keys (a slug, a former slug, a UUID, none), each one
 * statement: with trips (PostgreSQL), each is one round trip. */
static inline void hk_expect_locate(struct store *s, bool trips)
{
    static const struct {
        const char *key;
        int rc;
        const char *id, *visibility, *survivor;
        bool historical;
    } cases[] = {
        {"late-flag", 1, HK_P, "published", "", false}, /* also in incident_slugs: current */
        {"old-late-flag", 1, HK_P, "published", "", true},
        {HK_P, 1, HK_P, "published", "", true}, /* the UUID of a slugged incident */
        {"late-flag-again", 1, HK_D, "merged", HK_P, false},
        {HK_D, 1, HK_D, "merged", HK_P, true},
        {"gone", 1, HK_W, "withdrawn", "", false},
        {"no-such-slug", 0, NULL, NULL, NULL, false},
        {HK_NONE, 0, NULL, NULL, NULL, false},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        struct incident_ref ref;
        int64_t t0 = store_round_trips(s);
        assert_int_equal(incidents_locate(s, cases[k].key, &ref), cases[k].rc);
        if (trips)
            assert_int_equal(store_round_trips(s) - t0, 1);
        if (!cases[k].rc)
            continue;
        assert_string_equal(ref.id, cases[k].id);
        assert_string_equal(ref.visibility, cases[k].visibility);
        assert_string_equal(ref.survivor_id, cases[k].survivor);
        assert_int_equal(ref.historical, cases[k].historical);
        if (cases[k].survivor[0]) {
            assert_string_equal(ref.survivor_slug, "late-flag");
            assert_string_equal(ref.survivor_visibility, "published");
        }
        assert_true(strcmp(cases[k].id, HK_P) == 0 ? ref.question_version == 1
                                                   : ref.question_version == INT64_MIN);
    }
}

#define HK_FORM "application/x-www-form-urlencoded"

/* A request with Content-Type ctype, an Origin (NULL: none) and the one cookie name=value
 * (value NULL: no cookie) through the route table. Free with http_fake_free(). */
static inline struct request *hk_send(const char *method, const char *target, const char *ctype,
                                      const char *origin, const char *cookie_name,
                                      const char *value, const char *body)
{
    const char *headers[][2] = {{"Content-Type", ctype}, {"Origin", origin}, {NULL, NULL}};
    if (!origin)
        headers[1][0] = NULL;
    const char *cookies[][2] = {{cookie_name, value}, {NULL, NULL}};
    struct http_fake f = {.headers = headers, .cookies = value ? cookies : NULL};
    return hk_do(method, target, &f, body);
}

/* A form body "csrf=<csrf>&<fields>" (no "&" when fields is NULL or empty) into body. */
static inline void hk_form_body(char *body, size_t size, const char *csrf, const char *fields)
{
    snprintf(body, size, "csrf=%s%s%s", csrf, fields && *fields ? "&" : "", fields ? fields : "");
}

static inline struct request *hk_get(const char *target)
{
    return hk_do("GET", target, NULL, NULL);
}

/* Asserts status, a content type prefix and, when given, a body substring; frees req. */
static inline void hk_expect(struct request *req, int status, const char *ctype, const char *needle)
{
    if (req->status != status || (ctype && strncmp(req->content_type, ctype, strlen(ctype))) ||
        (needle && !strstr(req->out.p, needle)))
        fprintf(stderr, "%s %s -> %d %s\n%.*s\n", req->method_name, req->path, req->status,
                req->content_type ? req->content_type : "-", (int)req->out.len, req->out.p);
    assert_int_equal(req->status, status);
    if (ctype)
        assert_true(strncmp(req->content_type, ctype, strlen(ctype)) == 0);
    if (needle)
        assert_non_null(strstr(req->out.p, needle));
    http_fake_free(req);
}

/* The error code of an error body: {"error":{"code":"X",...}} contains "code":"X". */
static inline void hk_expect_error(struct request *req, int status, const char *code)
{
    char needle[96];
    snprintf(needle, sizeof needle, "\"code\":\"%s\"", code);
    hk_expect(req, status, "application/json", needle);
}

/* hk_expect for an answer that must say when to come back (Retry-After: 429, 503); frees
 * req. */
static inline void hk_expect_retry(struct request *req, int status, const char *ctype,
                                   const char *needle)
{
    assert_non_null(http_reply_header(req, "Retry-After"));
    hk_expect(req, status, ctype, needle);
}

/* hk_expect_error for an error answer that carries Retry-After; frees req. */
static inline void hk_expect_retry_error(struct request *req, int status, const char *code)
{
    assert_non_null(http_reply_header(req, "Retry-After"));
    hk_expect_error(req, status, code);
}

/* Points the server at a database that cannot be opened: from here on every handler that
 * needs the store meets an unreachable one. */
static inline void hk_store_down(void)
{
    store_thread_setup("/nonexistent/dir/whistle.db");
}

/* Asserts that a GET of each of the n targets answers 503 unavailable with Retry-After. */
static inline void hk_expect_unavailable(const char *const *targets, size_t n)
{
    for (size_t i = 0; i < n; i++)
        hk_expect_retry_error(hk_get(targets[i]), 503, "unavailable");
}

/* ---- signed-in requests (accounts, comments, the desk) ---- */

#define HK_ORIGIN "http://127.0.0.1:8080"
/* the password of every account hk_user makes */
#define HK_PASSWORD "a long enough passphrase 42"

/* A signed-in account of a test: its session cookie and the CSRF token of its forms. */
struct hk_user {
    char id[40];
    char cookie[ACCOUNT_COOKIE_LEN + 1];
    char csrf[ACCOUNT_CSRF_LEN + 1];
};

/* Makes a verified account (id, email, password HK_PASSWORD hashed at the smallest cost,
 * role NULL or "moderator", "editor", "admin"), created `age_us` before now, with a live
 * session (last seen now): 0 with *u filled, -1 on failure. The caller owns *u. */
static inline int hk_user(struct hk *k, const char *id, const char *email, const char *role,
                          int64_t age_us, struct hk_user *u)
{
    char pw[crypto_pwhash_STRBYTES], hash[ACCOUNT_TOKEN_HASH_HEX + 1], sql[1200];
    int64_t now = time_now_us();
    if (crypto_pwhash_str(pw, HK_PASSWORD, strlen(HK_PASSWORD), crypto_pwhash_OPSLIMIT_MIN,
                          crypto_pwhash_MEMLIMIT_MIN) != 0)
        return -1;
    snprintf(u->id, sizeof u->id, "%s", id);
    account_session_new(u->cookie, hash);
    account_session_csrf(hash, u->csrf);
    snprintf(sql, sizeof sql,
             "INSERT INTO accounts (id, email, email_verified, created_at, updated_at,"
             " password_hash, verified_at) VALUES ('%s', '%s', 1, %lld, %lld, '%s', %lld);"
             "INSERT INTO sessions (token_hash, account_id, created_at, expires_at,"
             " last_seen_at) VALUES ('%s', '%s', %lld, %lld, %lld)",
             id, email, (long long)(now - age_us), (long long)(now - age_us), pw,
             (long long)(now - age_us), hash, id, (long long)now, (long long)(now + 86400000000LL),
             (long long)now);
    if (store_exec(k->db->s, sql) != STORE_DONE)
        return -1;
    if (role) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO account_roles (account_id, role, granted_at, granted_by)"
                 " VALUES ('%s', '%s', %lld, 'test')",
                 id, role, (long long)now);
        if (store_exec(k->db->s, sql) != STORE_DONE)
            return -1;
    }
    return 0;
}

/* A request as u (NULL: signed out): a form POST (body not NULL, same origin unless origin
 * says otherwise; "" sends no Origin) or a GET. Free with http_fake_free(). */
static inline struct request *hk_as(const struct hk_user *u, const char *method, const char *target,
                                    const char *body, const char *origin)
{
    if (!origin)
        origin = HK_ORIGIN;
    return hk_send(method, target, HK_FORM, *origin ? origin : NULL, ACCOUNT_COOKIE_NAME,
                   u ? u->cookie : NULL, body);
}

/* A same-origin form POST as u with the CSRF token appended ("csrf=…&" + fields). */
static inline struct request *hk_post(const struct hk_user *u, const char *target,
                                      const char *fields)
{
    char body[4096];
    hk_form_body(body, sizeof body, u ? u->csrf : "", fields);
    return hk_as(u, "POST", target, body, NULL);
}

/* ---- anonymous visitors (the voter cookie) ---- */

/* An anonymous visitor: its voter cookie and the CSRF token of its forms. */
struct hk_voter {
    char cookie[VOTER_COOKIE_LEN + 1];
    char csrf[VOTER_TOKEN_LEN + 1];
};

/* A POST of body as type ctype with v's voter cookie (v NULL: none) and an Origin (NULL:
 * none). Free with http_fake_free(). */
static inline struct request *hk_voter_post(const struct hk_voter *v, const char *target,
                                            const char *ctype, const char *origin, const char *body)
{
    return hk_send("POST", target, ctype, origin, VOTER_COOKIE_NAME, v ? v->cookie : NULL, body);
}

/* A same-origin form POST as the anonymous visitor v, its CSRF token prepended ("csrf=…&" +
 * fields). Free with http_fake_free(). */
static inline struct request *hk_anon_post(const struct hk_voter *v, const char *target,
                                           const char *fields)
{
    char body[4096];
    hk_form_body(body, sizeof body, v->csrf, fields);
    return hk_voter_post(v, target, HK_FORM, HK_ORIGIN, body);
}

/* Asserts a redirect: status and the Location (HK_ORIGIN + path); frees req. */
static inline void hk_expect_redirect(struct request *req, int status, const char *path)
{
    char want[600];
    snprintf(want, sizeof want, "%s%s", HK_ORIGIN, path);
    const char *loc = http_reply_header(req, "Location");
    if (!loc || strcmp(loc, want) != 0)
        fprintf(stderr, "%s %s -> %d Location %s (want %s)\n%.*s\n", req->method_name, req->path,
                req->status, loc ? loc : "-", want, (int)req->out.len, req->out.p);
    assert_non_null(loc);
    assert_string_equal(loc, want);
    hk_expect(req, status, NULL, NULL);
}

/* A limit of one reached by the anonymous visitor v: the form post of first to target is
 * answered status (its page holds needle, unless NULL), the post of next after it 429 with
 * Retry-After and refusal in its page. */
static inline void hk_expect_limit(const struct hk_voter *v, const char *target, const char *first,
                                   int status, const char *needle, const char *next,
                                   const char *refusal)
{
    hk_expect(hk_anon_post(v, target, first), status, "text/html", needle);
    hk_expect_retry(hk_anon_post(v, target, next), 429, "text/html", refusal);
}

/* ---- the fixture of a handler test file ---- */

/* An account hk_setup makes (hk_user) into *u. */
struct hk_account {
    const char *id, *email, *role; /* role NULL, "moderator", "editor" or "admin" */
    struct hk_user *u;
};

#define HK_ACCOUNTS_MAX 4

/* What a test file's fixture sets up beyond the seed; every member may be left zero. */
struct hk_fixture {
    const unsigned char *secret; /* the voter secret (32 bytes), or NULL: left unset */
    bool fast_passwords;         /* argon2id at its smallest cost (the rules are the same) */
    struct hk_voter *anon;       /* filled with a new voter cookie and its token, or NULL */
    int64_t account_age_us;      /* the accounts were created this long before now */
    struct hk_account accounts[HK_ACCOUNTS_MAX]; /* up to the first id NULL */
};

/* A cmocka setup's body: opens the seeded database (hk_open) into *state and sets up what f
 * (NULL: nothing more) asks. The fixture, or NULL on failure; hk_teardown frees it. */
static inline struct hk *hk_setup(void **state, const struct hk_fixture *f)
{
    struct hk *k = hk_open(NULL);
    *state = k;
    if (!k || !f)
        return k;
    if (f->secret)
        voter_set_secret(f->secret);
    if (f->fast_passwords) {
        k->limits.password_ops = crypto_pwhash_OPSLIMIT_MIN;
        k->limits.password_memory_kib = crypto_pwhash_MEMLIMIT_MIN / 1024;
    }
    if (f->anon) {
        char id[VOTER_ID_LEN + 1];
        voter_new_cookie(f->anon->cookie);
        voter_check_cookie(f->anon->cookie, id);
        voter_csrf_token(id, f->anon->csrf);
    }
    for (size_t i = 0; i < HK_ACCOUNTS_MAX && f->accounts[i].id; i++) {
        const struct hk_account *a = &f->accounts[i];
        if (hk_user(k, a->id, a->email, a->role, f->account_age_us, a->u) < 0)
            return NULL;
    }
    return k;
}

/* A cmocka setup with the seed only. */
static inline int hk_setup_seed(void **state)
{
    return hk_setup(state, NULL) ? 0 : -1;
}

/* The cmocka teardown of hk_setup: closes and frees the fixture. */
static inline int hk_teardown(void **state)
{
    hk_close(*state);
    return 0;
}

/* Formats SQL (printf) and runs it on the fixture's database: 0, or -1 when it is too long
 * for the buffer or fails. */
__attribute__((format(printf, 2, 3))) static inline int hk_exec(struct hk *k, const char *fmt, ...)
{
    char sql[4096];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(sql, sizeof sql, fmt, ap);
    va_end(ap);
    if (n < 0 || (size_t)n >= sizeof sql)
        return -1;
    return store_exec(k->db->s, sql) == STORE_DONE ? 0 : -1;
}

/* Seeds an agent key: id, its account, name (NULL: none), prefix, secret_hash, created_at
 * and expires_at. 0, or -1 on failure. */
static inline int hk_agent_key(struct hk *k, const char *id, const char *account, const char *name,
                               const char *prefix, const char *secret_hash, int64_t created,
                               int64_t expires)
{
    char name_sql[80] = "NULL";
    if (name)
        snprintf(name_sql, sizeof name_sql, "'%s'", name);
    return hk_exec(k,
                   "INSERT INTO agent_keys (id, account_id, name, prefix, secret_hash, created_at,"
                   " expires_at) VALUES ('%s', '%s', %s, '%s', '%s', %lld, %lld)",
                   id, account, name_sql, prefix, secret_hash, (long long)created,
                   (long long)expires);
}

/* Seeds an emailed link for account (purpose "verify" or "reset") created, expiring and used
 * (0: not used) at the times given, and asserts it is stored: its token into out. */
static inline void hk_link_token(struct hk *k, const char *account, const char *purpose,
                                 int64_t created, int64_t expires, int64_t used,
                                 char out[ACCOUNT_TOKEN_LEN + 1])
{
    char hash[ACCOUNT_TOKEN_HASH_HEX + 1], used_sql[24] = "NULL";
    account_token_new(out, hash);
    if (used)
        snprintf(used_sql, sizeof used_sql, "%lld", (long long)used);
    assert_int_equal(hk_exec(k,
                             "INSERT INTO account_tokens (token_hash, account_id, purpose,"
                             " created_at, expires_at, used_at) VALUES ('%s', '%s', '%s', %lld,"
                             " %lld, %s)",
                             hash, account, purpose, (long long)created, (long long)expires,
                             used_sql),
                     0);
}

#endif
