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
    /* one fputs per line so concurrent threads never interleave within a line */
    struct buf b = BUF_INIT;
    buf_puts(&b, line);
    buf_putc(&b, '\n');
    fputs(b.p, stderr);
    buf_release(&b);
}
