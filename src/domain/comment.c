/* Comment rules (issue 15; docs/comments.md): body, edit window, pre-moderation, reports,
 * display names. Pure: no clock, no store. */
#include "domain/comment.h"

#include <string.h>

#define REPORT_REASON(name, label) name,
#define REPORT_LABEL(name, label)  label,
const char *const comment_report_reasons[] = {COMMENT_REPORT_REASONS(REPORT_REASON) NULL};
const char *const comment_report_reason_labels[] = {COMMENT_REPORT_REASONS(REPORT_LABEL) NULL};
const char *const account_roles[] = {"moderator", "editor", "admin", NULL};

static bool in_list(const char *v, const char *const *list)
{
    for (; v && *list; list++)
        if (strcmp(v, *list) == 0)
            return true;
    return false;
}

bool comment_report_reason_ok(const char *reason)
{
    return in_list(reason, comment_report_reasons);
}

bool account_role_ok(const char *role)
{
    return in_list(role, account_roles);
}

const char *const comment_held_reasons[] = {
    [COMMENT_HOLD_NEW - 1] = "new_account", [COMMENT_HOLD_WORDS - 1] = "word_list", NULL};

const char *comment_hold_name(enum comment_hold h)
{
    return h == COMMENT_HOLD_NEW || h == COMMENT_HOLD_WORDS ? comment_held_reasons[h - 1] : NULL;
}

/* The length of the UTF-8 sequence at p (1..4), or 0 when it is malformed (overlong
 * forms, surrogates and code points above U+10FFFF included). */
static size_t utf8_seq(const unsigned char *p)
{
    unsigned c = p[0];
    if (c < 0x80)
        return 1;
    size_t n = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 ? 2 : 0;
    if (n == 0 || c > 0xF4)
        return 0;
    for (size_t i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if (n == 3 && ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] >= 0xA0)))
        return 0;
    if (n == 4 && ((c == 0xF0 && p[1] < 0x90) || (c == 0xF4 && p[1] >= 0x90)))
        return 0;
    return n;
}

static bool is_space(char c)
{
    return c == ' ' || c == '\t' || c == '\n';
}

const char *comment_body_clean(const char *in, char *out, size_t outlen)
{
    size_t len = strlen(in), o = 0, chars = 0, newlines = 0;
    if (outlen < len + 1)
        return "the comment is too long (at most 2,000 characters)";
    while (*in == ' ' || *in == '\t' || *in == '\n' || *in == '\r')
        in++;
    for (const unsigned char *p = (const unsigned char *)in; *p;) {
        size_t n = utf8_seq(p);
        if (n == 0)
            return "the comment is not valid UTF-8 text";
        if (*p == '\r' || *p == '\n') {
            p += *p == '\r' && p[1] == '\n' ? 2 : 1;
            /* at most two blank lines in a row: a wall of empty lines is not a comment */
            if (++newlines <= 3)
                out[o++] = '\n';
            continue;
        }
        if (*p < 0x20 && *p != '\t')
            return "the comment may not contain control characters";
        if (*p == 0x7F)
            return "the comment may not contain control characters";
        newlines = 0;
        memcpy(out + o, p, n);
        o += n;
        p += n;
    }
    while (o > 0 && is_space(out[o - 1]))
        o--;
    out[o] = '\0';
    /* characters are code points (a line break counts as one) */
    for (size_t i = 0; i < o; i++)
        if (((unsigned char)out[i] & 0xC0) != 0x80)
            chars++;
    if (chars < COMMENT_BODY_MIN)
        return "the comment is empty or too short (at least 2 characters)";
    if (chars > COMMENT_BODY_MAX)
        return "the comment is too long (at most 2,000 characters)";
    return NULL;
}

bool comment_edit_open(int64_t created_at, int64_t now)
{
    return now >= created_at && now - created_at < COMMENT_EDIT_WINDOW_US;
}

static char lower(char c)
{
    return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

static bool is_word_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c >= 0x80;
}

int comment_word_match(const char *body, const char *const *words, size_t nwords)
{
    for (size_t w = 0; w < nwords; w++) {
        const char *word = words[w];
        size_t wl = strlen(word);
        if (wl == 0)
            continue;
        for (const char *p = body; *p; p++) {
            if (p > body && is_word_char((unsigned char)p[-1]))
                continue;
            size_t i = 0;
            while (i < wl && p[i] && lower(p[i]) == word[i])
                i++;
            if (i == wl && !is_word_char((unsigned char)p[wl]))
                return (int)w;
        }
    }
    return -1;
}

const char *comment_word_clean(const char *in, char *out, size_t outlen)
{
    while (*in == ' ' || *in == '\t')
        in++;
    size_t len = strlen(in);
    while (len > 0 && (in[len - 1] == ' ' || in[len - 1] == '\t'))
        len--;
    if (len == 0)
        return "the word is empty";
    if (len + 1 > outlen || len > COMMENT_WORD_MAX)
        return "the word is too long (at most 60 characters)";
    for (size_t i = 0; i < len;) {
        size_t n = utf8_seq((const unsigned char *)in + i);
        if (n == 0 || (unsigned char)in[i] < 0x20 || in[i] == 0x7F)
            return "the word must be printable UTF-8 text";
        for (size_t k = 0; k < n; k++)
            out[i + k] = lower(in[i + k]);
        i += n;
    }
    out[len] = '\0';
    return NULL;
}

enum comment_hold comment_hold_for(int64_t author_published, bool word_match)
{
    if (word_match)
        return COMMENT_HOLD_WORDS;
    if (author_published < COMMENT_TRUSTED_AFTER)
        return COMMENT_HOLD_NEW;
    return COMMENT_HOLD_NONE;
}

bool comment_visible(const char *status, bool report_hidden, bool author_hidden)
{
    return status && strcmp(status, COMMENT_PUBLISHED) == 0 && !report_hidden && !author_hidden;
}

bool comment_reports_hide(int64_t reporters)
{
    return reporters >= COMMENT_REPORTS_HIDE;
}

/* Lower-case letters and digits of s (at most n - 1 of them) into key. */
static void name_key(const char *s, char *key, size_t n)
{
    size_t k = 0;
    for (; *s && k + 1 < n; s++) {
        char c = lower(*s);
        if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))
            key[k++] = c;
    }
    key[k] = '\0';
}

const char *display_name_check(const char *name, const char *const *teams, size_t nteams,
                               char out[DISPLAY_NAME_MAX + 1], char key[DISPLAY_NAME_MAX + 1])
{
    static const char *const staff[] = {"admin",   "administrator", "moderator", "mod",
                                        "staff",   "support",       "system",    "root",
                                        "referee", "officials",     NULL};
    out[0] = key[0] = '\0';
    if (!name)
        return "choose a display name";
    while (*name == ' ')
        name++;
    size_t len = strlen(name);
    while (len > 0 && name[len - 1] == ' ')
        len--;
    if (memchr(name, '@', len))
        return "a display name cannot be an email address or contain @";
    if (len < DISPLAY_NAME_MIN)
        return "a display name has at least 3 characters";
    if (len > DISPLAY_NAME_MAX)
        return "a display name has at most 30 characters";
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!alnum && c != ' ' && c != '.' && c != '_' && c != '-' && c != '\'')
            return "a display name uses letters A-Z, digits, spaces and . _ - ' only";
        if (i == 0 && !alnum)
            return "a display name begins with a letter or a digit";
        if (c == ' ' && name[i + 1] == ' ')
            return "a display name has no two spaces in a row";
    }
    memcpy(out, name, len);
    out[len] = '\0';
    name_key(out, key, DISPLAY_NAME_MAX + 1);
    if (strlen(key) < DISPLAY_NAME_MIN)
        return "a display name has at least 3 letters or digits";
    if (strstr(key, "whistle") || strstr(key, "official"))
        return "a display name cannot impersonate Whistle or an official account";
    for (const char *const *w = staff; *w; w++)
        if (strcmp(key, *w) == 0)
            return "a display name cannot impersonate Whistle's staff";
    for (size_t i = 0; i < nteams; i++) {
        char tk[128];
        if (!teams[i])
            continue;
        name_key(teams[i], tk, sizeof tk);
        /* the team's own name, short name or abbreviation; or a name built around a
         * team's full name ("Alabama Crimson Tide HQ") */
        if (tk[0] && (strcmp(key, tk) == 0 || (strlen(tk) >= 8 && strstr(key, tk))))
            return "a display name cannot impersonate a team";
    }
    return NULL;
}
