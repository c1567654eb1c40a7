/*
 * GET /incidents/feed.xml: RSS 2.0 of the latest published debates, written with
 * libxml2's xmlTextWriter so that escaping is correct by construction.
 */
#include <libxml/xmlwriter.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "api/api.h"
#include "domain/votes.h"
#include "store/incidents.h"
#include "domain/vocab.h"
#include "util/html.h"
#include "util/timefmt.h"
#include "util/xmltext.h"
#include "web/web.h"

#define FEED_ITEMS 50
/* The whistle: extension namespace is {base_url}/ns/1.0, a URL every deployment controls;
 * GET /ns/1.0 (web_feed_ns) describes its elements. */
#define NS_PATH "/ns/1.0"

/* Every text of the feed, reduced to what XML 1.0 allows (util/xmltext.h): one forbidden
 * character (a C0 control, U+FFFE, U+FFFF, a byte that is not UTF-8) in a title would make
 * the whole document ill-formed. */
static const xmlChar *xml_safe(struct request *req, const char *s)
{
    if (!s)
        return (const xmlChar *)"";
    size_t n = strlen(s);
    char *out = arena_alloc(&req->arena, XML_TEXT_MAX(n));
    xml_text_clean(out, s, n);
    return (const xmlChar *)out;
}

static void rfc822(int64_t us, char out[40])
{
    time_t t = (time_t)(us / 1000000);
    struct tm tm;
    gmtime_r(&t, &tm);
    strftime(out, 40, "%a, %d %b %Y %H:%M:%S +0000", &tm);
}

static void element(xmlTextWriterPtr w, const char *name, const xmlChar *text)
{
    xmlTextWriterWriteElement(w, (const xmlChar *)name, text);
}

static void item(struct request *req, xmlTextWriterPtr w, const struct incident *i)
{
    const char *base = req->cfg->base_url;
    struct buf url = BUF_INIT, desc = BUF_INIT;
    buf_printf(&url, "%s/incidents/%s", base, i->slug ? i->slug : i->id);
    struct choices all = votes_overall(&i->votes);
    char num[32], pub[40], upd[TIME_ISO_MAX];
    buf_printf(&desc, "%s at %s (%s). ", i->away_name, i->home_name,
               vocab_label(league_names, league_labels, i->league));
    if (i->has_question)
        buf_printf(&desc, "Fan Verdict: %s ", i->question.text);
    buf_printf(&desc, "Maturity: %s. ", vocab_label(maturity_names, maturity_labels, i->status));
    if (i->neutral_summary)
        buf_puts(&desc, i->neutral_summary);

    xmlTextWriterStartElement(w, (const xmlChar *)"item");
    element(w, "title", xml_safe(req, i->title));
    element(w, "link", xml_safe(req, url.p));
    xmlTextWriterStartElement(w, (const xmlChar *)"guid");
    xmlTextWriterWriteAttribute(w, (const xmlChar *)"isPermaLink", (const xmlChar *)"true");
    xmlTextWriterWriteString(w, xml_safe(req, url.p));
    xmlTextWriterEndElement(w);
    rfc822(i->published_at, pub);
    element(w, "pubDate", (const xmlChar *)pub);
    element(w, "description", xml_safe(req, desc.p));
    element(w, "category", xml_safe(req, i->league));
    xmlTextWriterWriteElementNS(w, (const xmlChar *)"whistle", (const xmlChar *)"league", NULL,
                                xml_safe(req, i->league));
    struct buf matchup = BUF_INIT;
    buf_printf(&matchup, "%s at %s", i->away_name, i->home_name);
    xmlTextWriterWriteElementNS(w, (const xmlChar *)"whistle", (const xmlChar *)"matchup", NULL,
                                xml_safe(req, matchup.p));
    buf_release(&matchup);
    xmlTextWriterWriteElementNS(w, (const xmlChar *)"whistle", (const xmlChar *)"question", NULL,
                                xml_safe(req, i->has_question ? i->question.text : ""));
    xmlTextWriterWriteElementNS(w, (const xmlChar *)"whistle", (const xmlChar *)"maturity", NULL,
                                xml_safe(req, i->status));
    time_format_iso(i->updated_at, upd);
    xmlTextWriterWriteElementNS(w, (const xmlChar *)"whistle", (const xmlChar *)"updated", NULL,
                                (const xmlChar *)upd);
    snprintf(num, sizeof num, "%lld", (long long)choices_total(&all));
    xmlTextWriterWriteElementNS(w, (const xmlChar *)"whistle", (const xmlChar *)"votes", NULL,
                                (const xmlChar *)num);
    snprintf(num, sizeof num, "%lld", (long long)i->comment_count);
    xmlTextWriterWriteElementNS(w, (const xmlChar *)"whistle", (const xmlChar *)"comments", NULL,
                                (const xmlChar *)num);
    xmlTextWriterEndElement(w);
    buf_release(&url);
    buf_release(&desc);
}

void web_feed(struct request *req)
{
    if (api_no_query(req) < 0)
        return;
    struct incident_filter f = web_filter(FEED_ITEMS);
    struct incident *list = NULL;
    size_t n = 0;
    int rc = web_list(req, &f, &list, &n, NULL);
    if (rc < 0) {
        reply_unavailable(req);
        return;
    }
    xmlBufferPtr xb = xmlBufferCreate();
    xmlTextWriterPtr w = xb ? xmlNewTextWriterMemory(xb, 0) : NULL;
    if (!w) {
        xmlBufferFree(xb);
        reply_error(req, 500, "cannot write the feed (request %s)", req->id);
        return;
    }
    const char *base = req->cfg->base_url;
    struct buf self = BUF_INIT, home = BUF_INIT, ns = BUF_INIT;
    buf_printf(&self, "%s/incidents/feed.xml", base);
    buf_printf(&home, "%s/", base);
    buf_printf(&ns, "%s" NS_PATH, base);
    char built[40];
    rfc822(n ? list[0].updated_at : time_now_us(), built);
    for (size_t k = 0; k < n; k++) {
        char t[40];
        if (list[k].updated_at > list[0].updated_at) {
            rfc822(list[k].updated_at, t);
            memcpy(built, t, sizeof built);
        }
    }
    xmlTextWriterStartDocument(w, NULL, "UTF-8", NULL);
    xmlTextWriterStartElement(w, (const xmlChar *)"rss");
    xmlTextWriterWriteAttribute(w, (const xmlChar *)"version", (const xmlChar *)"2.0");
    xmlTextWriterWriteAttribute(w, (const xmlChar *)"xmlns:atom",
                                (const xmlChar *)"http://www.w3.org/2005/Atom");
    xmlTextWriterWriteAttribute(w, (const xmlChar *)"xmlns:whistle", xml_safe(req, ns.p));
    xmlTextWriterStartElement(w, (const xmlChar *)"channel");
    element(w, "title", (const xmlChar *)"Whistle: officiating debates");
    element(w, "link", xml_safe(req, home.p));
    element(w, "description",
            (const xmlChar *)"The latest published college and NFL officiating debates. Fan "
                             "votes are opinions, not rulings.");
    element(w, "language", (const xmlChar *)"en");
    element(w, "lastBuildDate", (const xmlChar *)built);
    xmlTextWriterStartElement(w, (const xmlChar *)"atom:link");
    xmlTextWriterWriteAttribute(w, (const xmlChar *)"href", xml_safe(req, self.p));
    xmlTextWriterWriteAttribute(w, (const xmlChar *)"rel", (const xmlChar *)"self");
    xmlTextWriterWriteAttribute(w, (const xmlChar *)"type", (const xmlChar *)"application/rss+xml");
    xmlTextWriterEndElement(w);
    for (size_t k = 0; k < n; k++)
        item(req, w, &list[k]);
    xmlTextWriterEndDocument(w);
    xmlFreeTextWriter(w);
    buf_append(&req->out, xmlBufferContent(xb), (size_t)xmlBufferLength(xb));
    xmlBufferFree(xb);
    buf_release(&self);
    buf_release(&home);
    buf_release(&ns);
    reply_body(req, 200, "application/rss+xml; charset=utf-8");
}

/* GET /ns/1.0: the feed's extension namespace, described for whoever follows its URL. */
void web_feed_ns(struct request *req)
{
    static const char *const elements[][2] = {
        {"league", "The league of the game: college or nfl (the API's Incident.league)."},
        {"matchup", "The game as \"Away team at Home team\" (Incident.matchup)."},
        {"question", "The current Fan Verdict question, or empty when the debate has none."},
        {"maturity", "The evidence maturity: developing, corroborated, explained or resolved "
                     "(Incident.status; not a verdict on the call)."},
        {"updated", "When the incident last changed, ISO 8601 in UTC (Incident.updated_at)."},
        {"votes", "The number of Fan Verdict ballots on the current question (Votes.total)."},
        {"comments", "The number of published comments (Incident.comment_count)."},
    };
    if (web_no_query(req) < 0)
        return;
    const char *base = req->cfg->base_url;
    struct buf *b = &req->out;
    web_page_begin(b, "The whistle: feed namespace");
    html_fmt(b,
             "<h1>The <code>whistle:</code> feed namespace, version 1.0</h1><p>This URL, <code "
             "id=\"namespace\">%t%r",
             base,
             NS_PATH "</code>, names the XML namespace of the extension elements in this "
                     "site's <a href=\"/incidents/feed.xml\">RSS feed</a>. Each <code>item</code> "
                     "carries one of each, as plain text:</p><dl class=\"facts\" id=\"elements\">");
    for (size_t k = 0; k < sizeof elements / sizeof elements[0]; k++) {
        html_fmt(b, "<dt id=\"%r\"><code>whistle:%r</code></dt><dd>%t</dd>", elements[k][0],
                 elements[k][0], elements[k][1]);
    }
    html_raw(b, "</dl><p>Fan votes are informal opinions, not rulings. Every Whistle deployment "
                "serves this description at its own address, so the namespace is a URL its "
                "operator controls; a reader should match the elements by their local names "
                "within the namespace the feed declares.</p>");
    web_page_reply(req, 200);
}
