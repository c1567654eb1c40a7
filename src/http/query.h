#ifndef WHISTLE_HTTP_QUERY_H
#define WHISTLE_HTTP_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Strict query-string checking against a per-endpoint table (STYLE.md habit 1,
 * ARCHITECTURE.md "HTTP rules"): every parameter must be named in the table, appear at
 * most once and carry a non-empty value of the declared type and range. The first problem
 * is reported in err as a message that names the parameter.
 */
enum qp_type {
    QP_INT,           /* decimal integer in [min, max] */
    QP_ENUM,          /* one of values[] (NULL-terminated) */
    QP_ENUM_OR_EMPTY, /* the same, or an empty value meaning "not given" (HTML forms' "All") */
    QP_ID,            /* game/team ID: 1..255 chars of A-Z a-z 0-9 . _ : ~ - */
    QP_UUID,          /* canonical UUID, normalised to lower case */
    QP_TIME,          /* UTC date YYYY-MM-DD or RFC 3339 date-time */
    QP_BOOL,          /* true | false */
    QP_PATH,          /* a local path: "/…", not "//…", printable ASCII, at most 512 bytes */
    QP_TEXT,          /* free text of at most max bytes; empty means "not given" (search boxes) */
};

struct qp_spec {
    const char *name;
    enum qp_type type;
    int64_t min, max, def; /* QP_INT range and default */
    const char *const *values;
};

struct qp_value {
    bool set;
    int64_t i;     /* QP_INT, QP_TIME (microseconds), QP_BOOL (0/1), QP_ENUM (index) */
    const char *s; /* the (normalised) text; points into the pair or into `norm` */
    char norm[40]; /* QP_UUID lower-cased copy */
};

struct qp_pair {
    const char *key;
    const char *value; /* NULL when the pair had no "=" */
};

/* Checks pairs against specs (nspecs entries); fills out[i] for specs[i] (unset ones get
 * their QP_INT default). Returns 0, or -1 with a message in err. */
int qp_parse(const struct qp_spec *specs, size_t nspecs, const struct qp_pair *pairs, size_t npairs,
             struct qp_value *out, char *err, size_t errlen);

/* Strict decimal integer: optional "-", digits only, no overflow. 0 on success. */
int qp_parse_int(const char *s, int64_t *out);

#endif
