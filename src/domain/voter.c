#include "domain/voter.h"

#include <sodium.h>
#include <string.h>

#include "domain/agentkey.h"

static unsigned char secret[crypto_auth_hmacsha256_KEYBYTES];

void voter_set_secret(const unsigned char key[32])
{
    memcpy(secret, key, sizeof secret);
}

/* hex of HMAC(secret, kind ":" value), truncated to n hex characters */
static void mac_hex(const char *kind, const char *value, char *out, size_t n)
{
    unsigned char mac[crypto_auth_hmacsha256_BYTES];
    crypto_auth_hmacsha256_state st;
    crypto_auth_hmacsha256_init(&st, secret, sizeof secret);
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)kind, strlen(kind));
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)":", 1);
    crypto_auth_hmacsha256_update(&st, (const unsigned char *)value, strlen(value));
    crypto_auth_hmacsha256_final(&st, mac);
    char hex[2 * sizeof mac + 1];
    sodium_bin2hex(hex, sizeof hex, mac, sizeof mac);
    memcpy(out, hex, n);
    out[n] = '\0';
}

void voter_new_cookie(char cookie[VOTER_COOKIE_LEN + 1])
{
    unsigned char r[16];
    char id[VOTER_ID_LEN + 1];
    randombytes_buf(r, sizeof r);
    base62_encode(r, sizeof r, id, VOTER_ID_LEN); /* 62^22 > 2^128 */
    memcpy(cookie, id, VOTER_ID_LEN);
    cookie[VOTER_ID_LEN] = '.';
    mac_hex("voter", id, cookie + VOTER_ID_LEN + 1, 32);
}

bool voter_check_cookie(const char *cookie, char id[VOTER_ID_LEN + 1])
{
    if (!cookie || strlen(cookie) != VOTER_COOKIE_LEN || cookie[VOTER_ID_LEN] != '.')
        return false;
    for (size_t i = 0; i < VOTER_ID_LEN; i++) {
        char c = cookie[i];
        if (!((c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')))
            return false;
    }
    memcpy(id, cookie, VOTER_ID_LEN);
    id[VOTER_ID_LEN] = '\0';
    char want[33];
    mac_hex("voter", id, want, 32);
    return sodium_memcmp(want, cookie + VOTER_ID_LEN + 1, 32) == 0;
}

void voter_csrf_token(const char *id, char token[VOTER_TOKEN_LEN + 1])
{
    mac_hex("csrf", id, token, VOTER_TOKEN_LEN);
}

bool voter_csrf_ok(const char *id, const char *token)
{
    char want[VOTER_TOKEN_LEN + 1];
    voter_csrf_token(id, want);
    return voter_token_equal(want, token, VOTER_TOKEN_LEN);
}

bool voter_token_equal(const char *want, const char *token, size_t len)
{
    return token && strlen(token) == len && sodium_memcmp(want, token, len) == 0;
}

void voter_hash(const char *kind, const char *value, char out[VOTER_HASH_LEN + 1])
{
    mac_hex(kind, value, out, VOTER_HASH_LEN);
}
