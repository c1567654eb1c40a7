#include "util/jsonin.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "util/strlist.h"
#include "util/timefmt.h"

#define NULL_INT INT64_MIN

json_t *jin_load_body(const char *body, size_t len, char *err, size_t errlen)
{
    json_error_t jerr;
    json_t *doc = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
    if (!doc)
        snprintf(err, errlen, "body is not valid JSON (line %d, column %d): %s", jerr.line,
                 jerr.column, jerr.text);
    return doc;
}

void jin_init(struct jin *j, const char *root)
{
    j->len = (size_t)snprintf(j->path, sizeof j->path, "%s", root);
    if (j->len >= sizeof j->path)
        j->len = sizeof j->path - 1;
    j->err[0] = '\0';
}

static size_t push(struct jin *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static size_t push(struct jin *j, const char *fmt, ...)
{
    size_t mark = j->len;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(j->path + j->len, sizeof j->path - j->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        j->len += (size_t)n;
    if (j->len >= sizeof j->path)
        j->len = sizeof j->path - 1;
    return mark;
}

size_t jin_push_key(struct jin *j, const char *key)
{
    return push(j, j->len ? ".%s" : "%s", key);
}

size_t jin_push_index(struct jin *j, size_t i)
{
    return push(j, "[%zu]", i);
}

void jin_pop(struct jin *j, size_t mark)
{
    j->len = mark;
    j->path[mark] = '\0';
}

int jin_fail(struct jin *j, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    snprintf(j->err, sizeof j->err, "%s: %s", j->len ? j->path : "(document)", msg);
    return -1;
}

int jin_no_nul(struct jin *j, json_t *v)
{
    if (json_is_string(v)) {
        if (strlen(json_string_value(v)) != json_string_length(v))
            return jin_fail(j, "must not contain a NUL character (\\u0000)");
        return 0;
    }
    const char *key;
    size_t i;
    json_t *x;
    if (json_is_object(v)) {
        json_object_foreach(v, key, x)
        {
            size_t mark = jin_push_key(j, key);
            if (jin_no_nul(j, x) < 0)
                return -1;
            jin_pop(j, mark);
        }
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, x)
        {
            size_t mark = jin_push_index(j, i);
            if (jin_no_nul(j, x) < 0)
                return -1;
            jin_pop(j, mark);
        }
    }
    return 0;
}

static bool in_list(const char *key, const char *const *list)
{
    for (; list && *list; list++)
        if (strcmp(key, *list) == 0)
            return true;
    return false;
}

int jin_object(struct jin *j, json_t *v, const char *what)
{
    return json_is_object(v) ? 0 : jin_fail(j, "must be %s", what);
}

int jin_member_object(struct jin *j, json_t *obj, const char *key, const char *what, json_t **out,
                      size_t *mark)
{
    *out = json_object_get(obj, key);
    *mark = jin_push_key(j, key);
    if (!*out)
        return jin_fail(j, "is required");
    return jin_object(j, *out, what);
}

int jin_keys(struct jin *j, json_t *obj, const char *const *allowed, const char *const *ignored)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v)
    {
        if (!in_list(key, allowed) && !in_list(key, ignored)) {
            size_t m = jin_push_key(j, key);
            jin_fail(j, "unknown key");
            jin_pop(j, m);
            return -1;
        }
    }
    return 0;
}

/* Looks key up; returns 1 with *v set, 0 when missing, -1 when null but not nullable
 * (reported). A null that is allowed returns 0 with *v = NULL too, so callers treat it like
 * a missing optional key. */
static int lookup(struct jin *j, json_t *obj, const char *key, bool required, bool nullable,
                  json_t **v)
{
    *v = json_object_get(obj, key);
    size_t m = jin_push_key(j, key);
    int rc = 1;
    if (!*v) {
        rc = required ? jin_fail(j, "is required") : 0;
    } else if (json_is_null(*v)) {
        rc = nullable ? 2 : jin_fail(j, "must not be null"); /* 2: present and null */
        *v = NULL;
    }
    jin_pop(j, m);
    return rc;
}

int jin_str(struct jin *j, json_t *obj, const char *key, bool required, bool nullable,
            const char **out)
{
    json_t *v;
    int rc = lookup(j, obj, key, required, nullable, &v);
    *out = NULL;
    if (rc != 1)
        return rc < 0 ? -1 : 0;
    size_t m = jin_push_key(j, key);
    if (!json_is_string(v)) {
        jin_fail(j, "must be a string");
        jin_pop(j, m);
        return -1;
    }
    if (required && json_string_length(v) == 0) {
        jin_fail(j, "must not be empty");
        jin_pop(j, m);
        return -1;
    }
    jin_pop(j, m);
    *out = json_string_value(v);
    return 0;
}

int jin_int(struct jin *j, json_t *obj, const char *key, bool required, bool nullable, int64_t min,
            int64_t max, int64_t *out)
{
    json_t *v;
    int rc = lookup(j, obj, key, required, nullable, &v);
    *out = NULL_INT;
    if (rc != 1)
        return rc < 0 ? -1 : 0;
    size_t m = jin_push_key(j, key);
    int64_t x = json_is_integer(v) ? (int64_t)json_integer_value(v) : 0;
    if (!json_is_integer(v) || x < min || x > max) {
        jin_fail(j, "must be an integer from %lld to %lld", (long long)min, (long long)max);
        jin_pop(j, m);
        return -1;
    }
    jin_pop(j, m);
    *out = x;
    return 0;
}

int jin_bool(struct jin *j, json_t *obj, const char *key, bool nullable, int def, int *out)
{
    json_t *v;
    int rc = lookup(j, obj, key, false, nullable, &v);
    *out = rc == 2 ? -1 : def;
    if (rc != 1)
        return rc < 0 ? -1 : 0;
    if (!json_is_boolean(v)) {
        size_t m = jin_push_key(j, key);
        jin_fail(j, nullable ? "must be true, false or null" : "must be true or false");
        jin_pop(j, m);
        return -1;
    }
    *out = json_is_true(v);
    return 0;
}

int jin_enum(struct jin *j, json_t *obj, const char *key, bool required, bool nullable,
             const char *const *values, const char **out)
{
    const char *s;
    if (jin_str(j, obj, key, required, nullable, &s) < 0)
        return -1;
    *out = NULL;
    if (!s)
        return 0;
    for (size_t i = 0; values[i]; i++) {
        if (strcmp(s, values[i]) == 0) {
            *out = values[i];
            return 0;
        }
    }
    char list[256];
    size_t m = jin_push_key(j, key);
    jin_fail(j, "\"%.80s\" is not one of %s", s, strlist_join(values, list, sizeof list));
    jin_pop(j, m);
    return -1;
}

int jin_time(struct jin *j, json_t *obj, const char *key, bool required, bool nullable,
             int64_t *out)
{
    const char *s;
    *out = NULL_INT;
    if (jin_str(j, obj, key, required, nullable, &s) < 0)
        return -1;
    if (!s)
        return 0;
    if (time_parse_iso(s, 0, out) < 0) {
        size_t m = jin_push_key(j, key);
        jin_fail(j, "\"%.80s\" is not an ISO 8601 timestamp (YYYY-MM-DDTHH:MM:SSZ)", s);
        jin_pop(j, m);
        return -1;
    }
    return 0;
}
