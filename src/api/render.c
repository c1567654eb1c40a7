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

/* Writes the concatenation of up to four strings as one JSON string (1 KiB at most). */
static void concat(struct jw *w, const char *base, const char *a, const char *b, const char *c)
{
    if (base == frag_base) {
        /* the string with FRAG_BASE right after its opening quote */
        size_t at = w->b->len;
        concat(w, NULL, a, b, c);
        char *q = memchr(w->b->p + at, '"', w->b->len - at);
        size_t off = (size_t)(q - w->b->p) + 1;
        buf_putc(w->b, '\0');
        memmove(w->b->p + off + 1, w->b->p + off, w->b->len - 1 - off);
        w->b->p[off] = FRAG_BASE;
        return;
    }
    char tmp[1024];
    size_t n = 0;
    const char *parts[] = {base, a, b, c};
    for (int i = 0; i < 4; i++) {
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

void render_team(struct jw *w, const struct team *t)
{
    jw_obj_begin(w);
    jw_key(w, "id");
    jw_str(w, t->id);
    jw_key(w, "name");
    jw_str(w, t->name);
    jw_key(w, "abbreviation");
    jw_str(w, t->abbreviation);
    jw_key(w, "logoUrl");
    jw_str(w, t->logo_url);
    jw_key(w, "conference");
    jw_str(w, t->conference);
    jw_key(w, "league");
    jw_str(w, t->league);
    jw_key(w, "division");
    jw_str(w, t->division);
    jw_key(w, "shortName");
    jw_str(w, t->short_name);
    jw_key(w, "active");
    jw_bool(w, t->active);
    jw_key(w, "aliases");
    jw_raw(w, t->aliases_json ? t->aliases_json : "[]");
    jw_obj_end(w);
}

static void team_ref(struct jw *w, const struct team *t)
{
    jw_obj_begin(w);
    jw_key(w, "id");
    jw_str(w, t->id);
    jw_obj_end(w);
}

void render_game(struct jw *w, const char *base, const struct game *g)
{
    jw_obj_begin(w);
    jw_key(w, "id");
    jw_str(w, g->id);
    jw_key(w, "homeTeam");
    (base ? render_team : team_ref)(w, &g->home);
    jw_key(w, "awayTeam");
    (base ? render_team : team_ref)(w, &g->away);
    jw_key(w, "homeScore");
    jw_int(w, g->home_score);
    jw_key(w, "awayScore");
    jw_int(w, g->away_score);
    jw_key(w, "startsAt");
    jw_time(w, g->starts_at);
    jw_key(w, "kickoffTbd");
    jw_bool(w, g->kickoff_tbd);
    jw_key(w, "period");
    jw_int(w, g->period);
    jw_key(w, "clock");
    jw_str(w, g->clock);
    jw_key(w, "status");
    jw_str(w, g->status);
    jw_key(w, "season");
    jw_int(w, g->season);
    jw_key(w, "week");
    jw_int(w, g->week);
    jw_key(w, "createdAt");
    jw_time(w, g->created_at);
    jw_key(w, "updatedAt");
    jw_time(w, g->updated_at);
    if (base) {
        jw_key(w, "url");
        concat(w, base, "/api/v1/games/", g->id, NULL);
        jw_key(w, "links");
        jw_obj_begin(w);
        jw_key(w, "self");
        concat(w, base, "/api/v1/games/", g->id, NULL);
        jw_key(w, "incidents");
        concat(w, base, "/api/v1/incidents?game_id=", g->id, NULL);
        jw_obj_end(w);
    } else {
        jw_key(w, "neutralSite"); /* not in the spec's Game: the import format only */
        jw_bool(w, g->neutral_site);
    }
    jw_key(w, "league");
    jw_str(w, g->league);
    jw_key(w, "seasonType");
    jw_str(w, g->season_type);
    jw_key(w, "stageLabel");
    jw_str(w, g->stage_label);
    jw_obj_end(w);
}

static void render_choices_counts(struct jw *w, const struct choices *c)
{
    jw_obj_begin(w);
    for (int k = 0; k < CHOICE_COUNT; k++) {
        jw_key(w, choice_names[k]);
        jw_int(w, choices_count(c, k));
    }
    jw_obj_end(w);
}

void render_votes(struct jw *w, const struct votes *v)
{
    struct choices all = votes_overall(v);
    int64_t total = choices_total(&all);
    jw_obj_begin(w);
    jw_key(w, "total");
    jw_int(w, total);
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
    jw_key(w, "question_type");
    jw_str(w, q->type);
    jw_key(w, "question_text");
    jw_str(w, q->text);
    jw_key(w, "option_a_label");
    jw_str(w, stored ? q->stored_a : q->a_label);
    jw_key(w, "option_b_label");
    jw_str(w, stored ? q->stored_b : q->b_label);
    jw_key(w, "unsure_label");
    jw_str(w, stored ? q->stored_unsure : q->unsure_label);
}

void render_question(struct jw *w, const struct question *q, bool document)
{
    jw_obj_begin(w);
    question_labels(w, q, false);
    jw_key(w, "question_version");
    jw_int(w, q->version);
    jw_key(w, "created_at");
    jw_time(w, q->created_at);
    if (!document) {
        jw_key(w, "label_presentation_version");
        jw_int(w, 1);
    }
    jw_key(w, "stored_option_labels");
    jw_obj_begin(w);
    jw_key(w, "option_a_label");
    jw_str(w, q->stored_a);
    jw_key(w, "option_b_label");
    jw_str(w, q->stored_b);
    jw_key(w, "unsure_label");
    jw_str(w, q->stored_unsure);
    jw_obj_end(w);
    if (document) {
        jw_key(w, "factual_context");
        jw_raw(w, q->factual_context_json ? q->factual_context_json : "{}");
    }
    jw_obj_end(w);
}

void render_source(struct jw *w, const struct source *s, bool document)
{
    jw_obj_begin(w);
    if (!document) {
        jw_key(w, "id");
        jw_str(w, s->id);
    }
    jw_key(w, "url");
    jw_str(w, s->url);
    jw_key(w, "title");
    jw_str(w, s->title);
    jw_key(w, "publisher");
    jw_str(w, s->publisher);
    jw_key(w, "source_kind");
    jw_str(w, s->kind);
    jw_key(w, "published_at");
    jw_time(w, s->published_at);
    jw_key(w, "added_at");
    jw_time(w, s->added_at);
    jw_key(w, "supports");
    jw_str(w, s->supports);
    jw_key(w, "added_by");
    jw_str(w, s->added_by);
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
    jw_key(w, "id");
    jw_str(w, c->id);
    if (review) {
        jw_key(w, "incident_id");
        jw_str(w, c->incident_id);
        jw_key(w, "incident_title");
        jw_str(w, c->incident_title);
    }
    jw_key(w, "parent_id");
    jw_str(w, c->parent_id[0] ? c->parent_id : NULL);
    jw_key(w, "author");
    jw_obj_begin(w);
    if (review) {
        jw_key(w, "account_id");
        jw_str(w, c->account_id);
    }
    jw_key(w, "display_name");
    jw_str(w, c->display_name);
    if (form != COMMENT_FORM_DOCUMENT) {
        jw_key(w, "badge");
        jw_str(w, c->badge);
    }
    if (review) {
        jw_key(w, "comments");
        jw_int(w, r->author.total);
        jw_key(w, "published");
        jw_int(w, r->author.published);
        jw_key(w, "rejected");
        jw_int(w, r->author.rejected);
    }
    if (form != COMMENT_FORM_PUBLIC) {
        jw_key(w, "suspended");
        jw_bool(w, review ? r->author.suspended : c->author_hidden);
    }
    jw_obj_end(w);
    jw_key(w, "body");
    jw_str(w, c->body);
    if (form != COMMENT_FORM_PUBLIC) {
        jw_key(w, "status");
        jw_str(w, c->status);
        jw_key(w, "held_reason");
        jw_str(w, c->held_reason[0] ? c->held_reason : NULL);
        if (review) {
            jw_key(w, "visible");
            jw_bool(w, c->visible);
        }
        jw_key(w, "featured");
        jw_bool(w, c->featured);
        if (!review) {
            jw_key(w, "hidden_by_reports");
            jw_bool(w, c->report_hidden);
        }
        jw_key(w, "open_reports");
        jw_int(w, c->open_reports);
        if (review) {
            jw_key(w, "reports");
            jw_str(w, r->reports);
        }
    }
    jw_key(w, "created_at");
    jw_time(w, c->created_at);
    jw_key(w, "edited_at");
    jw_time(w, c->edited_at);
    if (form == COMMENT_FORM_DOCUMENT) {
        jw_key(w, "deleted_at");
        jw_time(w, c->deleted_at);
        jw_key(w, "reviewed_at");
        jw_time(w, c->reviewed_at);
    } else if (form == COMMENT_FORM_PUBLIC) {
        jw_key(w, "featured");
        jw_bool(w, c->featured);
        jw_key(w, "reply_count");
        jw_int(w, c->reply_count);
    } else {
        jw_key(w, "history");
        jw_arr_begin(w);
        for (size_t i = 0; i < r->nlog; i++) {
            jw_obj_begin(w);
            jw_key(w, "at");
            jw_time(w, r->log[i].created_at);
            jw_key(w, "action");
            jw_str(w, r->log[i].action);
            jw_key(w, "actor");
            jw_str(w, r->log[i].actor);
            jw_key(w, "reason");
            jw_str(w, r->log[i].reason);
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
        jw_key(w, "question_version");
        jw_int(w, q->version);
        jw_key(w, "question");
        jw_obj_begin(w);
        question_labels(w, q, true);
        jw_obj_end(w);
        jw_key(w, "factual_context");
        jw_raw(w, q->factual_context_json ? q->factual_context_json : "{}");
        jw_key(w, "created_at");
        jw_time(w, q->created_at);
        jw_key(w, "superseded_at");
        jw_time(w, q->superseded_at);
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
    for (size_t k = 0; k < sizeof strs / sizeof strs[0]; k++) {
        jw_key(w, strs[k].key);
        jw_str(w, *(const char *const *)((const char *)i + strs[k].off));
    }
    jw_key(w, "period");
    jw_int(w, i->period);
    jw_key(w, "replay_involved");
    jw_tristate(w, i->replay_involved);
    jw_key(w, "penalty_called");
    jw_tristate(w, i->penalty_called);
    jw_key(w, "provenance");
    jw_raw(w, i->provenance_json ? i->provenance_json : "{}");
    jw_key(w, "reviewed_at");
    jw_time(w, i->reviewed_at);
    jw_key(w, "published_at");
    jw_time(w, i->published_at);
    jw_key(w, "created_at");
    jw_time(w, i->created_at);
    jw_key(w, "updated_at");
    jw_time(w, i->updated_at);
    jw_key(w, "comment_count");
    if (fragment)
        jw_raw(w, (const char[]){FRAG_COMMENTS, 0});
    else
        jw_int(w, i->comment_count);
}

static void render_incident_fields(struct jw *w, const char *base, const struct incident *i)
{
    stored_fields(w, i, base == frag_base);
    jw_key(w, "publication_status");
    jw_str(w, "published");
    jw_key(w, "url");
    concat(w, base, "/api/v1/incidents/", i->id, NULL);
    jw_key(w, "links");
    jw_obj_begin(w);
    jw_key(w, "self");
    concat(w, base, "/api/v1/incidents/", i->id, NULL);
    jw_key(w, "game");
    concat(w, base, "/api/v1/games/", i->game_id, NULL);
    jw_key(w, "gamePage");
    concat(w, base, "/games/", i->game_id, NULL);
    jw_obj_end(w);
    jw_key(w, "league");
    jw_str(w, i->league);
    jw_key(w, "seasonType");
    jw_str(w, i->season_type);
    jw_key(w, "ruling_version");
    jw_int(w, i->has_question ? i->question.version : 1);
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
    jw_key(w, "matchup");
    concat(w, i->away_name, " at ", i->home_name, NULL);
    jw_key(w, "public_url");
    concat(w, base, "/incidents/", i->slug ? i->slug : i->id, NULL);
    jw_key(w, "display_question");
    jw_str(w, i->has_question ? i->question.text : i->title);
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
    jw_key(w, "sources");
    jw_arr_begin(w);
    for (size_t k = 0; k < nsources; k++)
        render_source(w, &sources[k], false);
    jw_arr_end(w);
    jw_key(w, "question_history");
    render_question_history(w, history, nhistory, MODEL_NULL, false);
    jw_obj_end(w);
}

void render_pagination(struct jw *w, int64_t limit, int64_t offset, int64_t next_offset)
{
    jw_key(w, "pagination");
    jw_obj_begin(w);
    jw_key(w, "limit");
    jw_int(w, limit);
    jw_key(w, "offset");
    jw_int(w, offset);
    jw_key(w, "nextOffset");
    jw_int(w, next_offset);
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
            size_t at = b->len;
            json_escape_into(b, base, strlen(base));
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
    if (it->fragment)
        render_incident_spliced(w, base, it->fragment, it->fragment_len, it->comment_count,
                                &it->votes, detail);
    else if (detail)
        render_incident_detail(w, base, &it->inc, it->sources, it->nsources, it->history,
                               it->nhistory);
    else
        render_incident(w, base, &it->inc);
}
