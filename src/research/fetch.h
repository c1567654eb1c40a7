#ifndef WHISTLE_RESEARCH_FETCH_H
#define WHISTLE_RESEARCH_FETCH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * Outbound fetches for lead research (issue 4 step 3; ARCHITECTURE.md security rules):
 * http/https only, the resolved address checked at every connection and redirect
 * (domain/address.h), no proxy, at most max_redirects redirects, time and byte caps. The
 * allow list names exact "ip:port" pairs that may be fetched although they are not
 * public; only tests set it.
 */
#define FETCH_MAX_BYTES_DEFAULT   (2 << 20) /* bytes */
#define FETCH_TIMEOUT_MS_DEFAULT  10000     /* whole transfer */
#define FETCH_DEADLINE_MS_DEFAULT 15000     /* every source of one lead, together */

struct fetch_policy {
    size_t max_bytes;   /* default FETCH_MAX_BYTES_DEFAULT */
    long timeout_ms;    /* default FETCH_TIMEOUT_MS_DEFAULT */
    long max_redirects; /* default 3 */
    const char *const *allow;
    size_t nallow;
    long deadline_ms; /* fetch_urls: all of them together; 0: timeout_ms */
};

#define FETCH_POLICY_DEFAULT                                                                       \
    {                                                                                              \
        FETCH_MAX_BYTES_DEFAULT, FETCH_TIMEOUT_MS_DEFAULT, 3, NULL, 0, FETCH_DEADLINE_MS_DEFAULT   \
    }

struct fetch_result {
    char *final_url;    /* malloc'd, or NULL */
    long status;        /* HTTP status, -1 when no response */
    char *content_type; /* malloc'd, or NULL */
    char *title;        /* og:title, else <title>; malloc'd, or NULL */
    char *publisher;    /* og:site_name; malloc'd, or NULL */
    char *text;         /* the readable text: an HTML page's text outside script and
                           style, a text/plain body as it is; malloc'd, or NULL */
    size_t text_len;
    char hash[65]; /* hex SHA-256 of the body, "" when none */
    size_t bytes;
    long redirects;
    int64_t fetched_at;
    const char *error; /* NULL, or a static code: blocked_address, bad_scheme, bad_url,
                          too_many_redirects, too_large, timeout, unresolvable, unreachable,
                          stopped (fetch_urls: the worker is stopping) */
};

/* Call once before any fetch (curl_global_init). */
void fetch_global_init(void);

/* Fetches url under the policy at `now`. Returns 0 when a response was received (any HTTP
 * status), -1 with out->error set otherwise. Release out with fetch_result_release(). */
int fetch_url(const struct fetch_policy *p, const char *url, int64_t now, struct fetch_result *out);

/* Fetches the n urls in parallel (libcurl's multi interface, one thread), each under the
 * same rules as fetch_url (one easy handle setup for both) and its own timeout_ms, and all
 * of them within p->deadline_ms: what is still running then ends with error "timeout". When
 * *stop becomes true (checked every 100 ms; stop may be NULL) every transfer still running
 * is abandoned with error "stopped" and -1 is returned; else 0. out[i] is the result of
 * urls[i]; release each with fetch_result_release(). */
int fetch_urls(const struct fetch_policy *p, const char *const *urls, int n, int64_t now,
               const atomic_bool *stop, struct fetch_result *out);
void fetch_result_release(struct fetch_result *r);

/* Title and publisher of an HTML document (exposed for tests); malloc'd or NULL. With text
 * not NULL, also its readable text (outside script, style and noscript) into a buf. */
struct buf;
void fetch_html_meta(const char *html, size_t len, char **title, char **publisher,
                     struct buf *text);

#endif
