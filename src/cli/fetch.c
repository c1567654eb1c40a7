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

int cli_fetch(int argc, char **argv)
{
    static const struct option opts[] = {{"allow", required_argument, NULL, 'a'},
                                         {"max-bytes", required_argument, NULL, 'm'},
                                         {"timeout-ms", required_argument, NULL, 't'},
                                         {"json", no_argument, NULL, 'j'},
                                         {NULL, 0, NULL, 0}};
    struct fetch_policy p = FETCH_POLICY_DEFAULT;
    const char *allow[16];
    bool json = false;
    int64_t v;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        switch (c) {
        case 'a':
            if (p.nallow == sizeof allow / sizeof allow[0])
                return cli_refuse("at most 16 --allow entries");
            allow[p.nallow++] = optarg;
            break;
        case 'm':
            if (qp_parse_int(optarg, &v) < 0 || v < 1 || v > (64 << 20))
                return cli_refuse("--max-bytes must be from 1 to 67108864");
            p.max_bytes = (size_t)v;
            break;
        case 't':
            if (qp_parse_int(optarg, &v) < 0 || v < 1 || v > 60000)
                return cli_refuse("--timeout-ms must be from 1 to 60000");
            p.timeout_ms = (long)v;
            break;
        case 'j':
            json = true;
            break;
        default:
            return cli_usage(fetch_usage);
        }
    }
    if (optind != argc - 1)
        return cli_usage(fetch_usage);
    p.allow = allow;
    fetch_global_init();
    struct fetch_result r;
    int rc = fetch_url(&p, argv[optind], time_now_us(), &r);
    struct buf b = BUF_INIT;
    struct jw w;
    jw_init(&w, &b);
    jw_obj_begin(&w);
    jw_key(&w, "url");
    jw_str(&w, argv[optind]);
    jw_key(&w, "final_url");
    jw_str(&w, r.final_url);
    jw_key(&w, "status");
    jw_int(&w, r.status < 0 ? JW_NULL_INT : r.status);
    jw_key(&w, "content_type");
    jw_str(&w, r.content_type);
    jw_key(&w, "title");
    jw_str(&w, r.title);
    jw_key(&w, "publisher");
    jw_str(&w, r.publisher);
    jw_key(&w, "content_hash");
    jw_str(&w, r.hash[0] ? r.hash : NULL);
    jw_key(&w, "bytes");
    jw_int(&w, (int64_t)r.bytes);
    jw_key(&w, "redirects");
    jw_int(&w, r.redirects);
    jw_key(&w, "fetched_at");
    jw_time(&w, r.fetched_at);
    jw_key(&w, "error");
    jw_str(&w, r.error);
    jw_obj_end(&w);
    if (json)
        cli_print_json(&b);
    else if (rc == 0)
        printf("%ld %s\n", r.status, r.title ? r.title : "(no title)");
    if (rc < 0)
        fprintf(stderr, "whistle: fetch refused or failed: %s\n", r.error);
    buf_release(&b);
    fetch_result_release(&r);
    return rc == 0 ? CLI_OK : CLI_REFUSED;
}
