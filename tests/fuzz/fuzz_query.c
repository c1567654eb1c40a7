/* libFuzzer: the query parser (src/http/query.c). The input is a query string "k=v&k2";
 * it is split like libmicrohttpd does and checked against a table with every type. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "http/query.h"

static const char *const kinds[] = {"a", "b", "c", NULL};
static const struct qp_spec specs[] = {
    {"limit", QP_INT, 1, 100, 20, NULL}, {"offset", QP_INT, 0, 1000000, 0, NULL},
    {"kind", QP_ENUM, 0, 0, 0, kinds},   {"opt", QP_ENUM_OR_EMPTY, 0, 0, 0, kinds},
    {"team_id", QP_ID, 0, 0, 0, NULL},   {"id", QP_UUID, 0, 0, 0, NULL},
    {"from", QP_TIME, 0, 0, 0, NULL},    {"flag", QP_BOOL, 0, 0, 0, NULL},
    {"next", QP_PATH, 0, 0, 0, NULL},
};
#define NSPECS (sizeof specs / sizeof specs[0])

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    struct qp_pair pairs[64];
    size_t n = 0;
    for (char *p = s; *p && n < 64;) {
        char *amp = strchr(p, '&');
        if (amp)
            *amp = '\0';
        char *eq = strchr(p, '=');
        if (eq)
            *eq = '\0';
        pairs[n].key = p;
        pairs[n].value = eq ? eq + 1 : NULL;
        n++;
        if (!amp)
            break;
        p = amp + 1;
    }
    struct qp_value out[NSPECS];
    char err[400];
    qp_parse(specs, NSPECS, pairs, n, out, err, sizeof err);
    int64_t v;
    qp_parse_int(s, &v);
    free(s);
    return 0;
}
