#include "util/strlist.h"

#include <stdio.h>

char *strlist_join(const char *const *names, char *out, size_t n)
{
    size_t len = 0;
    out[0] = '\0';
    for (size_t i = 0; names[i] && len < n; i++) {
        int w = snprintf(out + len, n - len, "%s%s", i ? ", " : "", names[i]);
        if (w < 0)
            break;
        len += (size_t)w;
    }
    return out;
}
