#include "http/query.h"

#include <stdio.h>
#include <string.h>

#include "domain/ids.h"
#include "util/strlist.h"
#include "util/timefmt.h"
#include "util/uuid.h"

int qp_parse_int(const char *s, int64_t *out)
{
    const char *p = s;
    bool neg = false;
    uint64_t v = 0;
    if (*p == '-') {
        neg = true;
        p++;
    }
    if (!*p)
        return -1;
    for (; *p; p++) {
        if (*p < '0' || *p > '9')
            return -1;
        if (v > (UINT64_MAX - 9) / 10)
            return -1;
        v = v * 10 + (uint64_t)(*p - '0');
        if (v > (uint64_t)INT64_MAX + neg)
            return -1;
    }
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

/* Writes "a, b, c" for an enum's values into out. */
static bool printable_ascii(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s <= 0x20 || (unsigned char)*s >= 0x7f)
            return false;
    return true;
}

static int check_value(const struct qp_spec *spec, const char *v, struct qp_value *out, char *err,
                       size_t errlen)
{
    char values[256];
    switch (spec->type) {
    case QP_INT:
        if (qp_parse_int(v, &out->i) < 0 || out->i < spec->min || out->i > spec->max) {
            snprintf(err, errlen, "query parameter %s must be an integer from %lld to %lld",
                     spec->name, (long long)spec->min, (long long)spec->max);
            return -1;
        }
        break;
    case QP_ENUM:
    case QP_ENUM_OR_EMPTY:
        for (size_t i = 0; spec->values[i]; i++) {
            if (strcmp(v, spec->values[i]) == 0) {
                out->i = (int64_t)i;
                out->s = spec->values[i];
                return 0;
            }
        }
        strlist_join(spec->values, values, sizeof values);
        snprintf(err, errlen, "query parameter %s must be one of: %s", spec->name, values);
        return -1;
    case QP_PATH:
        if (v[0] != '/' || v[1] == '/' || strlen(v) > 512 || strpbrk(v, "\\") ||
            !printable_ascii(v)) {
            snprintf(err, errlen, "query parameter %s must be a local path (/…)", spec->name);
            return -1;
        }
        break;
    case QP_TEXT:
        if ((int64_t)strlen(v) > spec->max) {
            snprintf(err, errlen, "query parameter %s must be at most %lld bytes", spec->name,
                     (long long)spec->max);
            return -1;
        }
        break;
    case QP_ID:
        if (!entity_id_is_valid(v)) {
            snprintf(err, errlen,
                     "query parameter %s must be 1 to 255 characters of A-Z a-z 0-9 . _ : ~ -",
                     spec->name);
            return -1;
        }
        break;
    case QP_UUID:
        if (uuid_normalize(v, out->norm) < 0) {
            snprintf(err, errlen, "query parameter %s must be a UUID", spec->name);
            return -1;
        }
        out->s = out->norm;
        return 0;
    case QP_TIME:
        if (time_parse_iso(v, TIME_DATE_OK, &out->i) < 0) {
            snprintf(err, errlen,
                     "query parameter %s must be a UTC date (YYYY-MM-DD) or an RFC 3339 "
                     "timestamp (YYYY-MM-DDTHH:MM:SSZ)",
                     spec->name);
            return -1;
        }
        break;
    case QP_BOOL:
        if (strcmp(v, "true") == 0) {
            out->i = 1;
        } else if (strcmp(v, "false") == 0) {
            out->i = 0;
        } else {
            snprintf(err, errlen, "query parameter %s must be true or false", spec->name);
            return -1;
        }
        break;
    }
    out->s = v;
    return 0;
}

int qp_parse(const struct qp_spec *specs, size_t nspecs, const struct qp_pair *pairs, size_t npairs,
             struct qp_value *out, char *err, size_t errlen)
{
    for (size_t i = 0; i < nspecs; i++) {
        out[i].set = false;
        out[i].i = specs[i].type == QP_INT ? specs[i].def : 0;
        out[i].s = NULL;
    }
    for (size_t p = 0; p < npairs; p++) {
        const char *key = pairs[p].key;
        size_t i;
        for (i = 0; i < nspecs; i++)
            if (strcmp(key, specs[i].name) == 0)
                break;
        if (i == nspecs) {
            /* echo the name back as printable ASCII only: it is untrusted input */
            char shown[65];
            size_t k = 0;
            for (; key[k] && k < sizeof shown - 1; k++)
                shown[k] = (key[k] >= 0x20 && key[k] < 0x7f) ? key[k] : '?';
            shown[k] = '\0';
            snprintf(err, errlen, "unknown query parameter %s", shown);
            return -1;
        }
        if (out[i].set) {
            snprintf(err, errlen, "query parameter %s is repeated", key);
            return -1;
        }
        if (pairs[p].value && !pairs[p].value[0] &&
            (specs[i].type == QP_ENUM_OR_EMPTY || specs[i].type == QP_TEXT)) {
            out[i].set = true; /* seen (a repeat is still an error), but no filter */
            out[i].s = NULL;
            continue;
        }
        if (!pairs[p].value || !pairs[p].value[0]) {
            snprintf(err, errlen, "query parameter %s has no value", key);
            return -1;
        }
        if (check_value(&specs[i], pairs[p].value, &out[i], err, errlen) < 0)
            return -1;
        out[i].set = true;
    }
    return 0;
}
