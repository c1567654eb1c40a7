#ifndef WHISTLE_API_RENDER_H
#define WHISTLE_API_RENDER_H

#include <stddef.h>

#include "app/incident.h"
#include "domain/model.h"
#include "util/jsonw.h"

/*
 * JSON writers for the API's resources (api-v1.md "Resources and their fields"), written
 * straight into the response buffer. base is the --base-url origin used for every emitted
 * URL (docs/api-decisions.md "URLs the API emits").
 */
void render_team(struct jw *w, const struct team *t);
/* base NULL: the import/export form of a Game (teams by id, no URLs). */
void render_game(struct jw *w, const char *base, const struct game *g);
void render_incident(struct jw *w, const char *base, const struct incident *i);
void render_incident_detail(struct jw *w, const char *base, const struct incident *i,
                            const struct source *sources, size_t nsources,
                            const struct question *history, size_t nhistory);
/* The incident's stored fields, shared by the API's Incident and the import/export document. */
void render_incident_stored(struct jw *w, const struct incident *i);
/* document: the import/export form (docs/import-format.md) rather than the API's. A question:
 * no label_presentation_version, with factual_context; a source: no id; a history: no
 * presented_question. skip_version leaves out one version (MODEL_NULL: none). */
void render_question(struct jw *w, const struct question *q, bool document);
void render_source(struct jw *w, const struct source *s, bool document);
/* A Comment in one of its three forms: the public API's, the import document's (moderation
 * state and every time as stored, the author's suspension) and the moderation queue's
 * (review: the author's record, reports and history; NULL in the other forms). */
struct comment;
struct comment_review;
enum comment_form { COMMENT_FORM_PUBLIC, COMMENT_FORM_DOCUMENT, COMMENT_FORM_REVIEW };
void render_comment(struct jw *w, const struct comment *c, enum comment_form form,
                    const struct comment_review *review);
void render_question_history(struct jw *w, const struct question *history, size_t n,
                             int64_t skip_version, bool document);
/* An incident's "sources" and "question_history" members, in the API's form or (document) the
 * import/export form; skip_version as render_question_history's. */
void render_sources_history(struct jw *w, const struct source *sources, size_t nsources,
                            const struct question *history, size_t nhistory, int64_t skip_version,
                            bool document);
/* The pre-rendered fragment of an incident (store/fragments.h): render_incident_detail's
 * object without the base URL, the comment count and the tallies, each marked by a control
 * byte, and a mark where render_incident's object ends. NUL-terminated in out. */
void render_incident_fragment(struct buf *out, const struct incident *i,
                              const struct source *sources, size_t nsources,
                              const struct question *history, size_t nhistory);
/* Writes a fragment as a value of w with base, comment_count and votes spliced in: the bytes
 * render_incident_detail (detail) or render_incident writes for the same incident. */
void render_incident_spliced(struct jw *w, const char *base, const char *fragment, size_t len,
                             int64_t comment_count, const struct votes *votes, bool detail);
/* An incident read by incident_items: from its fragment when it has one, else from its rows
 * (the same bytes). */
void render_incident_item(struct jw *w, const char *base, const struct incident_item *it,
                          bool detail);
/* The Votes object (counts, raw percentages, rooting counts). */
void render_votes(struct jw *w, const struct votes *v);
void render_pagination(struct jw *w, int64_t limit, int64_t offset, int64_t next_offset);

#endif
