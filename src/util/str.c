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
