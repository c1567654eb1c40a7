/* Text for XML 1.0 documents (util/xmltext.h). */
#include "util/xmltext.h"

#include <stdint.h>
#include <string.h>

/* The code point of the well-formed UTF-8 sequence at p (n bytes left) in *cp and its
 * length, or 0 when p does not start one. */
static size_t utf8_next(const unsigned char *p, size_t n, uint32_t *cp)
{
    unsigned c = p[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    }
    if (c >= 0xC2 && c <= 0xDF) {
        len = 2, v = c & 0x1F, min = 0x80;
    } else if (c >= 0xE0 && c <= 0xEF) {
        len = 3, v = c & 0x0F, min = 0x800;
    } else if (c >= 0xF0 && c <= 0xF4) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        return 0; /* a continuation byte, C0/C1 (overlong ASCII) or F5..FF */
    }
    if (len > n)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((p[k] & 0xC0) != 0x80)
            return 0;
        v = (v << 6) | (p[k] & 0x3F);
    }
    if (v < min || v > 0x10FFFF || (v >= 0xD800 && v <= 0xDFFF))
        return 0;
    *cp = v;
    return len;
}

static int xml_char(uint32_t c)
{
    if (c < 0x20)
        return c == '\t' || c == '\n' || c == '\r';
    return c != 0xFFFE && c != 0xFFFF; /* surrogates never decode (utf8_next) */
}

size_t xml_text_clean(char *out, const char *s, size_t n)
{
    static const char replacement[] = "\xEF\xBF\xBD"; /* U+FFFD */
    const unsigned char *p = (const unsigned char *)s;
    size_t o = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        size_t len = utf8_next(p + i, n - i, &cp);
        if (len == 0) {
            memcpy(out + o, replacement, 3);
            o += 3;
            i++;
            continue;
        }
        if (xml_char(cp)) {
            memcpy(out + o, p + i, len);
            o += len;
        }
        i += len;
    }
    out[o] = '\0';
    return o;
}
