#include "util/str.h"

#include <stdbool.h>
#include <string.h>

static bool trim_space(char c)
{
    return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

const char *str_trim(const char *s, size_t *len)
{
    while (trim_space(*s))
        s++;
    size_t n = strlen(s);
    while (n && trim_space(s[n - 1]))
        n--;
    *len = n;
    return s;
}

uint64_t str_hash(const char *s)
{
    uint64_t h = 14695981039346656037u;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    return h;
}
