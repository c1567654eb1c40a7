#include "store/votes.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

#include "domain/vocab.h"
#include "domain/votes.h"
#include "util/buf.h"
#include "util/uuid.h"

int settings_get(struct store *s, const char *name, char *out, size_t n)
{
    return STORE_ONE_TEXT(s, out, n, "SELECT value FROM settings WHERE name = ?", STORE_TEXT(name));
}

int settings_put(struct store *s, const char *name, const char *value)
{
    return STORE_RUN(s,
                     "INSERT INTO settings (name, value) VALUES (?, ?)"
                     " ON CONFLICT (name) DO UPDATE SET value = "
                     "excluded.value",
                     STORE_TEXT(name), STORE_TEXT(value));
}

int settings_secret(struct store *s, const char *name, unsigned char out[32])
{
    char hex[129]; /* room for a longer, corrupt value, which then fails to decode */
    size_t len = 0;
    int rc = settings_get(s, name, hex, sizeof hex);
    bool found =
        rc == 1 && sodium_hex2bin(out, 32, hex, strlen(hex), NULL, &len, NULL) == 0 && len == 32;
    if (rc >= 0 && !found) {
        randombytes_buf(out, 32);
        sodium_bin2hex(hex, sizeof hex, out, 32);
        rc = settings_put(s, name, hex);
    }
    sodium_memzero(hex, sizeof hex);
    return rc < 0 ? rc : 0;
}

/* A ballot's choice and rooting into row, {choice, rooting} (16 bytes each). */
static void read_ballot(struct arena *a, struct store_stmt *st, void *row, size_t k)
{
    (void)a, (void)k;
    char *const *out = row;
    store_col_copy(st, 0, out[0], 16);
    store_col_copy(st, 1, out[1], 16);
}

int ballots_get(struct store *s, const char *incident_id, int64_t version, const char *voter,
                char choice[16], char rooting[16])
{
    choice[0] = rooting[0] = '\0';
    char *out[2] = {choice, rooting};
    return store_read_one(STORE_SELECT(s,
                                       "SELECT choice, rooting FROM ballots"
                                       " WHERE incident_id = ? AND question_version = ?"
                                       " AND voter = ?",
                                       STORE_TEXT(incident_id), STORE_INT(version),
                                       STORE_TEXT(voter)),
                          NULL, read_ballot, out);
}

int ballots_choice(struct store *s, const char *incident_id, int64_t version, const char *voter,
                   char out[16])
{
    char rooting[16];
    return ballots_get(s, incident_id, version, voter, out, rooting);
}

/* Adds delta to one choice column of a rooting group's tally row. */
static int tally_add(struct store *s, const char *incident_id, int64_t version, const char *rooting,
                     const char *choice, int delta)
{
    /* slot 0: SQLite has one writer (the server-side path spreads over slots) */
    int k = vocab_find(choice_names, choice);
    return STORE_RUN(
        s,
        "INSERT INTO vote_tallies (incident_id, question_version, rooting, correct, incorrect,"
        " unsure) VALUES (?, ?, ?, ?, ?, ?)"
        " ON CONFLICT (incident_id, question_version, rooting, slot)"
        " DO UPDATE SET correct = vote_tallies.correct + excluded.correct,"
        " incorrect = vote_tallies.incorrect + excluded.incorrect,"
        " unsure = vote_tallies.unsure + excluded.unsure",
        STORE_TEXT(incident_id), STORE_INT(version),
        STORE_TEXT(rooting ? rooting : rooting_names[ROOTING_UNSPECIFIED]),
        STORE_INT(k == CHOICE_CORRECT ? delta : 0), STORE_INT(k == CHOICE_INCORRECT ? delta : 0),
        STORE_INT(k == CHOICE_UNSURE ? delta : 0));
}

int ballots_put(struct store *s, const char *incident_id, int64_t version, const char *voter,
                const char *choice, const char *rooting, int64_t now)
{
    char old_choice[16], old_rooting[16];
    int rc = ballots_get(s, incident_id, version, voter, old_choice, old_rooting);
    if (rc < 0)
        return rc;
    bool had = rc == 1;
    if (had && strcmp(old_choice, choice) == 0 && strcmp(old_rooting, rooting ? rooting : "") == 0)
        return 0; /* the same ballot again: nothing moves */
    if (had) {
        /* replace: the old ballot leaves its tally, the new one enters */
        rc =
            tally_add(s, incident_id, version, old_rooting[0] ? old_rooting : NULL, old_choice, -1);
        if (rc < 0)
            return rc;
    }
    /* the replacement binds the first six, the new ballot all seven */
    const struct store_arg args[] = {
        STORE_TEXT(choice), STORE_TEXT(rooting), STORE_INT(now), STORE_TEXT(incident_id),
        STORE_INT(version), STORE_TEXT(voter),   STORE_INT(now)};
    rc = had ? store_run_args(s,
                              "UPDATE ballots SET choice = ?, rooting = ?, updated_at = ?"
                              " WHERE incident_id = ? AND question_version = ? AND voter = ?",
                              args, 6)
             : store_run_args(s,
                              "INSERT INTO ballots (choice, rooting, updated_at, incident_id,"
                              " question_version, voter, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                              args, 7);
    if (rc < 0)
        return rc;
    return tally_add(s, incident_id, version, rooting, choice, +1);
}

int rate_windows_get(struct store *s, const char *subject, int64_t *count, int64_t *started)
{
    *count = 0;
    *started = 0;
    struct store_stmt *st = STORE_SELECT(
        s, "SELECT count, started_at FROM rate_windows WHERE subject = ?", STORE_TEXT(subject));
    if (!st)
        return STORE_ERR;
    int rc = store_step(st);
    if (rc == STORE_ROW) {
        *count = store_col_int(st, 0);
        *started = store_col_int(st, 1);
    }
    store_reset(st);
    return rc < 0 ? rc : 0;
}

int rate_windows_put(struct store *s, const char *subject, int64_t count, int64_t started)
{
    return STORE_RUN(s,
                     "INSERT INTO rate_windows (subject, count, started_at) VALUES (?, ?, ?)"
                     " ON CONFLICT (subject) DO UPDATE SET count = excluded.count,"
                     " started_at = excluded.started_at",
                     STORE_TEXT(subject), STORE_INT(count), STORE_INT(started));
}

int rate_windows_prune(struct store *s, int64_t before)
{
    return STORE_RUN(s, "DELETE FROM rate_windows WHERE started_at <= ?", STORE_INT(before));
}

int ballots_voter_known(struct store *s, const char *voter)
{
    return STORE_EXISTS(s, "SELECT 1 FROM ballots WHERE voter = ? LIMIT 1", STORE_TEXT(voter));
}

/* A PostgreSQL array literal of the subjects ({"a","b",NULL}): subjects are made of
 * letters, digits, '-' and ':' (app/ballot.c), so they need no escaping. */
static void subjects_literal(const struct ballot_write *w, struct buf *b)
{
    buf_putc(b, '{');
    for (int k = 0; k < BALLOT_WRITE_WINDOWS; k++) {
        if (k)
            buf_putc(b, ',');
        if (w->subject[k])
            buf_printf(b, "\"%s\"", w->subject[k]);
        else
            buf_puts(b, "NULL");
    }
    buf_putc(b, '}');
}

static void ints_literal(const int64_t *v, struct buf *b)
{
    buf_putc(b, '{');
    for (int k = 0; k < BALLOT_WRITE_WINDOWS; k++)
        buf_printf(b, "%s%lld", k ? "," : "", (long long)v[k]);
    buf_putc(b, '}');
}

/* o_tallies of whistle_ballot ("rooting:correct:incorrect:unsure;…", NULL: none) into v;
 * a group this build does not know is skipped, as incidents_tallies does. */
static void answer_tallies(const char *t, struct votes *v)
{
    memset(v, 0, sizeof *v);
    while (t && *t) {
        char name[32];
        long long c, i, u;
        if (sscanf(t, "%31[^:]:%lld:%lld:%lld", name, &c, &i, &u) == 4) {
            int r = rooting_from_name(name);
            if (r >= 0)
                v->by_rooting[r] = (struct choices){.correct = c, .incorrect = i, .unsure = u};
        }
        t = strchr(t, ';');
        t = t ? t + 1 : NULL;
    }
}

int ballots_cast_server(struct store *s, struct arena *a, const struct ballot_write *w,
                        int64_t *retry_s, int *window, struct ballot_answer *ans)
{
    *retry_s = 0;
    *window = -1;
    memset(ans, 0, sizeof *ans);
    if (!store_is_pg(s))
        return BALLOT_WRITE_NO_SERVER_PATH;
    struct store_stmt *st =
        store_prepare(s, "SELECT o_wait, o_window, " STORE_MOVED_IF(
                             "o_wait = 0") ", o_tallies, o_a_label, o_b_label, o_unsure_label FROM"
                                           " whistle_ballot(?, ?, ?, ?, ?, ?, ?, CAST(? AS TEXT[]),"
                                           " CAST(? AS BIGINT[]), CAST(? AS BIGINT[]), ?)");
    if (!st)
        return STORE_ERR;
    struct buf subjects = BUF_INIT, limits = BUF_INIT, windows = BUF_INIT;
    subjects_literal(w, &subjects);
    ints_literal(w->limit, &limits);
    ints_literal(w->window_us, &windows);
    store_bind_text(st, 1, w->incident_id);
    store_bind_text(st, 2, w->visibility);
    store_bind_int(st, 3, w->version);
    store_bind_text(st, 4, w->voter);
    store_bind_text(st, 5, w->choice);
    store_bind_text(st, 6, w->rooting);
    store_bind_int(st, 7, w->now);
    store_bind_text(st, 8, subjects.p);
    store_bind_text(st, 9, limits.p);
    store_bind_text(st, 10, windows.p);
    store_bind_int(st, 11, (int64_t)randombytes_uniform(BALLOT_TALLY_SLOTS));
    /* the ballot, and once it committed the tally version's move, in one round trip (a
     * refused or stale ballot moves nothing) */
    int rc = store_step_write(st, true);
    int64_t v = rc == STORE_ROW ? store_col_int(st, 0) : 0;
    int64_t k = rc == STORE_ROW ? store_col_int(st, 1) : 0;
    if (rc == STORE_ROW && v == 0) {
        answer_tallies(store_col_text(st, 3), &ans->votes);
        ans->question = (struct question){.version = w->version,
                                          .a_label = arena_strdup(a, store_col_text(st, 4)),
                                          .b_label = arena_strdup(a, store_col_text(st, 5)),
                                          .unsure_label = arena_strdup(a, store_col_text(st, 6))};
    }
    store_reset(st);
    buf_release(&subjects);
    buf_release(&limits);
    buf_release(&windows);
    if (rc < 0)
        return rc;
    if (rc != STORE_ROW)
        return STORE_ERR;
    if (v < 0)
        return BALLOT_WRITE_STALE;
    if (v > 0) {
        *retry_s = v;
        *window = k >= 1 && k <= BALLOT_WRITE_WINDOWS ? (int)k - 1 : 0;
        return BALLOT_WRITE_LIMITED;
    }
    return BALLOT_WRITE_DONE;
}
