#ifndef WHISTLE_WEB_RESULTS_H
#define WHISTLE_WEB_RESULTS_H

#include "domain/model.h"
#include "util/buf.h"

/* The results block (<div id="results">) of a question under the display conventions; the
 * page and the ballot endpoint's JSON answer share it. */
void web_results(struct buf *b, const struct question *q, const struct votes *v);

#endif
