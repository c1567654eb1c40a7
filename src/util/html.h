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
/*
 * Appends one record's markup from a template (git's strbuf_addf, with the escaping named
 * in each directive): the template's own text is written as it stands, and
 *   %t  a const char * written with html_text() (NULL writes nothing)
 *   %a  a const char * written with html_attr() (the same escaping; NULL writes nothing)
 *   %r  a const char * written raw: a trusted literal or markup already built (NULL: nothing)
 *   %d  an int, %lld a long long, in decimal
 *   %%  a percent sign
 * Any other directive is a programming error: an assertion fails (without assertions the
 * rest of the template is dropped). Writes into b, which the caller owns.
 */
void html_fmt(struct buf *b, const char *tmpl, ...);

#endif
