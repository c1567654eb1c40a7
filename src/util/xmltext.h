#ifndef WHISTLE_UTIL_XMLTEXT_H
#define WHISTLE_UTIL_XMLTEXT_H

#include <stddef.h>

/*
 * Text for an XML 1.0 document (the RSS feed). XML 1.0 refuses some characters even when
 * escaped, and one of them anywhere makes the whole document ill-formed, so every text the
 * feed writes passes here first. Allowed (XML 1.0 §2.2 Char): tab, line feed, carriage
 * return, U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF.
 */

/* Copies the n bytes of s into out, dropping every character XML 1.0 forbids (the other
 * C0 controls, U+FFFE, U+FFFF) and replacing each byte that does not start a well-formed
 * UTF-8 sequence (a stray continuation byte, a truncated sequence, an overlong form, an
 * encoded surrogate, a value past U+10FFFF) by U+FFFD. out must hold XML_TEXT_MAX(n) bytes;
 * it is NUL-terminated. Returns the number of bytes written before the NUL. */
#define XML_TEXT_MAX(n) (3 * (n) + 1)
size_t xml_text_clean(char *out, const char *s, size_t n);

#endif
