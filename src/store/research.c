#include "store/research.h"

#include <string.h>

/* The columns of struct research_lead, in the order of lead_cols. The contributor
 * is the account's safe display name, never its email. */
#define LEAD_COLUMNS                                                                               \
    "l.id, l.account_id, l.game_id, l.description, l.source_urls, l.clock, l.category,"            \
    " l.status, l.claim_token, l.incident_id, l.duplicate_lead, l.reason, a.display_name,"         \
    " l.period, l.attempts, l.created_at, l.updated_at, l.lease_until,"                            \
    " l.next_attempt_at, l.candidate_at"

/* A lead (a struct research_lead) read from LEAD_COLUMNS (store_cols). */
#define LEAD(kind, f) STORE_COL_##kind(struct research_lead, f)
static const struct store_col lead_cols[] = {LEAD(DUP, id),
                                             LEAD(DUP, account_id),
                                             LEAD(DUP, game_id),
                                             LEAD(DUP, description),
                                             LEAD(DUP, source_urls_json),
                                             LEAD(DUP, clock),
                                             LEAD(DUP, category),
                                             LEAD(DUP, status),
                                             LEAD(DUP, claim_token),
                                             LEAD(DUP, incident_id),
                                             LEAD(DUP, duplicate_lead),
                                             LEAD(DUP, reason),
                                             LEAD(DUP, contributor),
                                             LEAD(INT, period),
                                             LEAD(INT32, attempts),
                                             LEAD(INT, created_at),
                                             LEAD(INT, updated_at),
                                             LEAD(INT, lease_until),
                                             LEAD(INT, next_attempt_at),
                                             LEAD(INT, candidate_at),
                                             STORE_COL_END};
#undef LEAD

static void read_lead(struct store_stmt *st, struct arena *a, struct research_lead *l)
{
    memset(l, 0, sizeof *l);
    store_cols(st, a, 0, lead_cols, l);
}

/* A lead read with its strings copied into a. */
struct lead_out {
    struct arena *a;
    struct research_lead *l;
};

/* store_one's reader of a lead (a struct lead_out *). */
static int lead_row(void *arg, struct store_stmt *st)
{
    const struct lead_out *out = arg;
    read_lead(st, out->a, out->l);
    return 0;
}

/* A lead is due when it is pending past its backoff, or running with an expired lease
 * (its worker died) and not a candidate waiting for an operator. The same condition is in
 * the outer WHERE: when two workers pick the same id, the second UPDATE finds the row
 * no longer due and changes nothing (PostgreSQL re-evaluates it after the first commits;
 * SQLite serialises writers). */
#define DUE                                                                                        \
    "((status = 'pending' AND (next_attempt_at IS NULL OR next_attempt_at <= ?))"                  \
    " OR (status = 'running' AND candidate_at IS NULL AND lease_until < ?))"

int research_claim(struct store *s, struct arena *a, int64_t now, int64_t lease_us,
                   const char *token, struct research_lead *out)
{
#define CLAIM(lock)                                                                                \
    "UPDATE leads SET status = 'running', claim_token = ?, lease_until = ?,"                       \
    " attempts = attempts + 1, next_attempt_at = NULL, updated_at = ?"                             \
    " WHERE id = (SELECT id FROM leads WHERE " DUE " ORDER BY created_at, id LIMIT 1" lock ")"     \
    " AND " DUE " RETURNING id"
    /* Driver-specific (the one exception to the portable dialect here): on PostgreSQL the
     * due lead is row-locked as it is picked and leads that another worker's claim holds
     * are skipped (FOR UPDATE SKIP LOCKED, ARCHITECTURE.md "Storage rules"), so concurrent
     * claims never wait on each other or pick the same lead; the outer "AND DUE" re-checks
     * the row after the lock. SQLite has no row locks: the write transaction (BEGIN
     * IMMEDIATE) serializes claims. Both texts bind the same parameters. */
    bool pg = store_is_pg(s);
    struct store_stmt *st = store_prepare(s, pg ? CLAIM(" FOR UPDATE SKIP LOCKED") : CLAIM(""));
#undef CLAIM
    if (!st)
        return STORE_ERR;
    store_bind_text(st, 1, token);
    store_bind_int(st, 2, now + lease_us);
    store_bind_int(st, 3, now);
    for (int k = 4; k <= 7; k++)
        store_bind_int(st, k, now);
    int rc = store_step(st);
    char id[ID_LEN] = "";
    if (rc == STORE_ROW)
        store_col_copy(st, 0, id, sizeof id);
    if (rc == STORE_ROW)
        rc = store_step(st);
    store_reset(st);
    if (rc < 0)
        return rc;
    if (!id[0])
        return 0;
    rc = research_lead_get(s, a, id, out);
    return rc < 0 ? rc : (rc == 1 ? 1 : STORE_ERR);
}

int research_lead_get(struct store *s, struct arena *a, const char *id, struct research_lead *out)
{
    return store_one(STORE_SELECT(s,
                                  "SELECT " LEAD_COLUMNS " FROM leads l JOIN accounts a ON a.id ="
                                  " l.account_id WHERE l.id = ?",
                                  STORE_TEXT(id)),
                     lead_row, &(struct lead_out){a, out});
}

static int lead_each_row(void *each, struct store_stmt *st)
{
    struct research_lead l;
    read_lead(st, store_each_of(each)->a, &l);
    return STORE_EACH_CALL(each, struct research_lead, &l);
}

int research_leads_each(struct store *s, struct arena *a, const char *status, int limit,
                        int (*fn)(void *ctx, const struct research_lead *l), void *ctx)
{
    struct store_stmt *st;
    if (status && strcmp(status, "candidate") == 0)
        st = STORE_SELECT(s,
                          "SELECT " LEAD_COLUMNS " FROM leads l JOIN accounts a"
                          " ON a.id = l.account_id WHERE l.status = 'running'"
                          " AND l.candidate_at IS NOT NULL"
                          " ORDER BY l.candidate_at DESC, l.id DESC LIMIT ?",
                          STORE_INT(limit));
    else if (status)
        st = STORE_SELECT(s,
                          "SELECT " LEAD_COLUMNS " FROM leads l JOIN accounts a"
                          " ON a.id = l.account_id WHERE l.status = ?"
                          " ORDER BY l.created_at DESC, l.id DESC LIMIT ?",
                          STORE_TEXT(status), STORE_INT(limit));
    else
        st = STORE_SELECT(s,
                          "SELECT " LEAD_COLUMNS " FROM leads l JOIN accounts a"
                          " ON a.id = l.account_id"
                          " ORDER BY l.created_at DESC, l.id DESC LIMIT ?",
                          STORE_INT(limit));
    return store_rows(st, lead_each_row, STORE_EACH(struct research_lead, fn, ctx, a));
}

int research_set_outcome(struct store *s, const char *lead_id, const char *token,
                         const struct research_outcome *o, int64_t now)
{
    /* the claim is dropped with every outcome: a pending lead is claimed afresh, a running
     * candidate waits for an operator and is never re-claimed */
#define SET_OUTCOME                                                                                \
    "UPDATE leads SET status = ?, reason = ?, incident_id = ?, duplicate_lead = ?,"                \
    " next_attempt_at = ?, candidate_at = ?, claim_token = NULL, lease_until = NULL,"              \
    " updated_at = ? WHERE id = ?"
    /* the token, the last parameter, is bound only when the text has its placeholder */
    const struct store_arg args[] = {
        STORE_TEXT(o->status),
        STORE_TEXT(o->reason),
        STORE_TEXT(o->incident_id),
        STORE_TEXT(o->duplicate_lead),
        STORE_INT(o->next_attempt_at),
        STORE_INT(o->candidate ? now : INT64_MIN),
        STORE_INT(now),
        STORE_TEXT(lead_id),
        STORE_TEXT(token),
    };
    STORE_TRY(store_run_args(s, token ? SET_OUTCOME " AND claim_token = ?" : SET_OUTCOME, args,
                             token ? 9 : 8));
    return store_changes(s) == 1;
}

int research_release(struct store *s, const char *lead_id, const char *token, int64_t now)
{
    int rc = STORE_RUN(s,
                       "UPDATE leads SET status = 'pending', attempts = attempts - 1,"
                       " next_attempt_at = NULL, claim_token = NULL, lease_until = NULL,"
                       " updated_at = ? WHERE id = ? AND claim_token = ? AND status = 'running'"
                       " AND attempts > 0",
                       STORE_INT(now), STORE_TEXT(lead_id), STORE_TEXT(token));
    if (rc < 0 || store_changes(s) != 1)
        return rc < 0 ? rc : 0;
    rc = research_event(s, lead_id, now, "released", "running", "pending", "worker",
                        "the worker stopped during the fetches: the attempt is not "
                        "counted and the lead waits for the next worker");
    return rc < 0 ? rc : 1;
}

int research_event(struct store *s, const char *lead_id, int64_t at, const char *event,
                   const char *from_status, const char *to_status, const char *actor,
                   const char *reason)
{
    return STORE_RUN(
        s,
        "INSERT INTO lead_events (lead_id, seq, at, event, from_status, to_status, actor,"
        " reason) SELECT ?, coalesce(max(seq), 0) + 1, ?, ?, ?, ?, ?, ? FROM lead_events"
        " WHERE lead_id = ?",
        STORE_TEXT(lead_id), STORE_INT(at), STORE_TEXT(event), STORE_TEXT(from_status),
        STORE_TEXT(to_status), STORE_TEXT(actor), STORE_TEXT(reason), STORE_TEXT(lead_id));
}

static int event_row(void *each, struct store_stmt *st)
{
    struct research_event_row e = {
        store_col_int(st, 0),  store_col_int(st, 1),  store_col_text(st, 2), store_col_text(st, 3),
        store_col_text(st, 4), store_col_text(st, 5), store_col_text(st, 6),
    };
    return STORE_EACH_CALL(each, struct research_event_row, &e);
}

int research_events_each(struct store *s, const char *lead_id,
                         int (*fn)(void *ctx, const struct research_event_row *e), void *ctx)
{
    return store_rows(STORE_SELECT(s,
                                   "SELECT seq, at, event, from_status, to_status, actor, reason"
                                   " FROM lead_events WHERE lead_id = ? ORDER BY seq",
                                   STORE_TEXT(lead_id)),
                      event_row, STORE_EACH(struct research_event_row, fn, ctx, NULL));
}

int research_save_fetches(struct store *s, const char *lead_id,
                          const struct research_fetch_row *rows, int n)
{
    STORE_TRY(STORE_RUN(s, "DELETE FROM lead_fetches WHERE lead_id = ?", STORE_TEXT(lead_id)));
    for (int i = 0; i < n; i++) {
        const struct research_fetch_row *r = &rows[i];
        STORE_TRY(STORE_RUN(
            s,
            "INSERT INTO lead_fetches (lead_id, position, url, final_url, http_status,"
            " content_type, title, publisher, content_hash, bytes, domain, mentions, error,"
            " fetched_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            STORE_TEXT(lead_id), STORE_INT(r->position), STORE_TEXT(r->url),
            STORE_TEXT(r->final_url), STORE_INT(r->http_status < 0 ? INT64_MIN : r->http_status),
            STORE_TEXT(r->content_type), STORE_TEXT(r->title), STORE_TEXT(r->publisher),
            STORE_TEXT(r->content_hash), STORE_INT(r->bytes), STORE_TEXT(r->domain),
            STORE_INT(r->mentions ? 1 : 0), STORE_TEXT(r->error), STORE_INT(r->fetched_at)));
    }
    return 0;
}

static int fetch_row(void *each, struct store_stmt *st)
{
    int64_t status = store_col_int(st, 9);
    struct research_fetch_row r = {
        .position = (int)store_col_int(st, 0),
        .url = store_col_text(st, 1),
        .final_url = store_col_text(st, 2),
        .content_type = store_col_text(st, 3),
        .title = store_col_text(st, 4),
        .publisher = store_col_text(st, 5),
        .content_hash = store_col_text(st, 6),
        .domain = store_col_text(st, 7),
        .error = store_col_text(st, 8),
        .http_status = status == INT64_MIN ? -1 : (long)status,
        .bytes = store_col_int(st, 10),
        .fetched_at = store_col_int(st, 11),
        .mentions = store_col_int(st, 12) == 1,
    };
    return STORE_EACH_CALL(each, struct research_fetch_row, &r);
}

int research_fetches_each(struct store *s, const char *lead_id,
                          int (*fn)(void *ctx, const struct research_fetch_row *r), void *ctx)
{
    return store_rows(
        STORE_SELECT(
            s,
            "SELECT position, url, final_url, content_type, title, publisher, content_hash,"
            " domain, error, http_status, bytes, fetched_at, mentions FROM lead_fetches"
            " WHERE lead_id = ? ORDER BY position",
            STORE_TEXT(lead_id)),
        fetch_row, STORE_EACH(struct research_fetch_row, fn, ctx, NULL));
}

/* The row of both play reads: id, clock, category, incident, duplicate lead, period, URLs
 * (an incident is its own incident, with neither of the lead's columns). */
#define PLAY(kind, f) STORE_COL_##kind(struct research_play, f)
static const struct store_col play_cols[] = {PLAY(VIEW, id),
                                             PLAY(VIEW, clock),
                                             PLAY(VIEW, category),
                                             PLAY(VIEW, incident_id),
                                             PLAY(VIEW, duplicate_lead),
                                             PLAY(INT, period),
                                             PLAY(VIEW, urls_json),
                                             STORE_COL_END};
#undef PLAY

static int play_row(void *each, struct store_stmt *st)
{
    struct research_play p = {0};
    store_cols(st, NULL, 0, play_cols, &p);
    return STORE_EACH_CALL(each, struct research_play, &p);
}

int research_game_incidents_each(struct store *s, const char *game_id,
                                 int (*fn)(void *ctx, const struct research_play *p), void *ctx)
{
    return store_rows(
        STORE_SELECT(s,
                     "SELECT id, clock, category, id, NULL, period, NULL FROM incidents"
                     " WHERE game_id = ? AND visibility = 'published' ORDER BY published_at, id",
                     STORE_TEXT(game_id)),
        play_row, STORE_EACH(struct research_play, fn, ctx, NULL));
}

/* Leads of one game accepted before (created_at, id) that are still alive. */
#define EARLIER                                                                                    \
    " l.game_id = ? AND l.id <> ? AND l.status NOT IN ('rejected', 'failed')"                      \
    " AND (l.created_at < ? OR (l.created_at = ? AND l.id < ?))"

int research_earlier_leads_each(struct store *s, const char *game_id, const char *lead_id,
                                int64_t created_at,
                                int (*fn)(void *ctx, const struct research_play *p), void *ctx)
{
    return store_rows(
        STORE_SELECT(
            s,
            "SELECT l.id, l.clock, l.category, i.id, l.duplicate_lead, l.period, l.source_urls"
            " FROM leads l LEFT JOIN incidents i ON i.id = l.incident_id"
            " AND i.visibility = 'published' WHERE" EARLIER " ORDER BY l.created_at, l.id",
            STORE_TEXT(game_id), STORE_TEXT(lead_id), STORE_INT(created_at), STORE_INT(created_at),
            STORE_TEXT(lead_id)),
        play_row, STORE_EACH(struct research_play, fn, ctx, NULL));
}

int research_incident_by_source(struct store *s, const char *game_id, const char *url,
                                char id[ID_LEN])
{
    return STORE_ONE_TEXT(s, id, ID_LEN,
                          "SELECT i.id FROM sources so JOIN incidents i ON i.id = so.incident_id"
                          " WHERE so.url = ? AND i.game_id = ? AND i.visibility = 'published'"
                          " ORDER BY i.published_at, i.id LIMIT 1",
                          STORE_TEXT(url), STORE_TEXT(game_id));
}

int research_lead_by_url(struct store *s, const char *game_id, const char *lead_id,
                         int64_t created_at, const char *url, char id[ID_LEN],
                         char incident_id[ID_LEN], char duplicate_lead[ID_LEN])
{
    struct store_text_out out[] = {
        {id, ID_LEN}, {incident_id, ID_LEN}, {duplicate_lead, ID_LEN}, {NULL, 0}};
    struct store_stmt *st = STORE_SELECT(
        s,
        "SELECT l.id, i.id, l.duplicate_lead FROM lead_fetches f"
        " JOIN leads l ON l.id = f.lead_id"
        " LEFT JOIN incidents i ON i.id = l.incident_id AND i.visibility = 'published'"
        " WHERE (f.url = ? OR f.final_url = ?) AND" EARLIER " ORDER BY l.created_at, l.id LIMIT 1",
        STORE_TEXT(url), STORE_TEXT(url), STORE_TEXT(game_id), STORE_TEXT(lead_id),
        STORE_INT(created_at), STORE_INT(created_at), STORE_TEXT(lead_id));
    return store_one(st, store_texts_row, out);
}
