#ifndef WHISTLE_UTIL_HTML_H
#define WHISTLE_UTIL_HTML_H

#include "util/buf.h"

/*
 * HTML output: every value a page prints goes through html_text() (or html_attr(), which
 * is the same escaping), so a title like `<script>` or `"quoted" & more` is shown, never
 * interpreted. html_raw() is for the page's own literal markup only.
 */
void html_text(struct buf *b, const char *s); /* escapes & < > " ' ; NULL prints nothing */
#define html_attr html_text
void html_raw(struct buf *b, const char *markup);
void html_printf(struct buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
