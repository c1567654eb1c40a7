/*
 * whistle demo-sources: two sample publishers on loopback, so that the README's tour can
 * follow a lead through research on one machine (pending → running → published). Each
 * --listen address is one publisher serving the same few sample articles under its own name;
 * two loopback addresses (127.0.0.2, 127.0.0.3) are two registrable domains for research, so
 * the independent-discussion gate can pass. The server fetches them only when started with
 * the matching --allow-fetch HOST:PORT (printed at start).
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli/cli.h"
#include "http/query.h"

static const char demo_usage[] = "whistle demo-sources [--listen IPV4:PORT]...\n"
                                 "  (default: --listen 127.0.0.2:8091 --listen 127.0.0.3:8091)";

/* The sample articles: {path, title, body}; every publisher serves all of them. */
static const struct {
    const char *path, *title, *body;
} articles[] = {
    {"/stories/late-hit", "No flag on the late hit near the Ohio State sideline",
     "<p>Sample data. Early in the third quarter of Michigan at Ohio State, a Michigan "
     "defender pushed the Ohio State ball carrier a step after he had gone out of bounds. "
     "No flag was thrown. Fans of both teams have argued about it since.</p>"},
    {"/stories/weather", "Rain expected this weekend",
     "<p>Sample data. A weather story that names no team: research fetches it, but it does "
     "not count as discussion of any play.</p>"},
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
    (void)sig;
    stop = 1;
}

struct publisher {
    const char *listen, *name;
};

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn, const char *url,
                                  const char *method, const char *version, const char *upload,
                                  size_t *upload_len, void **con_cls)
{
    (void)version, (void)upload, (void)upload_len, (void)con_cls;
    const struct publisher *p = cls;
    char page[2048];
    unsigned status = MHD_HTTP_NOT_FOUND;
    snprintf(page, sizeof page, "not found\n");
    for (size_t i = 0; i < sizeof articles / sizeof articles[0]; i++) {
        if (strcmp(url, articles[i].path) != 0)
            continue;
        snprintf(page, sizeof page,
                 "<!doctype html><html><head><meta charset=utf-8><title>%s</title>"
                 "<meta property=\"og:site_name\" content=\"%s\"></head><body><h1>%s</h1>%s"
                 "</body></html>\n",
                 articles[i].title, p->name, articles[i].title, articles[i].body);
        status = MHD_HTTP_OK;
    }
    if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
        status = MHD_HTTP_METHOD_NOT_ALLOWED;
    struct MHD_Response *r =
        MHD_create_response_from_buffer(strlen(page), page, MHD_RESPMEM_MUST_COPY);
    if (!r)
        return MHD_NO;
    MHD_add_response_header(r, "Content-Type",
                            status == MHD_HTTP_OK ? "text/html; charset=utf-8" : "text/plain");
    enum MHD_Result rc = MHD_queue_response(conn, status, r);
    MHD_destroy_response(r);
    return rc;
}

/* "A.B.C.D:PORT" into sa (loopback IPv4 only: this is a local sample, never a public one). */
static int parse_listen(const char *s, struct sockaddr_in *sa)
{
    char host[INET_ADDRSTRLEN];
    const char *colon = strrchr(s, ':');
    int64_t port;
    if (!colon || (size_t)(colon - s) >= sizeof host)
        return -1;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    if (inet_pton(AF_INET, host, &sa->sin_addr) != 1 || (ntohl(sa->sin_addr.s_addr) >> 24) != 127)
        return -1;
    if (qp_parse_int(colon + 1, &port) < 0 || port < 1 || port > 65535)
        return -1;
    sa->sin_port = htons((uint16_t)port);
    return 0;
}

int cli_demo_sources(int argc, char **argv)
{
    static const struct option opts[] = {{"listen", required_argument, NULL, 'l'},
                                         {NULL, 0, NULL, 0}};
    static const char *names[] = {"Demo Sports Daily", "Sample Gridiron Gazette",
                                  "Example Football Weekly", "Mock Stadium Times"};
    enum { MAX = sizeof names / sizeof names[0] };
    struct publisher pubs[MAX];
    size_t n = 0;
    int c;
    optind = 1;
    while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
        if (c != 'l')
            return cli_usage(demo_usage);
        if (n == MAX)
            return cli_refuse("at most %d --listen addresses", MAX);
        pubs[n].listen = optarg;
        pubs[n].name = names[n];
        n++;
    }
    if (optind != argc)
        return cli_usage(demo_usage);
    if (n == 0) {
        pubs[0] = (struct publisher){"127.0.0.2:8091", names[0]};
        pubs[1] = (struct publisher){"127.0.0.3:8091", names[1]};
        n = 2;
    }
    struct MHD_Daemon *d[MAX] = {0};
    int rc = CLI_OK;
    for (size_t i = 0; i < n && rc == CLI_OK; i++) {
        struct sockaddr_in sa;
        if (parse_listen(pubs[i].listen, &sa) < 0) {
            rc = cli_refuse("--listen %s: want a loopback IPv4 address and port (127.0.0.2:8091)",
                            pubs[i].listen);
            break;
        }
        d[i] = MHD_start_daemon(MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG, 0, NULL, NULL,
                                on_request, &pubs[i], MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&sa,
                                MHD_OPTION_END);
        if (!d[i])
            rc = cli_refuse("cannot listen on %s (in use?)", pubs[i].listen);
    }
    if (rc == CLI_OK) {
        signal(SIGINT, on_signal);
        signal(SIGTERM, on_signal);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, "demo-sources: %s at http://%s/stories/late-hit\n", pubs[i].name,
                    pubs[i].listen);
        fputs("demo-sources: start the server with", stderr);
        for (size_t i = 0; i < n; i++)
            fprintf(stderr, " --allow-fetch %s", pubs[i].listen);
        fputs("\n", stderr);
        while (!stop)
            pause();
    }
    for (size_t i = 0; i < n; i++)
        if (d[i])
            MHD_stop_daemon(d[i]);
    return rc;
}
