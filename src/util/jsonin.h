#ifndef WHISTLE_UTIL_JSONIN_H
#define WHISTLE_UTIL_JSONIN_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>

/*
 * Checked reads of operator-supplied JSON (import files, question files). Every failure
 * records "<json path>: <problem>" in the reader and returns -1, so a refusal names the
 * exact place: `incidents[4].category: "foul" is not one of penalty, …`.
 */
struct jin {
    char path[256];
    size_t len;
    char err[800];
};

/* A request body parsed with duplicate keys refused: the document (json_decref it), or NULL
 * with "body is not valid JSON (line L, column C): why" in err. */
json_t *jin_load_body(const char *body, size_t len, char *err, size_t errlen);

void jin_init(struct jin *j, const char *root);
size_t jin_push_key(struct jin *j, const char *key);
size_t jin_push_index(struct jin *j, size_t i);
void jin_pop(struct jin *j, size_t mark);
int jin_fail(struct jin *j, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Refuses a document whose strings carry a NUL character anywhere (documents are loaded
 * with JSON_ALLOW_NUL so that the refusal names the JSON path instead of a byte position). */
int jin_no_nul(struct jin *j, json_t *v);

/* Refuses keys of obj that are in neither allowed nor ignored (NULL-terminated lists). */
int jin_keys(struct jin *j, json_t *obj, const char *const *allowed, const char *const *ignored);
int jin_object(struct jin *j, json_t *v, const char *what);

/* The required object member key of obj: pushes key onto the path (*mark, for jin_pop) and
 * fails "is required" when it is missing, "must be <what>" when it is no object. 0 with *out
 * (obj owns it), or -1 (reported). */
int jin_member_object(struct jin *j, json_t *obj, const char *key, const char *what, json_t **out,
                      size_t *mark);

/* Field readers. A missing key takes the default (or fails when required); JSON null is
 * accepted only when nullable, giving NULL / INT64_MIN / -1. */
int jin_str(struct jin *j, json_t *obj, const char *key, bool required, bool nullable,
            const char **out);
int jin_int(struct jin *j, json_t *obj, const char *key, bool required, bool nullable, int64_t min,
            int64_t max, int64_t *out);
int jin_bool(struct jin *j, json_t *obj, const char *key, bool nullable, int def, int *out);
int jin_enum(struct jin *j, json_t *obj, const char *key, bool required, bool nullable,
             const char *const *values, const char **out);
int jin_time(struct jin *j, json_t *obj, const char *key, bool required, bool nullable,
             int64_t *out);

#endif
