/*
 * whistle fetch URL: one research fetch under the SSRF rules, for operators checking what
 * the research worker would see, and for the tests of those rules. --allow HOST:PORT is the
 * explicit test-only allow list (ARCHITECTURE.md: tests that need a local origin enable it).
 */
#include <getopt.h>
#include <stdio.h>

#include "cli/cli.h"
#include "http/query.h"
#include "research/fetch.h"
#include "util/jsonw.h"
#include "util/timefmt.h"

static const char fetch_usage[] =
    "whistle fetch URL [--allow HOST:PORT]... [--max-bytes N] [--timeout-ms N] [--json]";

struct args {
    struct fetch_policy p;
    const char *allow[16];
    bool json;
};

/* --allow HOST:PORT, up to 16 of them */
static int take_allow(void *dest, const char *v, int k)
{
    (void)k;
    struct args *a = dest;
    if (a->p.nallow == sizeof a->allow / sizeof a->allow[0])
        return cli_refuse("at most 16 --allow entries");
    a->allow[a->p.nallow++] = v;
    return CLI_OK;
}

/* Prints the --json answer: the fetch of url and its result r. */
static void result_json(const char *url, const struct fetch_result *r)
{
    struct cli_json j;
    cli_json_begin(&j);
    jw_fmt(&j.w,
           "url:%s final_url:%s status:%ld content_type:%s title:%s publisher:%s content_hash:%s "
           "bytes:%ld redirects:%ld fetched_at:%ldT error:%s",
           url, r->final_url, r->status < 0 ? JW_NULL_INT : r->status, r->content_type, r->title,
           r->publisher, r->hash[0] ? r->hash : NULL, (int64_t)r->bytes, r->redirects,
           r->fetched_at, r->error);
    cli_json_print(&j);
}

int cli_fetch(int argc, char **argv)
{
    static const struct cli_opt opts[] = {
        {"allow", CLI_OPT_TAKE, .take = take_allow},
        {"max-bytes", CLI_OPT_INT, CLI_OPT_AT(struct args, p.max_bytes), 1, 64 << 20,
         "must be from 1 to 67108864"},
        {"timeout-ms", CLI_OPT_INT, CLI_OPT_AT(struct args, p.timeout_ms), 1, 60000,
         "must be from 1 to 60000"},
        {"json", CLI_OPT_FLAG, CLI_OPT_AT(struct args, json)},
    };
    struct args a = {.p = FETCH_POLICY_DEFAULT};
    int rc = cli_options(argc, argv, 1, opts, CLI_LEN(opts), &a, fetch_usage);
    if (rc != CLI_OK)
        return rc;
    if (optind != argc - 1)
        return cli_usage(fetch_usage);
    a.p.allow = a.allow;
    fetch_global_init();
    struct fetch_result r;
    rc = fetch_url(&a.p, argv[optind], time_now_us(), &r);
    if (a.json)
        result_json(argv[optind], &r);
    else if (rc == 0)
        printf("%ld %s\n", r.status, r.title ? r.title : "(no title)");
    if (rc < 0)
        fprintf(stderr, "whistle: fetch refused or failed: %s\n", r.error);
    fetch_result_release(&r);
    return rc == 0 ? CLI_OK : CLI_REFUSED;
}
