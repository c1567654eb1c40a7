#ifndef WHISTLE_DOMAIN_IDS_H
#define WHISTLE_DOMAIN_IDS_H

#include <stdbool.h>
#include <stddef.h>

#define ENTITY_ID_MAX 255
#define SLUG_MAX      120

/* Game and team IDs: 1..255 characters of A-Z a-z 0-9 . _ : ~ - (docs/api-decisions.md). */
bool entity_id_is_valid(const char *s);

/* Slugs: ^[a-z0-9]+(-[a-z0-9]+)*$, at most SLUG_MAX characters. */
bool slug_is_valid(const char *s);

/* Derives a slug from a title into out (size SLUG_MAX + 1): ASCII letters and digits kept
 * lower-cased, every other run of characters becomes one "-", trimmed, cut at a word
 * boundary to at most 80 characters. Returns the length; 0 when the title has no letter or
 * digit (the caller falls back to another slug). */
size_t slug_from_title(const char *title, char *out, size_t outlen);

#endif
