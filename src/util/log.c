#include "util/log.h"

#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

static enum log_level min_level = LOG_INFO;
static pthread_mutex_t write_lock = PTHREAD_MUTEX_INITIALIZER;

void log_set_level(enum log_level min)
{
    min_level = min;
}

/* A line is formatted into `line`, then escaped into `out` (at most four bytes for one) and
 * written with write(2), once unless the write is partial: no allocation and no stdio on the
 * path every request takes (its access line). write_lock is held over the line's writes, as
 * stdio's lock was over fputs, so that concurrent threads never interleave within a line even
 * when a write is partial (a line over PIPE_BUF on a pipe, a full disk). Control characters (a
 * request path may carry an unescaped %0A) are written as \xNN so that no request can end its own
 * line and forge another one. A line longer than `line` is cut. */
void log_msg(enum log_level level, const char *module, const char *fmt, ...)
{
    static const char *const names[] = {"debug", "info", "warn", "error"};
    static const char hex[] = "0123456789abcdef";
    if (level < min_level)
        return;
    char line[1024];
    int n = snprintf(line, sizeof line, "%s %s: ", names[level], module);
    if (n < 0)
        return;
    if ((size_t)n < sizeof line) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
        va_end(ap);
    }
    char out[4 * sizeof line + 1];
    size_t len = 0;
    for (const unsigned char *p = (const unsigned char *)line; *p; p++) {
        if (*p < 0x20 || *p == 0x7f) {
            out[len++] = '\\';
            out[len++] = 'x';
            out[len++] = hex[*p >> 4];
            out[len++] = hex[*p & 15];
        } else {
            out[len++] = (char)*p;
        }
    }
    out[len++] = '\n';
    pthread_mutex_lock(&write_lock);
    for (size_t done = 0; done < len;) {
        ssize_t w = write(STDERR_FILENO, out + done, len - done);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            break; /* nowhere to log to: nothing else to do */
        done += (size_t)w;
    }
    pthread_mutex_unlock(&write_lock);
}
