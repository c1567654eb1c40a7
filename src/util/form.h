#ifndef WHISTLE_UTIL_FORM_H
#define WHISTLE_UTIL_FORM_H

#include <stddef.h>

#include "util/arena.h"

/*
 * application/x-www-form-urlencoded bodies: "a=1&b=two+words". Names and values are
 * percent-decoded ("+" is a space) into arena copies. A malformed escape, a NUL byte, a
 * pair without "=" or more than max pairs is an error.
 */
struct form_pair {
    const char *name, *value;
};

/* Returns the number of pairs, or -1 when the body is malformed. */
int form_parse(struct arena *a, const char *body, size_t len, struct form_pair *out, size_t max);

#endif
