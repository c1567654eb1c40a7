/*
 * The option table of `whistle serve` and `whistle worker` (settings.h): every option, its
 * range, default and help, and the field its value goes to. docs/operators.md's option
 * reference is printed from these rows (`make docs`).
 */
#include "cli/settings.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <uriparser/Uri.h>

#include "cli/cli.h"
#include "domain/research.h"
#include "research/fetch.h"
#include "store/store.h"

static const char *http_url(const char *v)
{
    return strncmp(v, "http://", 7) == 0 || strncmp(v, "https://", 8) == 0
               ? NULL
               : "must start with http:// or https://";
}

/* --base-url: an http:// or https:// URL with a host, and neither query nor fragment (a
 * path is kept: URLs are built as base + "/api/..."); parsed with uriparser. */
static const char *base_url(const char *v)
{
    const char *why = http_url(v);
    if (why)
        return why;
    UriUriA uri;
    const char *end = NULL;
    if (uriParseSingleUriA(&uri, v, &end) != URI_SUCCESS)
        return "must be a URL (http://HOST[:PORT])";
    if (uri.hostText.first == uri.hostText.afterLast && !uri.hostData.ip6)
        why = "must name a host (http://HOST[:PORT])";
    else if (uri.query.first || uri.fragment.first)
        why = "must have no query (?) or fragment (#)";
    uriFreeUriMembersA(&uri);
    return why;
}

/* HOST:PORT with a port from min_port to 65535: an IPv6 address in brackets ([::1]:8080),
 * else an IPv4 address or a host name (letters, digits, '.', '-', '_'). */
static const char *host_port(const char *v, long min_port)
{
    const char *colon = strrchr(v, ':');
    if (!colon || colon == v)
        return "no host";
    if (v[0] == '[') {
        char ip6[INET6_ADDRSTRLEN];
        unsigned char bin[sizeof(struct in6_addr)];
        size_t hl = (size_t)(colon - v);
        if (hl < 3 || colon[-1] != ']' || hl - 2 >= sizeof ip6)
            return "bad host";
        memcpy(ip6, v + 1, hl - 2);
        ip6[hl - 2] = '\0';
        if (inet_pton(AF_INET6, ip6, bin) != 1)
            return "bad host";
    } else {
        for (const char *p = v; p < colon; p++)
            if (!isalnum((unsigned char)*p) && !strchr(".-_", *p))
                return "bad host";
    }
    const char *port = colon + 1;
    size_t pl = strlen(port);
    if (pl == 0 || pl > 5 || strspn(port, "0123456789") != pl)
        return "bad port";
    long n = strtol(port, NULL, 10);
    return n < min_port || n > 65535 ? "bad port" : NULL;
}

static const char *listen_address(const char *v)
{
    return host_port(v, 0) ? "must be HOST:PORT with a port from 0 to 65535 (0: any free "
                             "port; IPv6 in brackets: [::1]:8080)"
                           : NULL;
}

static const char *fetch_address(const char *v)
{
    return host_port(v, 1) ? "must be HOST:PORT with a port from 1 to 65535 (IPv6 in "
                             "brackets: [::1]:8080)"
                           : NULL;
}

static const char *not_empty(const char *v)
{
    return v[0] ? NULL : "must not be empty";
}

static const char *smtp_url(const char *v)
{
    return strncmp(v, "smtp://", 7) == 0 || strncmp(v, "smtps://", 8) == 0
               ? NULL
               : "must start with smtp:// or smtps://";
}

static const char *mail_address(const char *v)
{
    return strpbrk(v, "\r\n") || !strchr(v, '@') ? "must be an address (\"Name <a@b.example>\")"
                                                 : NULL;
}

static const char *cidr(const char *v)
{
    struct address_range r;
    return address_range_parse(v, &r) == 0
               ? NULL
               : "must be an IPv4 or IPv6 address or CIDR range (10.0.0.0/8, 2001:db8::/32) "
                 "with no bits set past the prefix";
}

#define S      CLI_SERVE
#define W      CLI_WORKER
#define AT(f)  OPT_AT(struct cli_settings, f)
#define MANY   1000000 /* the ceiling of the connection and per-address limits */
#define MIB(n) ((int64_t)(n) << 20)

/* clang-format off */
static const struct opt_spec rows[] = {
    {"db", OPT_STRING, S | W, "PATH", .def_str = "whistle.db", .env = "WHISTLE_DB",
     .check = not_empty, AT(db),
     .help = "the SQLite database file (created and migrated at start), or a postgresql:// "
             "URI for several nodes and workers on one PostgreSQL database (deploy.md)"},
    {"listen", OPT_STRING, S, "HOST:PORT", .def_str = "127.0.0.1:8080",
     .check = listen_address, AT(http.listen),
     .help = "the address to listen on; [::1]:8080 for IPv6; port 0 picks a free port"},
    {"base-url", OPT_STRING, S | W, "URL", .check = base_url, AT(base_url),
     .shown = "serve: http:// and --listen; worker: http://127.0.0.1:8080",
     .help = "origin of every URL the API, the pages and account email emit; set it to the "
             "public address behind a proxy. It is also the one origin browsers may post "
             "from: ballots and account forms from another Origin are refused (403); on a "
             "loopback base URL, localhost, 127.0.0.1 and [::1] on its port are that origin"},
    {"metrics-listen", OPT_STRING, S, "HOST:PORT", .check = listen_address,
     AT(http.metrics_listen), .shown = "off",
     .help = "a second address answering only GET /metrics (Prometheus text format; "
             "operators.md); the public address never serves it. Keep it private"},
    {"threads", OPT_INT, S, "N", 1, HTTP_THREADS_MAX, .shown = "one per core", AT(http.threads),
     .help = "libmicrohttpd's thread pool; each thread has its own database connection"},
    {"poll", OPT_BOOL, S, NULL, AT(http.use_poll),
     .help = "use poll(2) in the thread pool instead of epoll"},
    {"no-cache", OPT_BOOL, S, NULL, AT(no_cache),
     .help = "turn the response cache off (for measurements)"},
    {"list-index-max", OPT_INT, S, "N", 0, 100000000, .def = 5000000, AT(list_index_max),
     .help = "the most published incidents (and games) the in-memory list index holds "
             "(about 60 bytes an incident, 120 a game, twice while it is rebuilt; "
             "operators.md); beyond, or 0, lists are answered from SQL"},
    {"fragment-cache-mb", OPT_INT, S, "MIB", 0, 65536, .def = 512, AT(fragment_cache_mb),
     .help = "memory for the cache of incidents' facts and pre-rendered JSON that API reads "
             "share (about 4 KiB an incident, 7 with its list form; the oldest go first, "
             "but one read since it last came round gets a second chance; operators.md); "
             "0: every read from the database"},
    {"fragment-bodies-mb", OPT_INT, S, "MIB", 0, 65536, .def = 1024, AT(fragment_bodies_mb),
     .help = "PostgreSQL: memory for the node's copy of the pre-rendered incidents, compressed "
             "and loaded at start (about 450 bytes an incident at the seeded million; the "
             "least read go first; operators.md), so that a page's read asks the database for "
             "the facts and tallies alone; 0: the bodies come with every read"},
    {"tally-copy-mb", OPT_INT, S, "MIB", 0, 65536, .def = 512, AT(tally_copy_mb),
     .help = "Memory for the process's copy of every incident's Fan Verdict tallies, read at "
             "start and kept by the change feed of migrations 029 (SQLite) and 031 "
             "(PostgreSQL) (about 125 bytes an incident with ballots; operators.md), so that a "
             "list page reads its incidents' fragments and not their tally rows; past it, or 0, "
             "the tallies come with every read"},
    {"version-lease", OPT_DURATION, S | W, "MS", 0, 1000, OPT_MS, .def = 0,
     .env = "WHISTLE_VERSION_LEASE", AT(version_lease_us),
     .help = "PostgreSQL: requests take the store's versions from a poll at most this old "
             "instead of a round trip each, and every write is answered this long after it "
             "committed (a little more), so that a request after a write's answer still sees "
             "it on every node. Give every node, worker and CLI command of a deployment the same "
             "value (architecture.md \"The version lease\"); 0: off"},
    {"max-connections", OPT_INT, S, "N", 1, MANY, .def = 4096, AT(http.connection_limit),
     .help = "global connection limit"},
    {"max-per-ip", OPT_INT, S, "N", 1, MANY, .def = 1024, AT(http.per_ip_limit),
     .help = "connections per client address (an IPv6 /64 counts as one address; a trusted "
             "proxy's connections are not counted)"},
    {"timeout", OPT_DURATION, S, "SECONDS", 1, 3600, OPT_SEC, .def = 30, AT(http.timeout_us),
     .help = "how long an idle connection is kept"},
    {"head-timeout", OPT_DURATION, S, "SECONDS", 1, 3600, OPT_SEC, .def = 10,
     AT(http.head_timeout_us),
     .help = "a request head (request line and headers) must be complete this long after the "
             "connection opened or its previous answer; else the connection is closed"},
    {"crowded-per-ip", OPT_INT, S, "N", 1, MANY, .def = 16, AT(http.crowded_per_ip),
     .help = "once three quarters of max-connections are open, an address that already holds "
             "N connections gets no more: the last quarter is kept for addresses that hold few"},
    {"trusted-proxy", OPT_LIST, S, "CIDR", .max = CLI_MAX_TRUSTED_PROXIES, .check = cidr,
     AT(trusted_proxy), OPT_COUNT_AT(struct cli_settings, ntrusted_proxy),
     .help = "a proxy (address or range, IPv4 or IPv6; repeat for more) whose X-Forwarded-For "
             "is believed: behind it the client is the right-most hop not itself trusted, and "
             "every per-address limit counts that client; from any other peer the header is "
             "ignored. Its connections are not counted per address (security.md)"},
    {"vote-limit-voter", OPT_INT, S, "N", 1, 100000, .def = 10, AT(limits.vote_per_voter),
     .help = "Fan Verdict ballots per minute per voter (429 beyond)"},
    {"vote-limit-ip", OPT_INT, S, "N", 1, MANY, .def = 60, AT(limits.vote_per_ip),
     .help = "Fan Verdict ballots per minute per client address (429 beyond)"},
    {"anon-vote-limit-ip", OPT_INT, S, "N", 1, MANY, .def = 20, AT(limits.anon_vote_per_ip),
     .help = "anonymous Fan Verdict ballots per client address per debate per day, however "
             "many voter cookies it uses (429 beyond; signed-in voters are not counted)"},
    {"new-voter-limit-ip", OPT_INT, S, "N", 1, MANY, .def = 30, AT(limits.new_voter_per_ip),
     .help = "new anonymous voters (a voter cookie's first ballot) per client address per "
             "hour (429 beyond)"},
    {"comment-limit-account", OPT_INT, S, "N", 1, 100000, .def = 5,
     AT(limits.comment_per_account),
     .help = "new comments per minute per account; a day: ten times it (429 beyond)"},
    {"comment-limit-ip", OPT_INT, S, "N", 1, MANY, .def = 30, AT(limits.comment_per_ip),
     .help = "new comments per minute per client address; a day: ten times it (429 beyond)"},
    {"max-agent-keys", OPT_INT, S, "N", 1, 1000, .def = 5, AT(limits.max_agent_keys),
     .help = "active agent keys per account on /developers (409 beyond)"},
    {"lead-quota-minute", OPT_INT, S, "N", 1, MANY, .def = QUOTA_AGENT_MINUTE_MAX,
     AT(limits.lead_quota[QUOTA_AGENT_MINUTE]),
     .help = "agent leads per minute per agent (429 beyond); the spec's amount, raised only "
             "for a load test"},
    {"lead-quota-day", OPT_INT, S, "N", 1, MANY, .def = QUOTA_AGENT_DAY_MAX,
     AT(limits.lead_quota[QUOTA_AGENT_DAY]),
     .help = "agent leads per rolling 24 hours per agent (429 beyond); the spec's amount"},
    {"lead-quota-global", OPT_INT, S, "N", 1, MANY, .def = QUOTA_GLOBAL_DAY_MAX,
     AT(limits.lead_quota[QUOTA_GLOBAL_DAY]),
     .help = "agent leads per rolling 24 hours of all agents together (429 beyond); the "
             "spec's amount"},
    {"staff-idle-timeout", OPT_DURATION, S, "SECONDS", 60, 86400, OPT_SEC, .def = 1800,
     AT(limits.staff_idle_us),
     .help = "a moderator's, editor's or admin's browser session ends after this long without "
             "a request (sign in again); a fan's session lasts its 30 days"},
    {"signin-limit-account", OPT_INT, S, "N", 1, 100000, .def = 5,
     AT(limits.signin_per_account),
     .help = "failed sign-ins per email address from one client address per 15 minutes (429 "
             "beyond); failures elsewhere never lock the owner out"},
    {"signin-limit-ip", OPT_INT, S, "N", 1, MANY, .def = 20, AT(limits.signin_per_ip),
     .help = "failed sign-ins per client address per 15 minutes (429 beyond)"},
    {"signup-limit-ip", OPT_INT, S, "N", 1, MANY, .def = 20, AT(limits.mail_forms_per_ip),
     .help = "sign-ups and password-reset requests per client address per hour (429 beyond)"},
    {"password-memory-kib", OPT_INT, S, "N", 8192, 4194304,
     .def = crypto_pwhash_MEMLIMIT_INTERACTIVE / 1024, AT(limits.password_memory_kib),
     .help = "argon2id memory per password hash, in KiB"},
    {"password-threads", OPT_INT, S, "N", 1, HTTP_PASSWORD_THREADS_MAX, .shown = "half the cores, at least 1",
     AT(http.password_threads),
     .help = "threads that hash and check passwords (sign-up, sign-in, reset, password "
             "change), apart from the HTTP threads so that other requests never wait behind "
             "argon2id; each holds up to --password-memory-kib while it hashes"},
    {"password-queue", OPT_INT, S, "N", 1, 100000, .def = 64, AT(http.password_queue),
     .help = "requests that may wait for a password thread; beyond, 503 with Retry-After "
             "at once"},
    {"no-worker", OPT_BOOL, S, NULL, AT(no_worker),
     .help = "run no background worker thread in this server (run whistle worker elsewhere)"},
    {"once", OPT_BOOL, W, NULL, AT(once),
     .help = "run every task until nothing is due, then exit (for cron)"},
    {"json", OPT_BOOL, W, NULL, AT(json),
     .help = "with --once, print {\"units\":N} instead of a sentence"},
    {"auto-publish", OPT_BOOL, S | W, NULL, AT(worker.auto_publish),
     .help = "research: publish candidates without an operator (research.md)"},
    {"min-source-domains", OPT_INT, S | W, "N", 1, 5, .def = RESEARCH_MIN_DOMAINS_DEFAULT,
     AT(worker.min_domains),
     .help = "research: the independent_discussion threshold (distinct registrable domains)"},
    {"scout-candidates", OPT_BOOL, S | W, NULL, AT(limits.scout_candidates),
     .help = "research: signals of completed scout runs about the lead's game and play count "
             "as independent discussion (scout.md)"},
    {"lease-seconds", OPT_DURATION, S | W, "N", 1, 86400, OPT_SEC, .def = 120,
     AT(worker.lease_us),
     .help = "how long a worker's claim on a lead or an email is held before another worker "
             "may retry it"},
    {"poll-ms", OPT_DURATION, S | W, "N", 10, 60000, OPT_MS, .def = 500, AT(worker.poll_us),
     .help = "how long the worker sleeps when there is nothing to do"},
    {"fetch-timeout-ms", OPT_DURATION, S | W, "N", 1, 60000, OPT_MS,
     .def = FETCH_TIMEOUT_MS_DEFAULT, AT(worker.fetch_timeout_us),
     .help = "research: time for one URL, whole transfer"},
    {"fetch-deadline-ms", OPT_DURATION, S | W, "N", 1, 120000, OPT_MS,
     .def = FETCH_DEADLINE_MS_DEFAULT, AT(worker.fetch_deadline_us),
     .help = "research: time for all the sources of one lead, fetched in parallel; what has "
             "not answered by then counts as a timeout"},
    {"fetch-max-bytes", OPT_SIZE, S | W, "N", 1, MIB(64), .def = FETCH_MAX_BYTES_DEFAULT,
     AT(worker.fetch_max_bytes),
     .help = "research: body cap per URL"},
    {"allow-fetch", OPT_LIST, S | W, "HOST:PORT", .max = WORKER_MAX_ALLOW,
     .check = fetch_address, AT(worker.allow),
     OPT_COUNT_AT(struct cli_settings, worker.nallow),
     .help = "test only: lets research fetch that exact loopback address"},
    {"smtp-url", OPT_STRING, S | W, "smtp[s]://HOST:PORT", .check = smtp_url,
     AT(worker.smtp_url), .shown = "none: mail goes to the log",
     .help = "the relay for account email (accounts.md)"},
    {"smtp-user", OPT_STRING, S | W, "USER", AT(worker.smtp_user),
     .help = "relay user name; TLS is then required"},
    {"smtp-password", OPT_STRING, S | W, "PW", .env = "WHISTLE_SMTP_PASSWORD",
     AT(worker.smtp_password),
     .help = "relay password (the environment variable keeps it out of ps); needs --smtp-user"},
    {"mail-from", OPT_STRING, S | W, "ADDRESS", .check = mail_address, AT(worker.mail_from),
     .shown = "Whistle <no-reply@HOST of --base-url>",
     .help = "the sender of account email"},
    {"games-nflverse", OPT_STRING, S | W, "URL|FILE", AT(worker.games_nflverse),
     .shown = "none",
     .help = "games-refresh: keep NFL games current from this nflverse games.csv (games.md)"},
    {"games-cfbd-season", OPT_INT, S | W, "YEAR", 1920, 2100, .shown = "none",
     AT(worker.games_cfbd_season),
     .help = "games-refresh: keep this CollegeFootballData season current (needs a key)"},
    {"cfbd-url", OPT_STRING, S | W, "URL", .check = http_url, AT(worker.cfbd_url),
     .shown = "https://api.collegefootballdata.com",
     .help = "games-refresh: the CollegeFootballData API's base URL"},
    {"cfbd-key-file", OPT_STRING, S | W, "PATH", AT(worker.cfbd_key_file),
     .shown = "the key in WHISTLE_CFBD_KEY",
     .help = "games-refresh: a file whose first line is the CollegeFootballData key"},
    {"games-hot-seconds", OPT_DURATION, S | W, "N", 1, 604800, OPT_SEC, .def = 60,
     AT(worker.games_hot_us),
     .help = "games-refresh: the period while a game is live or starts within 3 hours"},
    {"games-cold-seconds", OPT_DURATION, S | W, "N", 1, 604800, OPT_SEC, .def = 86400,
     AT(worker.games_cold_us),
     .help = "games-refresh: the period otherwise"},
};
/* clang-format on */

static const struct opt_command commands[] = {
    {"serve", CLI_SERVE,
     "Serve the API and the human pages over HTTP, with the background worker in a thread\n"
     "unless --no-worker. Bad values exit 1, usage errors 2."},
    {"worker", CLI_WORKER,
     "Run the background worker alone: lead research, account email, housekeeping.\n"
     "Bad values exit 1, usage errors 2."},
};

/* Prints "whistle CMD: message" on stderr and returns rc. */
static int say(const struct opt_command *c, int rc, const char *msg)
{
    fprintf(stderr, "whistle %s: %s\n", c->name, msg);
    return rc;
}

/* The options that only make sense together. */
static const char *smtp_problem(const struct worker_config *w)
{
    if ((w->smtp_user || w->smtp_password) && !w->smtp_url)
        return "option --smtp-user and --smtp-password need --smtp-url";
    if (w->smtp_url && w->smtp_password && !w->smtp_user)
        return "option --smtp-password needs --smtp-user";
    return NULL;
}

/* The games-refresh options that only make sense together; reads the CollegeFootballData
 * key (it lives as long as the process: the worker thread reads it). */
static const char *games_problem(struct worker_config *w, char *err, size_t errlen)
{
    static char key[512];
    if (!w->games_cfbd_season)
        return w->cfbd_url || w->cfbd_key_file
                   ? "option --cfbd-url and --cfbd-key-file go with --games-cfbd-season"
                   : NULL;
    if (cli_cfbd_key(w->cfbd_key_file, key, sizeof key, err, errlen) < 0)
        return err;
    if (!key[0])
        return "option --games-cfbd-season needs a key: --cfbd-key-file PATH or "
               "WHISTLE_CFBD_KEY";
    w->cfbd_key = key;
    if (w->games_hot_us > w->games_cold_us)
        return "option --games-hot-seconds must not exceed --games-cold-seconds";
    return NULL;
}

int cli_settings_parse(unsigned cmd, int argc, char **argv, struct cli_settings *st)
{
    const struct opt_command *c = &commands[cmd == CLI_SERVE ? 0 : 1];
    const size_t n = sizeof rows / sizeof rows[0];
    char err[256];
    memset(st, 0, sizeof *st);
    enum opt_result rc = opt_parse(rows, n, c, argc, argv, st, err, sizeof err);
    if (rc == OPT_HELP || rc == OPT_HELP_MARKDOWN) {
        struct buf out = BUF_INIT;
        if (rc == OPT_HELP)
            opt_help(&out, rows, n, c);
        else
            opt_markdown(&out, rows, n, commands, sizeof commands / sizeof commands[0]);
        fwrite(out.p, 1, out.len, stdout);
        buf_release(&out);
        return CLI_OK;
    }
    if (rc == OPT_USAGE) {
        say(c, CLI_USAGE, err);
        fprintf(stderr, "usage: whistle %s [OPTION]... (whistle %s --help lists them)\n", c->name,
                c->name);
        return CLI_USAGE;
    }
    if (rc == OPT_INVALID)
        return say(c, CLI_REFUSED, err);
    const char *why = smtp_problem(&st->worker);
    if (!why && st->version_lease_us > 0 && !store_uri_is_pg(st->db))
        why = "option --version-lease needs a postgresql:// --db (SQLite's version read is a "
              "look at shared memory: there is no round trip to save)";
    if (!why)
        why = games_problem(&st->worker, err, sizeof err);
    if (why)
        return say(c, CLI_REFUSED, why);
    for (int i = 0; i < st->ntrusted_proxy; i++)
        address_range_parse(st->trusted_proxy[i], &st->trusted_ranges[i]); /* checked above */
    st->http.trusted_proxies = st->trusted_ranges;
    st->http.ntrusted_proxies = (size_t)st->ntrusted_proxy;
    st->http.limits = &st->limits;
    st->worker.limits = &st->limits;
    return CLI_RUN;
}
