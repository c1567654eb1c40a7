#ifndef WHISTLE_DOMAIN_QUESTION_H
#define WHISTLE_DOMAIN_QUESTION_H

#include <jansson.h>

#include "util/jsonin.h"
#include "domain/model.h"

/*
 * Reading DebateQuestion objects from operator JSON. Strings point into the JSON document
 * (keep it alive while q is used); factual_context_json is stored on the object.
 */

/* A current question: question_type, question_text, option_a_label, option_b_label,
 * unsure_label, optional question_version (MODEL_NULL when absent), created_at (default
 * default_created), stored_option_labels, factual_context. */
int question_parse_current(struct jin *j, json_t *obj, int64_t default_created, struct question *q);

/* A question_history item: {question_version, question{…}, factual_context, created_at,
 * superseded_at}; presented_question is accepted and ignored. */
int question_parse_history(struct jin *j, json_t *obj, struct question *q);

/* A question file for `incident set-question`: the five question fields and an optional
 * factual_context object. */
int question_parse_file(struct jin *j, json_t *obj, struct question *q);

#endif
