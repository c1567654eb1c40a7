#include "domain/question.h"

#include <string.h>

#define CHECK(expr)                                                                                \
    do {                                                                                           \
        if ((expr) < 0)                                                                            \
            return -1;                                                                             \
    } while (0)

static int fields(struct jin *j, json_t *obj, struct question *q)
{
    CHECK(jin_str(j, obj, "question_type", true, false, &q->type));
    CHECK(jin_str(j, obj, "question_text", true, false, &q->text));
    CHECK(jin_str(j, obj, "option_a_label", true, false, &q->a_label));
    CHECK(jin_str(j, obj, "option_b_label", true, false, &q->b_label));
    CHECK(jin_str(j, obj, "unsure_label", true, false, &q->unsure_label));
    q->stored_a = q->a_label;
    q->stored_b = q->b_label;
    q->stored_unsure = q->unsure_label;
    return 0;
}

/* factual_context: an object, kept as compact JSON text on the document. */
static int context(struct jin *j, json_t *obj, struct question *q)
{
    json_t *fc = json_object_get(obj, "factual_context");
    q->factual_context_json = "{}";
    if (!fc)
        return 0;
    size_t m = jin_push_key(j, "factual_context");
    CHECK(jin_object(j, fc, "an object"));
    jin_pop(j, m);
    char *text = json_dumps(fc, JSON_COMPACT | JSON_ENSURE_ASCII | JSON_SORT_KEYS);
    json_object_set_new(obj, "\001factual_context", json_string(text));
    free(text);
    q->factual_context_json = json_string_value(json_object_get(obj, "\001factual_context"));
    return 0;
}

int question_parse_current(struct jin *j, json_t *obj, int64_t default_created, struct question *q)
{
    static const char *const keys[] = {"question_type",   "question_text",
                                       "option_a_label",  "option_b_label",
                                       "unsure_label",    "question_version",
                                       "created_at",      "stored_option_labels",
                                       "factual_context", NULL};
    static const char *const ignored[] = {"label_presentation_version", NULL};
    memset(q, 0, sizeof *q);
    CHECK(jin_object(j, obj, "a DebateQuestion object or null"));
    CHECK(jin_keys(j, obj, keys, ignored));
    CHECK(fields(j, obj, q));
    CHECK(jin_int(j, obj, "question_version", false, false, 1, 1000000, &q->version));
    CHECK(jin_time(j, obj, "created_at", false, false, &q->created_at));
    if (q->created_at == MODEL_NULL)
        q->created_at = default_created;
    q->superseded_at = MODEL_NULL;
    json_t *stored = json_object_get(obj, "stored_option_labels");
    if (stored) {
        static const char *const skeys[] = {"option_a_label", "option_b_label", "unsure_label",
                                            NULL};
        size_t m = jin_push_key(j, "stored_option_labels");
        CHECK(jin_object(j, stored, "an object"));
        CHECK(jin_keys(j, stored, skeys, NULL));
        CHECK(jin_str(j, stored, "option_a_label", true, false, &q->stored_a));
        CHECK(jin_str(j, stored, "option_b_label", true, false, &q->stored_b));
        CHECK(jin_str(j, stored, "unsure_label", true, false, &q->stored_unsure));
        jin_pop(j, m);
    }
    return context(j, obj, q);
}

int question_parse_history(struct jin *j, json_t *obj, struct question *q)
{
    static const char *const keys[] = {"question_version", "question",      "factual_context",
                                       "created_at",       "superseded_at", NULL};
    static const char *const ignored[] = {"presented_question", NULL};
    static const char *const qkeys[] = {"question_type",  "question_text", "option_a_label",
                                        "option_b_label", "unsure_label",  NULL};
    memset(q, 0, sizeof *q);
    CHECK(jin_object(j, obj, "a question_history object"));
    CHECK(jin_keys(j, obj, keys, ignored));
    CHECK(jin_int(j, obj, "question_version", true, false, 1, 1000000, &q->version));
    json_t *inner;
    size_t m;
    CHECK(jin_member_object(j, obj, "question", "an object", &inner, &m));
    CHECK(jin_keys(j, inner, qkeys, NULL));
    CHECK(fields(j, inner, q));
    jin_pop(j, m);
    CHECK(jin_time(j, obj, "created_at", true, false, &q->created_at));
    CHECK(jin_time(j, obj, "superseded_at", false, true, &q->superseded_at));
    return context(j, obj, q);
}

int question_parse_file(struct jin *j, json_t *obj, struct question *q)
{
    static const char *const keys[] = {"question_type",
                                       "question_text",
                                       "option_a_label",
                                       "option_b_label",
                                       "unsure_label",
                                       "factual_context",
                                       NULL};
    memset(q, 0, sizeof *q);
    CHECK(jin_object(j, obj, "a question object"));
    CHECK(jin_keys(j, obj, keys, NULL));
    CHECK(fields(j, obj, q));
    q->version = MODEL_NULL;
    q->superseded_at = MODEL_NULL;
    return context(j, obj, q);
}
