#include "domain/agentkey.h"

#include <sodium.h>
#include <string.h>
#include <strings.h>

static const char alphabet[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

int base62_encode(const unsigned char *in, size_t n, char *out, size_t width)
{
    unsigned char num[64];
    if (n > sizeof num)
        return -1;
    memcpy(num, in, n);
    size_t pos = width;
    out[width] = '\0';
    /* repeated long division of the big-endian number by 62 */
    for (;;) {
        bool zero = true;
        unsigned rem = 0;
        for (size_t i = 0; i < n; i++) {
            unsigned cur = rem * 256 + num[i];
            num[i] = (unsigned char)(cur / 62);
            rem = cur % 62;
            if (num[i])
                zero = false;
        }
        if (pos == 0)
            return -1;
        out[--pos] = alphabet[rem];
        if (zero)
            break;
    }
    while (pos > 0)
        out[--pos] = '0';
    return 0;
}

/* The checksum of the first len characters of key. */
static void checksum(const char *key, size_t len, char out[AGENT_KEY_CHECK + 1])
{
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)key, len);
    base62_encode(h, 4, out, AGENT_KEY_CHECK); /* 62^6 > 2^32 */
}

void agent_key_hash(const char *key, char hash[AGENT_KEY_HASH_HEX + 1])
{
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)key, strlen(key));
    sodium_bin2hex(hash, AGENT_KEY_HASH_HEX + 1, h, sizeof h);
}

void credential_generate(const char *prefix, char key[AGENT_KEY_LEN + 1],
                         char hash[AGENT_KEY_HASH_HEX + 1])
{
    unsigned char r[32];
    randombytes_buf(r, sizeof r);
    memcpy(key, prefix, 3);
    base62_encode(r, sizeof r, key + 3, AGENT_KEY_PAYLOAD); /* 62^43 > 2^256 */
    sodium_memzero(r, sizeof r);
    checksum(key, 3 + AGENT_KEY_PAYLOAD, key + 3 + AGENT_KEY_PAYLOAD);
    key[AGENT_KEY_LEN] = '\0';
    agent_key_hash(key, hash);
}

void agent_key_generate(char key[AGENT_KEY_LEN + 1], char hash[AGENT_KEY_HASH_HEX + 1])
{
    credential_generate(AGENT_KEY_PREFIX, key, hash);
}

bool agent_key_well_formed(const char *s)
{
    return credential_well_formed(AGENT_KEY_PREFIX, s);
}

bool credential_well_formed(const char *prefix, const char *s)
{
    if (!s || strlen(prefix) != 3 || strncmp(s, prefix, 3) != 0 || strlen(s) != AGENT_KEY_LEN)
        return false;
    for (size_t i = 3; i < AGENT_KEY_LEN; i++)
        if (!strchr(alphabet, s[i]) || s[i] == '\0')
            return false;
    char want[AGENT_KEY_CHECK + 1];
    checksum(s, 3 + AGENT_KEY_PAYLOAD, want);
    return sodium_memcmp(want, s + 3 + AGENT_KEY_PAYLOAD, AGENT_KEY_CHECK) == 0;
}

enum agent_key_state agent_key_state(int64_t now, int64_t expires_at, int64_t revoked_at,
                                     bool banned, const char *scope)
{
    if (banned)
        return AGENT_KEY_BANNED;
    if (revoked_at != INT64_MIN)
        return AGENT_KEY_REVOKED;
    if (now >= expires_at)
        return AGENT_KEY_EXPIRED;
    if (!scope || strcmp(scope, "submit_lead") != 0)
        return AGENT_KEY_UNSCOPED;
    return AGENT_KEY_ACTIVE;
}

const char *agent_key_state_name(enum agent_key_state s)
{
    static const char *const names[] = {"active", "revoked", "expired", "banned", "unscoped"};
    return names[s];
}

enum bearer_read bearer_credential(const char *bearer, const char *prefix, const char *foreign,
                                   char hash[AGENT_KEY_HASH_HEX + 1])
{
    if (!bearer || strncasecmp(bearer, "Bearer ", 7) != 0)
        return BEARER_NONE;
    const char *key = bearer + 7;
    while (*key == ' ')
        key++;
    if (strncmp(key, foreign, 3) == 0)
        return BEARER_FOREIGN;
    if (!credential_well_formed(prefix, key))
        return BEARER_MALFORMED;
    agent_key_hash(key, hash);
    return BEARER_WELL_FORMED;
}
