#include "util/log.h"

#include <stdarg.h>
#include <stdio.h>

#include "util/buf.h"

static enum log_level min_level = LOG_INFO;

void log_set_level(enum log_level min)
{
    min_level = min;
}

void log_msg(enum log_level level, const char *module, const char *fmt, ...)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    if (level < min_level)
        return;
    char line[1024];
    int n = snprintf(line, sizeof line, "%s %s: ", names[level], module);
    if (n < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    /* one fputs per line so concurrent threads never interleave within a line; control
     * characters (a request path may carry an unescaped %0A) are written as \xNN so that
     * no request can end its own line and forge another one */
    struct buf b = BUF_INIT;
    for (const unsigned char *p = (const unsigned char *)line; *p; p++) {
        if (*p < 0x20 || *p == 0x7f)
            buf_printf(&b, "\\x%02x", *p);
        else
            buf_putc(&b, (char)*p);
    }
    buf_putc(&b, '\n');
    fputs(b.p, stderr);
    buf_release(&b);
}
