#ifndef WHISTLE_DOMAIN_AGENTKEY_H
#define WHISTLE_DOMAIN_AGENTKEY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Agent keys: "wk_" + 43 base62 characters (32 random bytes) + a 6-character base62
 * checksum (the first 4 bytes of SHA-256 over everything before it). The checksum lets a
 * malformed or mistyped key be refused without a database lookup; the prefix makes a
 * leaked key recognisable. Only the SHA-256 of the whole key is ever stored.
 */
#define AGENT_KEY_PREFIX      "wk_"
#define AGENT_KEY_PAYLOAD     43
#define AGENT_KEY_CHECK       6
#define AGENT_KEY_LEN         (3 + AGENT_KEY_PAYLOAD + AGENT_KEY_CHECK) /* 52 */
#define AGENT_KEY_HASH_HEX    64
#define AGENT_KEY_SHOWN       10 /* characters kept as the key's visible prefix */
#define AGENT_KEY_LIFETIME_US (INT64_C(90) * 86400 * 1000000)

/*
 * Scout credentials ("ws_", issue 7) share the format: only the 3-character prefix differs,
 * and it is covered by the checksum, so a key whose prefix was edited is refused.
 */
#define SCOUT_KEY_PREFIX "ws_"

/* A fresh random credential with prefix (3 characters, e.g. AGENT_KEY_PREFIX) and its
 * storage hash (hex). */
void credential_generate(const char *prefix, char key[AGENT_KEY_LEN + 1],
                         char hash[AGENT_KEY_HASH_HEX + 1]);

/* Whether s has the exact shape of a credential with prefix and a correct checksum. */
bool credential_well_formed(const char *prefix, const char *s);

/* A fresh random agent key (NUL-terminated) and its storage hash (hex). */
void agent_key_generate(char key[AGENT_KEY_LEN + 1], char hash[AGENT_KEY_HASH_HEX + 1]);

/* Whether s has the exact shape of an agent key with a correct checksum. */
bool agent_key_well_formed(const char *s);

/* The storage hash (hex SHA-256) of a key. */
void agent_key_hash(const char *key, char hash[AGENT_KEY_HASH_HEX + 1]);

/* What an Authorization header value holds for the interface whose credentials start with
 * prefix (AGENT_KEY_PREFIX or SCOUT_KEY_PREFIX): nothing ("Bearer ", any case, missing; NULL
 * counts as missing), a key that starts with foreign (the other interface's prefix), a
 * malformed key, or a well-formed one, whose storage hash is then in hash. */
enum bearer_read { BEARER_NONE, BEARER_FOREIGN, BEARER_MALFORMED, BEARER_WELL_FORMED };
enum bearer_read bearer_credential(const char *bearer, const char *prefix, const char *foreign,
                                   char hash[AGENT_KEY_HASH_HEX + 1]);

/* Base62 of a big-endian byte string, left-padded with '0' to width (used by keys;
 * exposed for tests). Returns -1 when width is too small. */
int base62_encode(const unsigned char *in, size_t n, char *out, size_t width);

enum agent_key_state {
    AGENT_KEY_ACTIVE,
    AGENT_KEY_REVOKED,
    AGENT_KEY_EXPIRED,
    AGENT_KEY_BANNED,
    AGENT_KEY_UNSCOPED,
};

/* The state of a key at `now`: revocation and bans win over expiry; a key expires at
 * expires_at exactly (now >= expires_at). revoked_at is INT64_MIN when not revoked. */
enum agent_key_state agent_key_state(int64_t now, int64_t expires_at, int64_t revoked_at,
                                     bool banned, const char *scope);
const char *agent_key_state_name(enum agent_key_state s);

#endif
