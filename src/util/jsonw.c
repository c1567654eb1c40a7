#include "util/jsonw.h"

#include <assert.h>
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/timefmt.h"

void jw_init(struct jw *w, struct buf *b)
{
    w->b = b;
    w->depth = 0;
    w->after_key = false;
    w->first[0] = true;
}

/* Writes the separator a value needs at the current position. */
static void sep(struct jw *w)
{
    if (w->after_key) {
        w->after_key = false;
        return;
    }
    if (!w->first[w->depth])
        buf_putc(w->b, ',');
    w->first[w->depth] = false;
}

static void open(struct jw *w, char c)
{
    sep(w);
    buf_putc(w->b, c);
    assert(w->depth + 1 < JW_MAX_DEPTH); /* the API's documents are far shallower */
    w->depth++;
    w->first[w->depth] = true;
}

static void close_(struct jw *w, char c)
{
    assert(w->depth > 0 && !w->after_key); /* closes what was opened, no key left dangling */
    buf_putc(w->b, c);
    w->depth--;
}

void jw_obj_begin(struct jw *w)
{
    open(w, '{');
}

void jw_obj_end(struct jw *w)
{
    close_(w, '}');
}

void jw_arr_begin(struct jw *w)
{
    open(w, '[');
}

void jw_arr_end(struct jw *w)
{
    close_(w, ']');
}

/* 1 for bytes that need escaping (or, for 0xe2, a closer look for U+2028/U+2029) */
static const unsigned char needs_escape[256] = {
    [0 ... 0x1f] = 1, ['"'] = 1, ['\\'] = 1, ['<'] = 1, ['>'] = 1, ['&'] = 1, [0xe2] = 1,
};

bool json_plain(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (needs_escape[(unsigned char)s[i]])
            return false;
    return true;
}

void json_escape_into(struct buf *b, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    const unsigned char *end = p + n;
    /* worst case 6 bytes per input byte plus quotes: reserve once, then write directly */
    buf_grow(b, n * 6 + 2);
    char *o = b->p + b->len;
    *o++ = '"';
    while (p < end) {
        const unsigned char *run = p;
        while (p < end && !needs_escape[*p])
            p++;
        memcpy(o, run, (size_t)(p - run));
        o += p - run;
        if (p == end)
            break;
        unsigned char c = *p++;
        switch (c) {
        case '"':
            *o++ = '\\';
            *o++ = '"';
            break;
        case '\\':
            *o++ = '\\';
            *o++ = '\\';
            break;
        case '\n':
            *o++ = '\\';
            *o++ = 'n';
            break;
        case '\r':
            *o++ = '\\';
            *o++ = 'r';
            break;
        case '\t':
            *o++ = '\\';
            *o++ = 't';
            break;
        case 0xe2:
            if (p + 1 < end && p[0] == 0x80 && (p[1] == 0xa8 || p[1] == 0xa9)) {
                memcpy(o, p[1] == 0xa8 ? "\\u2028" : "\\u2029", 6);
                o += 6;
                p += 2;
            } else {
                *o++ = (char)c;
            }
            break;
        default:
            memcpy(o, "\\u00", 4);
            o[4] = hex[c >> 4];
            o[5] = hex[c & 15];
            o += 6;
        }
    }
    *o++ = '"';
    buf_setlen(b, (size_t)(o - b->p));
}

void jw_keyn(struct jw *w, const char *key, size_t n)
{
    assert(!w->after_key);
    sep(w);
    json_escape_into(w->b, key, n);
    buf_putc(w->b, ':');
    w->after_key = true;
}

void jw_strn(struct jw *w, const char *s, size_t n)
{
    sep(w);
    json_escape_into(w->b, s, n);
}

void jw_str(struct jw *w, const char *s)
{
    if (!s) {
        jw_null(w);
        return;
    }
    jw_strn(w, s, strlen(s));
}

/* Writes the decimal digits of u ending at e (no NUL), after a '-' when negative; returns
 * where they begin. */
static char *digits(char *e, uint64_t u, bool negative)
{
    char *q = e;
    do {
        *--q = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (negative)
        *--q = '-';
    return q;
}

void jw_int(struct jw *w, int64_t v)
{
    if (v == JW_NULL_INT) {
        jw_null(w);
        return;
    }
    sep(w);
    char tmp[24];
    char *e = tmp + sizeof tmp;
    char *q = digits(e, v < 0 ? 0 - (uint64_t)v : (uint64_t)v, v < 0);
    buf_append(w->b, q, (size_t)(e - q));
}

void jw_bool(struct jw *w, bool v)
{
    sep(w);
    buf_puts(w->b, v ? "true" : "false");
}

void jw_tristate(struct jw *w, int v)
{
    if (v < 0)
        jw_null(w);
    else
        jw_bool(w, v > 0);
}

void jw_null(struct jw *w)
{
    sep(w);
    buf_append(w->b, "null", 4);
}

void jw_number1(struct jw *w, double v)
{
    sep(w);
    if (!isfinite(v))
        v = 0;
    if (fabs(v) < 1e15) {
        /* the whole part, then ".d" unless the tenth is 0 */
        char tmp[32];
        char *e = tmp + sizeof tmp - 2;
        long long tenths = llround(v * 10.0);
        uint64_t mag = tenths < 0 ? 0 - (uint64_t)tenths : (uint64_t)tenths;
        char *q = digits(e, mag / 10, tenths < 0);
        if (mag % 10) {
            *e++ = '.';
            *e++ = (char)('0' + mag % 10);
        }
        buf_append(w->b, q, (size_t)(e - q));
    } else {
        buf_printf(w->b, "%.17g", v); /* exponent form: still a JSON number */
    }
}

void jw_time(struct jw *w, int64_t us)
{
    if (us == JW_NULL_INT) {
        jw_null(w);
        return;
    }
    char tmp[TIME_ISO_MAX];
    size_t n = time_format_iso(us, tmp);
    sep(w);
    buf_putc(w->b, '"');
    buf_append(w->b, tmp, n);
    buf_putc(w->b, '"');
}

void jw_raw(struct jw *w, const char *json)
{
    sep(w);
    buf_puts(w->b, json);
}

/* jw_fmt's %ld is an int64_t (the printf check sees a long) */
_Static_assert(_Generic((int64_t)0, long : 1, default : 0), "jw_fmt reads %ld as int64_t");

void jw_fmt(struct jw *w, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    const char *p = fmt;
    while (*p) {
        if (*p == ' ') {
            p++;
            continue;
        }
        if (*p == '}') {
            jw_obj_end(w);
            p++;
            continue;
        }
        if (*p != '{' && *p != '%') {
            /* key: the bytes up to its colon */
            const char *k = p;
            while (*p != ':') {
                assert(isalnum((unsigned char)*p) || *p == '_');
                p++;
            }
            jw_keyn(w, k, (size_t)(p - k));
            p++;
        }
        if (*p == '{') {
            jw_obj_begin(w);
            p++;
            continue;
        }
        assert(*p == '%');
        p++;
        if (p[0] == 's' && p[1] == 'J') {
            const char *json = va_arg(ap, const char *);
            if (json)
                jw_raw(w, json);
            else
                jw_null(w);
            p += 2;
        } else if (p[0] == 's') {
            jw_str(w, va_arg(ap, const char *));
            p++;
        } else if (p[0] == 'l' && p[1] == 'd' && p[2] == 'T') {
            jw_time(w, va_arg(ap, int64_t));
            p += 3;
        } else if (p[0] == 'l' && p[1] == 'd') {
            jw_int(w, va_arg(ap, int64_t));
            p += 2;
        } else {
            assert(p[0] == 'd' && p[1] == 'B');
            jw_bool(w, va_arg(ap, int) != 0);
            p += 2;
        }
        assert(*p == ' ' || *p == '}' || *p == '\0');
    }
    va_end(ap);
}
