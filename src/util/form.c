#include "util/form.h"

#include <string.h>

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* Decodes s[0..n) into an arena string; NULL when malformed. */
static const char *decode(struct arena *a, const char *s, size_t n)
{
    char *out = arena_alloc(a, n + 1);
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '+') {
            c = ' ';
        } else if (c == '%') {
            if (i + 2 >= n)
                return NULL;
            int h = hexval(s[i + 1]), l = hexval(s[i + 2]);
            if (h < 0 || l < 0)
                return NULL;
            c = (char)(h * 16 + l);
            i += 2;
        }
        if (c == '\0')
            return NULL;
        out[o++] = c;
    }
    out[o] = '\0';
    return out;
}

int form_parse(struct arena *a, const char *body, size_t len, struct form_pair *out, size_t max)
{
    size_t count = 0, i = 0;
    while (i < len) {
        size_t end = i;
        while (end < len && body[end] != '&')
            end++;
        if (end > i) {
            const char *eq = memchr(body + i, '=', end - i);
            if (!eq || count == max)
                return -1;
            out[count].name = decode(a, body + i, (size_t)(eq - (body + i)));
            out[count].value = decode(a, eq + 1, (size_t)(body + end - (eq + 1)));
            if (!out[count].name || !out[count].value)
                return -1;
            count++;
        }
        i = end + 1;
    }
    return (int)count;
}
