#include "util/html.h"

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
