#include "http/gzip.h"

#include <ctype.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <zlib.h>

/* The q-value of one Accept-Encoding element's parameters (";q=0.5"): 1 when absent, 0
 * when malformed (a client that cannot say it clearly does not get it). */
static double qvalue(const char *p, const char *end)
{
    while (p < end) {
        while (p < end && (*p == ';' || *p == ' ' || *p == '\t'))
            p++;
        if (end - p >= 2 && (p[0] == 'q' || p[0] == 'Q') && p[1] == '=') {
            char num[16];
            size_t n = 0;
            for (p += 2; p < end && n + 1 < sizeof num && (isdigit((unsigned char)*p) || *p == '.');
                 p++)
                num[n++] = *p;
            num[n] = '\0';
            char *stop;
            double q = strtod(num, &stop);
            return n == 0 || *stop || q < 0 || q > 1 ? 0 : q;
        }
        while (p < end && *p != ';')
            p++;
    }
    return 1;
}

bool gzip_accepted(const char *ae)
{
    if (!ae)
        return false;
    double gzip = -1, star = -1; /* -1: not named */
    for (const char *p = ae; *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',')
            p++;
        const char *start = p;
        while (*p && *p != ',' && *p != ';' && *p != ' ' && *p != '\t')
            p++;
        size_t len = (size_t)(p - start);
        const char *end = p;
        while (*end && *end != ',')
            end++;
        double q = qvalue(p, end);
        if ((len == 4 && strncasecmp(start, "gzip", 4) == 0) ||
            (len == 6 && strncasecmp(start, "x-gzip", 6) == 0))
            gzip = q > gzip ? q : gzip;
        else if (len == 1 && *start == '*')
            star = q;
        p = end;
    }
    return gzip >= 0 ? gzip > 0 : star > 0;
}

int gzip_compress(const char *data, size_t len, int level, struct buf *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    /* windowBits 15 + 16: a gzip header and trailer around the deflate stream */
    if (deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    size_t room = deflateBound(&z, (uLong)len);
    size_t at = out->len;
    buf_grow(out, room);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)len;
    z.next_out = (Bytef *)out->p + at;
    z.avail_out = (uInt)room;
    int rc = deflate(&z, Z_FINISH);
    size_t made = room - z.avail_out;
    deflateEnd(&z);
    if (rc != Z_STREAM_END)
        return -1;
    buf_setlen(out, at + made);
    return 0;
}
