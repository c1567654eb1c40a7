#ifndef WHISTLE_UTIL_STR_H
#define WHISTLE_UTIL_STR_H

#include <stddef.h>
#include <stdint.h>

/* The span of s without its leading and trailing white space (space, tab, CR, LF): returns
 * where it starts, inside s (s still owns it), and sets *len to its length in bytes (0 when
 * s is only white space). Nothing is copied. */
const char *str_trim(const char *s, size_t *len);

/* FNV-1a of the NUL-terminated s: the in-memory tables' hash of an ID (not for anything an
 * attacker could choose to collide on a table's cost: IDs are the database's). */
uint64_t str_hash(const char *s);

#endif
