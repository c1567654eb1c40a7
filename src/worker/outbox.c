/*
 * The email outbox (issue 6): messages are queued by the web handlers in the same
 * transaction as the change they announce, and delivered here, one per unit of work. A
 * message is claimed with a lease (store/accounts.c), so several workers never send one
 * twice; a failed delivery is retried with back-off and given up after
 * OUTBOX_MAX_ATTEMPTS. A delivered message keeps its headers but loses its body, which
 * holds a single-use link.
 *
 * A send in progress when the worker stops is abandoned within about a second (libcurl's
 * progress callback, on_progress) and recorded as a failed attempt, retried with the usual
 * back-off: stopping never waits for a silent relay's 60 s timeout, and never loses a
 * message (it may be sent twice if the relay had taken it already).
 *
 * Without --smtp-url the message is written to the log instead, link included, so that a
 * development server (`make run`) works without a mail server. That is the one place where
 * a credential-like value (a single-use, expiring link) reaches the log: never run a
 * production server without --smtp-url (docs/operators.md).
 */
#include <curl/curl.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "app/accounts.h"
#include "domain/account.h"
#include "store/accounts.h"
#include "util/arena.h"
#include "util/buf.h"
#include "util/log.h"
#include "worker/worker.h"

/* The host of a base URL ("https://whistle.example:8443/x" → "whistle.example"). */
static void url_host(const char *url, char *out, size_t n)
{
    const char *p = strstr(url, "://");
    p = p ? p + 3 : url;
    size_t len = strcspn(p, ":/?#");
    if (len == 0 || len >= n) {
        snprintf(out, n, "localhost");
        return;
    }
    memcpy(out, p, len);
    out[len] = '\0';
}

/* The bare address of a From value ("Whistle <a@b>" → "a@b"). */
static void bare_address(const char *from, char *out, size_t n)
{
    const char *lt = strchr(from, '<'), *gt = lt ? strchr(lt, '>') : NULL;
    if (lt && gt && gt > lt + 1)
        snprintf(out, n, "%.*s", (int)(gt - lt - 1), lt + 1);
    else
        snprintf(out, n, "%s", from);
}

/* RFC 5322 message: headers, a blank line, the body with CRLF line ends. Header values
 * come from the server (subject) or were validated (recipient: printable ASCII). */
static void format_message(struct buf *m, const char *from, const char *to, const char *subject,
                           const char *body, const char *id, const char *host, int64_t now)
{
    char date[64];
    time_t t = (time_t)(now / 1000000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(date, sizeof date, "%a, %d %b %Y %H:%M:%S +0000", &tm);
    buf_printf(m,
               "Date: %s\r\nFrom: %s\r\nTo: %s\r\nSubject: %s\r\nMessage-ID: <%s@%s>\r\n"
               "MIME-Version: 1.0\r\nContent-Type: text/plain; charset=utf-8\r\n"
               "Content-Transfer-Encoding: 8bit\r\nAuto-Submitted: auto-generated\r\n\r\n",
               date, from, to, subject, id, host);
    for (const char *p = body; *p; p++) {
        if (*p == '\n')
            buf_putc(m, '\r');
        buf_putc(m, *p);
    }
}

struct upload {
    const char *p;
    size_t left;
};

static size_t read_cb(char *dst, size_t size, size_t nmemb, void *ctx)
{
    struct upload *u = ctx;
    size_t n = size * nmemb < u->left ? size * nmemb : u->left;
    memcpy(dst, u->p, n);
    u->p += n;
    u->left -= n;
    return n;
}

/* libcurl calls this at least once a second during a transfer, whatever the relay does:
 * a send stuck on a silent relay is abandoned soon after the worker is told to stop. */
static int on_progress(void *ctx, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
                       curl_off_t ulnow)
{
    (void)dltotal, (void)dlnow, (void)ultotal, (void)ulnow;
    const atomic_bool *stop = ctx;
    return stop && atomic_load(stop) ? 1 : 0;
}

/* Sends one message through the relay; 0, or -1 with the reason in err. */
static int smtp_send(const struct worker_config *cfg, const char *from_addr, const char *to,
                     const struct buf *msg, char *err, size_t errlen)
{
    CURL *c = curl_easy_init();
    if (!c) {
        snprintf(err, errlen, "cannot start libcurl");
        return -1;
    }
    struct curl_slist *rcpt = curl_slist_append(NULL, to);
    struct upload u = {msg->p, msg->len};
    char curl_err[CURL_ERROR_SIZE] = "";
    curl_easy_setopt(c, CURLOPT_URL, cfg->smtp_url);
    curl_easy_setopt(c, CURLOPT_MAIL_FROM, from_addr);
    curl_easy_setopt(c, CURLOPT_MAIL_RCPT, rcpt);
    curl_easy_setopt(c, CURLOPT_READFUNCTION, read_cb);
    curl_easy_setopt(c, CURLOPT_READDATA, &u);
    curl_easy_setopt(c, CURLOPT_UPLOAD, 1L);
    curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
    curl_easy_setopt(c, CURLOPT_TIMEOUT, 60L);
    curl_easy_setopt(c, CURLOPT_ERRORBUFFER, curl_err);
    curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "smtp,smtps");
    curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, on_progress);
    curl_easy_setopt(c, CURLOPT_XFERINFODATA, (void *)cfg->stop);
    if (cfg->smtp_user) {
        /* credentials never travel in the clear: STARTTLS (or smtps) is required */
        curl_easy_setopt(c, CURLOPT_USERNAME, cfg->smtp_user);
        curl_easy_setopt(c, CURLOPT_PASSWORD, cfg->smtp_password ? cfg->smtp_password : "");
        curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_ALL);
    } else {
        curl_easy_setopt(c, CURLOPT_USE_SSL, (long)CURLUSESSL_TRY);
    }
    CURLcode rc = curl_easy_perform(c);
    long code = 0;
    curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
    if (rc == CURLE_ABORTED_BY_CALLBACK)
        snprintf(err, errlen, "interrupted: the worker is stopping (retried later)");
    else if (rc != CURLE_OK)
        snprintf(err, errlen, "%s (SMTP %ld)%s%s", curl_easy_strerror(rc), code,
                 curl_err[0] ? ": " : "", curl_err);
    curl_slist_free_all(rcpt);
    curl_easy_cleanup(c);
    return rc == CURLE_OK ? 0 : -1;
}

/* Log mode: one line with the message, its line breaks shown as " | ". */
static void log_message(const char *to, const char *subject, const char *body)
{
    struct buf flat = BUF_INIT;
    for (const char *p = body; *p; p++) {
        if (*p == '\n') {
            while (p[1] == '\n')
                p++;
            buf_puts(&flat, " | ");
        } else {
            buf_putc(&flat, *p);
        }
    }
    log_info("mail",
             "no --smtp-url, so the message goes to this log instead of a mail server: to=%s "
             "subject=\"%s\" body: %s",
             to, subject, flat.p);
    buf_release(&flat);
}

int outbox_deliver(struct store *s, const struct worker_config *cfg, int64_t now)
{
    struct arena a;
    arena_init(&a);
    struct outbox_msg m;
    /* a row write: the claim locks the message it picks and skips those another worker's
     * claim holds (outbox_claim), then re-checks the lease */
    int rc = store_begin_row_write(s);
    if (rc >= 0)
        rc = outbox_claim(s, &a, now, cfg->lease_us, &m);
    if (rc <= 0) {
        store_rollback(s);
        arena_release(&a);
        return rc;
    }
    if ((rc = store_commit(s)) < 0) {
        store_rollback(s);
        arena_release(&a);
        return rc;
    }
    char err[512] = "", host[256], from_default[300], from_addr[300];
    url_host(cfg->base_url, host, sizeof host);
    snprintf(from_default, sizeof from_default, "Whistle <no-reply@%s>", host);
    const char *from = cfg->mail_from ? cfg->mail_from : from_default;
    bare_address(from, from_addr, sizeof from_addr);
    int sent;
    if (cfg->smtp_url) {
        struct buf msg = BUF_INIT;
        format_message(&msg, from, m.recipient, m.subject, m.body, m.id, host, now);
        sent = smtp_send(cfg, from_addr, m.recipient, &msg, err, sizeof err) == 0;
        buf_release(&msg);
    } else {
        log_message(m.recipient, m.subject, m.body);
        sent = 1;
    }
    int64_t retry = sent ? 0 : account_outbox_retry_at(m.attempts, now);
    if (sent && !cfg->smtp_url)
        log_info("mail", "message %s written to the log (attempt %d)", m.id, m.attempts);
    else if (sent)
        log_info("mail", "message %s sent (attempt %d)", m.id, m.attempts);
    else if (retry == INT64_MIN)
        log_warn("mail", "message %s given up after %d attempts: %s", m.id, m.attempts, err);
    else
        log_warn("mail", "message %s not sent (attempt %d, retried later): %s", m.id, m.attempts,
                 err);
    rc = store_begin_row_write(s); /* the claimed message's row alone */
    if (rc >= 0)
        rc = sent ? outbox_sent(s, m.id, now) : outbox_failed(s, m.id, now, retry, err);
    if (rc >= 0)
        rc = store_commit(s);
    if (rc < 0)
        store_rollback(s); /* the lease runs out and the message is tried again */
    arena_release(&a);
    return rc < 0 ? rc : 1;
}

int reset_requests_step(struct store *s, const struct worker_config *cfg, int64_t now)
{
    struct arena a;
    arena_init(&a);
    struct app_ctx ctx = {.s = s, .a = &a, .now = now, .actor = "worker"};
    int rc = account_forgot_process(&ctx, cfg->base_url);
    arena_release(&a);
    return rc;
}
