/*
 * Human pages: home, incident, game (docs/pages.md). Results follow the spec's display
 * conventions (api-v1.md Votes rule 4) through domain/votes.h.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "api/api.h"
#include "app/import.h"
#include "app/incident.h"
#include "domain/account.h"
#include "domain/voter.h"
#include "domain/votes.h"
#include "http/reply.h"
#include "store/games.h"
#include "store/incidents.h"
#include "store/votes.h"
#include "util/html.h"
#include "util/timefmt.h"
#include "web/results.h"
#include "web/web.h"

static const char csp[] = "default-src 'none'; script-src 'self'; style-src 'self'; "
                          "img-src 'self'; connect-src 'self'; form-action 'self'; "
                          "base-uri 'none'; frame-ancestors 'none'";

void web_page_begin(struct buf *b, const char *title)
{
    html_fmt(b,
             "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta "
             "name=\"viewport\" content=\"width=device-width, initial-scale=1\"><title>%t — "
             "Whistle</title><link rel=\"stylesheet\" href=\"/static/whistle.css\"><link "
             "rel=\"alternate\" type=\"application/rss+xml\" title=\"Whistle debates\" "
             "href=\"/incidents/feed.xml\"></head><body><header><a class=\"brand\" href=\"/\">"
             "Whistle</a><nav id=\"site-nav\"><a href=\"/?league=college\">College</a> <a "
             "href=\"/?league=nfl\">NFL</a> <a href=\"/games\">Games</a> <a "
             "href=\"/incidents/feed.xml\">RSS</a> <a href=\"/developers\">Developers</a> <a "
             "href=\"/account\">Account</a></nav></header><main>",
             title);
}

void web_page_end(struct buf *b)
{
    html_raw(b, "</main><footer><p>Fan votes are informal opinions about calls, not rulings: "
                "they do not establish whether a call was wrong, and aggregates are raw "
                "arithmetic, not representative surveys.</p></footer>"
                "<script src=\"/static/vote.js\" defer></script></body></html>\n");
}

void web_page_reply(struct request *req, int status)
{
    web_page_end(&req->out);
    web_reply_html(req, status);
}

void web_reply_html(struct request *req, int status)
{
    reply_header(req, "Content-Security-Policy", csp);
    reply_header(req, "Referrer-Policy", "same-origin");
    reply_body(req, status, "text/html; charset=utf-8");
}

struct buf *web_page_titled(struct request *req, const char *title)
{
    struct buf *b = &req->out;
    buf_reset(b);
    web_page_begin(b, title);
    html_fmt(b, "<h1>%t</h1>", title);
    return b;
}

void web_error_page(struct request *req, int status, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    buf_reset(&req->out);
    web_page_begin(&req->out, status == 404 ? "Not found" : "Error");
    html_fmt(&req->out,
             "<h1>%d</h1><p class=\"error\">%t</p><p><a href=\"/\">Latest debates</a>"
             "</p>",
             status, msg);
    web_page_reply(req, status);
}

void web_form_refused(struct request *req, enum web_refusal why, const char *back)
{
    static const char *const titles[] = {"We could not accept this form", "This form has expired",
                                         "You are signed out"};
    bool origin = why == WEB_REFUSED_ORIGIN;
    web_page_titled(req, titles[why]);
    html_raw(&req->out, "<p class=\"error\" id=\"refusal\">");
    if (why == WEB_REFUSED_SIGNED_OUT) {
        html_text(&req->out, "Your session has ended (or you never signed in on this "
                             "browser), so nothing was saved. Sign in, then try again.");
    } else if (origin) {
        html_text(&req->out, "It did not come from one of Whistle's own pages, so, to protect "
                             "you, nothing was saved. Go back to the page, reload it, and "
                             "send the form from there. Whistle's pages are at ");
        html_text(&req->out, req->cfg->base_url);
        html_text(&req->out, ".");
    } else {
        html_text(&req->out, "The page was open too long, or your browser did not send "
                             "Whistle's cookie, so nothing was saved. Go back, reload the page "
                             "and try again (Whistle needs cookies to accept a form).");
    }
    html_fmt(&req->out,
             "</p><p><a id=\"back\" href=\"%a\">%r</a> · <a href=\"/\">Latest debates</a></p>",
             back && back[0] == '/' ? back : "/",
             why == WEB_REFUSED_SIGNED_OUT ? "Sign in" : "Back to the page");
    web_page_reply(req, 403);
}

void web_unavailable(struct request *req)
{
    web_error_page(req, 503, "%s", reply_retry_later(req, REPLY_UNAVAILABLE));
}

void web_password_busy(struct request *req)
{
    web_error_page(req, 503, "%s", reply_retry_later(req, REPLY_PASSWORD_BUSY));
}

int web_query(struct request *req, const struct qp_spec *specs, size_t n, struct qp_value *v)
{
    char err[300];
    if (http_query_check(req, specs, n, v, err, sizeof err) < 0) {
        web_error_page(req, 400, "%s", err);
        return -1;
    }
    return 0;
}

int web_no_query(struct request *req)
{
    struct qp_value none[1];
    return web_query(req, NULL, 0, none);
}

void web_text_if(struct buf *b, const char *before, const char *text, const char *after)
{
    if (!text)
        return;
    html_fmt(b, "%r%t%r", before, text, after);
}

void web_redirect(struct request *req, int status, const char *path)
{
    struct buf b = BUF_INIT;
    buf_printf(&b, "%s%s", web_browser_origin(req), path);
    reply_header(req, "Location", arena_strdup(&req->arena, b.p));
    buf_reset(&req->out);
    html_fmt(&req->out, "<!doctype html><title>Moved</title><a href=\"%a\">Moved here</a>\n", b.p);
    buf_release(&b);
    web_reply_html(req, status);
}

void web_time(struct buf *b, int64_t us)
{
    char t[TIME_ISO_MAX];
    time_format_iso(us, t);
    html_fmt(b, "<time datetime=\"%a\">", t);
    t[10] = ' ';
    t[16] = '\0';
    html_fmt(b, "%t UTC</time>", t);
}

static const char *maturity_text(const char *status)
{
    int m = vocab_find(maturity_names, status);
    return maturity_words[m >= 0 && maturity_words[m] ? m : MATURITY_DEVELOPING];
}

static void kickoff(struct buf *b, const struct game *g)
{
    if (g->starts_at == MODEL_NULL || g->kickoff_tbd) {
        html_raw(b, "Kickoff TBD");
        if (g->starts_at != MODEL_NULL) {
            char d[TIME_ISO_MAX];
            time_format_iso(g->starts_at, d);
            d[10] = '\0';
            html_fmt(b, " (%t)", d);
        }
        return;
    }
    html_raw(b, "Kickoff ");
    web_time(b, g->starts_at);
}

static void score(struct buf *b, const struct game *g)
{
    html_text(b, g->away.name);
    if (g->away_score != MODEL_NULL)
        html_printf(b, " %lld", (long long)g->away_score);
    html_fmt(b, " at %t", g->home.name);
    if (g->home_score != MODEL_NULL)
        html_printf(b, " %lld", (long long)g->home_score);
}

/* " · at a neutral site" when the game is not played at the home team's ground (a provider's
 * fact, docs/games.md): "at <home team>" above names the designated home side only. */
static void venue(struct buf *b, const struct game *g)
{
    if (g->neutral_site)
        html_raw(b, " · <span class=\"neutral-site\">at a neutral site</span>");
}

struct incident_filter web_filter(int64_t limit)
{
    struct incident_filter f = {.season = MODEL_NULL,
                                .week = MODEL_NULL,
                                .from = MODEL_NULL,
                                .to = MODEL_NULL,
                                .has_verdict = -1,
                                .limit = limit};
    return f;
}

int web_list(struct request *req, const struct incident_filter *f, struct incident **list,
             size_t *n, bool *more)
{
    struct app_ctx c = {.s = store_thread(), .a = &req->arena, .request_id = req->id};
    bool more_ = false;
    return c.s ? incident_list(&c, f, list, n, more ? more : &more_) : APP_UNAVAILABLE;
}

/* "College" / "NFL" for people; the data says college / nfl. */
static const char *league_name(const char *league)
{
    int l = vocab_find(league_names, league);
    return league_labels[l >= 0 ? l : LEAGUE_COLLEGE];
}

/* Where a game in progress stands (" Q3 5:12"); a finished game's last clock says nothing. */
static void game_clock(struct buf *b, const struct game *g)
{
    int st = vocab_find(game_status_names, g->status);
    char when[64];
    vocab_play_time(when, sizeof when, g->league, g->period == MODEL_NULL ? 0 : g->period,
                    g->clock);
    if ((st == GAME_STATUS_LIVE || st == GAME_STATUS_DELAYED) && when[0]) {
        html_fmt(b, " <span class=\"play-time\">%t</span>", when);
    }
}

/* "2025 Regular season, week 13" (the stage label, when the provider gave one, follows). */
static void season_week(struct buf *b, const char *season_type, int64_t season, int64_t week)
{
    html_fmt(b, "%lld %t, week %lld", (long long)season,
             vocab_label(season_type_names, season_type_labels, season_type), (long long)week);
}

/* Begins a public page in req->out: the layout with title, then the banner of a database
 * holding the bundled sample data (app/import.h), else nothing. Returns &req->out. */
static struct buf *public_page(struct request *req, const struct app_ctx *c, const char *title)
{
    struct buf *b = &req->out;
    web_page_begin(b, title);
    /* the marker beside the content version the request read for its cache token */
    if (import_sample_loaded_at(c, req->versioned ? &req->content_version : NULL) != 1)
        return b; /* a store failure shows in the page's own read */
    html_raw(b, "<p class=\"sample-banner\" id=\"sample-banner\" role=\"note\"><strong>Sample "
                "data.</strong> Every debate, vote and source on this site is invented demo data "
                "loaded from Whistle's bundled sample. It is not real reporting.</p>");
    return b;
}

static void incident_link(struct buf *b, const struct incident *i)
{
    html_fmt(b, "<li><a href=\"/incidents/%a\">%t</a> <span class=\"meta\">%t · %t at %t · %t · %t",
             i->slug ? i->slug : i->id, i->title, league_name(i->league), i->away_name,
             i->home_name, vocab_label(category_names, category_labels, i->category),
             vocab_label(maturity_names, maturity_labels, i->status));
    struct choices all = votes_overall(&i->votes);
    html_printf(b, " · %lld votes</span></li>", (long long)choices_total(&all));
}

/* The home page pages through every debate, HOME_PAGE_SIZE at a time, with the API's
 * ordering (publication time, then ID, both descending: stable for unchanged data); the
 * last page offset stays within the API's offset cap. */
#define HOME_PAGE_SIZE 30
#define HOME_PAGES_MAX (API_OFFSET_MAX / HOME_PAGE_SIZE + 1)

/* A link to page `page` (1: none) of a list at path with its filters (NULL: unset). */
static void page_href(struct buf *b, const char *path, const char *const *names,
                      const char *const *values, size_t nvalues, int64_t page)
{
    const char *sep = "?";
    html_attr(b, path);
    for (size_t k = 0; k < nvalues; k++) {
        if (!values[k] || !values[k][0])
            continue;
        html_fmt(b, "%r%r=%a", sep, names[k], values[k]);
        sep = "&amp;";
    }
    if (page > 1)
        html_printf(b, "%spage=%lld", sep, (long long)page);
}

/* The older / newer links of a paged list (<nav class="pager">); last: the highest page
 * number the list accepts. */
static void pager(struct buf *b, const char *path, const char *const *names,
                  const char *const *values, size_t nvalues, int64_t page, int64_t last, bool more,
                  const char *newer, const char *older)
{
    if (page <= 1 && !more)
        return;
    html_printf(b,
                "<nav class=\"pager\" aria-label=\"Pages\"><span class=\"page-number\">"
                "Page %lld</span>",
                (long long)page);
    if (page > 1) {
        html_raw(b, " <a rel=\"prev\" id=\"newer\" href=\"");
        page_href(b, path, names, values, nvalues, page - 1);
        html_fmt(b, "\">%t</a>", newer);
    }
    if (more && page < last) {
        html_raw(b, " <a rel=\"next\" id=\"older\" href=\"");
        page_href(b, path, names, values, nvalues, page + 1);
        html_fmt(b, "\">%t</a>", older);
    }
    html_raw(b, "</nav>");
}

void web_home(struct request *req)
{
    static const struct qp_spec specs[] = {
        {"league", QP_ENUM_OR_EMPTY, 0, 0, 0, league_names},
        {"status", QP_ENUM_OR_EMPTY, 0, 0, 0, maturity_names},
        {"page", QP_INT, 1, HOME_PAGES_MAX, 1, NULL},
    };
    static const char *const filters[] = {"league", "status"};
    struct qp_value v[3];
    if (web_query(req, specs, 3, v) < 0)
        return;
    struct incident_filter f = web_filter(HOME_PAGE_SIZE);
    f.league = v[0].s;
    f.status = v[1].s;
    f.offset = (v[2].i - 1) * HOME_PAGE_SIZE;
    struct app_ctx c = {.s = store_thread(), .a = &req->arena, .request_id = req->id};
    struct incident *list = NULL;
    size_t n = 0;
    bool more = false;
    if (!c.s || incident_list(&c, &f, &list, &n, &more) < 0) {
        web_unavailable(req);
        return;
    }
    const char *values[] = {v[0].s, v[1].s};
    struct buf *b = public_page(req, &c, "Latest officiating debates");
    html_raw(b, "<h1>Latest officiating debates</h1><form class=\"filters\" method=\"get\" "
                "action=\"/\"><label>League <select name=\"league\"><option value=\"\">All"
                "</option>");
    for (int k = 0; league_names[k]; k++) {
        html_printf(b, "<option value=\"%s\"%s>%s</option>", league_names[k],
                    v[0].s && strcmp(v[0].s, league_names[k]) == 0 ? " selected" : "",
                    league_labels[k]);
    }
    html_raw(b, "</select></label> <label>Status <select name=\"status\"><option value=\"\">"
                "All</option>");
    for (int k = 0; maturity_names[k]; k++)
        html_printf(b, "<option value=\"%s\"%s>%s</option>", maturity_names[k],
                    v[1].s && strcmp(v[1].s, maturity_names[k]) == 0 ? " selected" : "",
                    maturity_labels[k]);
    html_raw(b, "</select></label> <button>Filter</button></form><ul class=\"incidents\">");
    for (size_t i = 0; i < n; i++)
        incident_link(b, &list[i]);
    if (n == 0)
        html_raw(b,
                 v[2].i > 1 ? "<li>No debates on this page.</li>" : "<li>No debates match.</li>");
    html_raw(b, "</ul>");
    pager(b, "/", filters, values, 2, v[2].i, HOME_PAGES_MAX, more, "← Newer debates",
          "Older debates →");
    web_page_reply(req, 200);
}

/* The games index: every game, grouped by league and season, then season type and week
 * (store games_list by_week), GAMES_PAGE_SIZE a page. */
#define GAMES_PAGE_SIZE 50
#define GAMES_PAGES_MAX (API_OFFSET_MAX / GAMES_PAGE_SIZE + 1)

void web_games(struct request *req)
{
    static const struct qp_spec specs[] = {
        {"league", QP_ENUM_OR_EMPTY, 0, 0, 0, league_names},
        {"page", QP_INT, 1, GAMES_PAGES_MAX, 1, NULL},
    };
    static const char *const filters[] = {"league"};
    struct qp_value v[2];
    if (web_query(req, specs, 2, v) < 0)
        return;
    struct game_filter f = {.season = MODEL_NULL,
                            .week = MODEL_NULL,
                            .from = MODEL_NULL,
                            .to = MODEL_NULL,
                            .league = v[0].s && v[0].s[0] ? v[0].s : NULL,
                            .by_week = true,
                            .limit = GAMES_PAGE_SIZE,
                            .offset = (v[1].i - 1) * GAMES_PAGE_SIZE};
    struct app_ctx c = {.s = store_thread(), .a = &req->arena, .request_id = req->id};
    struct game *games = NULL;
    size_t n = 0;
    bool more = false;
    if (!c.s || game_list(&c, &f, &games, &n, &more) < 0) {
        web_unavailable(req);
        return;
    }
    const char *values[] = {v[0].s};
    struct buf *b = public_page(req, &c, "Games by week");
    html_fmt(b, "<h1>Games by week</h1><p class=\"league-tabs\">%r",
             f.league ? "<a href=\"/games\">All leagues</a>" : "<strong>All leagues</strong>");
    for (int k = 0; league_names[k]; k++) {
        if (f.league && strcmp(f.league, league_names[k]) == 0)
            html_printf(b, " · <strong>%s</strong>", league_labels[k]);
        else
            html_printf(b, " · <a href=\"/games?league=%s\">%s</a>", league_names[k],
                        league_labels[k]);
    }
    html_raw(b, "</p><div id=\"games\">");
    const struct game *prev = NULL;
    for (size_t i = 0; i < n; i++) {
        const struct game *g = &games[i];
        bool new_season =
            !prev || strcmp(prev->league, g->league) != 0 || prev->season != g->season;
        bool new_week =
            new_season || strcmp(prev->season_type, g->season_type) != 0 || prev->week != g->week;
        if (prev && new_week)
            html_raw(b, "</ul></section>");
        if (new_season) {
            html_fmt(b, "<h2 class=\"season\">%t %lld</h2>", league_name(g->league),
                     (long long)g->season);
        }
        if (new_week) {
            html_fmt(b, "<section class=\"week\"><h3>%t, week %lld</h3><ul class=\"games\">",
                     vocab_label(season_type_names, season_type_labels, g->season_type),
                     (long long)g->week);
        }
        html_fmt(b, "<li><a href=\"/games/%a\">", g->id);
        score(b, g);
        html_fmt(b, "</a> <span class=\"meta\">%t",
                 vocab_label(game_status_names, game_status_labels, g->status));
        game_clock(b, g);
        web_text_if(b, " · ", g->stage_label, "");
        html_raw(b, " · ");
        kickoff(b, g);
        html_raw(b, "</span></li>");
        prev = g;
    }
    if (prev)
        html_raw(b, "</ul></section>");
    else
        html_raw(b, v[1].i > 1 ? "<p>No games on this page.</p>" : "<p>No games yet.</p>");
    html_raw(b, "</div>");
    pager(b, "/games", filters, values, 1, v[1].i, GAMES_PAGES_MAX, more, "← Previous games",
          "More games →");
    web_page_reply(req, 200);
}

void web_voter_of(struct request *req, char id[VOTER_ID_LEN + 1])
{
    const char *cookie = http_cookie(req, VOTER_COOKIE_NAME);
    if (voter_check_cookie(cookie, id))
        return;
    char fresh[VOTER_COOKIE_LEN + 1];
    voter_new_cookie(fresh);
    voter_check_cookie(fresh, id);
    struct buf b = BUF_INIT;
    buf_printf(&b, "%s=%s; Path=/; Max-Age=31536000; Secure; HttpOnly; SameSite=Lax",
               VOTER_COOKIE_NAME, fresh);
    reply_header(req, "Set-Cookie", arena_strdup(&req->arena, b.p));
    buf_release(&b);
}

static void rulings(struct buf *b, const struct incident *i)
{
    html_fmt(b,
             "<dl class=\"facts\"><dt>Category</dt><dd>%t</dd><dt>Original ruling</dt><dd>"
             "%t</dd><dt>Final ruling</dt><dd>%t</dd>",
             vocab_label(category_names, category_labels, i->category),
             i->original_ruling ? i->original_ruling : "none",
             i->final_ruling ? i->final_ruling : "none");
    char when[64];
    vocab_play_time(when, sizeof when, i->league, i->period == MODEL_NULL ? 0 : i->period,
                    i->clock);
    if (when[0]) {
        html_fmt(b, "<dt>When</dt><dd class=\"play-time\">%t</dd>", when);
    }
    web_text_if(b, "<dt>Consequence</dt><dd>", i->consequence, "</dd>");
    html_raw(b, "</dl>");
}

static void sources_list(struct buf *b, const struct source *src, size_t n)
{
    html_raw(b, "<section id=\"sources\"><h2>Sources</h2>");
    if (n == 0)
        html_raw(b, "<p>No independent source yet.</p>");
    else
        html_raw(b, "<ul>");
    for (size_t k = 0; k < n; k++) {
        html_fmt(b, "<li><a rel=\"nofollow noopener\" href=\"%a\">%t</a>", src[k].url,
                 src[k].title);
        web_text_if(b, " — <span class=\"publisher\">", src[k].publisher, "</span>");
        html_fmt(b, " <span class=\"kind\">(%t)</span><p class=\"supports\">Supports: %t</p></li>",
                 vocab_label(source_kind_names, source_kind_labels, src[k].kind), src[k].supports);
    }
    if (n)
        html_raw(b, "</ul>");
    html_raw(b, "</section>");
}

static void history(struct buf *b, const struct incident *i, const struct question *q, size_t n)
{
    if (n < 2 && !(n == 1 && (!i->has_question || q[0].version != i->question.version)))
        return;
    html_raw(b, "<section id=\"question-history\"><h2>Question history</h2><ol>");
    for (size_t k = 0; k < n; k++) {
        html_fmt(b, "<li>Version %lld: %t (%t / %t / %t) — %r</li>", (long long)q[k].version,
                 q[k].text, q[k].a_label, q[k].b_label, q[k].unsure_label,
                 q[k].superseded_at == MODEL_NULL ? "current" : "superseded");
    }
    html_raw(b, "</ol><p>When a question changes, earlier ballots are archived and never "
                "reinterpreted; the results above count the current version only.</p>"
                "</section>");
}

/* The ballot form. A signed-in voter (rooting non-NULL: their ballot's rooting, or "")
 * also declares an optional rooting interest; an anonymous one is offered to sign in. */
static void vote_form(struct buf *b, const struct incident *i, const struct game *g,
                      const char *csrf, const char *current, const char *rooting)
{
    const struct question *q = &i->question;
    const char *key = i->slug ? i->slug : i->id;
    html_fmt(b,
             "<form id=\"vote-form\" method=\"post\" action=\"/incidents/%a/vote\"><input "
             "type=\"hidden\" name=\"csrf\" value=\"%a\"><input type=\"hidden\" "
             "name=\"question_version\" value=\"%lld\">",
             key, csrf, (long long)q->version);
    if (rooting) {
        const char *labels[ROOTING_COUNT] = {[ROOTING_HOME] = g->home.name,
                                             [ROOTING_AWAY] = g->away.name,
                                             [ROOTING_NEUTRAL] = "Neutral",
                                             [ROOTING_UNDISCLOSED] = "Prefer not to say"};
        html_raw(b, "<label class=\"rooting\">Your rooting interest (optional) <select "
                    "name=\"rooting\"><option value=\"\">No answer</option>");
        for (int k = 0; ballot_rooting_names[k]; k++) {
            int r = vocab_find(rooting_names, ballot_rooting_names[k]);
            html_printf(b, "<option value=\"%s\"%s>", rooting_names[r],
                        strcmp(rooting, rooting_names[r]) == 0 ? " selected" : "");
            if (r == ROOTING_HOME || r == ROOTING_AWAY)
                html_raw(b, r == ROOTING_HOME ? "Home: " : "Away: ");
            html_fmt(b, "%t</option>", labels[r]);
        }
        html_raw(b, "</select></label>");
    }
    const char *labels[CHOICE_COUNT] = {[CHOICE_CORRECT] = q->a_label,
                                        [CHOICE_INCORRECT] = q->b_label,
                                        [CHOICE_UNSURE] = q->unsure_label};
    for (int k = 0; k < CHOICE_COUNT; k++) {
        html_fmt(b, "<button name=\"choice\" value=\"%r\" aria-pressed=\"%r\">%t</button>",
                 choice_names[k], strcmp(current, choice_names[k]) == 0 ? "true" : "false",
                 labels[k]);
    }
    html_raw(b, "</form>");
    if (!rooting) {
        html_fmt(b,
                 "<p class=\"note\" id=\"vote-signin\"><a "
                 "href=\"/account/signin?next=/incidents/%a\">Sign in</a> to vote as yourself "
                 "and declare a rooting interest.</p>",
                 key);
    }
}

/* Incident and game pages ignore their query string: links shared with tracking parameters
 * (?utm_source=…) must still open the page. */
void web_incident(struct request *req)
{
    struct store *s = store_thread();
    if (!s) {
        web_unavailable(req);
        return;
    }
    /* a signed-in voter votes as their account, an anonymous one as their cookie; a visitor
     * without a valid cookie has no ballot yet and gets a cookie only with a found page */
    struct session_row sess;
    char voter_id[VOTER_ID_LEN + 1], voter[VOTER_HASH_LEN + 1], csrf[VOTER_TOKEN_LEN + 1];
    struct app_ctx c = {.s = s, .a = &req->arena, .now = time_now_us(), .request_id = req->id};
    int signed_in = web_session(req, s, c.now, &sess);
    if (signed_in < 0) {
        web_unavailable(req);
        return;
    }
    bool has_cookie =
        !signed_in && voter_check_cookie(http_cookie(req, VOTER_COOKIE_NAME), voter_id);
    if (signed_in)
        account_voter(sess.account.id, voter);
    else if (has_cookie)
        voter_hash("ballot", voter_id, voter);
    struct incident_view v;
    int rc = incident_read(&c, req->param,
                           INCIDENT_READ_PAGE_KEY | INCIDENT_READ_DETAILS | INCIDENT_READ_GAME,
                           signed_in || has_cookie ? voter : NULL, &v);
    struct buf path = BUF_INIT;
    switch (rc) {
    case INCIDENT_READ_FOUND:
        break;
    case INCIDENT_READ_MERGED:
    case INCIDENT_READ_MOVED:
        buf_printf(&path, "/incidents/%s", rc == INCIDENT_READ_MERGED ? v.survivor_key : v.key);
        web_redirect(req, 308, path.p);
        buf_release(&path);
        return;
    case APP_UNAVAILABLE:
        web_unavailable(req);
        return;
    default:
        web_error_page(req, 404, "no debate here");
        return;
    }
    if (signed_in) {
        account_session_csrf(sess.hash, csrf);
    } else {
        web_voter_of(req, voter_id);
        voter_csrf_token(voter_id, csrf);
    }
    const struct incident inc = v.inc;
    const struct game g = v.game;
    const char *current = v.choice, *rooting = v.rooting;
    const struct source *src = v.sources;
    const struct question *qs = v.history;
    size_t nsrc = v.nsources, nq = v.nhistory;
    struct buf *b = public_page(req, &c, inc.title);
    html_fmt(b, "<article class=\"incident\"><p class=\"matchup\"><a href=\"/games/%a\">", g.id);
    score(b, &g);
    html_fmt(b, "</a> · %t · ", league_name(g.league));
    season_week(b, g.season_type, g.season, g.week);
    html_raw(b, " · ");
    kickoff(b, &g);
    venue(b, &g);
    html_fmt(b,
             "</p><h1>%t</h1><p class=\"maturity\" data-status=\"%a\">%t</p><p class=\"play\">"
             "%t</p>",
             inc.title, inc.status, maturity_text(inc.status), inc.play_description);
    web_text_if(b, "<p class=\"summary\">", inc.neutral_summary, "</p>");
    rulings(b, &inc);
    html_raw(b, "<section id=\"verdict\"><h2>Fan Verdict</h2>");
    if (inc.has_question) {
        html_fmt(b, "<p class=\"question\">%t</p>", inc.question.text);
        vote_form(b, &inc, &g, csrf, current, signed_in ? rooting : NULL);
        web_results(b, &inc.question, &inc.votes);
    } else {
        html_raw(b, "<p>No Fan Verdict question for this incident yet.</p>");
    }
    html_raw(b, "<p class=\"reminder\">Fan votes are opinions, not a ruling.</p></section>");
    history(b, &inc, qs, nq);
    sources_list(b, src, nsrc);
    web_discussion(req, &c, &inc, signed_in ? &sess : NULL, v.key, csrf);
    html_raw(b, "</article>");
    web_page_reply(req, 200);
}

void web_game(struct request *req)
{
    struct app_ctx c = {.s = store_thread(), .a = &req->arena, .request_id = req->id};
    struct game g;
    struct incident *list = NULL;
    size_t n = 0;
    int found = c.s ? game_read(&c, req->param, &g, 100, &list, &n) : APP_UNAVAILABLE;
    if (found < 0) {
        web_unavailable(req);
        return;
    }
    if (found == 0) {
        web_error_page(req, 404, "no game here");
        return;
    }
    struct buf title = BUF_INIT;
    buf_printf(&title, "%s at %s", g.away.name, g.home.name);
    struct buf *b = public_page(req, &c, title.p);
    buf_release(&title);
    html_raw(b, "<h1>");
    score(b, &g);
    html_fmt(b,
             "</h1><p class=\"game-status\">Status: <span id=\"game-status\" "
             "data-status=\"%a\">%t</span>",
             g.status, vocab_label(game_status_names, game_status_labels, g.status));
    game_clock(b, &g);
    html_raw(b, " · ");
    kickoff(b, &g);
    html_fmt(b, " · %t · ", league_name(g.league));
    season_week(b, g.season_type, g.season, g.week);
    web_text_if(b, " · ", g.stage_label, "");
    venue(b, &g);
    html_raw(b, "</p><h2>Incidents</h2><ul class=\"incidents\">");
    for (size_t i = 0; i < n; i++)
        incident_link(b, &list[i]);
    if (n == 0)
        html_raw(b, "<li>No published incidents for this game.</li>");
    html_fmt(b, "</ul><p><a href=\"/games?league=%a\">All %t games by week</a></p>", g.league,
             league_name(g.league));
    web_page_reply(req, 200);
}
