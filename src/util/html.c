#include "util/html.h"

#include <assert.h>
#include <stdarg.h>
#include <string.h>

void html_text(struct buf *b, const char *s)
{
    if (!s)
        return;
    const char *run = s;
    for (const char *p = s; *p; p++) {
        const char *esc;
        switch (*p) {
        case '&':
            esc = "&amp;";
            break;
        case '<':
            esc = "&lt;";
            break;
        case '>':
            esc = "&gt;";
            break;
        case '"':
            esc = "&quot;";
            break;
        case '\'':
            esc = "&#39;";
            break;
        default:
            continue;
        }
        buf_append(b, run, (size_t)(p - run));
        buf_puts(b, esc);
        run = p + 1;
    }
    buf_puts(b, run);
}

void html_raw(struct buf *b, const char *markup)
{
    buf_puts(b, markup);
}

/* Formats trusted values (numbers, the page's own strings) only: %s arguments are NOT
 * escaped, so user text must go through html_text(). */
void html_printf(struct buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    buf_vprintf(b, fmt, ap);
    va_end(ap);
}

void html_fmt(struct buf *b, const char *tmpl, ...)
{
    va_list ap;
    va_start(ap, tmpl);
    const char *run = tmpl;
    for (const char *p = tmpl; *p; p++) {
        if (*p != '%')
            continue;
        buf_append(b, run, (size_t)(p - run));
        const char *s;
        switch (p[1]) {
        case 't':
        case 'a':
            html_text(b, va_arg(ap, const char *));
            break;
        case 'r':
            s = va_arg(ap, const char *);
            if (s)
                buf_puts(b, s);
            break;
        case 'd':
            buf_printf(b, "%d", va_arg(ap, int));
            break;
        case '%':
            buf_putc(b, '%');
            break;
        case 'l':
            if (p[2] == 'l' && p[3] == 'd') {
                buf_printf(b, "%lld", va_arg(ap, long long));
                p += 2;
                break;
            }
            /* fall through */
        default:
            assert(!"html_fmt: unknown directive");
            va_end(ap);
            return;
        }
        p++;
        run = p + 1;
    }
    buf_puts(b, run);
    va_end(ap);
}
