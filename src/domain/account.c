#include "domain/account.h"

#include <ctype.h>
#include <pthread.h>
#include <sodium.h>
#include <string.h>
#include <strings.h>

#include "domain/agentkey.h"
#include "domain/limits.h"
#include "domain/voter.h"
#include "util/str.h"

/* data/common-passwords.txt, compiled in (Makefile: gen/passwords.c) */
extern const unsigned char common_passwords[];
extern const size_t common_passwords_len;

int account_email_normalize(const char *in, char out[ACCOUNT_EMAIL_MAX + 2])
{
    size_t n = in ? strlen(in) : 0;
    const char *at = in ? strchr(in, '@') : NULL;
    if (n == 0 || n > ACCOUNT_EMAIL_MAX || !at || at == in || strchr(at + 1, '@') ||
        !strchr(at + 1, '.') || at[1] == '.' || in[n - 1] == '.')
        return -1;
    for (size_t i = 0; i <= n; i++) {
        unsigned char c = (unsigned char)in[i];
        if (i < n && (c <= 0x20 || c >= 0x7f))
            return -1;
        out[i] = (char)tolower(c);
    }
    return 0;
}

/* Unicode code points of UTF-8 text (continuation bytes are not counted). */
static size_t utf8_chars(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        if (((unsigned char)*s & 0xc0) != 0x80)
            n++;
    return n;
}

/* Whether the n bytes at pw are a line of the bundled list (case-insensitive). */
static bool listed(const char *pw, size_t n)
{
    const char *p = (const char *)common_passwords, *end = p + common_passwords_len;
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *line_end = nl ? nl : end;
        size_t len = (size_t)(line_end - p);
        if (len && p[len - 1] == '\r')
            len--;
        if (len == n && p[0] != '#' && strncasecmp(p, pw, n) == 0)
            return true;
        p = line_end + 1;
    }
    return false;
}

static bool digit_or_symbol(char c)
{
    return (c >= '0' && c <= '9') || (c && strchr("!@#$%^&*()_+-=.?~", c));
}

/* A listed password counts as common also with digits or symbols added at either end
 * ("Football2024!", "123iloveyou"): the variations people pick when told to add a number.
 * The listed part must have 4 characters or more. */
bool account_password_is_common(const char *pw)
{
    size_t n = strlen(pw);
    if (listed(pw, n))
        return true;
    size_t a = 0, b = n;
    while (b > 0 && digit_or_symbol(pw[b - 1]))
        b--;
    while (a < b && digit_or_symbol(pw[a]))
        a++;
    return (a > 0 || b < n) && b - a >= 4 && listed(pw + a, b - a);
}

const char *account_password_problem(const char *pw, const char *email)
{
    size_t chars = utf8_chars(pw);
    if (chars < ACCOUNT_PASSWORD_MIN)
        return "the password must be at least 10 characters long";
    if (chars > ACCOUNT_PASSWORD_MAX || strlen(pw) > 4 * ACCOUNT_PASSWORD_MAX)
        return "the password must be at most 256 characters long";
    if (account_password_is_common(pw))
        return "that password is one of the most common passwords: choose another";
    if (email && strcasecmp(pw, email) == 0)
        return "the password must not be your email address";
    if (email) {
        const char *at = strchr(email, '@');
        if (at && (size_t)(at - email) == strlen(pw) && strncasecmp(pw, email, strlen(pw)) == 0)
            return "the password must not be the name part of your email address";
    }
    return NULL;
}

/* The cost of lim, libsodium's interactive limits where it sets none. */
static void pw_cost(const struct whistle_limits *lim, unsigned long long *ops, size_t *mem)
{
    *ops = lim && lim->password_ops ? lim->password_ops : crypto_pwhash_OPSLIMIT_INTERACTIVE;
    *mem = lim && lim->password_memory_kib > 0 ? (size_t)lim->password_memory_kib * 1024
                                               : crypto_pwhash_MEMLIMIT_INTERACTIVE;
}

int account_password_hash(const char *pw, const struct whistle_limits *lim,
                          char out[ACCOUNT_PASSWORD_HASH_MAX])
{
    unsigned long long ops;
    size_t mem;
    pw_cost(lim, &ops, &mem);
    if (ops < crypto_pwhash_OPSLIMIT_MIN || ops > crypto_pwhash_OPSLIMIT_MAX ||
        mem < crypto_pwhash_MEMLIMIT_MIN)
        return -1;
    return crypto_pwhash_str(out, pw, strlen(pw), ops, mem) == 0 ? 0 : -1;
}

bool account_password_verify(const char *hash, const char *pw)
{
    return hash && crypto_pwhash_str_verify(hash, pw, strlen(pw)) == 0;
}

/* The dummy hash of the last cost asked for: made once per cost (a server has one), under
 * the lock so that two first sign-ins do not both make it. A cache, not configuration. */
static pthread_mutex_t dummy_lock = PTHREAD_MUTEX_INITIALIZER;
static char dummy_hash[ACCOUNT_PASSWORD_HASH_MAX];
static unsigned long long dummy_ops;
static size_t dummy_mem;

void account_password_dummy_verify(const char *pw, const struct whistle_limits *lim)
{
    unsigned long long ops;
    size_t mem;
    char hash[ACCOUNT_PASSWORD_HASH_MAX] = "";
    pw_cost(lim, &ops, &mem);
    pthread_mutex_lock(&dummy_lock);
    if (ops != dummy_ops || mem != dummy_mem || !dummy_hash[0]) {
        unsigned char r[16];
        char random_pw[33];
        randombytes_buf(r, sizeof r);
        sodium_bin2hex(random_pw, sizeof random_pw, r, sizeof r);
        if (account_password_hash(random_pw, lim, dummy_hash) < 0)
            dummy_hash[0] = '\0';
        dummy_ops = ops;
        dummy_mem = mem;
    }
    memcpy(hash, dummy_hash, sizeof hash);
    pthread_mutex_unlock(&dummy_lock);
    (void)account_password_verify(hash[0] ? hash : NULL, pw);
}

void account_token_new(char token[ACCOUNT_TOKEN_LEN + 1], char hash[ACCOUNT_TOKEN_HASH_HEX + 1])
{
    unsigned char r[32];
    randombytes_buf(r, sizeof r);
    base62_encode(r, sizeof r, token, ACCOUNT_TOKEN_LEN); /* 62^43 > 2^256 */
    sodium_memzero(r, sizeof r);
    agent_key_hash(token, hash);
}

static bool token_shaped(const char *t, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = t[i];
        if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')))
            return false;
    }
    return true;
}

int account_token_hash(const char *token, char hash[ACCOUNT_TOKEN_HASH_HEX + 1])
{
    if (!token || strlen(token) != ACCOUNT_TOKEN_LEN || !token_shaped(token, ACCOUNT_TOKEN_LEN))
        return -1;
    agent_key_hash(token, hash);
    return 0;
}

enum account_token_state account_token_state(int64_t now, int64_t expires_at, int64_t used_at)
{
    if (used_at != INT64_MIN)
        return ACCOUNT_TOKEN_USED;
    return now >= expires_at ? ACCOUNT_TOKEN_EXPIRED : ACCOUNT_TOKEN_VALID;
}

void account_session_new(char cookie[ACCOUNT_COOKIE_LEN + 1], char hash[ACCOUNT_TOKEN_HASH_HEX + 1])
{
    char token[ACCOUNT_TOKEN_LEN + 1], mac[65];
    account_token_new(token, hash);
    voter_hash("session", token, mac);
    memcpy(cookie, token, ACCOUNT_TOKEN_LEN);
    cookie[ACCOUNT_TOKEN_LEN] = '.';
    memcpy(cookie + ACCOUNT_TOKEN_LEN + 1, mac, 32);
    cookie[ACCOUNT_COOKIE_LEN] = '\0';
    sodium_memzero(token, sizeof token);
}

bool account_session_check(const char *cookie, char hash[ACCOUNT_TOKEN_HASH_HEX + 1])
{
    if (!cookie || strlen(cookie) != ACCOUNT_COOKIE_LEN || cookie[ACCOUNT_TOKEN_LEN] != '.' ||
        !token_shaped(cookie, ACCOUNT_TOKEN_LEN))
        return false;
    char token[ACCOUNT_TOKEN_LEN + 1], mac[65];
    memcpy(token, cookie, ACCOUNT_TOKEN_LEN);
    token[ACCOUNT_TOKEN_LEN] = '\0';
    voter_hash("session", token, mac);
    bool ok = sodium_memcmp(mac, cookie + ACCOUNT_TOKEN_LEN + 1, 32) == 0;
    if (ok)
        agent_key_hash(token, hash);
    sodium_memzero(token, sizeof token);
    return ok;
}

void account_session_csrf(const char *session_hash, char token[ACCOUNT_CSRF_LEN + 1])
{
    char mac[65];
    voter_hash("session-csrf", session_hash, mac);
    memcpy(token, mac, ACCOUNT_CSRF_LEN);
    token[ACCOUNT_CSRF_LEN] = '\0';
}

bool account_session_csrf_ok(const char *session_hash, const char *token)
{
    char want[ACCOUNT_CSRF_LEN + 1];
    account_session_csrf(session_hash, want);
    return voter_token_equal(want, token, ACCOUNT_CSRF_LEN);
}

void account_voter(const char *account_id, char out[65])
{
    voter_hash("account-ballot", account_id, out);
}

const char *account_safe_next(const char *next)
{
    if (!next || next[0] != '/' || next[1] == '/' || strlen(next) > 512)
        return "/developers";
    for (const char *p = next; *p; p++)
        if ((unsigned char)*p < 0x20 || *p == 0x7f || *p == '\\')
            return "/developers";
    return next;
}

const char *account_key_name(const char *in, char out[404])
{
    if (!in)
        return "give the key a name";
    size_t n;
    in = str_trim(in, &n);
    if (n == 0)
        return "give the key a name";
    if (n > 400)
        return "the key name must be at most 100 characters";
    memcpy(out, in, n);
    out[n] = '\0';
    if (utf8_chars(out) > 100)
        return "the key name must be at most 100 characters";
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
            return "the key name must not contain control characters";
    return NULL;
}

int64_t account_outbox_retry_at(int attempts, int64_t now)
{
    static const int64_t minutes[] = {1, 5, 15, 60, 180, 180, 180};
    if (attempts >= OUTBOX_MAX_ATTEMPTS)
        return INT64_MIN;
    int k = attempts < 1 ? 0 : attempts - 1;
    if (k >= (int)(sizeof minutes / sizeof minutes[0]))
        k = (int)(sizeof minutes / sizeof minutes[0]) - 1;
    return now + minutes[k] * 60 * ACCOUNT_SEC;
}

bool account_session_idle_ended(int64_t now, int64_t last_seen, bool staff, int64_t staff_idle_us)
{
    return staff && staff_idle_us > 0 && now - last_seen >= staff_idle_us;
}

bool account_session_touch_due(int64_t now, int64_t last_seen, bool staff, int64_t staff_idle_us)
{
    return staff && staff_idle_us > 0 && now - last_seen >= staff_idle_us / 4;
}
