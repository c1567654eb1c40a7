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
#include "util/timefmt.h"
#include "web/web.h"

#define FEED_ITEMS 50
#define NS_WHISTLE "https://whistle.example/ns/1.0"

/* XML 1.0 refuses most C0 control characters even escaped: drop them. */
static const xmlChar *xml_safe(struct request *req, const char *s)
{
    if (!s)
        return (const xmlChar *)"";
    char *out = arena_strdup(&req->arena, s);
    char *o = out;
    for (const char *p = s; *p; p++)
        if ((unsigned char)*p >= 0x20 || *p == '\t' || *p == '\n' || *p == '\r')
            *o++ = *p;
    *o = '\0';
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
    buf_printf(&desc, "%s at %s (%s). ", i->away_name, i->home_name, i->league);
    if (i->has_question)
        buf_printf(&desc, "Fan Verdict: %s ", i->question.text);
    buf_printf(&desc, "Maturity: %s. ", i->status);
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
    int rc = web_list(req, &f, &list, &n);
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
    struct buf self = BUF_INIT, home = BUF_INIT;
    buf_printf(&self, "%s/incidents/feed.xml", base);
    buf_printf(&home, "%s/", base);
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
    xmlTextWriterWriteAttribute(w, (const xmlChar *)"xmlns:whistle", (const xmlChar *)NS_WHISTLE);
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
    reply_body(req, 200, "application/rss+xml; charset=utf-8");
}
