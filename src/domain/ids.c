#include "domain/ids.h"

#include <string.h>

#define SLUG_DERIVED_MAX 80

static bool id_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
           c == '_' || c == ':' || c == '~' || c == '-';
}

bool entity_id_is_valid(const char *s)
{
    if (!s)
        return false;
    size_t n = 0;
    for (; s[n]; n++)
        if (n >= ENTITY_ID_MAX || !id_char(s[n]))
            return false;
    return n > 0;
}

bool slug_is_valid(const char *s)
{
    if (!s || !*s)
        return false;
    size_t n = strlen(s);
    if (n > SLUG_MAX || s[0] == '-' || s[n - 1] == '-')
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum && !(c == '-' && s[i + 1] != '-'))
            return false;
    }
    return true;
}

size_t slug_from_title(const char *title, char *out, size_t outlen)
{
    size_t n = 0;
    size_t last_break = 0; /* length before the most recent "-" */
    bool pending_dash = false;
    size_t cap = outlen - 1 < SLUG_DERIVED_MAX ? outlen - 1 : SLUG_DERIVED_MAX;
    for (const char *p = title; *p; p++) {
        char c = *p;
        if (c >= 'A' && c <= 'Z')
            c = (char)(c + 32);
        bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
        if (!alnum) {
            if (n > 0)
                pending_dash = true;
            continue;
        }
        if (pending_dash) {
            if (n + 2 > cap)
                break;
            last_break = n;
            out[n++] = '-';
            pending_dash = false;
        }
        if (n + 1 > cap) {
            n = last_break ? last_break : n;
            break;
        }
        out[n++] = c;
    }
    out[n] = '\0';
    return n;
}
