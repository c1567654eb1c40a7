#ifndef WHISTLE_API_RENDER_H
#define WHISTLE_API_RENDER_H

#include <stddef.h>

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
/* The Votes object (counts, raw percentages, rooting counts). */
void render_votes(struct jw *w, const struct votes *v);
void render_pagination(struct jw *w, int64_t limit, int64_t offset, int64_t next_offset);

#endif
