/*
 * /developers (api-v1.md: "Registration and key management page"): how to submit leads,
 * and, for a signed-in user with a verified email, their agent keys: create (the secret
 * shown once), list, revoke. Keys come from the same use cases as `whistle key`
 * (app/keys.c), which decide who may create or revoke a key.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "app/accounts.h"
#include "domain/account.h"
#include "domain/agentkey.h"
#include "util/html.h"
#include "util/log.h"
#include "util/timefmt.h"
#include "util/uuid.h"
#include "web/web.h"

struct portal {
    const struct session_row *sess; /* NULL: signed out */
    const char *notice, *error;
    const char *new_key, *new_key_name; /* a key just created: shown once */
    int64_t now;
};

static void when(struct buf *b, int64_t us)
{
    if (us == INT64_MIN)
        html_raw(b, "never");
    else
        web_time(b, us);
}

/* One key of the list. Each cell names its column (data-label) so that on a phone, where
 * the table becomes one card per key (static.c), Revoke stays on screen; Revoke links to
 * a confirmation page (a step that needs no JavaScript) whose form does the POST. */
static void key_row(struct buf *b, const struct key_info *k)
{
    html_fmt(b,
             "<tr data-key-id=\"%a\"><td class=\"key-name\" data-label=\"Name\">%t</td><td "
             "data-label=\"Prefix\"><code class=\"key-prefix\">%t…</code></td><td "
             "class=\"key-created\" data-label=\"Created\">",
             k->id, k->name ? k->name : "(no name)", k->prefix);
    when(b, k->created_at);
    html_raw(b, "</td><td class=\"key-used\" data-label=\"Last used\">");
    when(b, k->last_used_at);
    html_raw(b, "</td><td class=\"key-expires\" data-label=\"Expires\">");
    when(b, k->expires_at);
    html_fmt(b,
             "</td><td class=\"key-state\" data-label=\"State\">%t</td><td "
             "class=\"key-actions\">",
             agent_key_state_name(k->state));
    if (k->revoked_at == INT64_MIN) {
        html_fmt(b,
                 "<a class=\"button revoke-link\" href=\"/developers/keys/%a/revoke\">"
                 "Revoke</a>",
                 k->id);
    }
    html_raw(b, "</td></tr>");
}

/* The part of the page about the user's own keys. */
static int keys_section(struct request *req, struct store *s, const struct portal *p)
{
    struct buf *b = &req->out;
    html_raw(b, "<section id=\"keys\"><h2>Your agent keys</h2>");
    if (!p->sess) {
        html_raw(b, "<p id=\"signed-out\">Agent keys are created by signed-in users with a "
                    "verified email address. <a href=\"/account/signin?next=/developers\">Sign "
                    "in</a> or <a href=\"/account/signup\">create an account</a> to get one.</p>"
                    "</section>");
        return 0;
    }
    const struct account_row *a = &p->sess->account;
    char csrf[ACCOUNT_CSRF_LEN + 1];
    account_session_csrf(p->sess->hash, csrf);
    html_fmt(b, "<p>Signed in as <strong>%t</strong> · <a href=\"/account\">Account</a></p>",
             a->email);
    web_text_if(b, "<p class=\"notice\" id=\"notice\">", p->notice, "</p>");
    web_form_error(b, p->error);
    if (p->new_key) {
        html_fmt(b,
                 "<div id=\"new-key\" class=\"notice\"><p>Your new key <strong>%t</strong>. "
                 "Copy it now: <strong>it is shown only this once</strong> (Whistle stores "
                 "only a hash of it).</p><code class=\"secret\" id=\"new-key-secret\">%t</code>"
                 "<p><button type=\"button\" id=\"copy-key\" hidden>Copy the key</button></p>"
                 "</div>",
                 p->new_key_name, p->new_key);
    }
    struct app_ctx c = web_app_ctx(req, s, p->now);
    int64_t active = 0;
    enum key_outcome may = key_may_create(&c, req->cfg->limits, a, &active);
    if (may == KEY_UNAVAILABLE)
        return -1;
    if (may == KEY_SUSPENDED) {
        html_raw(b, "<p class=\"error\" id=\"banned\">This account is suspended: its keys do not "
                    "work and no key can be created.</p>");
    } else if (may == KEY_UNVERIFIED) {
        html_fmt(b,
                 "<div id=\"unverified\"><p>You cannot create agent keys yet: your email "
                 "address <strong>%t</strong> is not verified. Open the link we emailed you "
                 "when you signed up (it lasts 24 hours), or ask for a new one.</p><form "
                 "id=\"resend-form\" class=\"inline-form\" method=\"post\" "
                 "action=\"/account/resend-verification\">",
                 a->email);
        web_hidden(b, "csrf", csrf);
        html_raw(b, "<button type=\"submit\">Send a new verification link</button></form></div>");
    } else if (may == KEY_LIMIT) {
        html_printf(b,
                    "<p id=\"key-limit\">You have %lld active keys, the most an account may "
                    "have. Revoke one to create another.</p>",
                    (long long)active);
    } else {
        html_raw(b, "<form id=\"create-key-form\" class=\"account-form\" method=\"post\" "
                    "action=\"/developers/keys\">");
        web_hidden(b, "csrf", csrf);
        html_printf(b,
                    "<label>Key name <input type=\"text\" name=\"name\" required "
                    "maxlength=\"100\" placeholder=\"my-lead-bot\"></label><p class=\"note\">"
                    "A name to recognise the key by. An account may have %d active keys; "
                    "each lasts 90 days.</p><button type=\"submit\">Create a key</button>"
                    "</form>",
                    req->cfg->limits->max_agent_keys);
    }
    html_raw(b, "<div class=\"table-wrap\"><table class=\"keys\" id=\"key-list\"><thead><tr>"
                "<th>Name</th><th>Prefix</th><th>Created</th><th>Last used</th><th>Expires</th>"
                "<th>State</th><th></th></tr></thead><tbody>");
    struct key_info *keys;
    size_t n;
    if (key_list(&c, a->email, &keys, &n) != KEY_OK)
        return -1;
    for (size_t i = 0; i < n; i++)
        key_row(b, &keys[i]);
    if (n == 0)
        html_raw(b, "<tr><td colspan=\"7\">No keys yet.</td></tr>");
    html_raw(b, "</tbody></table></div></section>");
    return 0;
}

/* What a developer needs to submit leads (docs/agents.md in short). */
static void guide(struct request *req)
{
    struct buf *b = &req->out;
    const char *base = req->cfg->base_url;
    html_fmt(b,
             "<section id=\"guide\"><h2>What a lead is, and is not</h2><p>A <em>lead</em> "
             "points Whistle at a possible officiating event in a specific game: a short "
             "description and one to five source URLs. A lead is never a verdict and never "
             "permission to publish, vote, comment or speak for anyone: Whistle researches "
             "every lead itself and applies its own publication gates. Your confidence is "
             "recorded as your opinion only.</p><h2>Submit a lead with curl</h2><p>1. Create a "
             "key below and keep it in an environment variable: <code>export "
             "WHISTLE_KEY=wk_…</code></p><p>2. Find the game: its <code>id</code> is the "
             "lead's <code>game_id</code>.</p><pre class=\"sample\" tabindex=\"0\"><code>curl "
             "-s '%t/api/v1/games?sort=recent&amp;limit=5'</code></pre><p>3. Submit the lead "
             "(a fresh <code>Idempotency-Key</code> for every new lead):</p><pre "
             "class=\"sample\" tabindex=\"0\"><code>curl -si %t",
             base, base);
    html_raw(b, "/api/v1/agent-leads \\\n  -H \"Authorization: Bearer $WHISTLE_KEY\" \\\n"
                "  -H \"Idempotency-Key: lead-2025-11-29-osu-mich-01\" \\\n"
                "  -H \"Content-Type: application/json\" \\\n"
                "  -d '{\"game_id\": \"cfb:2024-w14-mich-osu\",\n"
                "       \"description\": \"Late hit out of bounds on the quarterback not "
                "flagged\",\n"
                "       \"source_urls\": [\"https://www.example.com/story/123\"],\n"
                "       \"period\": 4, \"clock\": \"2:13\", \"category\": \"penalty\", "
                "\"confidence\": 70}'</code></pre>"
                "<p>The answer is <code>202 Accepted</code> with the lead's id and a "
                "<code>links.self</code> URL (also in <code>Location</code>).</p><p>4. Follow "
                "the lead: poll <code>links.self</code> with the same key.</p><pre "
                "class=\"sample\" tabindex=\"0\"><code>curl -s "
                "-H \"Authorization: Bearer $WHISTLE_KEY\" ");
    html_text(b, base);
    html_raw(b, "/api/v1/agent-leads/LEAD_ID</code></pre><p>Its <code>status</code> moves "
                "from <code>pending</code> through <code>running</code> to "
                "<code>published</code>, <code>rejected</code>, <code>duplicate</code> or "
                "<code>failed</code>; <code>incidentId</code> names the incident once it is "
                "public.</p>"
                "<h2>The body</h2><ul><li><code>game_id</code> (required): a game of "
                "<code>GET /api/v1/games</code>, at most 255 characters.</li>"
                "<li><code>description</code> (required): 10 to 5000 characters.</li>"
                "<li><code>source_urls</code> (required): 1 to 5 http(s) URLs.</li>"
                "<li><code>period</code> (1 to 30), <code>clock</code> (<code>M:SS</code>, "
                "minutes 0 to 15), <code>category</code> (penalty, replay, clock, spot, "
                "targeting, other) and <code>confidence</code> (0 to 100): optional, may be "
                "null.</li></ul><p>Any other field is refused with 400.</p>"
                "<h2>Idempotency</h2><p>Every submission carries an <code>Idempotency-Key</code> "
                "header of 8 to 128 characters (<code>a-z A-Z 0-9 _ . : -</code>). Retrying the "
                "unchanged payload with the same key returns the original answer and creates "
                "nothing; the same key with a changed payload is <code>409</code>. Keys are "
                "remembered for 7 days per account.</p>"
                "<h2>Quotas</h2><p>3 leads per minute and 20 per rolling 24 hours per account "
                "(all its keys together), and 200 per day for all agents. Past a limit the "
                "answer is <code>429</code> with <code>Retry-After</code>; every answer carries "
                "<code>RateLimit-Policy</code> and <code>RateLimit</code> headers.</p>"
                "<h2>Keys and errors</h2><p>A key (<code>wk_…</code>) is shown once when it is "
                "created and lasts 90 days. Keep it private. A missing key is <code>401</code>; "
                "an invalid, expired, revoked or banned key is <code>403</code>. Every error "
                "body is <code>{\"error\":{\"code\",\"message\"}}</code>.</p><p>The full "
                "description: <a href=\"/api/v1/openapi.json\">OpenAPI document</a>.</p>"
                "</section>");
}

static void portal_page(struct request *req, struct store *s, int status, const struct portal *p)
{
    struct buf *b = &req->out;
    buf_reset(b);
    web_page_begin(b, "Developers");
    html_raw(b, "<h1>Developers: submit leads with an agent key</h1><p>Agents (automated "
                "clients) can point Whistle at possible officiating events through the lead API. "
                "Public reads need no key.</p>");
    if (keys_section(req, s, p) < 0) {
        web_unavailable(req);
        return;
    }
    guide(req);
    html_raw(b, "<script src=\"/static/developers.js\" defer></script>");
    web_page_reply(req, status);
}

static const char *const notices[] = {"sent", "revoked", NULL};

void web_developers(struct request *req)
{
    static const struct qp_spec specs[] = {{"notice", QP_ENUM, 0, 0, 0, notices}};
    struct qp_value v[1];
    if (web_query(req, specs, 1, v) < 0)
        return;
    struct session_row sess;
    struct portal p = {.now = time_now_us()};
    int signed_in;
    struct store *s = web_page_store(req, p.now, &sess, &signed_in);
    if (!s)
        return;
    p.sess = signed_in ? &sess : NULL;
    if (v[0].set)
        p.notice = v[0].i == 0 ? "We sent a new verification link to your email address."
                               : "The key is revoked: it stopped working at once.";
    portal_page(req, s, 200, &p);
}

void web_key_create(struct request *req)
{
    static const char *const names[] = {"csrf", "name", NULL};
    struct web_post post;
    if (web_session_form(req, &post, names) < 0)
        return;
    struct portal p = {.now = post.c.now, .sess = &post.sess};
    struct key_request in = {.account = &post.sess.account, .name = post.f.v[1]};
    struct key_new k;
    switch (key_create(&post.c, req->cfg->limits, &in, &k)) {
    case KEY_OK:
        log_info("accounts", "agent key %s created rid=%s", k.id, req->id);
        /* the page that shows the secret is the answer to this POST: it is never stored, so
         * it cannot be shown again */
        p.new_key = k.secret;
        p.new_key_name = k.name;
        portal_page(req, post.c.s, 200, &p);
        key_new_wipe(&k);
        break;
    case KEY_SUSPENDED:
        p.error = "This account is suspended: no key can be created.";
        portal_page(req, post.c.s, 403, &p);
        break;
    case KEY_UNVERIFIED:
        p.error = "Verify your email address first: open the link we emailed you.";
        portal_page(req, post.c.s, 403, &p);
        break;
    case KEY_BAD_NAME:
        p.error = k.problem;
        portal_page(req, post.c.s, 400, &p);
        break;
    case KEY_LIMIT:
        p.error = "You already have the most active keys an account may have: revoke one "
                  "first.";
        portal_page(req, post.c.s, 409, &p);
        break;
    default:
        web_unavailable(req);
    }
}

/* The key ID of a /developers/keys/{id}/… URL, normalized; -1 after the 404 page. */
static int key_id_of(struct request *req, char id[UUID_STR_LEN + 1])
{
    if (uuid_normalize(req->param, id) >= 0)
        return 0;
    web_error_page(req, 404, "no such key");
    return -1;
}

/* GET /developers/keys/{id}/revoke: "Revoke this key?" with the key's name and prefix, a
 * button that posts the revocation and a way back. Signed out: to sign-in; a key that is not
 * this account's: 404. */
void web_key_revoke_confirm(struct request *req)
{
    if (web_no_query(req) < 0)
        return;
    struct session_row sess;
    int signed_in;
    int64_t now = time_now_us();
    struct store *s = web_page_store(req, now, &sess, &signed_in);
    if (!s)
        return;
    if (!signed_in) {
        web_redirect(req, 303, "/account/signin?next=/developers");
        return;
    }
    char id[UUID_STR_LEN + 1];
    if (key_id_of(req, id) < 0)
        return;
    struct app_ctx c = web_app_ctx(req, s, now);
    struct key_info *keys;
    size_t n;
    if (key_list(&c, sess.account.email, &keys, &n) != KEY_OK) {
        web_unavailable(req);
        return;
    }
    const struct key_info *k = NULL;
    for (size_t i = 0; i < n && !k; i++)
        if (strcmp(keys[i].id, id) == 0)
            k = &keys[i];
    if (!k) {
        web_error_page(req, 404, "no such key");
        return;
    }
    char csrf[ACCOUNT_CSRF_LEN + 1];
    account_session_csrf(sess.hash, csrf);
    struct buf *b = &req->out;
    web_page_begin(b, "Revoke an agent key");
    html_fmt(b,
             "<h1>Revoke the key “<span id=\"revoke-name\">%t</span>”?</h1><p>Key <code>"
             "%t…</code>, created ",
             k->name ? k->name : "(no name)", k->prefix);
    when(b, k->created_at);
    html_raw(b, ", last used ");
    when(b, k->last_used_at);
    html_raw(b, ".</p>");
    if (k->revoked_at != INT64_MIN) {
        html_raw(b, "<p id=\"already-revoked\">This key is already revoked.</p><p><a "
                    "href=\"/developers\">Back to your keys</a></p>");
    } else {
        html_fmt(b,
                 "<p class=\"warning\">Revoking is immediate and cannot be undone: every agent "
                 "using this key gets 403 from its next request. Create a new key first if an "
                 "agent still needs one.</p><form id=\"revoke-form\" class=\"confirm-form\" "
                 "method=\"post\" action=\"/developers/keys/%a/revoke\">",
                 k->id);
        web_hidden(b, "csrf", csrf);
        html_raw(b, "<button type=\"submit\">Revoke this key</button> <a id=\"cancel\" "
                    "href=\"/developers\">Cancel, keep it</a></form>");
    }
    web_page_reply(req, 200);
}

void web_key_revoke(struct request *req)
{
    struct web_post post;
    if (web_session_form(req, &post, web_csrf_only) < 0)
        return;
    char id[UUID_STR_LEN + 1];
    if (key_id_of(req, id) < 0)
        return;
    switch (key_revoke(&post.c, post.sess.account.id, id)) {
    case KEY_OK:
    case KEY_ALREADY_REVOKED:
        log_info("accounts", "agent key %s revoked rid=%s", id, req->id);
        web_redirect(req, 303, "/developers?notice=revoked");
        break;
    case KEY_NOT_FOUND:
        web_error_page(req, 404, "no such key");
        break;
    default:
        web_unavailable(req);
    }
}
