/* Table-driven command-line options: parse, validate, --help, Markdown (options.h). */
#include "cli/options.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http/query.h"

#define MAX_ROWS   128 /* rows of one table (opt_parse tracks which were given) */
#define HELP_WIDTH 100 /* --help wraps at this column */
#define HELP_NAME  30  /* the column where an option's text starts */

static bool takes(const struct opt_spec *r, const struct opt_command *cmd)
{
    return (r->commands & cmd->mask) != 0;
}

static void *field(void *dest, size_t off)
{
    return (char *)dest + off;
}

void opt_put_int(void *p, size_t width, int64_t v)
{
    if (width == sizeof(int32_t)) {
        int32_t x = (int32_t)v;
        memcpy(p, &x, sizeof x);
    } else {
        assert(width == sizeof(int64_t));
        memcpy(p, &v, sizeof v);
    }
}

static void put_ptr(void *dest, size_t off, const char *s)
{
    memcpy(field(dest, off), &s, sizeof s);
}

/* "3600 seconds", "60000 ms" */
static const char *unit_name(const struct opt_spec *r)
{
    return r->unit == OPT_SEC ? "seconds" : "ms";
}

/* An integer with a suffix from table (NULL-terminated names with their multipliers); a
 * bare number takes bare_mult. 0, or -1 when malformed or beyond int64_t. */
static int parse_scaled(const char *s, const char *const *names, const int64_t *mults,
                        int64_t bare_mult, int64_t *out)
{
    char num[24];
    size_t n = strspn(s, "0123456789");
    if (n == 0 || n >= sizeof num)
        return -1;
    memcpy(num, s, n);
    num[n] = '\0';
    int64_t v, mult = 0;
    if (qp_parse_int(num, &v) < 0)
        return -1;
    if (s[n] == '\0') {
        mult = bare_mult;
    } else {
        for (size_t i = 0; names[i]; i++)
            if (strcmp(s + n, names[i]) == 0)
                mult = mults[i];
    }
    if (mult == 0 || v > INT64_MAX / mult)
        return -1;
    *out = v * mult;
    return 0;
}

static int parse_size(const char *s, int64_t *out)
{
    static const char *const names[] = {"K", "k", "M", "m", "G", "g", NULL};
    static const int64_t mults[] = {1 << 10, 1 << 10, 1 << 20, 1 << 20, 1 << 30, 1 << 30};
    return parse_scaled(s, names, mults, 1, out);
}

static int parse_duration(const char *s, int64_t unit, int64_t *out_us)
{
    static const char *const names[] = {"ms", "s", "m", "h", NULL};
    static const int64_t mults[] = {OPT_MS, OPT_SEC, 60 * OPT_SEC, 3600 * OPT_SEC};
    return parse_scaled(s, names, mults, unit, out_us);
}

int opt_duration(const char *s, int64_t unit, int64_t *out_us)
{
    return parse_duration(s, unit, out_us);
}

/* What a valid value of r is, as the end of "option --NAME must be …" (INT, SIZE,
 * DURATION). */
static void range_phrase(const struct opt_spec *r, char *out, size_t n)
{
    switch (r->type) {
    case OPT_INT:
        snprintf(out, n, "an integer from %lld to %lld", (long long)r->min, (long long)r->max);
        break;
    case OPT_SIZE:
        snprintf(out, n, "a size from %lld to %lld bytes (or with K/M/G)", (long long)r->min,
                 (long long)r->max);
        break;
    case OPT_DURATION:
        snprintf(out, n, "a duration from %lld to %lld %s (or with ms/s/m/h)", (long long)r->min,
                 (long long)r->max, unit_name(r));
        break;
    default:
        snprintf(out, n, "valid");
    }
}

/* Checks v against r and stores it into dest. 0, or OPT_INVALID with err set. */
static int take_value(const struct opt_spec *r, const char *v, const char *from, void *dest,
                      char *err, size_t errlen)
{
    int64_t x = 0;
    int bad = 0;
    char phrase[160];
    switch (r->type) {
    case OPT_BOOL:
        *(bool *)field(dest, r->off) = true;
        return OPT_OK;
    case OPT_INT:
        bad = qp_parse_int(v, &x) < 0 || x < r->min || x > r->max;
        break;
    case OPT_SIZE:
        bad = parse_size(v, &x) < 0 || x < r->min || x > r->max;
        break;
    case OPT_DURATION:
        bad = parse_duration(v, r->unit, &x) < 0 || x < r->min * r->unit || x > r->max * r->unit;
        break;
    case OPT_STRING:
    case OPT_LIST: {
        const char *why = r->check ? r->check(v) : NULL;
        if (why) {
            snprintf(err, errlen, "option --%s%s %s", r->name, from, why);
            return OPT_INVALID;
        }
        if (r->type == OPT_STRING) {
            put_ptr(dest, r->off, v);
            return OPT_OK;
        }
        int *count = field(dest, r->count_off);
        if (*count >= r->max) {
            snprintf(err, errlen, "option --%s may be given at most %lld times", r->name,
                     (long long)r->max);
            return OPT_INVALID;
        }
        put_ptr(dest, r->off + (size_t)*count * sizeof(const char *), v);
        (*count)++;
        return OPT_OK;
    }
    }
    if (bad) {
        range_phrase(r, phrase, sizeof phrase);
        snprintf(err, errlen, "option --%s%s must be %s", r->name, from, phrase);
        return OPT_INVALID;
    }
    opt_put_int(field(dest, r->off), r->width, x);
    return OPT_OK;
}

static void set_default(const struct opt_spec *r, void *dest)
{
    switch (r->type) {
    case OPT_BOOL:
        *(bool *)field(dest, r->off) = false;
        break;
    case OPT_INT:
    case OPT_SIZE:
        opt_put_int(field(dest, r->off), r->width, r->def);
        break;
    case OPT_DURATION:
        opt_put_int(field(dest, r->off), r->width, r->def * r->unit);
        break;
    case OPT_STRING:
        put_ptr(dest, r->off, r->def_str);
        break;
    case OPT_LIST:
        *(int *)field(dest, r->count_off) = 0;
        break;
    }
}

/* The row named by name[0..len) (the text after "--" up to any "="), exact or a unique
 * prefix; NULL with err set (unknown or ambiguous). "help" is not a row: *help is set
 * instead. */
static const struct opt_spec *find(const struct opt_spec *rows, size_t n,
                                   const struct opt_command *cmd, const char *name, size_t len,
                                   bool *help, char *err, size_t errlen)
{
    const struct opt_spec *hit = NULL;
    size_t candidates = 0;
    *help = len > 0 && len <= 4 && strncmp("help", name, len) == 0;
    if (*help && len == 4)
        return NULL;
    for (size_t i = 0; len > 0 && i < n; i++) {
        if (!takes(&rows[i], cmd) || strncmp(rows[i].name, name, len) != 0)
            continue;
        if (rows[i].name[len] == '\0') {
            *help = false;
            return &rows[i];
        }
        hit = &rows[i];
        candidates++;
    }
    if (candidates + *help == 1)
        return hit;
    if (candidates + *help > 1)
        snprintf(err, errlen, "option --%.*s is ambiguous", (int)len, name);
    else
        snprintf(err, errlen, "unknown option --%.*s", (int)len, name);
    *help = false;
    return NULL;
}

enum opt_result opt_parse(const struct opt_spec *rows, size_t n, const struct opt_command *cmd,
                          int argc, char **argv, void *dest, char *err, size_t errlen)
{
    bool given[MAX_ROWS] = {false};
    assert(n <= MAX_ROWS);
    err[0] = '\0';
    for (size_t i = 0; i < n; i++)
        if (takes(&rows[i], cmd))
            set_default(&rows[i], dest);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-h") == 0)
            return OPT_HELP;
        if (strcmp(a, "--") == 0) {
            if (i + 1 < argc) {
                snprintf(err, errlen, "unexpected argument %s", argv[i + 1]);
                return OPT_USAGE;
            }
            break;
        }
        if (strncmp(a, "--", 2) != 0 || a[2] == '\0') {
            snprintf(err, errlen, "unexpected argument %s", a);
            return OPT_USAGE;
        }
        const char *name = a + 2, *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        bool help;
        const struct opt_spec *r = find(rows, n, cmd, name, len, &help, err, errlen);
        if (help) {
            if (!eq)
                return OPT_HELP;
            if (strcmp(eq + 1, "markdown") == 0)
                return OPT_HELP_MARKDOWN;
            snprintf(err, errlen, "option --help takes no value but =markdown");
            return OPT_USAGE;
        }
        if (!r)
            return OPT_USAGE;
        const char *v = NULL;
        if (r->type == OPT_BOOL) {
            if (eq) {
                snprintf(err, errlen, "option --%s takes no value", r->name);
                return OPT_USAGE;
            }
        } else if (eq) {
            v = eq + 1;
        } else if (i + 1 < argc) {
            v = argv[++i];
        } else {
            snprintf(err, errlen, "option --%s needs a value", r->name);
            return OPT_USAGE;
        }
        int rc = take_value(r, v, "", dest, err, errlen);
        if (rc != OPT_OK)
            return rc;
        given[r - rows] = true;
    }
    for (size_t i = 0; i < n; i++) {
        const struct opt_spec *r = &rows[i];
        if (given[i] || !r->env || !takes(r, cmd))
            continue;
        const char *v = getenv(r->env);
        if (!v || !*v)
            continue;
        char from[80];
        snprintf(from, sizeof from, " (from $%s)", r->env);
        int rc = take_value(r, v, from, dest, err, errlen);
        if (rc != OPT_OK)
            return rc;
    }
    return OPT_OK;
}

/* ---- documentation ------------------------------------------------------------------- */

/* The value an option takes, for people: "integer, 1 to 256", "flag". */
static void value_text(const struct opt_spec *r, char *out, size_t n)
{
    switch (r->type) {
    case OPT_BOOL:
        snprintf(out, n, "flag");
        break;
    case OPT_INT:
        snprintf(out, n, "integer, %lld to %lld", (long long)r->min, (long long)r->max);
        break;
    case OPT_SIZE:
        snprintf(out, n, "bytes, %lld to %lld", (long long)r->min, (long long)r->max);
        break;
    case OPT_DURATION:
        snprintf(out, n, "%s, %lld to %lld", unit_name(r), (long long)r->min, (long long)r->max);
        break;
    case OPT_STRING:
        snprintf(out, n, "text");
        break;
    case OPT_LIST:
        snprintf(out, n, "text, up to %lld times", (long long)r->max);
        break;
    }
}

static void default_text(const struct opt_spec *r, char *out, size_t n)
{
    if (r->shown) {
        snprintf(out, n, "%s", r->shown);
        return;
    }
    switch (r->type) {
    case OPT_BOOL:
        snprintf(out, n, "off");
        break;
    case OPT_INT:
    case OPT_SIZE:
    case OPT_DURATION:
        snprintf(out, n, "%lld", (long long)r->def);
        break;
    case OPT_STRING:
        snprintf(out, n, "%s", r->def_str ? r->def_str : "none");
        break;
    case OPT_LIST:
        snprintf(out, n, "none");
        break;
    }
}

/* Appends text word-wrapped from column col (the cursor is there) to HELP_WIDTH, each
 * further line indented to HELP_NAME. */
static void wrap(struct buf *out, const char *text, size_t col)
{
    const char *p = text;
    while (*p) {
        size_t w = strcspn(p, " ");
        if (col > HELP_NAME && col + 1 + w > HELP_WIDTH) {
            buf_printf(out, "\n%*s", HELP_NAME, "");
            col = HELP_NAME;
        } else if (col > HELP_NAME) {
            buf_putc(out, ' ');
            col++;
        }
        buf_append(out, p, w);
        col += w;
        p += w;
        p += strspn(p, " ");
    }
    buf_putc(out, '\n');
}

/* An option's help followed by what --help adds: its range, default and environment
 * variable ("… (1 to 256; default: 30)"). */
static void help_text(const struct opt_spec *r, char *out, size_t n)
{
    char range[120] = "", def[160], env[80] = "";
    switch (r->type) {
    case OPT_BOOL:
        snprintf(out, n, "%s", r->help);
        return;
    case OPT_INT:
        snprintf(range, sizeof range, "%lld to %lld; ", (long long)r->min, (long long)r->max);
        break;
    case OPT_SIZE:
        snprintf(range, sizeof range, "%lld to %lld bytes, or with K/M/G; ", (long long)r->min,
                 (long long)r->max);
        break;
    case OPT_DURATION:
        snprintf(range, sizeof range, "%lld to %lld %s, or with ms/s/m/h; ", (long long)r->min,
                 (long long)r->max, unit_name(r));
        break;
    case OPT_LIST:
        snprintf(range, sizeof range, "up to %lld times; ", (long long)r->max);
        break;
    case OPT_STRING:
        break;
    }
    default_text(r, def, sizeof def);
    if (r->env)
        snprintf(env, sizeof env, "; environment: %s", r->env);
    snprintf(out, n, "%s (%sdefault: %s%s)", r->help, range, def, env);
}

void opt_help(struct buf *out, const struct opt_spec *rows, size_t n, const struct opt_command *cmd)
{
    buf_printf(out, "usage: whistle %s [OPTION]...\n%s\n\noptions:\n", cmd->name, cmd->about);
    for (size_t i = 0; i <= n; i++) {
        const struct opt_spec *r = i < n ? &rows[i] : NULL;
        if (r && !takes(r, cmd))
            continue;
        char head[80], text[1024];
        if (r) {
            snprintf(head, sizeof head, "  --%s%s%s", r->name, r->metavar ? " " : "",
                     r->metavar ? r->metavar : "");
            help_text(r, text, sizeof text);
        } else {
            snprintf(head, sizeof head, "  --help");
            snprintf(text, sizeof text,
                     "print this help and exit; --help=markdown prints the "
                     "option reference of docs/operators.md");
        }
        size_t hl = strlen(head);
        buf_puts(out, head);
        if (hl + 2 > HELP_NAME) {
            buf_printf(out, "\n%*s", HELP_NAME, "");
        } else {
            buf_printf(out, "%*s", (int)(HELP_NAME - hl), "");
        }
        wrap(out, text, HELP_NAME);
    }
}

/* Markdown table cell text: "|" escaped, "<" and ">" as entities (never a tag). */
static void md_cell(struct buf *out, const char *s)
{
    for (; *s; s++) {
        if (*s == '<')
            buf_puts(out, "&lt;");
        else if (*s == '>')
            buf_puts(out, "&gt;");
        else if (*s == '|')
            buf_puts(out, "\\|");
        else
            buf_putc(out, *s);
    }
}

void opt_markdown(struct buf *out, const struct opt_spec *rows, size_t n,
                  const struct opt_command *cmds, size_t ncmds)
{
    buf_puts(out, "| option | commands | value | default | meaning |\n"
                  "|---|---|---|---|---|\n");
    for (size_t i = 0; i < n; i++) {
        const struct opt_spec *r = &rows[i];
        char value[80], def[160];
        value_text(r, value, sizeof value);
        default_text(r, def, sizeof def);
        buf_printf(out, "| `--%s%s%s` | ", r->name, r->metavar ? " " : "",
                   r->metavar ? r->metavar : "");
        const char *sep = "";
        for (size_t c = 0; c < ncmds; c++) {
            if (r->commands & cmds[c].mask) {
                buf_printf(out, "%s%s", sep, cmds[c].name);
                sep = ", ";
            }
        }
        buf_puts(out, " | ");
        md_cell(out, value);
        buf_puts(out, " | ");
        if (r->env)
            buf_printf(out, "`$%s`, else ", r->env);
        /* a literal value in code font; "off", "none" and prose as they are */
        bool literal = !r->shown && r->type != OPT_BOOL && r->type != OPT_LIST &&
                       (r->type != OPT_STRING || r->def_str);
        buf_puts(out, literal ? "`" : "");
        md_cell(out, def);
        buf_puts(out, literal ? "`" : "");
        buf_puts(out, " | ");
        md_cell(out, r->help);
        buf_puts(out, " |\n");
    }
}
