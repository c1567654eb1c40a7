/*
 * Unit tests for src/cli/options.c: the table-driven option parser behind `whistle serve`
 * and `whistle worker` (every type, ranges, defaults, the environment, usage errors,
 * --help and the Markdown reference), on a table of its own.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cli/cli.h"
#include "cli/options.h"
#include "cli/settings.h"

enum { ONE = 1, TWO = 2 };

struct conf {
    int count;
    unsigned ucount;
    int64_t big;
    size_t bytes;
    long lbytes;
    int64_t wait_us;
    int64_t lease_us;
    bool flag, other_flag;
    const char *name;
    const char *url;
    const char *list[3];
    int nlist;
    const char *secret;
    int only_two;
};

static const char *must_be_x(const char *v)
{
    return strncmp(v, "x:", 2) == 0 ? NULL : "must start with x:";
}

#define AT(f) OPT_AT(struct conf, f)

static const struct opt_spec rows[] = {
    {"count", OPT_INT, ONE | TWO, "N", 1, 64, .def = 8, AT(count), .help = "how many"},
    {"ucount", OPT_INT, ONE, "N", 0, 100000, .def = 7, AT(ucount), .help = "unsigned"},
    {"big", OPT_INT, ONE, "N", -5, INT64_C(1) << 40, .def = -1, AT(big), .help = "wide"},
    {"bytes", OPT_SIZE, ONE, "N", 1, INT64_C(64) << 20, .def = 2048, AT(bytes), .help = "size"},
    {"lbytes", OPT_SIZE, ONE, "N", 0, 1 << 20, .def = 0, AT(lbytes), .help = "long size"},
    {"wait-ms", OPT_DURATION, ONE, "N", 10, 60000, OPT_MS, .def = 500, AT(wait_us),
     .help = "a wait"},
    {"lease", OPT_DURATION, ONE, "SECONDS", 1, 86400, OPT_SEC, .def = 120, AT(lease_us),
     .help = "a lease"},
    {"flag", OPT_BOOL, ONE, NULL, AT(flag), .help = "a flag"},
    {"flagged", OPT_BOOL, ONE, NULL, AT(other_flag), .help = "another flag"},
    {"name", OPT_STRING, ONE | TWO, "NAME", .def_str = "anon", AT(name), .help = "a name"},
    {"url", OPT_STRING, ONE, "URL", .check = must_be_x, AT(url), .shown = "none at all",
     .help = "a url | with a <bar>"},
    {"item", OPT_LIST, ONE, "ITEM", .max = 3, .check = must_be_x, AT(list),
     OPT_COUNT_AT(struct conf, nlist), .help = "items"},
    {"secret", OPT_STRING, ONE, "S", .env = "OPTIONS_TEST_SECRET", AT(secret),
     .help = "from the environment"},
    {"two-only", OPT_INT, TWO, "N", 0, 9, .def = 3, AT(only_two), .help = "command two's"},
};
static const size_t nrows = sizeof rows / sizeof rows[0];
static const struct opt_command cmd_one = {"one", ONE, "The first command."};
static const struct opt_command cmd_two = {"two", TWO, "The second command."};

static char err[256];

/* Parses a NULL-terminated argument list (after the command's name) for command one. */
static int parse_cmd(const struct opt_command *cmd, struct conf *c, ...)
{
    char *argv[32] = {(char *)cmd->name};
    int argc = 1;
    va_list ap;
    va_start(ap, c);
    for (char *a = va_arg(ap, char *); a && argc < 31; a = va_arg(ap, char *))
        argv[argc++] = a;
    va_end(ap);
    memset(c, 0x5a, sizeof *c); /* defaults must overwrite everything */
    return opt_parse(rows, nrows, cmd, argc, argv, c, err, sizeof err);
}
#define parse(c, ...) parse_cmd(&cmd_one, c, __VA_ARGS__, (char *)NULL)

static void test_defaults(void **state)
{
    (void)state;
    struct conf c;
    unsetenv("OPTIONS_TEST_SECRET");
    assert_int_equal(parse_cmd(&cmd_one, &c, (char *)NULL), OPT_OK);
    assert_int_equal(c.count, 8);
    assert_int_equal(c.ucount, 7);
    assert_int_equal(c.big, -1);
    assert_int_equal(c.bytes, 2048);
    assert_int_equal(c.lbytes, 0);
    assert_int_equal(c.wait_us, 500 * 1000);
    assert_int_equal(c.lease_us, INT64_C(120) * 1000000);
    assert_false(c.flag);
    assert_false(c.other_flag);
    assert_string_equal(c.name, "anon");
    assert_null(c.url);
    assert_int_equal(c.nlist, 0);
    assert_null(c.secret);
}

static void test_int(void **state)
{
    (void)state;
    struct conf c;
    assert_int_equal(parse(&c, "--count", "64", "--ucount", "100000", "--big", "1099511627776"),
                     OPT_OK);
    assert_int_equal(c.count, 64);
    assert_int_equal(c.ucount, 100000);
    assert_int_equal(c.big, INT64_C(1) << 40);
    assert_int_equal(parse(&c, "--count=1", "--big", "-5"), OPT_OK);
    assert_int_equal(c.count, 1);
    assert_int_equal(c.big, -5);
    const char *bad[] = {"0", "65", "-1", "x", "", "1.5", " 3", "3 ", "+3", "99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(&c, "--count", bad[i]), OPT_INVALID);
        assert_string_equal(err, "option --count must be an integer from 1 to 64");
    }
    assert_int_equal(parse(&c, "--big", "-6"), OPT_INVALID);
    assert_string_equal(err, "option --big must be an integer from -5 to 1099511627776");
}

static void test_size(void **state)
{
    (void)state;
    struct conf c;
    assert_int_equal(parse(&c, "--bytes", "4096", "--lbytes", "1M"), OPT_OK);
    assert_int_equal(c.bytes, 4096);
    assert_int_equal(c.lbytes, 1 << 20);
    assert_int_equal(parse(&c, "--bytes", "4k"), OPT_OK);
    assert_int_equal(c.bytes, 4096);
    assert_int_equal(parse(&c, "--bytes", "64M"), OPT_OK);
    assert_int_equal(c.bytes, 64 << 20);
    const char *bad[] = {"0", "65M", "1G", "2X", "K", "1KB", "-1", "", "9999999999999G"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(&c, "--bytes", bad[i]), OPT_INVALID);
        assert_string_equal(
            err, "option --bytes must be a size from 1 to 67108864 bytes (or with K/M/G)");
    }
}

static void test_duration(void **state)
{
    (void)state;
    struct conf c;
    assert_int_equal(parse(&c, "--wait-ms", "10", "--lease", "30"), OPT_OK);
    assert_int_equal(c.wait_us, 10 * 1000);
    assert_int_equal(c.lease_us, INT64_C(30) * 1000000);
    assert_int_equal(parse(&c, "--wait-ms", "2s", "--lease", "2m"), OPT_OK);
    assert_int_equal(c.wait_us, 2 * 1000000);
    assert_int_equal(c.lease_us, INT64_C(120) * 1000000);
    assert_int_equal(parse(&c, "--lease", "1500ms"), OPT_OK);
    assert_int_equal(c.lease_us, 1500 * 1000);
    assert_int_equal(parse(&c, "--lease", "24h"), OPT_OK);
    assert_int_equal(c.lease_us, INT64_C(86400) * 1000000);
    const char *bad[] = {"0", "86401", "25h", "999ms", "1d", "s", "-1", "1.5h"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        assert_int_equal(parse(&c, "--lease", bad[i]), OPT_INVALID);
        assert_string_equal(
            err, "option --lease must be a duration from 1 to 86400 seconds (or with ms/s/m/h)");
    }
    assert_int_equal(parse(&c, "--wait-ms", "9"), OPT_INVALID);
    assert_string_equal(
        err, "option --wait-ms must be a duration from 10 to 60000 ms (or with ms/s/m/h)");
}

static void test_bool(void **state)
{
    (void)state;
    struct conf c;
    assert_int_equal(parse(&c, "--flag"), OPT_OK);
    assert_true(c.flag);
    assert_false(c.other_flag);
    assert_int_equal(parse(&c, "--flagged", "--flag"), OPT_OK);
    assert_true(c.flag && c.other_flag);
    assert_int_equal(parse(&c, "--flag=1"), OPT_USAGE);
    assert_string_equal(err, "option --flag takes no value");
}

static void test_string_and_check(void **state)
{
    (void)state;
    struct conf c;
    assert_int_equal(parse(&c, "--name", "bob", "--url=x:1"), OPT_OK);
    assert_string_equal(c.name, "bob");
    assert_string_equal(c.url, "x:1");
    assert_int_equal(parse(&c, "--name", ""), OPT_OK); /* an empty string is a value */
    assert_string_equal(c.name, "");
    assert_int_equal(parse(&c, "--name", "--flag"), OPT_OK); /* the next word is the value */
    assert_string_equal(c.name, "--flag");
    assert_false(c.flag);
    assert_int_equal(parse(&c, "--url", "y:1"), OPT_INVALID);
    assert_string_equal(err, "option --url must start with x:");
}

static void test_list(void **state)
{
    (void)state;
    struct conf c;
    assert_int_equal(parse(&c, "--item", "x:a", "--item=x:b"), OPT_OK);
    assert_int_equal(c.nlist, 2);
    assert_string_equal(c.list[0], "x:a");
    assert_string_equal(c.list[1], "x:b");
    assert_int_equal(parse(&c, "--item", "x:1", "--item", "x:2", "--item", "x:3", "--item", "x:4"),
                     OPT_INVALID);
    assert_string_equal(err, "option --item may be given at most 3 times");
    assert_int_equal(parse(&c, "--item", "nope"), OPT_INVALID);
    assert_string_equal(err, "option --item must start with x:");
}

static void test_repeated_scalar_keeps_the_last(void **state)
{
    (void)state;
    struct conf c;
    assert_int_equal(parse(&c, "--count", "3", "--name", "a", "--count", "5", "--name", "b"),
                     OPT_OK);
    assert_int_equal(c.count, 5);
    assert_string_equal(c.name, "b");
    /* a bad value is refused even when a later one would be good */
    assert_int_equal(parse(&c, "--count", "0", "--count", "5"), OPT_INVALID);
}

static void test_usage_errors(void **state)
{
    (void)state;
    struct conf c;
    assert_int_equal(parse(&c, "--nope"), OPT_USAGE);
    assert_string_equal(err, "unknown option --nope");
    assert_int_equal(parse(&c, "--nope=3"), OPT_USAGE);
    assert_string_equal(err, "unknown option --nope");
    assert_int_equal(parse(&c, "--count"), OPT_USAGE);
    assert_string_equal(err, "option --count needs a value");
    assert_int_equal(parse(&c, "stray"), OPT_USAGE);
    assert_string_equal(err, "unexpected argument stray");
    assert_int_equal(parse(&c, "-c", "3"), OPT_USAGE);
    assert_int_equal(parse(&c, "--"), OPT_OK);
    assert_int_equal(parse(&c, "--", "--count"), OPT_USAGE);
    assert_string_equal(err, "unexpected argument --count");
    assert_int_equal(parse(&c, "--=3"), OPT_USAGE);
    /* an option of another command is unknown here */
    assert_int_equal(parse(&c, "--two-only", "3"), OPT_USAGE);
    assert_string_equal(err, "unknown option --two-only");
    assert_int_equal(parse_cmd(&cmd_two, &c, "--two-only", "4", "--count", "2", (char *)NULL),
                     OPT_OK);
    assert_int_equal(c.only_two, 4);
    assert_int_equal(c.count, 2);
    assert_int_equal(parse_cmd(&cmd_two, &c, "--flag", (char *)NULL), OPT_USAGE);
}

static void test_prefixes(void **state)
{
    (void)state;
    struct conf c;
    assert_int_equal(parse(&c, "--cou", "4"), OPT_OK); /* unique prefix */
    assert_int_equal(c.count, 4);
    assert_int_equal(parse(&c, "--flag"), OPT_OK); /* exact beats the longer --flagged */
    assert_true(c.flag);
    assert_false(c.other_flag);
    assert_int_equal(parse(&c, "--flagg"), OPT_OK);
    assert_true(c.other_flag);
    assert_int_equal(parse(&c, "--fl"), OPT_USAGE);
    assert_string_equal(err, "option --fl is ambiguous");
    assert_int_equal(parse(&c, "--w=20"), OPT_OK);
    assert_int_equal(c.wait_us, 20 * 1000);
}

static void test_help(void **state)
{
    (void)state;
    struct conf c;
    assert_int_equal(parse(&c, "--help"), OPT_HELP);
    assert_int_equal(parse(&c, "-h"), OPT_HELP);
    assert_int_equal(parse(&c, "--he"), OPT_HELP);
    assert_int_equal(parse(&c, "--count", "3", "--help"), OPT_HELP);
    assert_int_equal(parse(&c, "--help=markdown"), OPT_HELP_MARKDOWN);
    assert_int_equal(parse(&c, "--help=html"), OPT_USAGE);
    /* help wins over a bad value that comes after it, not before */
    assert_int_equal(parse(&c, "--help", "--count", "0"), OPT_HELP);
    assert_int_equal(parse(&c, "--count", "0", "--help"), OPT_INVALID);
}

static void test_environment(void **state)
{
    (void)state;
    struct conf c;
    setenv("OPTIONS_TEST_SECRET", "from-env", 1);
    assert_int_equal(parse_cmd(&cmd_one, &c, (char *)NULL), OPT_OK);
    assert_string_equal(c.secret, "from-env");
    assert_int_equal(parse(&c, "--secret", "given"), OPT_OK); /* the option wins */
    assert_string_equal(c.secret, "given");
    setenv("OPTIONS_TEST_SECRET", "", 1); /* empty: absent */
    assert_int_equal(parse_cmd(&cmd_one, &c, (char *)NULL), OPT_OK);
    assert_null(c.secret);
    unsetenv("OPTIONS_TEST_SECRET");
}

static void test_help_text(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    opt_help(&b, rows, nrows, &cmd_one);
    assert_non_null(strstr(b.p, "usage: whistle one [OPTION]...\nThe first command.\n"));
    assert_non_null(strstr(b.p, "  --count N"));
    assert_non_null(strstr(b.p, "how many (1 to 64; default: 8)"));
    assert_non_null(strstr(b.p, "a lease (1 to 86400 seconds, or with ms/s/m/h; default: 120)"));
    assert_non_null(strstr(b.p, "(default: none; environment: OPTIONS_TEST_SECRET)"));
    assert_non_null(strstr(b.p, "(default: none at all)"));
    assert_non_null(strstr(b.p, "  --help"));
    assert_null(strstr(b.p, "--two-only"));
    /* no line longer than 100 columns */
    for (const char *p = b.p; *p;) {
        size_t n = strcspn(p, "\n");
        assert_true(n <= 100);
        p += n + (p[n] != '\0');
    }
    buf_release(&b);
}

static void test_markdown(void **state)
{
    (void)state;
    struct buf b = BUF_INIT;
    const struct opt_command cmds[] = {cmd_one, cmd_two};
    opt_markdown(&b, rows, nrows, cmds, 2);
    assert_true(strncmp(b.p,
                        "| option | commands | value | default | meaning |\n"
                        "|---|---|---|---|---|\n",
                        70) == 0);
    assert_non_null(
        strstr(b.p, "| `--count N` | one, two | integer, 1 to 64 | `8` | how many |\n"));
    assert_non_null(strstr(b.p, "| `--two-only N` | two |"));
    assert_non_null(strstr(b.p, "| `--flag` | one | flag | off | a flag |\n"));
    assert_non_null(strstr(b.p, "| none at all | a url \\| with a &lt;bar&gt; |\n"));
    assert_non_null(strstr(b.p, "| `$OPTIONS_TEST_SECRET`, else none |"));
    assert_non_null(strstr(b.p, "| ms, 10 to 60000 | `500` |"));
    buf_release(&b);
}

/* The real table's address, URL and path checks (cli/settings.c; issue 12 item 5): refused
 * at parse time, before anything is opened. */
static int settings(unsigned cmd, const char *opt, const char *value)
{
    char *argv[] = {cmd == CLI_SERVE ? "serve" : "worker", (char *)opt, (char *)value, NULL};
    struct cli_settings st;
    return cli_settings_parse(cmd, 3, argv, &st);
}

static void test_settings_checks(void **state)
{
    (void)state;
    static const char *const bad_listen[] = {
        "127.0.0.1:99999", "127.0.0.1:65536", "127.0.0.1:", ":8080",        "nope",
        "[::1]:8080x",     "::1:8080",        "[nope]:80",  "127.0.0.1:-1", "a b:80"};
    for (size_t i = 0; i < sizeof bad_listen / sizeof *bad_listen; i++) {
        assert_int_equal(settings(CLI_SERVE, "--listen", bad_listen[i]), CLI_REFUSED);
        assert_int_equal(settings(CLI_SERVE, "--metrics-listen", bad_listen[i]), CLI_REFUSED);
        assert_int_equal(settings(CLI_WORKER, "--allow-fetch", bad_listen[i]), CLI_REFUSED);
    }
    static const char *const good_listen[] = {"127.0.0.1:0", "127.0.0.1:65535", "[::1]:8080",
                                              "localhost:8080", "0.0.0.0:80"};
    for (size_t i = 0; i < sizeof good_listen / sizeof *good_listen; i++) {
        assert_int_equal(settings(CLI_SERVE, "--listen", good_listen[i]), CLI_RUN);
        assert_int_equal(settings(CLI_SERVE, "--metrics-listen", good_listen[i]), CLI_RUN);
    }
    assert_int_equal(settings(CLI_WORKER, "--allow-fetch", "127.0.0.1:0"), CLI_REFUSED);
    assert_int_equal(settings(CLI_WORKER, "--allow-fetch", "127.0.0.2:8091"), CLI_RUN);
    assert_int_equal(settings(CLI_WORKER, "--allow-fetch", "[::1]:8091"), CLI_RUN);
    assert_int_equal(settings(CLI_SERVE, "--db", ""), CLI_REFUSED);
    assert_int_equal(settings(CLI_WORKER, "--db", ""), CLI_REFUSED);
    static const char *const bad_base[] = {
        "http://",    "https://",       "ftp://x", "https://x/p?q=1", "https://x/path?q=1#f",
        "http://x#f", "http://x:99999x"};
    for (size_t i = 0; i < sizeof bad_base / sizeof *bad_base; i++)
        assert_int_equal(settings(CLI_SERVE, "--base-url", bad_base[i]), CLI_REFUSED);
    static const char *const good_base[] = {"http://127.0.0.1:8080", "https://debates.example.org",
                                            "https://debates.example.org/", "http://[::1]:8080",
                                            "https://x.example/prefix"};
    for (size_t i = 0; i < sizeof good_base / sizeof *good_base; i++)
        assert_int_equal(settings(CLI_WORKER, "--base-url", good_base[i]), CLI_RUN);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_defaults),
        cmocka_unit_test(test_int),
        cmocka_unit_test(test_size),
        cmocka_unit_test(test_duration),
        cmocka_unit_test(test_bool),
        cmocka_unit_test(test_string_and_check),
        cmocka_unit_test(test_list),
        cmocka_unit_test(test_repeated_scalar_keeps_the_last),
        cmocka_unit_test(test_usage_errors),
        cmocka_unit_test(test_prefixes),
        cmocka_unit_test(test_help),
        cmocka_unit_test(test_environment),
        cmocka_unit_test(test_help_text),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_settings_checks),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
