#include "store/admin.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "domain/ids.h"
#include "store/games.h"
#include "util/buf.h"

int admin_team_exists(struct store *s, const char *id)
{
    return STORE_EXISTS(s, "SELECT 1 FROM teams WHERE id = ?", STORE_TEXT(id));
}

int admin_game_exists(struct store *s, const char *id)
{
    return STORE_EXISTS(s, "SELECT 1 FROM games WHERE id = ?", STORE_TEXT(id));
}

int admin_game_times(struct store *s, const char *id, int64_t *created_at, int64_t *updated_at)
{
    struct store_stmt *st =
        STORE_SELECT(s, "SELECT created_at, updated_at FROM games WHERE id = ?", STORE_TEXT(id));
    if (!st)
        return STORE_ERR;
    int rc = store_step(st);
    if (rc == STORE_ROW) {
        *created_at = store_col_int(st, 0);
        *updated_at = store_col_int(st, 1);
    }
    store_reset(st);
    return rc < 0 ? rc : rc == STORE_ROW;
}

int admin_is_empty(struct store *s)
{
    struct store_stmt *st =
        store_prepare(s, "SELECT (SELECT count(*) FROM games) + (SELECT count(*) FROM incidents)");
    if (!st)
        return STORE_ERR;
    int rc = store_step(st);
    int64_t rows = rc == STORE_ROW ? store_col_int(st, 0) : -1;
    store_reset(st);
    if (rc < 0)
        return rc;
    return rc == STORE_ROW ? rows == 0 : STORE_ERR;
}

/* An incident_state read from the columns of admin_state's SELECT (store_cols). */
#define STATE(kind, f) STORE_COL_##kind(struct incident_state, f)
static const struct store_col state_cols[] = {STATE(CHARS, visibility),
                                              STATE(CHARS, duplicate_of),
                                              STATE(CHARS, slug),
                                              STATE(INT, question_version),
                                              STATE(INT, published_at),
                                              STATE(INT, created_at),
                                              STATE(INT, updated_at),
                                              STATE(INT, duplicates),
                                              STATE(CHARS, status),
                                              STATE(CHARS, game_id),
                                              STORE_COL_END};
#undef STATE

int admin_incident_state(struct store *s, const char *id, struct incident_state *out)
{
    memset(out, 0, sizeof *out);
    out->question_version = MODEL_NULL;
    return STORE_ONE_COLS(
        s, state_cols, out,
        "SELECT visibility, duplicate_of, slug, question_version, published_at, created_at,"
        " updated_at, (SELECT count(*) FROM incidents d WHERE d.duplicate_of = i.id), status,"
        " game_id FROM incidents i WHERE id = ?",
        STORE_TEXT(id));
}

int admin_slug_owner(struct store *s, const char *slug, const char *id, char out[40])
{
    return STORE_ONE_TEXT(s, out, 40,
                          "SELECT id FROM incidents WHERE slug = ? AND id <> ?"
                          " UNION ALL SELECT incident_id FROM incident_slugs WHERE slug = ?"
                          " AND incident_id <> ?",
                          STORE_TEXT(slug), STORE_TEXT(id), STORE_TEXT(slug), STORE_TEXT(id));
}

int admin_derive_slug(struct store *s, const char *id, const char *title, char *out, size_t outlen)
{
    size_t n = slug_from_title(title, out, outlen);
    if (n == 0)
        snprintf(out, outlen, "incident-%.8s", id);
    char owner[40];
    int rc = admin_slug_owner(s, out, id, owner);
    if (rc < 0)
        return rc;
    if (rc == 1) {
        size_t len = strlen(out);
        if (len > SLUG_MAX - 9)
            len = SLUG_MAX - 9;
        snprintf(out + len, outlen - len, "-%.8s", id);
    }
    return 0;
}

int admin_upsert_team(struct store *s, const struct team *t)
{
    int rc = teams_sync_upsert(s, t, true);
    return rc < 0 ? rc : 0;
}

int admin_upsert_game(struct store *s, const struct game *g)
{
    return games_upsert(s, g, false, NULL);
}

static int64_t tri(int v)
{
    return v < 0 ? MODEL_NULL : v;
}

/* The editorial columns of an incident, in the order bind_editorial binds them. */
#define EDITORIAL_COLS                                                                             \
    "title, play_description, neutral_summary, period, clock, original_ruling, final_ruling,"      \
    " replay_involved, consequence, penalty_called"

/* Binds i's EDITORIAL_COLS to st from parameter k on: the next parameter. */
static int bind_editorial(struct store_stmt *st, int k, const struct incident *i)
{
    store_bind_text(st, k++, i->title);
    store_bind_text(st, k++, i->play_description);
    store_bind_text(st, k++, i->neutral_summary);
    store_bind_int(st, k++, i->period);
    store_bind_text(st, k++, i->clock);
    store_bind_text(st, k++, i->original_ruling);
    store_bind_text(st, k++, i->final_ruling);
    store_bind_int(st, k++, tri(i->replay_involved));
    store_bind_text(st, k++, i->consequence);
    store_bind_int(st, k++, tri(i->penalty_called));
    return k;
}

int admin_upsert_incident(struct store *s, const struct incident *i, const char *visibility,
                          int64_t question_version)
{
    struct incident_state old; /* zeroed when the incident is new */
    STORE_TRY(admin_incident_state(s, i->id, &old));
    if (old.slug[0] && (!i->slug || strcmp(old.slug, i->slug) != 0)) {
        /* the old slug keeps redirecting to this incident's page */
        struct store_stmt *h =
            STORE_SELECT(s,
                         "INSERT INTO incident_slugs (slug, incident_id) VALUES (?, ?)"
                         " ON CONFLICT (slug) DO NOTHING",
                         STORE_TEXT(old.slug), STORE_TEXT(i->id));
        if (!h)
            return STORE_ERR;
        STORE_TRY(store_run(h));
    }
    if (i->slug) {
        struct store_stmt *d =
            STORE_SELECT(s, "DELETE FROM incident_slugs WHERE slug = ? AND incident_id = ?",
                         STORE_TEXT(i->slug), STORE_TEXT(i->id));
        if (!d)
            return STORE_ERR;
        STORE_TRY(store_run(d));
    }
    struct store_stmt *st = store_prepare(
        s, "INSERT INTO incidents (id, game_id, " EDITORIAL_COLS ", category, status, origin_kind,"
           " provenance, reviewed_at, published_at, created_at, updated_at, visibility,"
           " duplicate_of, slug, comment_count, question_version)"
           " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?, ?, ?)"
           " ON CONFLICT (id) DO UPDATE SET game_id = excluded.game_id,"
           " title = excluded.title, play_description = excluded.play_description,"
           " neutral_summary = excluded.neutral_summary, category = excluded.category,"
           " period = excluded.period, clock = excluded.clock,"
           " original_ruling = excluded.original_ruling, final_ruling = excluded.final_ruling,"
           " replay_involved = excluded.replay_involved, consequence = excluded.consequence,"
           " status = excluded.status, origin_kind = excluded.origin_kind,"
           " provenance = excluded.provenance, reviewed_at = excluded.reviewed_at,"
           " published_at = excluded.published_at, created_at = excluded.created_at,"
           " updated_at = excluded.updated_at, visibility = excluded.visibility,"
           " duplicate_of = NULL, slug = excluded.slug,"
           " penalty_called = excluded.penalty_called, comment_count = excluded.comment_count,"
           " question_version = excluded.question_version");
    if (!st)
        return STORE_ERR;
    store_bind_text(st, 1, i->id);
    store_bind_text(st, 2, i->game_id);
    int k = bind_editorial(st, 3, i);
    store_bind_text(st, k++, i->category);
    store_bind_text(st, k++, i->status);
    store_bind_text(st, k++, i->origin_kind);
    store_bind_text(st, k++, i->provenance_json);
    store_bind_int(st, k++, i->reviewed_at);
    store_bind_int(st, k++, i->published_at);
    store_bind_int(st, k++, i->created_at);
    store_bind_int(st, k++, i->updated_at);
    store_bind_text(st, k++, visibility);
    store_bind_text(st, k++, i->slug);
    store_bind_int(st, k++, i->comment_count);
    store_bind_int(st, k++, question_version);
    STORE_TRY(store_run(st));
    /* the game attributes the incident list filters on (migration 011), kept in step */
    return STORE_RUN(
        s,
        "UPDATE incidents SET (g_season, g_week, g_league, g_season_type, g_home, g_away) ="
        " (SELECT g.season, g.week, g.league, g.season_type, g.home_team_id, g.away_team_id"
        " FROM games g WHERE g.id = incidents.game_id)"
        " WHERE id = ?",
        STORE_TEXT(i->id));
}

/* A stable source id: the first 16 bytes of SHA-256(incident id, NUL, url) laid out as an
 * RFC 9562 version-8 UUID, so re-importing a file gives the same ids. */
static void source_id(const char *incident_id, const char *url, char out[37])
{
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256_state st;
    crypto_hash_sha256_init(&st);
    crypto_hash_sha256_update(&st, (const unsigned char *)incident_id, strlen(incident_id) + 1);
    crypto_hash_sha256_update(&st, (const unsigned char *)url, strlen(url));
    crypto_hash_sha256_final(&st, h);
    h[6] = (unsigned char)((h[6] & 0x0f) | 0x80);
    h[8] = (unsigned char)((h[8] & 0x3f) | 0x80);
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", h[0],
             h[1], h[2], h[3], h[4], h[5], h[6], h[7], h[8], h[9], h[10], h[11], h[12], h[13],
             h[14], h[15]);
}

int admin_add_source(struct store *s, const char *incident_id, const struct source *src,
                     int64_t now)
{
    char id[37];
    source_id(incident_id, src->url, id);
    int rc = STORE_EXISTS(s, "SELECT 1 FROM sources WHERE id = ?", STORE_TEXT(id));
    if (rc != 0)
        return rc < 0 ? rc : 0;
    STORE_TRY(STORE_RUN(
        s,
        "INSERT INTO sources (id, incident_id, position, url, title, publisher, source_kind,"
        " published_at, added_at, supports, added_by)"
        " SELECT ?, ?, coalesce(max(position), -1) + 1, ?, ?, ?, ?, ?, ?, ?, ?"
        " FROM sources WHERE incident_id = ?",
        STORE_TEXT(id), STORE_TEXT(incident_id), STORE_TEXT(src->url), STORE_TEXT(src->title),
        STORE_TEXT(src->publisher), STORE_TEXT(src->kind), STORE_INT(src->published_at),
        STORE_INT(now), STORE_TEXT(src->supports), STORE_TEXT(src->added_by),
        STORE_TEXT(incident_id)));
    STORE_TRY(STORE_RUN(s, "UPDATE incidents SET updated_at = ? WHERE id = ?", STORE_INT(now),
                        STORE_TEXT(incident_id)));
    return 1;
}

int admin_remove_source(struct store *s, const char *incident_id, const char *url, int64_t now)
{
    char id[37];
    source_id(incident_id, url, id);
    /* both statements run whatever the DELETE found, so that store_prepare_ahead (which runs
     * nothing, and PostgreSQL prepares a statement at its first step) prepares the second
     * too; when nothing was removed the caller rolls the touch back */
    STORE_TRY(STORE_RUN(s, "DELETE FROM sources WHERE id = ?", STORE_TEXT(id)));
    int64_t removed = store_changes(s);
    STORE_TRY(STORE_RUN(s, "UPDATE incidents SET updated_at = ? WHERE id = ?", STORE_INT(now),
                        STORE_TEXT(incident_id)));
    return removed > 0;
}

int admin_replace_sources(struct store *s, const char *incident_id, const struct source *src,
                          size_t n, int64_t now)
{
    /* added_at of sources that stay (same id) is kept when the file gives none */
    int64_t kept[ADMIN_MAX_SOURCES];
    char ids[ADMIN_MAX_SOURCES][37];
    if (n > ADMIN_MAX_SOURCES)
        return STORE_ERR;
    for (size_t k = 0; k < n; k++) {
        source_id(incident_id, src[k].url, ids[k]);
        kept[k] = src[k].added_at;
        if (kept[k] != MODEL_NULL)
            continue;
        struct store_stmt *old =
            STORE_SELECT(s, "SELECT added_at FROM sources WHERE id = ?", STORE_TEXT(ids[k]));
        if (!old)
            return STORE_ERR;
        int rc = store_step(old);
        kept[k] = rc == STORE_ROW ? store_col_int(old, 0) : now;
        store_reset(old);
        if (rc < 0)
            return rc;
    }
    struct store_stmt *del =
        STORE_SELECT(s, "DELETE FROM sources WHERE incident_id = ?", STORE_TEXT(incident_id));
    if (!del)
        return STORE_ERR;
    STORE_TRY(store_run(del));
    for (size_t k = 0; k < n; k++) {
        STORE_TRY(STORE_RUN(s,
                            "INSERT INTO sources (id, incident_id, position, url, title, publisher,"
                            " source_kind, published_at, added_at, supports, added_by)"
                            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                            STORE_TEXT(ids[k]), STORE_TEXT(incident_id), STORE_INT((int64_t)k),
                            STORE_TEXT(src[k].url), STORE_TEXT(src[k].title),
                            STORE_TEXT(src[k].publisher), STORE_TEXT(src[k].kind),
                            STORE_INT(src[k].published_at), STORE_INT(kept[k]),
                            STORE_TEXT(src[k].supports), STORE_TEXT(src[k].added_by)));
    }
    return 0;
}

static int insert_question(struct store *s, const char *id, const struct question *q)
{
    return STORE_RUN(
        s,
        "INSERT INTO questions (incident_id, version, question_type, question_text,"
        " option_a_label, option_b_label, unsure_label, stored_a_label, stored_b_label,"
        " stored_unsure_label, factual_context, created_at, superseded_at)"
        " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        STORE_TEXT(id), STORE_INT(q->version), STORE_TEXT(q->type), STORE_TEXT(q->text),
        STORE_TEXT(q->a_label), STORE_TEXT(q->b_label), STORE_TEXT(q->unsure_label),
        STORE_TEXT(q->stored_a), STORE_TEXT(q->stored_b), STORE_TEXT(q->stored_unsure),
        STORE_TEXT(q->factual_context_json ? q->factual_context_json : "{}"),
        STORE_INT(q->created_at), STORE_INT(q->superseded_at));
}

int admin_replace_questions(struct store *s, const char *incident_id, const struct question *qs,
                            size_t n)
{
    struct store_stmt *del =
        STORE_SELECT(s, "DELETE FROM questions WHERE incident_id = ?", STORE_TEXT(incident_id));
    if (!del)
        return STORE_ERR;
    STORE_TRY(store_run(del));
    for (size_t k = 0; k < n; k++)
        STORE_TRY(insert_question(s, incident_id, &qs[k]));
    return 0;
}

int admin_replace_legacy_ballots(struct store *s, const char *incident_id, int64_t version,
                                 const int *choices, const int *rootings, size_t n, int64_t now)
{
    STORE_TRY(STORE_RUN(s,
                        "DELETE FROM ballots WHERE incident_id = ? AND question_version = ?"
                        " AND voter LIKE 'legacy:%'",
                        STORE_TEXT(incident_id), STORE_INT(version)));
    for (size_t k = 0; k < n; k++) {
        char voter[32];
        snprintf(voter, sizeof voter, "legacy:%zu", k);
        STORE_TRY(STORE_RUN(
            s,
            "INSERT INTO ballots (incident_id, question_version, voter, choice,"
            " rooting, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
            STORE_TEXT(incident_id), STORE_INT(version), STORE_TEXT(voter),
            STORE_TEXT(choice_names[choices[k]]),
            STORE_TEXT(rootings[k] == ROOTING_UNSPECIFIED ? NULL : rooting_names[rootings[k]]),
            STORE_INT(now), STORE_INT(now)));
    }
    /* import is a cold path: recount this version's tallies from its ballots */
    STORE_TRY(STORE_RUN(s,
                        "DELETE FROM vote_tallies WHERE incident_id = ? AND question_version = ?",
                        STORE_TEXT(incident_id), STORE_INT(version)));
    return STORE_RUN(
        s,
        "INSERT INTO vote_tallies (incident_id, question_version, rooting, correct, incorrect,"
        " unsure) SELECT incident_id, question_version, coalesce(rooting, 'unspecified'),"
        " sum(CASE WHEN choice = 'correct' THEN 1 ELSE 0 END),"
        " sum(CASE WHEN choice = 'incorrect' THEN 1 ELSE 0 END),"
        " sum(CASE WHEN choice = 'unsure' THEN 1 ELSE 0 END)"
        " FROM ballots WHERE incident_id = ? AND question_version = ?"
        " GROUP BY incident_id, question_version, coalesce(rooting, 'unspecified')",
        STORE_TEXT(incident_id), STORE_INT(version));
}

int admin_set_visibility(struct store *s, const char *id, const char *visibility,
                         const char *duplicate_of, int64_t now)
{
    return STORE_RUN(s,
                     "UPDATE incidents SET visibility = ?, duplicate_of = ?,"
                     " updated_at = coalesce(?, updated_at) WHERE id = ?",
                     STORE_TEXT(visibility), STORE_TEXT(duplicate_of), STORE_INT(now),
                     STORE_TEXT(id));
}

int admin_set_status(struct store *s, const char *id, const char *status, int64_t now)
{
    return STORE_RUN(s, "UPDATE incidents SET status = ?, updated_at = ? WHERE id = ?",
                     STORE_TEXT(status), STORE_INT(now), STORE_TEXT(id));
}

int admin_update_editorial(struct store *s, const struct incident *i, int64_t now)
{
    struct store_stmt *st = store_prepare(
        s, "UPDATE incidents SET title = ?, play_description = ?, neutral_summary = ?,"
           " period = ?, clock = ?, original_ruling = ?, final_ruling = ?, replay_involved = ?,"
           " consequence = ?, penalty_called = ?, updated_at = ? WHERE id = ?");
    if (!st)
        return STORE_ERR;
    int k = bind_editorial(st, 1, i);
    store_bind_int(st, k++, now);
    store_bind_text(st, k++, i->id);
    return store_run(st);
}

int admin_new_question(struct store *s, const char *id, const struct question *q, int64_t now)
{
    STORE_TRY(STORE_RUN(
        s, "UPDATE questions SET superseded_at = ? WHERE incident_id = ? AND superseded_at IS NULL",
        STORE_INT(now), STORE_TEXT(id)));
    STORE_TRY(insert_question(s, id, q));
    return STORE_RUN(s, "UPDATE incidents SET question_version = ?, updated_at = ? WHERE id = ?",
                     STORE_INT(q->version), STORE_INT(now), STORE_TEXT(id));
}

int admin_clarify_question(struct store *s, const char *id, int64_t version,
                           const struct question *q, int64_t now)
{
    STORE_TRY(
        STORE_RUN(s,
                  "UPDATE questions SET option_a_label = ?, option_b_label = ?, unsure_label = ?"
                  " WHERE incident_id = ? AND version = ?",
                  STORE_TEXT(q->a_label), STORE_TEXT(q->b_label), STORE_TEXT(q->unsure_label),
                  STORE_TEXT(id), STORE_INT(version)));
    return STORE_RUN(s, "UPDATE incidents SET updated_at = ? WHERE id = ?", STORE_INT(now),
                     STORE_TEXT(id));
}
