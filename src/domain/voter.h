#ifndef WHISTLE_DOMAIN_VOTER_H
#define WHISTLE_DOMAIN_VOTER_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Anonymous voters (issue 5): a random voter ID carried in a signed first-party cookie
 * "ID.SIGNATURE", where SIGNATURE is HMAC-SHA-256(server secret, "voter:" ID). The CSRF
 * token of a page is HMAC(secret, "csrf:" ID), and the database stores only
 * HMAC(secret, "ballot:" ID): neither the ID nor the cookie is ever stored.
 */
#define VOTER_ID_LEN      22 /* base62 of 16 random bytes */
#define VOTER_COOKIE_LEN  55 /* ID "." 32 hex */
#define VOTER_TOKEN_LEN   32 /* hex characters of a CSRF token */
#define VOTER_HASH_LEN    64
#define VOTER_COOKIE_NAME "__Host-whistle_voter"

/* Sets the server secret (32 bytes). */
void voter_set_secret(const unsigned char key[32]);

/* A new voter: its cookie value (NUL-terminated). */
void voter_new_cookie(char cookie[VOTER_COOKIE_LEN + 1]);

/* Checks a cookie value's shape and signature (constant time); copies the ID out. */
bool voter_check_cookie(const char *cookie, char id[VOTER_ID_LEN + 1]);

void voter_csrf_token(const char *id, char token[VOTER_TOKEN_LEN + 1]);
bool voter_csrf_ok(const char *id, const char *token);

/* Whether token (NULL counts as wrong) is exactly the len characters of want, compared in
 * constant time: the check of every form token (voter_csrf_ok, account_session_csrf_ok). */
bool voter_token_equal(const char *want, const char *token, size_t len);

/* The stored identity of a voter, and of any other subject (a client address). */
void voter_hash(const char *kind, const char *value, char out[VOTER_HASH_LEN + 1]);

#endif
