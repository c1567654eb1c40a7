#include "api/render.h"

#include <stddef.h>
#include <string.h>

#include "app/comments.h"
#include "domain/votes.h"

/* A fragment (render_incident_fragment) marks with one control byte, which the JSON writer
 * never leaves raw, each place where a reader splices in what the fragment cannot hold: the
 * server's base URL, the comment count and the tallies (what comments and ballots change),
 * and where the list form ends (the detail's sources and history follow). */
enum { FRAG_BASE = 1, FRAG_COMMENTS, FRAG_VOTES, FRAG_DETAILS, FRAG_LAST = FRAG_DETAILS };
static const char frag_base[] = ""; /* as base: write FRAG_BASE, not a URL */

/* Writes key (NULL: none, a value) and the concatenation of up to three strings as one JSON
 * string (1 KiB at most). */
static void concat(struct jw *w, const char *key, const char *base, const char *a, const char *b)
{
    if (key)
        jw_key(w, key);
    if (base == frag_base) {
        /* the string with FRAG_BASE right after its opening quote */
        size_t at = w->b->len;
        concat(w, NULL, NULL, a, b);
        char *q = memchr(w->b->p + at, '"', w->b->len - at);
        size_t off = (size_t)(q - w->b->p) + 1;
        buf_putc(w->b, '\0');
        memmove(w->b->p + off + 1, w->b->p + off, w->b->len - 1 - off);
        w->b->p[off] = FRAG_BASE;
        return;
    }
    char tmp[1024];
    size_t n = 0;
    const char *parts[] = {base, a, b};
    for (int i = 0; i < 3; i++) {
        if (!parts[i])
            continue;
        size_t l = strlen(parts[i]);
        if (n + l >= sizeof tmp)
            l = sizeof tmp - 1 - n;
        memcpy(tmp + n, parts[i], l);
        n += l;
    }
    jw_strn(w, tmp, n);
}

/* "url" and "links" opened with its "self", both base, path and id: the caller writes its
 * other links and closes "links". */
static void self_links(struct jw *w, const char *base, const char *path, const char *id)
{
    concat(w, "url", base, path, id);
    jw_key(w, "links");
    jw_obj_begin(w);
    concat(w, "self", base, path, id);
}

void render_team(struct jw *w, const struct team *t)
{
    jw_fmt(w,
           "{id:%s name:%s abbreviation:%s logoUrl:%s conference:%s league:%s division:%s "
           "shortName:%s active:%dB aliases:%sJ}",
           t->id, t->name, t->abbreviation, t->logo_url, t->conference, t->league, t->division,
           t->short_name, t->active, t->aliases_json ? t->aliases_json : "[]");
}

static void team_ref(struct jw *w, const struct team *t)
{
    jw_obj_begin(w);
    jw_kstr(w, "id", t->id);
    jw_obj_end(w);
}

void render_game(struct jw *w, const char *base, const struct game *g)
{
    jw_obj_begin(w);
    jw_kstr(w, "id", g->id);
    jw_key(w, "homeTeam");
    (base ? render_team : team_ref)(w, &g->home);
    jw_key(w, "awayTeam");
    (base ? render_team : team_ref)(w, &g->away);
    jw_kint(w, "homeScore", g->home_score);
    jw_kint(w, "awayScore", g->away_score);
    jw_ktime(w, "startsAt", g->starts_at);
    jw_kbool(w, "kickoffTbd", g->kickoff_tbd);
    jw_kint(w, "period", g->period);
    jw_kstr(w, "clock", g->clock);
    jw_kstr(w, "status", g->status);
    jw_kint(w, "season", g->season);
    jw_kint(w, "week", g->week);
    jw_ktime(w, "createdAt", g->created_at);
    jw_ktime(w, "updatedAt", g->updated_at);
    if (base) {
        self_links(w, base, "/api/v1/games/", g->id);
        concat(w, "incidents", base, "/api/v1/incidents?game_id=", g->id);
        jw_obj_end(w);
    } else {
        /* neutralSite: not in the spec's Game, the import format only */
        jw_kbool(w, "neutralSite", g->neutral_site);
    }
    jw_kstr(w, "league", g->league);
    jw_kstr(w, "seasonType", g->season_type);
    jw_kstr(w, "stageLabel", g->stage_label);
    jw_obj_end(w);
}

static void render_choices_counts(struct jw *w, const struct choices *c)
{
    jw_obj_begin(w);
    for (int k = 0; k < CHOICE_COUNT; k++)
        jw_kint(w, choice_names[k], choices_count(c, k));
    jw_obj_end(w);
}

void render_votes(struct jw *w, const struct votes *v)
{
    struct choices all = votes_overall(v);
    int64_t total = choices_total(&all);
    jw_obj_begin(w);
    jw_kint(w, "total", total);
    jw_key(w, "counts");
    render_choices_counts(w, &all);
    jw_key(w, "percentages");
    jw_obj_begin(w);
    for (int k = 0; k < CHOICE_COUNT; k++) {
        jw_key(w, choice_names[k]);
        jw_number1(w, votes_percentage(choices_count(&all, k), total));
    }
    jw_obj_end(w);
    jw_key(w, "rooting");
    jw_obj_begin(w);
    for (int r = 0; r < ROOTING_COUNT; r++) {
        if (choices_total(&v->by_rooting[r]) == 0)
            continue;
        jw_key(w, rooting_names[r]);
        render_choices_counts(w, &v->by_rooting[r]);
    }
    jw_obj_end(w);
    jw_obj_end(w);
}

/* question_type, question_text and the three labels, as presented or as stored */
static void question_labels(struct jw *w, const struct question *q, bool stored)
{
    jw_kstr(w, "question_type", q->type);
    jw_kstr(w, "question_text", q->text);
    jw_kstr(w, "option_a_label", stored ? q->stored_a : q->a_label);
    jw_kstr(w, "option_b_label", stored ? q->stored_b : q->b_label);
    jw_kstr(w, "unsure_label", stored ? q->stored_unsure : q->unsure_label);
}

void render_question(struct jw *w, const struct question *q, bool document)
{
    jw_obj_begin(w);
    question_labels(w, q, false);
    jw_kint(w, "question_version", q->version);
    jw_ktime(w, "created_at", q->created_at);
    if (!document)
        jw_kint(w, "label_presentation_version", 1);
    jw_key(w, "stored_option_labels");
    jw_obj_begin(w);
    jw_kstr(w, "option_a_label", q->stored_a);
    jw_kstr(w, "option_b_label", q->stored_b);
    jw_kstr(w, "unsure_label", q->stored_unsure);
    jw_obj_end(w);
    if (document)
        jw_kraw(w, "factual_context", q->factual_context_json, "{}");
    jw_obj_end(w);
}

void render_source(struct jw *w, const struct source *s, bool document)
{
    jw_obj_begin(w);
    if (!document)
        jw_kstr(w, "id", s->id);
    jw_fmt(w,
           "url:%s title:%s publisher:%s source_kind:%s published_at:%ldT added_at:%ldT "
           "supports:%s added_by:%s",
           s->url, s->title, s->publisher, s->kind, s->published_at, s->added_at, s->supports,
           s->added_by);
    jw_obj_end(w);
}

/* The fields of a Comment all forms share, in each form's order: the public API's
 * (docs/comments.md), the import document's (docs/import-format.md) and the moderation
 * queue's (`whistle comment list --json`, with the author's record, reports and history). */
void render_comment(struct jw *w, const struct comment *c, enum comment_form form,
                    const struct comment_review *r)
{
    bool review = form == COMMENT_FORM_REVIEW;
    jw_obj_begin(w);
    jw_kstr(w, "id", c->id);
    if (review) {
        jw_kstr(w, "incident_id", c->incident_id);
        jw_kstr(w, "incident_title", c->incident_title);
    }
    jw_kstr_or_null(w, "parent_id", c->parent_id);
    jw_key(w, "author");
    jw_obj_begin(w);
    if (review)
        jw_kstr(w, "account_id", c->account_id);
    jw_kstr(w, "display_name", c->display_name);
    if (form != COMMENT_FORM_DOCUMENT)
        jw_kstr(w, "badge", c->badge);
    if (review) {
        jw_kint(w, "comments", r->author.total);
        jw_kint(w, "published", r->author.published);
        jw_kint(w, "rejected", r->author.rejected);
    }
    if (form != COMMENT_FORM_PUBLIC)
        jw_kbool(w, "suspended", review ? r->author.suspended : c->author_hidden);
    jw_obj_end(w);
    jw_kstr(w, "body", c->body);
    if (form != COMMENT_FORM_PUBLIC) {
        jw_kstr(w, "status", c->status);
        jw_kstr_or_null(w, "held_reason", c->held_reason);
        if (review)
            jw_kbool(w, "visible", c->visible);
        jw_kbool(w, "featured", c->featured);
        if (!review)
            jw_kbool(w, "hidden_by_reports", c->report_hidden);
        jw_kint(w, "open_reports", c->open_reports);
        if (review)
            jw_kstr(w, "reports", r->reports);
    }
    jw_ktime(w, "created_at", c->created_at);
    jw_ktime(w, "edited_at", c->edited_at);
    if (form == COMMENT_FORM_DOCUMENT) {
        jw_ktime(w, "deleted_at", c->deleted_at);
        jw_ktime(w, "reviewed_at", c->reviewed_at);
    } else if (form == COMMENT_FORM_PUBLIC) {
        jw_kbool(w, "featured", c->featured);
        jw_kint(w, "reply_count", c->reply_count);
    } else {
        jw_key(w, "history");
        jw_arr_begin(w);
        for (size_t i = 0; i < r->nlog; i++) {
            jw_obj_begin(w);
            jw_ktime(w, "at", r->log[i].created_at);
            jw_kstr(w, "action", r->log[i].action);
            jw_kstr(w, "actor", r->log[i].actor);
            jw_kstr(w, "reason", r->log[i].reason);
            jw_obj_end(w);
        }
        jw_arr_end(w);
    }
    jw_obj_end(w);
}

void render_question_history(struct jw *w, const struct question *history, size_t n,
                             int64_t skip_version, bool document)
{
    jw_arr_begin(w);
    for (size_t k = 0; k < n; k++) {
        const struct question *q = &history[k];
        if (q->version == skip_version)
            continue;
        jw_obj_begin(w);
        jw_kint(w, "question_version", q->version);
        jw_key(w, "question");
        jw_obj_begin(w);
        question_labels(w, q, true);
        jw_obj_end(w);
        jw_kraw(w, "factual_context", q->factual_context_json, "{}");
        jw_ktime(w, "created_at", q->created_at);
        jw_ktime(w, "superseded_at", q->superseded_at);
        if (!document) {
            jw_key(w, "presented_question");
            render_question(w, q, false);
        }
        jw_obj_end(w);
    }
    jw_arr_end(w);
}

static void stored_fields(struct jw *w, const struct incident *i, bool fragment);

void render_incident_stored(struct jw *w, const struct incident *i)
{
    stored_fields(w, i, false);
}

static void stored_fields(struct jw *w, const struct incident *i, bool fragment)
{
    static const struct {
        const char *key;
        size_t off;
    } strs[] = {
        {"id", offsetof(struct incident, id)},
        {"game_id", offsetof(struct incident, game_id)},
        {"title", offsetof(struct incident, title)},
        {"play_description", offsetof(struct incident, play_description)},
        {"neutral_summary", offsetof(struct incident, neutral_summary)},
        {"category", offsetof(struct incident, category)},
        {"clock", offsetof(struct incident, clock)},
        {"original_ruling", offsetof(struct incident, original_ruling)},
        {"final_ruling", offsetof(struct incident, final_ruling)},
        {"consequence", offsetof(struct incident, consequence)},
        {"status", offsetof(struct incident, status)},
        {"origin_kind", offsetof(struct incident, origin_kind)},
        {"slug", offsetof(struct incident, slug)},
        {"duplicate_of", offsetof(struct incident, duplicate_of)},
    };
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++)
        jw_kstr(w, strs[k].key, *(const char *const *)((const char *)i + strs[k].off));
    jw_kint(w, "period", i->period);
    jw_ktristate(w, "replay_involved", i->replay_involved);
    jw_ktristate(w, "penalty_called", i->penalty_called);
    jw_kraw(w, "provenance", i->provenance_json, "{}");
    jw_ktime(w, "reviewed_at", i->reviewed_at);
    jw_ktime(w, "published_at", i->published_at);
    jw_ktime(w, "created_at", i->created_at);
    jw_ktime(w, "updated_at", i->updated_at);
    jw_key(w, "comment_count");
    if (fragment)
        jw_raw(w, (const char[]){FRAG_COMMENTS, 0});
    else
        jw_int(w, i->comment_count);
}

static void render_incident_fields(struct jw *w, const char *base, const struct incident *i)
{
    stored_fields(w, i, base == frag_base);
    jw_kstr(w, "publication_status", "published");
    self_links(w, base, "/api/v1/incidents/", i->id);
    concat(w, "game", base, "/api/v1/games/", i->game_id);
    concat(w, "gamePage", base, "/games/", i->game_id);
    jw_obj_end(w);
    jw_kstr(w, "league", i->league);
    jw_kstr(w, "seasonType", i->season_type);
    jw_kint(w, "ruling_version", i->has_question ? i->question.version : 1);
    jw_key(w, "debate_question");
    if (i->has_question)
        render_question(w, &i->question, false);
    else
        jw_null(w);
    jw_key(w, "votes");
    if (base == frag_base)
        jw_raw(w, (const char[]){FRAG_VOTES, 0});
    else
        render_votes(w, &i->votes);
    concat(w, "matchup", i->away_name, " at ", i->home_name);
    concat(w, "public_url", base, "/incidents/", i->slug ? i->slug : i->id);
    jw_kstr(w, "display_question", i->has_question ? i->question.text : i->title);
}

void render_incident(struct jw *w, const char *base, const struct incident *i)
{
    jw_obj_begin(w);
    render_incident_fields(w, base, i);
    jw_obj_end(w);
}

void render_incident_detail(struct jw *w, const char *base, const struct incident *i,
                            const struct source *sources, size_t nsources,
                            const struct question *history, size_t nhistory)
{
    jw_obj_begin(w);
    render_incident_fields(w, base, i);
    if (base == frag_base)
        buf_putc(w->b, FRAG_DETAILS);
    render_sources_history(w, sources, nsources, history, nhistory, MODEL_NULL, false);
    jw_obj_end(w);
}

void render_sources_history(struct jw *w, const struct source *sources, size_t nsources,
                            const struct question *history, size_t nhistory, int64_t skip_version,
                            bool document)
{
    jw_key(w, "sources");
    jw_arr_begin(w);
    for (size_t k = 0; k < nsources; k++)
        render_source(w, &sources[k], document);
    jw_arr_end(w);
    jw_key(w, "question_history");
    render_question_history(w, history, nhistory, skip_version, document);
}

void render_pagination(struct jw *w, int64_t limit, int64_t offset, int64_t next_offset)
{
    jw_key(w, "pagination");
    jw_obj_begin(w);
    jw_kint(w, "limit", limit);
    jw_kint(w, "offset", offset);
    jw_kint(w, "nextOffset", next_offset);
    jw_obj_end(w);
}

void render_incident_fragment(struct buf *out, const struct incident *i,
                              const struct source *sources, size_t nsources,
                              const struct question *history, size_t nhistory)
{
    struct jw w;
    jw_init(&w, out);
    render_incident_detail(&w, frag_base, i, sources, nsources, history, nhistory);
}

void render_incident_spliced(struct jw *w, const char *base, const char *fragment, size_t len,
                             int64_t comment_count, const struct votes *votes, bool detail)
{
    jw_raw(w, ""); /* the comma before it, when it follows a value */
    struct buf *b = w->b;
    size_t base_len = strlen(base);
    bool base_plain = json_plain(base, base_len); /* a URL: as it is, once per mark */
    static const char marks[] = {FRAG_BASE, FRAG_COMMENTS, FRAG_VOTES, FRAG_DETAILS, 0};
    const char *p = fragment, *end = fragment + len;
    while (p < end) {
        const char *q = p + strcspn(p, marks); /* the fragment is NUL-terminated */
        buf_append(b, p, (size_t)(q - p));
        if (q == end)
            break;
        switch (*q) {
        case FRAG_BASE: {
            /* the base URL as the inside of a JSON string */
            if (base_plain) {
                buf_append(b, base, base_len);
                break;
            }
            size_t at = b->len;
            json_escape_into(b, base, base_len);
            memmove(b->p + at, b->p + at + 1, b->len - at - 2);
            buf_setlen(b, b->len - 2);
            break;
        }
        case FRAG_COMMENTS:
        case FRAG_VOTES: {
            struct jw v;
            jw_init(&v, b);
            if (*q == FRAG_COMMENTS)
                jw_int(&v, comment_count);
            else
                render_votes(&v, votes);
            break;
        }
        case FRAG_DETAILS:
            if (!detail) {
                buf_putc(b, '}');
                return;
            }
            break;
        default:
            break;
        }
        p = q + 1;
    }
}

void render_incident_item(struct jw *w, const char *base, const struct incident_item *it,
                          bool detail)
{
    if (it->list_json && !detail) { /* written from this item's entry before */
        jw_raw(w, "");
        buf_append(w->b, it->list_json, it->list_len);
    } else if (it->fragment)
        render_incident_spliced(w, base, it->fragment, it->fragment_len, it->comment_count,
                                &it->votes, detail);
    else if (detail)
        render_incident_detail(w, base, &it->inc, it->sources, it->nsources, it->history,
                               it->nhistory);
    else
        render_incident(w, base, &it->inc);
}
