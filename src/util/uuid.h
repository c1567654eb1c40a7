#ifndef WHISTLE_UTIL_UUID_H
#define WHISTLE_UTIL_UUID_H

#include <stdbool.h>

#define UUID_STR_LEN 36

/* True when s is a canonical 8-4-4-4-12 hex UUID (either case). */
bool uuid_is_valid(const char *s);

/* Copies a valid UUID into out lower-cased; returns -1 (out untouched) when s is invalid. */
int uuid_normalize(const char *s, char out[UUID_STR_LEN + 1]);

/* A random (version 4) UUID from libsodium's CSPRNG, lower case. */
void uuid_v4(char out[UUID_STR_LEN + 1]);

#endif
