#ifndef WHISTLE_UTIL_JSONW_H
#define WHISTLE_UTIL_JSONW_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "util/buf.h"

/*
 * A streaming JSON writer straight into a struct buf: the hot read path writes responses
 * with it instead of building a jansson tree (ARCHITECTURE.md: ~20x cheaper). Strings are
 * escaped per RFC 8259 (quote, backslash, control characters; "<", ">", "&" and U+2028/9
 * are escaped too so a body is safe inside HTML script blocks). Input must be UTF-8; the
 * store only holds validated UTF-8.
 *
 * Commas are managed by the writer: call jw_key() before each member value inside an
 * object; values inside an array are separated automatically. Nesting is limited to
 * JW_MAX_DEPTH levels (ample for the API's documents); deeper nesting, closing more than
 * was opened, or closing after a key without its value fail an assertion.
 */
#define JW_MAX_DEPTH 32
#define JW_NULL_INT  INT64_MIN

struct jw {
    struct buf *b;
    int depth;
    bool after_key;
    bool first[JW_MAX_DEPTH];
};

void jw_init(struct jw *w, struct buf *b);
void jw_obj_begin(struct jw *w);
void jw_obj_end(struct jw *w);
void jw_arr_begin(struct jw *w);
void jw_arr_end(struct jw *w);
/* Writes key (n bytes, no NUL inside) as an object member's key; jw_key() for a key of
 * known length. */
void jw_keyn(struct jw *w, const char *key, size_t n);
void jw_str(struct jw *w, const char *s);            /* NULL writes null */
void jw_strn(struct jw *w, const char *s, size_t n); /* s may hold no NUL */
void jw_int(struct jw *w, int64_t v);                /* JW_NULL_INT writes null */
void jw_bool(struct jw *w, bool v);
void jw_tristate(struct jw *w, int v); /* <0 null, 0 false, >0 true */
void jw_null(struct jw *w);
void jw_number1(struct jw *w, double v);     /* one decimal place, no trailing ".0" */
void jw_time(struct jw *w, int64_t us);      /* ISO 8601 UTC; JW_NULL_INT writes null */
void jw_raw(struct jw *w, const char *json); /* already-valid JSON text */

/* A member's key. Inline so that a literal key's length is known at compile time. */
static inline void jw_key(struct jw *w, const char *key)
{
    jw_keyn(w, key, strlen(key));
}

/*
 * Members: a key and its value in one call, the bytes of jw_key() followed by the value's
 * writer. Inline like jw_key(), so a literal key costs no strlen at run time.
 */
static inline void jw_kstr(struct jw *w, const char *key, const char *s) /* NULL: null */
{
    jw_key(w, key);
    jw_str(w, s);
}

/* s, or null when s is NULL or empty (a fixed-size field that holds no value). */
static inline void jw_kstr_or_null(struct jw *w, const char *key, const char *s)
{
    jw_key(w, key);
    jw_str(w, s && s[0] ? s : NULL);
}

static inline void jw_kint(struct jw *w, const char *key, int64_t v) /* JW_NULL_INT: null */
{
    jw_key(w, key);
    jw_int(w, v);
}

static inline void jw_kbool(struct jw *w, const char *key, bool v)
{
    jw_key(w, key);
    jw_bool(w, v);
}

static inline void jw_ktristate(struct jw *w, const char *key, int v)
{
    jw_key(w, key);
    jw_tristate(w, v);
}

static inline void jw_ktime(struct jw *w, const char *key, int64_t us) /* JW_NULL_INT: null */
{
    jw_key(w, key);
    jw_time(w, us);
}

/* json (already-valid JSON text), or fallback when json is NULL. */
static inline void jw_kraw(struct jw *w, const char *key, const char *json, const char *fallback)
{
    jw_key(w, key);
    jw_raw(w, json ? json : fallback);
}

/*
 * A record's members in one call: fmt lists them, separated by spaces, in the order they are
 * written, and the arguments give their values in the same order (jansson's json_pack, with
 * the keys in the format). An item is
 *   key:%s     a string (const char *); NULL writes null               (jw_kstr)
 *   key:%sJ    JSON text written as it stands (const char *); NULL: null  (jw_kraw)
 *   key:%ld    an integer (int64_t); JW_NULL_INT writes null           (jw_kint)
 *   key:%ldT   a time in microseconds (int64_t), ISO 8601; JW_NULL_INT: null (jw_ktime)
 *   key:%dB    a boolean (bool or int: nonzero is true)                 (jw_kbool)
 *   key:{      a member whose value is an object: the items up to "}" are its members
 *   { and }    open and close an object (a value: the record's own braces)
 * and "key:" may be left out where a value stands alone (an array's element, "{").
 * The conversions are printf's (%s, %ld, %d), so the compiler checks every argument's type
 * and count against fmt (a NULL it can see is refused: write null with jw_kstr); the capital
 * letter after one (like the kernel's %p extensions) says how the value is written. A key is
 * written as it stands: letters, digits and "_" only.
 * Writes the same bytes as the jw_k* calls it lists.
 */
void jw_fmt(struct jw *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends s as a JSON string literal (with quotes) to b. */
void json_escape_into(struct buf *b, const char *s, size_t n);
/* Whether json_escape_into writes s unchanged between its quotes (no byte to escape). */
bool json_plain(const char *s, size_t n);

#endif
