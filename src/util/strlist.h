#ifndef WHISTLE_UTIL_STRLIST_H
#define WHISTLE_UTIL_STRLIST_H

#include <stddef.h>

/* Writes the names of a NULL-terminated list as "a, b, c" into out (size n, always
 * terminated; cut short when it does not fit) for messages such as "must be one of …".
 * Returns out. */
char *strlist_join(const char *const *names, char *out, size_t n);

#endif
