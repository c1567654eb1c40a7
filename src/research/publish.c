/*
 * Publication of a candidate lead as a Developing incident (issue 4 step 6; api-v1.md
 * "What the service does" 5): sources may be empty, the status is developing, the origin
 * is agent, and provenance separates discovery (the agent, by its safe display name),
 * research (the service) and publication (auto or an operator).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "domain/ids.h"
#include "domain/lead.h"
#include "domain/research.h"
#include "research/pipeline.h"
#include "store/admin.h"
#include "store/games.h"
#include "util/timefmt.h"
#include "util/urlhost.h"
#include "util/uuid.h"

/* What each attached source establishes (api-v1.md Source.supports: read it before
 * citing). Research saw discussion of the game, not proof of the disputed act. */
static const char supports_mentions[] =
    "Discussion of this play collected by Whistle's research: the page names the game's teams. "
    "It does not by itself establish what happened or whether the call was correct.";
static const char supports_other[] =
    "Cited by the submitter and fetched by Whistle's research, but the page does not name "
    "either team: it establishes nothing about this play on its own.";

static const char *source_kind(const char *content_type)
{
    enum source_kind k = SOURCE_KIND_OTHER; /* no or an unrecognised Content-Type */
    if (!content_type)
        return source_kind_names[k];
    if (strncasecmp(content_type, "video/", 6) == 0)
        k = SOURCE_KIND_VIDEO;
    else if (strncasecmp(content_type, "image/", 6) == 0)
        k = SOURCE_KIND_IMAGE;
    else if (strncasecmp(content_type, "text/", 5) == 0 || strstr(content_type, "html"))
        k = SOURCE_KIND_REPORT;
    return source_kind_names[k];
}

struct sources {
    struct arena *a;
    struct source src[LEAD_URLS_MAX];
    size_t n;
    int fetched, mention_domains;
    const char *added_by;
};

static int collect(void *ctx, const struct research_fetch_row *r)
{
    struct sources *c = ctx;
    if (r->error || r->http_status < 200 || r->http_status > 299 || c->n == LEAD_URLS_MAX)
        return 0;
    const char *url = r->final_url ? r->final_url : r->url;
    for (size_t k = 0; k < c->n; k++)
        if (strcmp(c->src[k].url, url) == 0)
            return 0; /* two submitted URLs that ended on one page: one source */
    char host[256];
    const char *title = r->title;
    if (!title)
        title = url_host(url, host, sizeof host) == 0 ? arena_strdup(c->a, host) : url;
    c->src[c->n++] = (struct source){
        .url = arena_strdup(c->a, url),
        .title = arena_strdup(c->a, title),
        .publisher = arena_strdup(c->a, r->publisher),
        .kind = source_kind(r->content_type),
        .supports = r->mentions ? supports_mentions : supports_other,
        .added_by = c->added_by,
        .published_at = MODEL_NULL,
        .added_at = MODEL_NULL,
    };
    c->fetched++;
    return 0;
}

static char *provenance(const struct research_lead *l, const struct research_publish_opts *o,
                        size_t nsources, int64_t now)
{
    char at[TIME_ISO_MAX], sub[TIME_ISO_MAX];
    time_format_iso(now, at);
    time_format_iso(l->created_at, sub);
    json_t *d =
        json_pack("{s{ss ss? ss ss} s{ss ss si ss} s{ss ss? ss}}", "discovery", "kind", "agent",
                  "contributor", l->contributor, "lead_id", l->id, "submitted_at", sub, "research",
                  "kind", "service", "summary",
                  "Whistle fetched the cited sources itself and applied its publication gates",
                  "sources_attached", (int)nsources, "researched_at", at, "publication", "kind",
                  o->editor ? "editor" : o->actor, "editor", o->editor, "published_at", at);
    char *text = d ? json_dumps(d, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
    json_decref(d);
    return text;
}

static int no_fetch(void *ctx, const struct research_fetch_row *r)
{
    (void)ctx;
    (void)r;
    return 0;
}

int research_publish_statements(struct store *s, void *arg)
{
    static const char none[] = "00000000-0000-4000-8000-000000000000";
    struct arena *a = arg;
    char slug[SLUG_MAX + 16];
    struct game g;
    struct question q = {.type = none, .text = none};
    struct source src = {.url = "https://none.invalid/",
                         .title = none,
                         .kind = none,
                         .supports = none,
                         .published_at = MODEL_NULL,
                         .added_at = MODEL_NULL};
    struct incident inc = {.id = none, .game_id = none, .title = none, .slug = none};
    struct research_outcome o = {.status = none, .next_attempt_at = MODEL_NULL};
    int rc = games_get(s, a, none, &g);
    if (rc >= 0)
        rc = research_fetches_each(s, none, no_fetch, NULL);
    if (rc >= 0)
        rc = store_lock_key(s, RESEARCH_PUBLISH_KEY);
    if (rc >= 0)
        rc = admin_derive_slug(s, none, "none", slug, sizeof slug);
    if (rc >= 0)
        rc = admin_upsert_incident(s, &inc, "published", MODEL_NULL);
    if (rc >= 0)
        rc = admin_replace_sources(s, none, &src, 1, 0);
    if (rc >= 0)
        rc = admin_new_question(s, none, &q, 0);
    if (rc >= 0)
        rc = research_set_outcome(s, none, none, &o, 0);
    if (rc >= 0)
        rc = research_set_outcome(s, none, NULL, &o, 0);
    if (rc >= 0)
        rc = research_event(s, none, 0, none, none, none, none, none);
    return rc < 0 ? rc : 0;
}

int research_publish(struct store *s, struct arena *a, const struct research_lead *l,
                     const char *token, const struct research_publish_opts *o, int64_t now,
                     char incident_id[ID_LEN])
{
    int rc = STORE_ERR;
    char *prov = NULL;
    struct game g;
    struct sources c = {.a = a, .added_by = l->account_id};
    if ((rc = games_get(s, a, l->game_id, &g)) != 1) {
        rc = rc < 0 ? rc : STORE_ERR;
        goto out;
    }
    STORE_TRY(rc = research_fetches_each(s, l->id, collect, &c));

    char id[UUID_STR_LEN + 1], title[300], slug[SLUG_MAX + 16], summary[400];
    uuid_v4(id);
    /* a new incident's slug is read then written (admin_derive_slug): publications take turns
     * on one key among themselves (they are rare) and hold up nothing else */
    STORE_TRY(rc = store_lock_key(s, RESEARCH_PUBLISH_KEY));
    if (o->title)
        snprintf(title, sizeof title, "%s", o->title);
    else
        research_title(l->category, g.away.name, g.home.name, l->period, l->clock, title,
                       sizeof title);
    STORE_TRY(rc = admin_derive_slug(s, id, title, slug, sizeof slug));
    snprintf(summary, sizeof summary,
             "Developing: this play is being discussed; %zu source%s collected by Whistle's "
             "research. What happened, and whether the call was correct, has not been "
             "established. Fan Verdict votes are opinions, not a ruling.",
             c.n, c.n == 1 ? "" : "s");
    prov = provenance(l, o, c.n, now);
    struct incident inc = {
        .id = id,
        .game_id = l->game_id,
        .title = title,
        .play_description = o->description ? o->description : l->description,
        .neutral_summary = o->summary ? o->summary : summary,
        .category = l->category ? l->category : category_names[CATEGORY_OTHER],
        .period = l->period,
        .clock = l->clock,
        .status = maturity_names[MATURITY_DEVELOPING],
        .origin_kind = origin_names[ORIGIN_AGENT],
        .replay_involved = -1,
        .penalty_called = -1,
        .provenance_json = prov ? prov : "{}",
        .reviewed_at = strcmp(o->actor, "auto") != 0 ? now : MODEL_NULL,
        .published_at = now,
        .created_at = now,
        .updated_at = now,
        .slug = slug,
    };
    STORE_TRY(
        rc = admin_upsert_incident(s, &inc, visibility_names[VISIBILITY_PUBLISHED], MODEL_NULL));
    STORE_TRY(rc = admin_replace_sources(s, id, c.src, c.n, now));
    if (o->question) {
        struct question q = *o->question;
        q.version = 1;
        q.created_at = now;
        STORE_TRY(rc = admin_new_question(s, id, &q, now));
    }
    char why[200];
    snprintf(why, sizeof why, "published as developing incident %s by %s", id, o->actor);
    struct research_outcome out = {.status = lead_status_names[LEAD_STATUS_PUBLISHED],
                                   .reason = why,
                                   .incident_id = id,
                                   .next_attempt_at = MODEL_NULL};
    STORE_TRY(rc = research_set_outcome(s, l->id, token, &out, now));
    if (rc == 0)
        goto out;
    STORE_TRY(rc = research_event(s, l->id, now, "published", l->status,
                                  lead_status_names[LEAD_STATUS_PUBLISHED],
                                  strcmp(o->actor, "operator") == 0 ? "operator" : "auto", why));
    snprintf(incident_id, ID_LEN, "%s", id);
    rc = 1;
out:
    free(prov);
    return rc;
}
