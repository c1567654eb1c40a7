/* The list queries (store/incidents.c incidents_list, store/games.c games_list: the page's ids
 * through the index of the driving filter, then a join) against a plain SQL query over
 * random data: for random filter combinations and offsets the page, its order and "more"
 * are exactly the plain query's, on SQLite and (with WHISTLE_TEST_PG) on PostgreSQL. Also:
 * a game write moves its incidents' copies. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "api/render.h"
#include "domain/votes.h"
#include "app/incident.h"
#include "store/bodies.h"
#include "store/fragcodec.h"
#include "store/fragments.h"
#include "store/games.h"
#include "store/incidents.h"
#include "store/listindex.h"
#include "store/tallies.h"
#include "store/store.h"
#include "pgtmp.h"
#include "tmpdb.h"
#include "util/arena.h"
#include "util/buf.h"

#define N_TEAMS     6
#define N_GAMES     40
#define N_INCIDENTS 400
#define ROUNDS      400

static uint64_t rng = 0x9e3779b97f4a7c15u;

static unsigned rnd(unsigned n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (unsigned)(rng % n);
}

static const char *leagues[] = {"nfl", "college"};
static const char *types[] = {"preseason", "regular", "postseason", "unknown"};
static const char *cats[] = {"penalty", "replay", "clock", "spot"};
static const char *statuses[] = {"developing", "corroborated", "explained", "resolved"};
static const char *vis[] = {"published", "published", "published", "withdrawn", "merged"};
static const char *gstat[] = {"upcoming", "final", "live"};

static void run(struct store *s, const char *sql)
{
    assert_int_equal(store_exec(s, sql), STORE_DONE);
}

/* Either driver: tmp is the SQLite file, or name the PostgreSQL database (admin: the
 * maintenance connection that created it). */
struct db {
    struct store *s, *admin;
    struct tmpdb *tmp;
    char name[64];
};

static void seed(struct db *d)
{
    char sql[512];
    for (int t = 0; t < N_TEAMS; t++) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO teams (id, name, abbreviation) VALUES ('t%d', 'T%d', 'T%d')", t, t,
                 t);
        run(d->s, sql);
    }
    for (int g = 0; g < N_GAMES; g++) {
        int h = (int)rnd(N_TEAMS), a = (h + 1 + (int)rnd(N_TEAMS - 1)) % N_TEAMS;
        bool known = rnd(5) != 0;
        if (g == 0)
            a = h; /* never in real data: a team's home and away lists must not double it */
        snprintf(sql, sizeof sql,
                 "INSERT INTO games (id, home_team_id, away_team_id, starts_at, status, season,"
                 " week, league, season_type, created_at, updated_at, kickoff_known)"
                 " VALUES ('g%02d', 't%d', 't%d', %s%u, '%s', %u, %u, '%s', '%s', 0, 0, %d)",
                 g, h, a, known ? "" : "CAST(NULL AS BIGINT) + ", 1000 + rnd(8) * 10, gstat[rnd(3)],
                 2024 + rnd(3), 1 + rnd(4), leagues[rnd(2)], types[rnd(4)], known);
        run(d->s, sql);
    }
    for (int i = 0; i < N_INCIDENTS; i++) {
        snprintf(sql, sizeof sql,
                 "INSERT INTO incidents (id, game_id, title, play_description, category, status,"
                 " origin_kind, provenance, published_at, created_at, updated_at, visibility,"
                 " question_version) VALUES ('00000000-0000-4000-8000-%012d', 'g%02u', 't',"
                 " 'p', '%s', '%s', 'human', '{}', %u, 0, 0, '%s', %s)",
                 i, rnd(N_GAMES), cats[rnd(4)], statuses[rnd(4)], 100 + rnd(60) * 5, vis[rnd(5)],
                 rnd(2) ? "NULL" : "1");
        run(d->s, sql);
    }
    run(d->s, TMPDB_COPY_GAMES);
}

static int setup(void **state)
{
    struct db *d = calloc(1, sizeof *d);
    if (!d || !(d->tmp = tmpdb_open(NULL)))
        return -1;
    d->s = d->tmp->s;
    seed(d);
    *state = d;
    return 0;
}

/* A fresh database on the cluster WHISTLE_TEST_PG names; the test skips without it. */
static int setup_pg(void **state)
{
    *state = NULL;
    struct db *d = calloc(1, sizeof *d);
    int rc = d ? pgtmp_open("lists", d->name, &d->admin, &d->s) : -1;
    if (rc <= 0) {
        free(d);
        return rc;
    }
    seed(d);
    run(d->s, "ANALYZE");
    *state = d;
    return 0;
}

static int teardown(void **state)
{
    struct db *d = *state;
    if (!d)
        return 0;
    if (d->tmp) {
        tmpdb_close(d->tmp);
    } else {
        pgtmp_close(d->name, d->admin, d->s);
    }
    free(d);
    return 0;
}

static struct db *db(void **state)
{
    if (!*state)
        skip();
    return *state;
}

/* the plain query: every matching id in the spec's order */
static size_t plain(struct store *s, const char *sql, char ids[][40], size_t max)
{
    struct store_stmt *st = store_prepare(s, sql);
    assert_non_null(st);
    size_t n = 0;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        assert_true(n < max);
        snprintf(ids[n++], 40, "%s", store_col_text(st, 0));
    }
    store_reset(st);
    assert_int_equal(rc, STORE_DONE);
    return n;
}

/* Random filter combinations and offsets: the pages of incidents_list against the plain
 * query. indexed: through the process's list index (store/listindex.h), made current at
 * the store's content version by the caller; every page but a game's must come from it.
 * Returns the rounds with a non-empty page. */
static int incident_rounds(struct db *d, int rounds, bool indexed)
{
    static char ids[N_INCIDENTS][40];
    char team[8], game[8];
    int pages = 0; /* rounds with a non-empty page: the comparison is not vacuous */
    uint64_t version[2] = {0, 0};
    if (indexed)
        assert_int_equal(store_data_version(d->s, version), 0);
    for (int round = 0; round < rounds; round++) {
        struct incident_filter f = {.season = STORE_NULL_INT,
                                    .week = STORE_NULL_INT,
                                    .from = STORE_NULL_INT,
                                    .to = STORE_NULL_INT,
                                    .has_verdict = -1};
        struct buf q = BUF_INIT;
        buf_puts(&q, "SELECT i.id FROM incidents i JOIN games g ON g.id = i.game_id"
                     " WHERE i.visibility = 'published'");
        if (rnd(6) == 0) {
            snprintf(game, sizeof game, "g%02u", rnd(N_GAMES));
            f.game_id = game;
            buf_printf(&q, " AND i.game_id = '%s'", game);
        }
        if (rnd(3) == 0) {
            f.category = cats[rnd(4)];
            buf_printf(&q, " AND i.category = '%s'", f.category);
        }
        if (rnd(3) == 0) {
            f.status = statuses[rnd(4)];
            buf_printf(&q, " AND i.status = '%s'", f.status);
        }
        if (rnd(3) == 0) {
            f.has_verdict = (int)rnd(2);
            buf_puts(&q, f.has_verdict ? " AND i.question_version IS NOT NULL"
                                       : " AND i.question_version IS NULL");
        }
        if (rnd(4) == 0) {
            f.from = 100 + rnd(60) * 5;
            buf_printf(&q, " AND i.published_at >= %lld", (long long)f.from);
        }
        if (rnd(4) == 0) {
            f.to = 100 + rnd(60) * 5;
            buf_printf(&q, " AND i.published_at < %lld", (long long)f.to);
        }
        if (rnd(3) == 0) {
            f.season = 2024 + rnd(3);
            buf_printf(&q, " AND g.season = %lld", (long long)f.season);
        }
        if (rnd(4) == 0) {
            f.week = 1 + rnd(4);
            buf_printf(&q, " AND g.week = %lld", (long long)f.week);
        }
        if (rnd(3) == 0) {
            snprintf(team, sizeof team, "t%u", rnd(N_TEAMS + 1)); /* t6: no such team */
            f.team_id = team;
            buf_printf(&q, " AND (g.home_team_id = '%s' OR g.away_team_id = '%s')", team, team);
        }
        if (rnd(3) == 0) {
            f.league = leagues[rnd(2)];
            buf_printf(&q, " AND g.league = '%s'", f.league);
        }
        if (rnd(3) == 0) {
            f.season_type = types[rnd(4)];
            buf_printf(&q, " AND g.season_type = '%s'", f.season_type);
        }
        buf_puts(&q, " ORDER BY i.published_at DESC, i.id DESC");
        size_t total = plain(d->s, q.p, ids, N_INCIDENTS);
        buf_release(&q);

        f.limit = 1 + rnd(25);
        f.offset = rnd(4) == 0 ? (int64_t)rnd(N_INCIDENTS) : (int64_t)rnd((unsigned)total + 2);
        f.versioned = indexed;
        f.version = version[0];
        struct arena a;
        arena_init(&a);
        struct incident *list;
        size_t n;
        bool more;
        int64_t served0, served1, missed;
        listindex_counts(&served0, &missed);
        assert_int_equal(incidents_list(d->s, &a, &f, &list, &n, &more), 0);
        listindex_counts(&served1, &missed);
        assert_int_equal(served1 - served0, indexed && !f.game_id);
        size_t want = (size_t)f.offset >= total ? 0 : total - (size_t)f.offset;
        if (want > (size_t)f.limit)
            want = (size_t)f.limit;
        assert_int_equal(n, want);
        assert_int_equal(more, (size_t)f.offset + n < total);
        pages += n > 0;
        for (size_t k = 0; k < n; k++) {
            assert_string_equal(list[k].id, ids[f.offset + (int64_t)k]);
            assert_non_null(list[k].league); /* the joined columns are there */
        }
        arena_release(&a);
    }
    return pages;
}

static void test_incident_pages_match_the_plain_query(void **state)
{
    assert_true(incident_rounds(db(state), ROUNDS, false) > ROUNDS / 4);
}

/* The API's list page (app/incident.h incident_list_items) from the index: the page of
 * incidents_list, its incidents read in one statement without a transaction (on PostgreSQL
 * one round trip); when a write withdrew one of them after the request's version (the index
 * is of that version: a write between the token and the read), the page comes from SQL and
 * is still exact. */
static size_t list_items_round(struct db *d, struct incident_filter *f, bool served)
{
    struct arena a;
    arena_init(&a);
    struct app_ctx c = {.s = d->s, .a = &a};
    struct incident *want;
    size_t nw;
    bool mw;
    f->versioned = false; /* the plain SQL page, to compare */
    assert_int_equal(incidents_list(d->s, &a, f, &want, &nw, &mw), 0);
    f->versioned = true;
    int64_t served0, served1, missed0, missed1, trips = store_round_trips(d->s);
    listindex_counts(&served0, &missed0);
    struct incident_item *items;
    size_t n;
    bool more;
    assert_int_equal(incident_list_items(&c, f, &items, &n, &more), APP_OK);
    trips = store_round_trips(d->s) - trips;
    listindex_counts(&served1, &missed1);
    assert_int_equal(served1 - served0, served);
    assert_int_equal(missed1 - missed0, !served);
    if (served && store_is_pg(d->s))
        assert_int_equal(trips, n > 0); /* an empty page reads nothing */
    assert_int_equal(n, nw);
    assert_int_equal(more, mw);
    for (size_t k = 0; k < n; k++) {
        assert_string_equal(items[k].id, want[k].id);
        assert_int_equal(items[k].state, INCIDENT_READ_FOUND);
        assert_non_null(items[k].fragment);
    }
    arena_release(&a);
    return n;
}

/* Renders the stale fragments (every one after the seed); how many. */
static size_t render_stale(struct db *d)
{
    struct arena a;
    arena_init(&a);
    struct app_ctx c = {.s = d->s, .a = &a};
    size_t done;
    assert_int_equal(incident_fragments_rebuild(&c, render_incident_fragment, N_INCIDENTS, &done),
                     APP_OK);
    arena_release(&a);
    return done;
}

/* Renders every incident's fragment (the seed leaves them stale). */
static void render_fragments(struct db *d)
{
    assert_int_equal(render_stale(d), N_INCIDENTS);
}

/* What a rebuild sends (test_rebuild_reads_the_stale_list_a_batch_at_a_time). */
struct rebuild_trace {
    int stale_reads, commits;
};

static void count_rebuild(void *arg, const char *what)
{
    struct rebuild_trace *t = arg;
    if (strstr(what, "FROM fragment_stale LIMIT"))
        t->stale_reads++;
    else if (strcmp(what, "COMMIT") == 0)
        t->commits++;
}

/* incident_fragments_rebuild reads the stale IDs 256 at a time (a read per incident made a
 * rebuild of a million quadratic on PostgreSQL: each read scans past the rows claimed before
 * it, 40 renders a second past 100,000), renders each incident in a transaction of its own
 * on PostgreSQL and a batch per transaction on SQLite, and leaves nothing stale. */
static void test_rebuild_reads_the_stale_list_a_batch_at_a_time(void **state)
{
    struct db *d = db(state);
    struct rebuild_trace t = {0};
    store_trace(d->s, count_rebuild, &t);
    size_t done = render_stale(d); /* all N_INCIDENTS: 256, then 144 */
    store_trace(d->s, NULL, NULL);
    assert_int_equal(done, N_INCIDENTS);
    assert_int_equal(t.stale_reads, 2);
    assert_int_equal(t.commits, store_is_pg(d->s) ? N_INCIDENTS : 2);
    struct arena a;
    arena_init(&a);
    const char **ids;
    size_t n = 1;
    assert_int_equal(fragments_stale(d->s, &a, 10, &ids, &n), 0);
    assert_int_equal(n, 0);
    arena_release(&a);
}

static void test_list_items_from_the_index(void **state)
{
    struct db *d = db(state);
    render_fragments(d);
    assert_int_equal(listindex_refresh(d->s), 0);
    uint64_t v[2];
    assert_int_equal(store_data_version(d->s, v), 0);
    int pages = 0; /* rounds with a non-empty page: the comparison is not vacuous */
    for (int round = 0; round < 60; round++) {
        struct incident_filter f = {.season = STORE_NULL_INT,
                                    .week = STORE_NULL_INT,
                                    .from = STORE_NULL_INT,
                                    .to = STORE_NULL_INT,
                                    .has_verdict = rnd(3) == 0 ? (int)rnd(2) : -1,
                                    .category = rnd(2) ? cats[rnd(4)] : NULL,
                                    .limit = 1 + rnd(25),
                                    .offset = rnd(4) == 0 ? 0 : rnd(120),
                                    .version = v[0]};
        pages += list_items_round(d, &f, true) > 0;
    }
    assert_true(pages > 20);
    /* the first incident of the first page withdrawn behind the index's back */
    struct incident_filter f = {.season = STORE_NULL_INT,
                                .week = STORE_NULL_INT,
                                .from = STORE_NULL_INT,
                                .to = STORE_NULL_INT,
                                .has_verdict = -1,
                                .limit = 10,
                                .version = v[0]};
    list_items_round(d, &f, true);
    run(d->s, "UPDATE incidents SET visibility = 'withdrawn' WHERE id = (SELECT id FROM incidents"
              " WHERE visibility = 'published' ORDER BY published_at DESC, id DESC LIMIT 1)");
    list_items_round(d, &f, false);
}

static int game_rounds(struct db *d, int rounds, bool indexed);

/* The same pages (incidents and games) from the list index, then after each of a series of
 * writes (publication, withdrawal, merge, ballot; then game changes): a write that moves the
 * content version makes the request miss the index (answered from SQL, still exact); a ballot
 * leaves it valid; a rebuilt index answers exactly again. */
static void commit_write(struct db *d, const char *sql, bool tallies)
{
    assert_int_equal(store_begin_write(d->s), 0);
    if (tallies)
        store_write_tallies_only(d->s);
    run(d->s, sql);
    assert_int_equal(store_commit(d->s), 0);
}

/* The fragments' cache (store/fragments.h): with a budget of a few dozen incidents, reads of
 * every incident at the store's versions, three times over, answer exactly what the
 * database answers (found, facts, tallies, fragment bytes); the cache keeps within its
 * budget and answers some from memory; after a ballot (the tally version moves) and after a
 * withdrawal (the content version moves) no entry read before answers. */
static void same_facts(const struct incident_facts *x, const struct incident_facts *y)
{
    assert_string_equal(x->id, y->id);
    assert_int_equal(x->found, y->found);
    if (!x->found)
        return;
    assert_string_equal(x->visibility, y->visibility);
    assert_int_equal(x->slug == NULL, y->slug == NULL);
    assert_int_equal(x->duplicate_of == NULL, y->duplicate_of == NULL);
    assert_int_equal(x->comment_count, y->comment_count);
    assert_int_equal(x->question_version, y->question_version);
    assert_memory_equal(&x->votes, &y->votes, sizeof x->votes);
    assert_int_equal(x->fragment_len, y->fragment_len);
    if (x->fragment)
        assert_memory_equal(x->fragment, y->fragment, x->fragment_len);
    else
        assert_null(y->fragment);
}

static void cache_round(struct db *d, const char ids[][40], size_t n)
{
    uint64_t v[2];
    assert_int_equal(store_data_version(d->s, v), 0);
    for (size_t at = 0; at < n; at += 20) {
        struct arena a;
        arena_init(&a);
        const char *page[20];
        size_t k = n - at < 20 ? n - at : 20;
        for (size_t i = 0; i < k; i++)
            page[i] = ids[at + i];
        struct incident_facts want[20], got[20];
        assert_int_equal(fragments_read(d->s, &a, NULL, page, NULL, k, false, want), 0);
        assert_int_equal(fragments_read(d->s, &a, v, page, NULL, k, false, got), 0);
        for (size_t i = 0; i < k; i++)
            same_facts(&got[i], &want[i]);
        arena_release(&a);
    }
}

static void test_fragments_cache(void **state)
{
    struct db *d = db(state);
    render_fragments(d);
    static char ids[N_INCIDENTS + 1][40];
    size_t n = plain(d->s, "SELECT id FROM incidents ORDER BY id", ids, N_INCIDENTS);
    snprintf(ids[n++], 40, "00000000-0000-4000-8000-999999999999"); /* no such incident */
    const size_t budget = 64 << 10;
    fragments_cache_setup(budget); /* empty: entries of another database would not do */
    int64_t hits0, misses0, hits1, misses1;
    size_t bytes;
    fragments_cache_counts(&hits0, &misses0, &bytes);
    for (int round = 0; round < 3; round++)
        cache_round(d, ids, n);
    /* the last pages again: the most recently used are in memory */
    cache_round(d, ids + n - 10, 10);
    fragments_cache_counts(&hits1, &misses1, &bytes);
    assert_true(hits1 - hits0 >= 9);
    assert_true(misses1 - misses0 > (int64_t)n); /* more than fits: some read again */
    assert_true(bytes > 0 && bytes <= budget);
    /* one incident the cache holds made published with a question (a content write), then
     * a ballot on it (the tally version), then its withdrawal (the content version): after
     * each, no entry read before answers */
    const char *last = ids[n - 2];
    for (int w = 0; w < 3; w++) {
        char sql[256];
        if (w == 0)
            snprintf(sql, sizeof sql,
                     "UPDATE incidents SET visibility = 'published', duplicate_of = NULL,"
                     " question_version = 1 WHERE id = '%s'",
                     last);
        else if (w == 1)
            snprintf(sql, sizeof sql,
                     "INSERT INTO vote_tallies (incident_id, question_version, rooting, slot,"
                     " correct, incorrect, unsure) VALUES ('%s', 1, 'home', 77, 5, 0, 0)",
                     last);
        else
            snprintf(sql, sizeof sql,
                     "UPDATE incidents SET visibility = 'withdrawn' WHERE id = '%s'", last);
        commit_write(d, sql, w == 1);
        cache_round(d, ids + n - 10, 10);
        cache_round(d, ids + n - 10, 10);
    }
}

/* Whether the cache answered incident id at versions v (one read; a miss keeps it). */
static bool cache_hit(struct db *d, const uint64_t v[2], const char *id)
{
    struct arena a;
    arena_init(&a);
    struct incident_facts f;
    assert_int_equal(fragments_read(d->s, &a, v, &id, NULL, 1, false, &f), 0);
    assert_true(f.found && f.fragment);
    bool hit = f.from_cache;
    arena_release(&a);
    return hit;
}

/* Eviction by second chance: with nothing read, the oldest entry goes first; an entry read
 * since it joined outlives an older one that was not, and the next to go is then the oldest
 * unread one. The budget holds exactly four entries, the fifth the smallest of them all. */
static void test_fragments_cache_second_chance(void **state)
{
    struct db *d = db(state);
    render_fragments(d);
    char ids[5][40];
    assert_int_equal(
        plain(d->s, "SELECT incident_id FROM incident_fragments ORDER BY 1 LIMIT 5", ids, 5), 5);
    uint64_t v[2];
    assert_int_equal(store_data_version(d->s, v), 0);
    size_t size[5], small = 0;
    fragments_cache_doorkeeper(false); /* the order's rules: every read kept */
    for (size_t i = 0; i < 5; i++) {   /* each entry's bytes, alone in the cache */
        int64_t hits, misses;
        fragments_cache_setup(1 << 20);
        assert_false(cache_hit(d, v, ids[i]));
        fragments_cache_counts(&hits, &misses, &size[i]);
        assert_true(size[i] > 0);
        if (size[i] < size[small])
            small = i;
    }
    const char *e = ids[small], *abcd[4]; /* the other four, in the order they join */
    size_t budget = 0;
    for (size_t i = 0, k = 0; i < 5; i++)
        if (i != small) {
            abcd[k++] = ids[i];
            budget += size[i];
        }
    /* nothing read: the fifth pushes the oldest out */
    fragments_cache_setup(budget);
    for (int i = 0; i < 4; i++)
        assert_false(cache_hit(d, v, abcd[i]));
    assert_false(cache_hit(d, v, e));
    assert_true(cache_hit(d, v, abcd[3]));
    assert_false(cache_hit(d, v, abcd[0]));
    /* the oldest read once: the second goes instead, then the third */
    fragments_cache_setup(budget);
    for (int i = 0; i < 4; i++)
        assert_false(cache_hit(d, v, abcd[i]));
    assert_true(cache_hit(d, v, abcd[0]));
    assert_false(cache_hit(d, v, e));
    assert_true(cache_hit(d, v, abcd[0]));
    assert_false(cache_hit(d, v, abcd[1]));
    assert_true(cache_hit(d, v, abcd[0]));
    assert_false(cache_hit(d, v, abcd[2])); /* it went when abcd[1] came back */
    fragments_cache_setup(0);
    fragments_cache_doorkeeper(true);
}

/* The list form kept with an entry (fragments_keep_list): a read with list at the entry's
 * versions answers it instead of the fragment, a read without list the fragment; nothing is
 * kept for an entry read at other versions, a second keep leaves the first, and once the
 * versions move no read answers it. */
static void test_fragments_cache_list_form(void **state)
{
    struct db *d = db(state);
    render_fragments(d);
    static char ids[5][40];
    assert_int_equal(
        plain(d->s, "SELECT incident_id FROM incident_fragments ORDER BY 1 LIMIT 4", ids, 5), 4);
    const char *page[3] = {ids[0], ids[1], ids[2]};
    fragments_cache_setup(1 << 20);
    fragments_cache_doorkeeper(false); /* the list form's rules: every read kept */
    uint64_t v[2];
    assert_int_equal(store_data_version(d->s, v), 0);
    struct arena a;
    arena_init(&a);
    struct incident_facts f[3];
    assert_int_equal(fragments_read(d->s, &a, v, page, NULL, 3, true, f), 0); /* kept, none yet */
    for (int i = 0; i < 3; i++)
        assert_true(f[i].fragment && !f[i].list_json && !f[i].from_cache);
    fragments_keep_list(v, ids[0], "{\"list\":0}", 10);
    fragments_keep_list(v, ids[0], "{\"list\":9}", 10); /* the first stays */
    const uint64_t other[2] = {v[0], v[1] + 1};
    fragments_keep_list(other, ids[1], "{\"list\":1}", 10); /* not this entry's versions */
    fragments_keep_list(v, ids[3], "{\"list\":3}", 10);     /* no entry */
    assert_int_equal(fragments_read(d->s, &a, v, page, NULL, 3, true, f), 0);
    assert_non_null(f[0].list_json);
    assert_int_equal(f[0].list_len, 10);
    assert_memory_equal(f[0].list_json, "{\"list\":0}", 10);
    assert_null(f[0].fragment);
    assert_true(f[0].found && f[0].visibility && f[0].from_cache);
    for (int i = 1; i < 3; i++)
        assert_true(f[i].fragment && !f[i].list_json);
    /* the detail form reads the fragment */
    assert_int_equal(fragments_read(d->s, &a, v, page, NULL, 3, false, f), 0);
    assert_true(f[0].fragment && !f[0].list_json);
    /* a ballot moves the tally version: the entry read before is not used, nor its list */
    commit_write(d,
                 "INSERT INTO vote_tallies (incident_id, question_version, rooting, slot, correct,"
                 " incorrect, unsure) SELECT id, 1, 'home', 78, 1, 0, 0 FROM incidents"
                 " WHERE id = (SELECT min(incident_id) FROM incident_fragments)",
                 true);
    uint64_t w[2];
    assert_int_equal(store_data_version(d->s, w), 0);
    assert_true(w[1] != v[1]);
    assert_int_equal(fragments_read(d->s, &a, w, page, NULL, 3, true, f), 0);
    for (int i = 0; i < 3; i++)
        assert_true(f[i].fragment && !f[i].list_json);
    assert_int_equal(fragments_read(d->s, &a, v, page, NULL, 3, true, f), 0); /* replaced at w */
    assert_true(f[0].fragment && !f[0].list_json);
    arena_release(&a);
    fragments_cache_setup(0);
    fragments_cache_doorkeeper(true);
}

/* Reads from the fragments' own copy of the facts (by key: the list index's SQLite rowids,
 * migration 026; by ID on PostgreSQL, migration 027) answer exactly what reads through the
 * incidents' rows answer: every incident, with a rendered fragment or not; a key that is not
 * the incident's (a rowid VACUUM renumbered) or names no row, a stale fragment, a comment
 * count moved since the fragment was rendered, a withdrawal, a merge (the survivor's facts),
 * a question. On PostgreSQL (no rowids) the keys are ignored. */
static void keyed_round(struct db *d, const char ids[][40], const int64_t *keys, size_t n)
{
    for (size_t at = 0; at < n; at += 16) {
        struct arena a;
        arena_init(&a);
        const char *page[16];
        int64_t page_keys[16];
        size_t k = n - at < 16 ? n - at : 16;
        for (size_t i = 0; i < k; i++) {
            page[i] = ids[at + i];
            page_keys[i] = keys[at + i];
        }
        struct incident_facts want[16], got[16];
        assert_int_equal(fragments_read_rows(d->s, &a, page, k, want), 0);
        /* with the node's copy of the bodies (setup_pg_copy; kept from round to round, so
         * that bodies kept under an earlier hash are asked for after each write): as while
         * it loads (the bodies with the facts, kept), then as once it has (the hashes alone,
         * the bodies from it) */
        for (int pass = bodies_enabled() ? 0 : 1; pass < 2; pass++) {
            if (bodies_enabled())
                bodies_set_loaded(pass == 1);
            assert_int_equal(fragments_read(d->s, &a, NULL, page, page_keys, k, false, got), 0);
            for (size_t i = 0; i < k; i++)
                same_facts(&got[i], &want[i]);
        }
        for (size_t i = 0; i < k; i++) {
            assert_string_equal(got[i].id, page[i]);
            same_facts(&got[i], &want[i]);
            if (got[i].duplicate_of) {
                assert_string_equal(got[i].duplicate_of, want[i].duplicate_of);
                assert_int_equal(got[i].survivor_slug == NULL, want[i].survivor_slug == NULL);
                assert_string_equal(got[i].survivor_visibility, want[i].survivor_visibility);
            }
            if (got[i].slug)
                assert_string_equal(got[i].slug, want[i].slug);
        }
        arena_release(&a);
    }
}

static void test_fragments_by_key(void **state)
{
    struct db *d = db(state);
    bool pg = store_is_pg(d->s);
    static char ids[N_INCIDENTS + 1][40];
    static int64_t keys[N_INCIDENTS + 1];
    size_t n = plain(d->s, "SELECT id FROM incidents ORDER BY id", ids, N_INCIDENTS);
    for (size_t i = 0; i < n; i++) {
        char sql[160];
        snprintf(sql, sizeof sql, "SELECT %s FROM incidents WHERE id = '%.39s'", pg ? "0" : "rowid",
                 ids[i]);
        struct store_stmt *st = store_prepare(d->s, sql);
        assert_int_equal(store_step(st), STORE_ROW);
        keys[i] = pg ? (int64_t)i + 1 : store_col_int(st, 0);
        store_reset(st);
    }
    snprintf(ids[n], 40, "00000000-0000-4000-8000-999999999999"); /* no such incident */
    keys[n++] = 1 << 30;
    keyed_round(d, ids, keys, n); /* no fragment rendered yet: all by ID */
    render_fragments(d);
    keyed_round(d, ids, keys, n);
    { /* every valid fragment read by key (by ID on PostgreSQL), without its incident's row */
        struct arena a;
        arena_init(&a);
        const char *page[1] = {ids[0]};
        struct incident_facts f[1];
        run(d->s, "UPDATE incidents SET slug = 'not-read' WHERE id = (SELECT min(id) FROM"
                  " incidents)");
        /* a write around the rules that no trigger sees: the key read does not read the row */
        run(d->s, "DELETE FROM fragment_stale");
        assert_int_equal(fragments_read(d->s, &a, NULL, page, keys, 1, false, f), 0);
        assert_true(f[0].found && f[0].fragment);
        assert_true(!f[0].slug || strcmp(f[0].slug, "not-read") != 0);
        arena_release(&a);
        run(d->s, "INSERT INTO fragment_stale (incident_id) SELECT id FROM incidents");
        render_fragments(d);
    }
    /* keys that are not the incidents': each one's neighbour's, and keys naming no row */
    static int64_t wrong[N_INCIDENTS + 1];
    for (size_t i = 0; i < n; i++)
        wrong[i] = i % 3 == 0 ? keys[(i + 1) % n] : i % 3 == 1 ? keys[i] + 100000 : keys[i];
    keyed_round(d, ids, wrong, n);
    /* a comment count moved (no stale fragment), a stale fragment, a withdrawal, a merge, a
     * question with tallies, each committed as the app commits */
    const char *writes[] = {
        "UPDATE incidents SET comment_count = comment_count + 7 WHERE id IN"
        " (SELECT id FROM incidents ORDER BY id LIMIT 5)",
        "INSERT INTO fragment_stale (incident_id) SELECT id FROM incidents ORDER BY id DESC"
        " LIMIT 3 ON CONFLICT DO NOTHING",
        "UPDATE incidents SET visibility = 'withdrawn' WHERE id = (SELECT id FROM incidents"
        " WHERE visibility = 'published' ORDER BY id LIMIT 1 OFFSET 4)",
        "UPDATE incidents SET visibility = 'merged', duplicate_of = (SELECT max(id) FROM"
        " incidents) WHERE id = (SELECT id FROM incidents WHERE visibility = 'published'"
        " ORDER BY id LIMIT 1 OFFSET 6)",
        "UPDATE incidents SET question_version = 1 WHERE id IN (SELECT id FROM incidents"
        " WHERE question_version IS NULL ORDER BY id LIMIT 2)",
    };
    for (size_t w = 0; w < sizeof writes / sizeof writes[0]; w++) {
        commit_write(d, writes[w], false);
        keyed_round(d, ids, keys, n);
        assert_int_equal(render_stale(d) > 0, w > 0); /* a comment count stales none */
        keyed_round(d, ids, keys, n);
    }
    commit_write(d,
                 "INSERT INTO vote_tallies (incident_id, question_version, rooting, slot, correct,"
                 " incorrect, unsure) SELECT id, question_version, 'away', 0, 4, 2, 1 FROM"
                 " incidents WHERE question_version IS NOT NULL",
                 true);
    keyed_round(d, ids, keys, n);
}

/* The node's copy of the fragments' bodies (store/bodies.h, PostgreSQL): every read answers
 * what the incidents' rows answer; once loaded, a read takes its bodies from the copy (hits
 * counted) and asks the database only for those it has not, or has under another hash: a
 * re-rendered incident's new body, never the one kept before; a ballot and a content write
 * leave the copy's entries; and the copy keeps within its budget. */
static void same_as_rows(struct db *d, const char ids[][40], size_t n)
{
    for (size_t at = 0; at < n; at += 50) {
        struct arena a;
        arena_init(&a);
        const char *page[50];
        size_t k = n - at < 50 ? n - at : 50;
        for (size_t i = 0; i < k; i++)
            page[i] = ids[at + i];
        struct incident_facts want[50], got[50];
        assert_int_equal(fragments_read_rows(d->s, &a, page, k, want), 0);
        assert_int_equal(fragments_read(d->s, &a, NULL, page, NULL, k, false, got), 0);
        for (size_t i = 0; i < k; i++)
            same_facts(&got[i], &want[i]);
        arena_release(&a);
    }
}

static void test_fragment_bodies_by_hash(void **state)
{
    struct db *d = db(state);
    static char ids[N_INCIDENTS][40];
    size_t n = plain(d->s, "SELECT id FROM incidents ORDER BY id", ids, N_INCIDENTS);
    render_fragments(d);
    int64_t hits, misses;
    size_t kept, bytes, kept_before;
    bool loaded;
    bodies_set_loaded(false);
    same_as_rows(d, ids, n); /* the bodies with the facts, kept */
    bodies_counts(&hits, &misses, &kept, &bytes, &loaded);
    assert_false(loaded);
    assert_int_equal(hits + misses, 0); /* none asked for while loading */
    /* the first 16 make the dictionary (not kept); a stale or withdrawn one has no body */
    assert_true(kept > n / 2);
    bodies_set_loaded(true);
    same_as_rows(d, ids, n);
    int64_t hits_before = hits;
    bodies_counts(&hits, &misses, &kept_before, &bytes, &loaded);
    assert_true(loaded);
    assert_true(hits - hits_before >= (int64_t)kept);
    /* those not kept (the dictionary's 16, when this process had none yet) came from the
     * database, and are kept now */
    assert_true(misses <= 16);
    assert_int_equal((int64_t)kept_before, (int64_t)kept + misses);

    /* a ballot and a comment leave every entry where it was */
    commit_write(d, "UPDATE vote_tallies SET correct = correct + 1", true);
    commit_write(d, "UPDATE incidents SET comment_count = comment_count + 1", false);
    int64_t misses_before = misses;
    same_as_rows(d, ids, n);
    bodies_counts(&hits, &misses, &kept, &bytes, &loaded);
    assert_int_equal(misses, misses_before);

    /* a re-render with another body: its new body, asked of the database once */
    char sql[200];
    snprintf(sql, sizeof sql,
             "UPDATE incidents SET title = 'A title changed since' WHERE id = '%.39s'", ids[3]);
    commit_write(d, sql, false);
    assert_int_equal(render_stale(d), 1);
    same_as_rows(d, ids, n);
    bodies_counts(&hits, &misses, &kept, &bytes, &loaded);
    assert_int_equal(misses, misses_before + 1);
    struct arena a;
    arena_init(&a);
    const char *one[1] = {ids[3]};
    struct incident_facts f[1];
    assert_int_equal(fragments_read(d->s, &a, NULL, one, NULL, 1, false, f), 0);
    assert_non_null(strstr(f[0].fragment, "A title changed since"));
    /* a body kept under another hash is never used */
    bodies_put(ids[3], f[0].body_hash + 1, "{\"wrong\":true}", 14);
    assert_int_equal(fragments_read(d->s, &a, NULL, one, NULL, 1, false, f), 0);
    assert_non_null(strstr(f[0].fragment, "A title changed since"));
    arena_release(&a);

    /* within its budget: the first entries go */
    bodies_setup_empty(16 << 10);
    bodies_set_loaded(false);
    same_as_rows(d, ids, n);
    bodies_counts(&hits, &misses, &kept, &bytes, &loaded);
    assert_true(bytes <= 16 << 10);
    assert_true(kept > 0 && kept < n / 2);
    bodies_set_loaded(true);
    same_as_rows(d, ids, n);
}

static int setup_pg_copy(void **state)
{
    int rc = setup_pg(state);
    if (*state)
        bodies_setup_empty(4 << 20);
    return rc;
}

static int teardown_copy(void **state)
{
    bodies_setup_empty(0);
    return teardown(state);
}

/* One incident's fragment row: its comment count and whether it holds a body. */
static int64_t fragment_count_of(struct db *d, const char *id, bool *body)
{
    struct store_stmt *st = STORE_SELECT(
        d->s,
        "SELECT comment_count, body IS NOT NULL FROM incident_fragments WHERE incident_id = ?",
        STORE_TEXT(id));
    assert_non_null(st);
    assert_int_equal(store_step(st), STORE_ROW);
    int64_t count = store_col_int(st, 0);
    *body = store_col_int(st, 1) != 0;
    store_reset(st);
    return count;
}

/* The comment count in a fragment's row (spliced in at read time, so a comment stales no
 * fragment) follows the incident's: moved before the incident was first rendered (on
 * PostgreSQL a row with the count alone, which a read does not take for a fragment), after,
 * and across a re-render. On PostgreSQL a re-render leaves the row's count as it is (the
 * trigger that moves it is its only writer once the row exists, so a rebuild that read the
 * count before a comment committed cannot put the old one back): a count edited into the
 * row by hand survives it. And on PostgreSQL the stale list's vacuums always clean its index. */
static void test_fragment_keeps_the_comment_count(void **state)
{
    struct db *d = db(state);
    bool pg = store_is_pg(d->s);
    static char ids[1][40];
    assert_int_equal(plain(d->s,
                           "SELECT id FROM incidents WHERE visibility = 'published'"
                           " ORDER BY id LIMIT 1",
                           ids, 1),
                     1);
    const char *page[1] = {ids[0]};
    struct arena a;
    arena_init(&a);
    struct incident_facts f[1];
    char sql[160];
    bool body;
    snprintf(sql, sizeof sql, "UPDATE incidents SET comment_count = 9 WHERE id = '%.39s'", ids[0]);
    run(d->s, sql);
    if (pg) {
        assert_int_equal(fragment_count_of(d, ids[0], &body), 9);
        assert_false(body);
        /* and the stale list's vacuums clean its index (migration 027) */
        assert_int_equal(tmpdb_int(d->s, "SELECT count(*) FROM pg_class WHERE relname ="
                                         " 'fragment_stale' AND 'vacuum_index_cleanup=on' ="
                                         " ANY (reloptions)"),
                         1);
    }
    assert_int_equal(fragments_read(d->s, &a, NULL, page, NULL, 1, false, f), 0);
    assert_true(f[0].found && !f[0].fragment);
    assert_int_equal(f[0].comment_count, 9);
    render_fragments(d);
    assert_int_equal(fragment_count_of(d, ids[0], &body), 9);
    assert_true(body);
    snprintf(sql, sizeof sql, "UPDATE incidents SET comment_count = 12 WHERE id = '%.39s'", ids[0]);
    run(d->s, sql);
    assert_int_equal(fragments_read(d->s, &a, NULL, page, NULL, 1, false, f), 0);
    assert_true(f[0].found && f[0].fragment);
    assert_int_equal(f[0].comment_count, 12);
    snprintf(sql, sizeof sql,
             "UPDATE incident_fragments SET comment_count = 77 WHERE incident_id = '%.39s'",
             ids[0]);
    run(d->s, sql);
    snprintf(sql, sizeof sql, "INSERT INTO fragment_stale (incident_id) VALUES ('%.39s')", ids[0]);
    run(d->s, sql);
    assert_int_equal(render_stale(d), 1);
    assert_int_equal(fragment_count_of(d, ids[0], &body), pg ? 77 : 12);
    assert_true(body);
    arena_release(&a);
}

/* Migration 026 on a SQLite database at 025 that holds incidents, fragments (some stale)
 * and tallies over two slots: every fragment is under its incident's rowid with the
 * incident's facts and the same bytes, the tallies are the same and WITHOUT ROWID, the stale
 * list is untouched; then a read by key answers the fragment, and a comment count moved
 * reaches the fragment's copy. */
static void test_migration_026_moves_fragments(void **state)
{
    (void)state;
    struct tmpdb *t = calloc(1, sizeof *t);
    assert_non_null(t);
    snprintf(t->path, sizeof t->path, "/tmp/whistle-unit-XXXXXX");
    int fd = mkstemp(t->path);
    assert_true(fd >= 0);
    close(fd);
    char err[256];
    assert_int_equal(store_open(t->path, true, &t->s, err, sizeof err), 0);
    struct db *d = calloc(1, sizeof *d);
    assert_non_null(d);
    d->tmp = t;
    d->s = t->s;
    *state = d; /* the teardown's */
    run(d->s, "CREATE TABLE schema_version (version INTEGER PRIMARY KEY,"
              " applied_at BIGINT NOT NULL)");
    int version;
    const char *sql;
    for (size_t i = 0; (sql = store_migration(i, &version)) && version < 26; i++) {
        /* SQLite's part, as store_migrate applies it */
        const char *cut = strstr(sql, "-- @postgresql-only");
        struct buf b = BUF_INIT;
        buf_append(&b, sql, cut ? (size_t)(cut - sql) : strlen(sql));
        run(d->s, b.p);
        buf_release(&b);
        char mark[96];
        snprintf(mark, sizeof mark, "INSERT INTO schema_version VALUES (%d, 0)", version);
        run(d->s, mark);
    }
    assert_int_equal(store_schema_version(d->s), 25);
    seed(d);
    run(d->s, "INSERT INTO incident_fragments (incident_id, body) SELECT id, 'body of ' || id"
              " FROM incidents ORDER BY id DESC");
    run(d->s, "DELETE FROM fragment_stale WHERE incident_id NOT IN (SELECT id FROM incidents"
              " ORDER BY id LIMIT 7)");
    run(d->s, "INSERT INTO vote_tallies (incident_id, question_version, rooting, slot, correct,"
              " incorrect, unsure) SELECT id, 1, 'home', s.n, 3 + s.n, 2, 1 FROM incidents,"
              " (SELECT 0 AS n UNION ALL SELECT 5) s WHERE question_version = 1");
    int64_t tallies = tmpdb_int(d->s, "SELECT sum(correct * 100 + incorrect * 10 + unsure)"
                                      " FROM vote_tallies");
    assert_true(tallies > 0);
    assert_int_equal(store_migrate(d->s, err, sizeof err), 0);
    assert_int_equal(store_schema_version(d->s), store_known_version());
    assert_int_equal(tmpdb_int(d->s, "SELECT count(*) FROM incident_fragments"), N_INCIDENTS);
    assert_int_equal(tmpdb_int(d->s, "SELECT count(*) FROM incident_fragments f JOIN incidents i"
                                     " ON i.rowid = f.n AND i.id = f.incident_id"
                                     " AND f.visibility = i.visibility AND f.slug IS i.slug"
                                     " AND f.duplicate_of IS i.duplicate_of"
                                     " AND f.question_version IS i.question_version"
                                     " AND f.comment_count = i.comment_count"
                                     " AND f.body = 'body of ' || i.id"),
                     N_INCIDENTS);
    assert_int_equal(tmpdb_int(d->s, "SELECT sum(correct * 100 + incorrect * 10 + unsure)"
                                     " FROM vote_tallies"),
                     tallies);
    assert_int_equal(
        tmpdb_int(d->s, "SELECT wr FROM pragma_table_list WHERE name = 'vote_tallies'"), 1);
    assert_int_equal(tmpdb_int(d->s, "SELECT count(*) FROM fragment_stale"), 7);
    /* a valid fragment by key; a stale one by ID (no fragment) */
    static char ids[2][40];
    assert_int_equal(plain(d->s,
                           "SELECT id FROM incidents WHERE id NOT IN (SELECT incident_id FROM"
                           " fragment_stale) ORDER BY id LIMIT 1",
                           ids, 1),
                     1);
    assert_int_equal(plain(d->s, "SELECT incident_id FROM fragment_stale LIMIT 1", ids + 1, 1), 1);
    char q[160];
    int64_t keys[2];
    for (int k = 0; k < 2; k++) {
        snprintf(q, sizeof q, "SELECT rowid FROM incidents WHERE id = '%.39s'", ids[k]);
        keys[k] = tmpdb_int(d->s, q);
    }
    snprintf(q, sizeof q, "UPDATE incidents SET comment_count = 4 WHERE id = '%.39s'", ids[0]);
    run(d->s, q);
    struct arena a;
    arena_init(&a);
    const char *page[2] = {ids[0], ids[1]};
    struct incident_facts f[2];
    assert_int_equal(fragments_read(d->s, &a, NULL, page, keys, 2, false, f), 0);
    assert_true(f[0].found && f[0].fragment && f[1].found && !f[1].fragment);
    char body[64];
    snprintf(body, sizeof body, "body of %.39s", ids[0]);
    assert_string_equal(f[0].fragment, body);
    assert_int_equal(f[0].comment_count, 4);
    snprintf(q, sizeof q,
             "SELECT comment_count FROM incident_fragments WHERE incident_id = '%.39s'", ids[0]);
    assert_int_equal(tmpdb_int(d->s, q), 4);
    arena_release(&a);
}

static void test_incident_pages_from_the_index(void **state)
{
    struct db *d = db(state);
    assert_int_equal(listindex_refresh(d->s), 0);
    assert_true(incident_rounds(d, ROUNDS, true) > ROUNDS / 4);
    assert_true(game_rounds(d, ROUNDS, true) > ROUNDS / 4);
    char sql[512];
    for (int w = 0; w < 24; w++) {
        int i = (int)rnd(N_INCIDENTS), kind = w % 4;
        uint64_t before[2], after[2];
        assert_int_equal(store_data_version(d->s, before), 0);
        if (kind == 0)
            snprintf(sql, sizeof sql,
                     "UPDATE incidents SET visibility = 'published', duplicate_of = NULL"
                     " WHERE id = '00000000-0000-4000-8000-%012d'",
                     i);
        else if (kind == 1)
            snprintf(sql, sizeof sql,
                     "UPDATE incidents SET visibility = 'withdrawn'"
                     " WHERE id = (SELECT id FROM incidents WHERE visibility = 'published'"
                     " ORDER BY published_at DESC, id DESC LIMIT 1 OFFSET %d)",
                     i % 50);
        else if (kind == 2)
            snprintf(sql, sizeof sql,
                     "UPDATE incidents SET visibility = 'merged',"
                     " duplicate_of = '00000000-0000-4000-8000-%012d'"
                     " WHERE id = '00000000-0000-4000-8000-%012d'",
                     (i + 1) % N_INCIDENTS, i);
        else
            snprintf(sql, sizeof sql,
                     "INSERT INTO vote_tallies (incident_id, question_version, rooting, slot,"
                     " correct, incorrect, unsure) VALUES ('00000000-0000-4000-8000-%012d', 1,"
                     " 'home', %d, 1, 0, 0)",
                     i, w);
        commit_write(d, sql, kind == 3);
        assert_int_equal(store_data_version(d->s, after), 0);
        /* the index built before the write: used after a ballot only */
        assert_int_equal(after[0] != before[0], kind != 3);
        int64_t served0, served1, missed;
        listindex_counts(&served0, &missed);
        struct listindex *ix = listindex_acquire(after[0]);
        listindex_counts(&served1, &missed);
        assert_int_equal(ix != NULL, kind == 3);
        listindex_release(ix);
        incident_rounds(d, 20, false);
        if (kind != 3)
            assert_int_equal(listindex_refresh(d->s), 0);
        incident_rounds(d, 40, true);
    }
    /* a game write (a sync moving a kickoff, a team, a season) moves the content version;
     * the rebuilt index has it */
    const char *game_writes[] = {
        "UPDATE games SET starts_at = 1035, kickoff_known = 1 WHERE id = 'g03'",
        "UPDATE games SET starts_at = NULL, kickoff_known = 0 WHERE id = 'g04'",
        "UPDATE games SET home_team_id = 't5', season = 2026, week = 2 WHERE id = 'g05'",
        "UPDATE games SET status = 'final', league = 'college' WHERE id = 'g06'",
        "UPDATE games SET kickoff_known = 0 WHERE id IN ('g07', 'g08')", /* a date, no time */
    };
    for (size_t w = 0; w < sizeof game_writes / sizeof game_writes[0]; w++) {
        uint64_t before[2], after[2];
        assert_int_equal(store_data_version(d->s, before), 0);
        commit_write(d, game_writes[w], false);
        assert_int_equal(store_data_version(d->s, after), 0);
        assert_true(after[0] != before[0]);
        struct listindex *ix = listindex_acquire(after[0]);
        assert_null(ix);
        game_rounds(d, 20, false);
        assert_int_equal(listindex_refresh(d->s), 0);
        game_rounds(d, 60, true);
    }
}

/* The same for games (indexed: through the process's list index, as incident_rounds). */
static int game_rounds(struct db *d, int rounds, bool indexed)
{
    static char ids[N_GAMES][40];
    char team[8];
    int pages = 0;
    uint64_t version[2] = {0, 0};
    if (indexed)
        assert_int_equal(store_data_version(d->s, version), 0);
    for (int round = 0; round < rounds; round++) {
        struct game_filter f = {.season = STORE_NULL_INT,
                                .week = STORE_NULL_INT,
                                .from = STORE_NULL_INT,
                                .to = STORE_NULL_INT};
        struct buf q = BUF_INIT;
        buf_puts(&q, "SELECT g.id FROM games g WHERE 1 = 1");
        if (rnd(3) == 0) {
            f.season = 2024 + rnd(3);
            buf_printf(&q, " AND g.season = %lld", (long long)f.season);
        }
        if (rnd(4) == 0) {
            f.week = 1 + rnd(4);
            buf_printf(&q, " AND g.week = %lld", (long long)f.week);
        }
        if (rnd(3) == 0) {
            snprintf(team, sizeof team, "t%u", rnd(N_TEAMS + 1));
            f.team_id = team;
            buf_printf(&q, " AND (g.home_team_id = '%s' OR g.away_team_id = '%s')", team, team);
        }
        if (rnd(3) == 0) {
            f.league = leagues[rnd(2)];
            buf_printf(&q, " AND g.league = '%s'", f.league);
        }
        if (rnd(4) == 0) {
            f.season_type = types[rnd(4)];
            buf_printf(&q, " AND g.season_type = '%s'", f.season_type);
        }
        if (rnd(4) == 0) {
            f.status = gstat[rnd(3)];
            buf_printf(&q, " AND g.status = '%s'", f.status);
        }
        if (rnd(4) == 0) {
            f.from = 1000 + rnd(8) * 10;
            buf_printf(&q, " AND g.starts_at >= %lld", (long long)f.from);
        }
        if (rnd(4) == 0) {
            f.to = 1000 + rnd(8) * 10;
            buf_printf(&q, " AND g.starts_at < %lld", (long long)f.to);
        }
        f.recent = rnd(2);
        buf_puts(&q, f.recent ? " ORDER BY g.kickoff_known DESC, g.starts_at DESC, g.id"
                              : " ORDER BY g.kickoff_known DESC, g.starts_at, g.id");
        size_t total = plain(d->s, q.p, ids, N_GAMES);
        buf_release(&q);

        f.limit = 1 + rnd(10);
        f.offset = rnd((unsigned)total + 2);
        f.versioned = indexed;
        f.version = version[0];
        struct arena a;
        arena_init(&a);
        struct game *list;
        size_t n;
        bool more;
        int64_t served0, served1, missed;
        listindex_counts(&served0, &missed);
        assert_int_equal(games_list(d->s, &a, &f, &list, &n, &more), 0);
        listindex_counts(&served1, &missed);
        assert_int_equal(served1 - served0, indexed);
        size_t want = (size_t)f.offset >= total ? 0 : total - (size_t)f.offset;
        if (want > (size_t)f.limit)
            want = (size_t)f.limit;
        assert_int_equal(n, want);
        assert_int_equal(more, (size_t)f.offset + n < total);
        pages += n > 0;
        for (size_t k = 0; k < n; k++) {
            assert_string_equal(list[k].id, ids[f.offset + (int64_t)k]);
            assert_non_null(list[k].home.name);
        }
        arena_release(&a);
    }
    return pages;
}

static void test_game_pages_match_the_plain_query(void **state)
{
    assert_true(game_rounds(db(state), ROUNDS, false) > ROUNDS / 4);
}

/* a game write (import, provider sync) moves the copies its incidents are filtered on */
static void test_game_write_moves_the_copies(void **state)
{
    struct db *d = db(state);
    run(d->s, "UPDATE incidents SET game_id = 'g00', visibility = 'published'"
              " WHERE id = '00000000-0000-4000-8000-000000000000'");
    run(d->s, TMPDB_COPY_GAMES);
    struct game g = {.id = "g00",
                     .home = {.id = "t4"},
                     .away = {.id = "t5"},
                     .home_score = STORE_NULL_INT,
                     .away_score = STORE_NULL_INT,
                     .starts_at = 5000,
                     .period = STORE_NULL_INT,
                     .status = "final",
                     .season = 2099,
                     .week = 7,
                     .league = "nfl",
                     .season_type = "postseason"};
    assert_int_equal(games_upsert(d->s, &g, false, NULL), STORE_DONE);
    struct incident_filter f = {.season = 2099,
                                .week = 7,
                                .from = STORE_NULL_INT,
                                .to = STORE_NULL_INT,
                                .has_verdict = -1,
                                .team_id = "t5",
                                .league = "nfl",
                                .season_type = "postseason",
                                .limit = 50};
    struct arena a;
    arena_init(&a);
    struct incident *list;
    size_t n;
    bool more;
    assert_int_equal(incidents_list(d->s, &a, &f, &list, &n, &more), 0);
    assert_true(n >= 1);
    for (size_t k = 0; k < n; k++)
        assert_string_equal(list[k].game_id, "g00");
    arena_release(&a);
}

/* a request's read (a store_thread connection) beyond its budget fails STORE_BUSY (503)
 * instead of running on; the same statement outside a read, or on another connection, runs */
/* store_select_ids: exactly the rows of the ids given, whatever their characters (on
 * PostgreSQL they travel as one array literal, each element quoted), any count, none. */
static void test_select_ids_any_text(void **state)
{
    struct db *d = db(state);
    static const char *const odd[] = {"plain",   "with \"quote\"", "back\\slash", "com,ma",
                                      "{brace}", "sp ace",         "NULL",        "\\\"",
                                      "",        "end\\"};
    size_t n = sizeof odd / sizeof *odd;
    run(d->s, "CREATE TABLE sel_odd (id TEXT PRIMARY KEY, v INTEGER NOT NULL)");
    for (size_t i = 0; i < n; i++)
        assert_true(STORE_RUN(d->s, "INSERT INTO sel_odd (id, v) VALUES (?, ?)", STORE_TEXT(odd[i]),
                              STORE_INT((int64_t)i)) >= 0);
    run(d->s, "INSERT INTO sel_odd (id, v) VALUES ('other', 99)");
    /* every prefix of the list (0 to all), and the list with an absent id and a repeat */
    for (size_t m = 0; m <= n + 2; m++) {
        const char *ids[16];
        size_t k = m < n ? m : n;
        memcpy(ids, odd, k * sizeof *ids);
        if (m > n)
            ids[k++] = "absent";
        if (m > n + 1)
            ids[k++] = odd[1];
        struct store_stmt *st = store_select_ids(d->s, "SELECT v FROM sel_odd WHERE id",
                                                 " ORDER BY v", ids, k, store_id_slots(k, 1));
        assert_non_null(st);
        size_t rows = 0;
        while (store_step(st) == STORE_ROW) {
            assert_true(rows < (m < n ? m : n));
            assert_int_equal(store_col_int(st, 0), (int64_t)rows);
            rows++;
        }
        store_reset(st);
        assert_int_equal(rows, m < n ? m : n);
    }
}

/* fragments_read's statement by ID: a row for each of an incident's current tally rows (one
 * without), the sums those rows' (no other question version's), and on PostgreSQL the
 * fragment on one of the rows only (it travelled once for each row before session 21, each
 * copy taken out of its compressed storage: a megabyte for a page of 100). */
static void test_facts_rows_carry_the_fragment_once(void **state)
{
    struct db *d = db(state);
    bool pg = store_is_pg(d->s);
    /* every incident with a question gets 1 to 4 rows of its version, in 1 to 3 groups and
     * up to 2 slots; every one, question or not, a row of another version */
    run(d->s, "INSERT INTO vote_tallies (incident_id, question_version, rooting, slot, correct,"
              " incorrect, unsure) SELECT id, 7, 'home', 0, 100, 100, 100 FROM incidents");
    static const char *const groups[] = {"home", "away", "neutral"};
    static char ids[N_INCIDENTS][40];
    size_t n = plain(d->s, "SELECT id FROM incidents WHERE question_version = 1 ORDER BY id", ids,
                     N_INCIDENTS);
    assert_true(n > 10);
    int64_t want_rows[N_INCIDENTS] = {0}, want_sum[N_INCIDENTS] = {0};
    for (size_t i = 0; i < n; i++) {
        size_t rows = 1 + i % 4;
        want_rows[i] = (int64_t)rows;
        for (size_t r = 0; r < rows; r++) {
            int64_t c = (int64_t)(i + r + 1);
            assert_true(
                STORE_RUN(d->s,
                          "INSERT INTO vote_tallies (incident_id, question_version, rooting,"
                          " slot, correct, incorrect, unsure) VALUES (?, 1, ?, ?, ?, 1, 2)",
                          STORE_TEXT(ids[i]), STORE_TEXT(groups[r % 3]),
                          STORE_INT((int64_t)(r / 3)), STORE_INT(c)) >= 0);
            want_sum[i] += c + 3;
        }
    }
    /* and incidents without a question: one row each, none of the other version's */
    size_t asked = n;
    n += plain(d->s, "SELECT id FROM incidents WHERE question_version IS NULL ORDER BY id", ids + n,
               N_INCIDENTS - n);
    render_fragments(d);
    const char *list[N_INCIDENTS];
    int64_t rows[N_INCIDENTS] = {0}, bodies[N_INCIDENTS] = {0}, sum[N_INCIDENTS] = {0};
    for (size_t i = 0; i < n; i++)
        list[i] = ids[i];
    struct store_stmt *st =
        store_select_ids(d->s, fragments_facts_sql(pg), "", list, n, store_id_slots(n, 1));
    assert_non_null(st);
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        size_t i = 0;
        while (i < n && strcmp(ids[i], store_col_text(st, 0)) != 0)
            i++;
        assert_true(i < n);
        rows[i]++;
        bodies[i] += store_col_text(st, 8) != NULL;
        if (store_col_text(st, 9))
            sum[i] += store_col_int(st, 10) + store_col_int(st, 11) + store_col_int(st, 12);
    }
    store_reset(st);
    assert_int_equal(rc, STORE_DONE);
    for (size_t i = 0; i < n; i++) {
        assert_int_equal(rows[i], i < asked ? want_rows[i] : 1);
        assert_int_equal(sum[i], i < asked ? want_sum[i] : 0);
        assert_int_equal(bodies[i], pg ? 1 : rows[i]);
    }
    /* and fragments_read sums them */
    struct arena a;
    arena_init(&a);
    struct incident_facts *f = arena_alloc(&a, sizeof *f * n);
    assert_int_equal(fragments_read(d->s, &a, NULL, list, NULL, n, false, f), 0);
    for (size_t i = 0; i < n; i++) {
        assert_true(f[i].found);
        assert_non_null(f[i].fragment);
        struct choices all = votes_overall(&f[i].votes);
        assert_int_equal(choices_total(&all), i < asked ? want_sum[i] : 0);
    }
    arena_release(&a);
}

static void test_read_over_budget_is_refused(void **state)
{
    struct tmpdb *d = ((struct db *)*state)->tmp;
    static const char sql[] = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c"
                              " WHERE x < 3000000) SELECT count(*) FROM c";
    store_thread_setup(d->path);
    struct store *s = store_thread();
    assert_non_null(s);
    assert_int_equal(store_begin_read(s), 0);
    struct store_stmt *st = store_prepare(s, sql);
    assert_non_null(st);
    assert_int_equal(store_step(st), STORE_BUSY);
    store_reset(st);
    store_rollback(s);
    /* the next read starts with a full budget: a page is well within it */
    assert_int_equal(store_begin_read(s), 0);
    st = store_prepare(s, "SELECT count(*) FROM incidents");
    assert_int_equal(store_step(st), STORE_ROW);
    store_reset(st);
    store_rollback(s);
    store_thread_setup(d->path); /* closes this thread's connection */
    /* the test's own connection has no budget */
    st = store_prepare(d->s, sql);
    assert_int_equal(store_step(st), STORE_ROW);
    assert_int_equal(store_col_int(st, 0), 3000000);
    store_reset(st);
}

/* The process's copy of the tallies (store/tallies.h, SQLite): a list page's read by key at
 * the store's versions takes its tallies from the copy and answers exactly what the rows
 * answer, after ballots of this connection and of another one (another process), a tally
 * row deleted, a question version moved, a count past the copy's width; a hand edit moves no
 * version and reaches the copy with the next write that does; further behind than a catch-up
 * takes leave the copy unused until it is read whole; past its budget it is not kept. */
#define copy_round(d, ids, keys, n, want_copy) copy_round_at(__LINE__, d, ids, keys, n, want_copy)
static void copy_round_at(int line, struct db *d, const char ids[][40], const int64_t *keys,
                          size_t n, bool want_copy)
{
    print_message("copy_round at line %d\n", line);
    struct tallies_counts before, after;
    tallies_counts(&before);
    uint64_t v[2];
    assert_int_equal(store_data_version(d->s, v), 0);
    for (size_t at = 0; at < n; at += 32) {
        struct arena a;
        arena_init(&a);
        const char *page[32];
        int64_t page_keys[32];
        size_t k = n - at < 32 ? n - at : 32;
        for (size_t i = 0; i < k; i++) {
            page[i] = ids[at + i];
            page_keys[i] = keys[at + i];
        }
        struct incident_facts want[32], got[32];
        assert_int_equal(fragments_read_rows(d->s, &a, page, k, want), 0);
        assert_int_equal(fragments_read(d->s, &a, v, page, page_keys, k, false, got), 0);
        for (size_t i = 0; i < k; i++)
            same_facts(&got[i], &want[i]);
        arena_release(&a);
    }
    tallies_counts(&after);
    assert_int_equal(after.hits > before.hits, want_copy);
}

static int64_t rowid_of(struct store *s, const char *id)
{
    struct store_stmt *st =
        STORE_SELECT(s, "SELECT rowid FROM incidents WHERE id = ?", STORE_TEXT(id));
    assert_non_null(st);
    assert_int_equal(store_step(st), STORE_ROW);
    int64_t k = store_col_int(st, 0);
    store_reset(st);
    return k;
}

/* Another connection to d's database (another process). */
static struct store *other_store(struct db *d)
{
    struct store *other = NULL;
    char err[256], uri[512];
    if (d->tmp)
        snprintf(uri, sizeof uri, "%s", d->tmp->path);
    else
        assert_int_equal(pgtmp_uri(d->name, uri, sizeof uri), 0);
    assert_int_equal(store_open(uri, false, &other, err, sizeof err), 0);
    return other;
}

static void test_tally_copy(void **state)
{
    struct db *d = db(state);
    static char ids[N_INCIDENTS][40];
    static int64_t keys[N_INCIDENTS];
    bool pg = store_is_pg(d->s);
    /* PostgreSQL: the statements below number the incidents as SQLite's rowids do */
    if (pg)
        run(d->s, "ALTER TABLE incidents ADD COLUMN rowid BIGINT;"
                  " UPDATE incidents SET rowid = r.n FROM (SELECT id, row_number() OVER"
                  " (ORDER BY id) AS n FROM incidents) r WHERE r.id = incidents.id");
    size_t n = plain(d->s, "SELECT id FROM incidents ORDER BY id", ids, N_INCIDENTS);
    for (size_t i = 0; i < n; i++)
        keys[i] = rowid_of(d->s, ids[i]);
    run(d->s, "UPDATE incidents SET question_version = 1 WHERE rowid % 3 > 0");
    run(d->s, "INSERT INTO vote_tallies (incident_id, question_version, rooting, slot, correct,"
              " incorrect, unsure) SELECT id, 1, 'home', rowid % 16, rowid % 7, 2, 1 FROM"
              " incidents WHERE rowid % 3 = 1");
    render_fragments(d);
    fragments_cache_setup(0);
    struct tallies_counts c;
    tallies_setup_empty(64 << 20, 4);
    assert_int_equal(tallies_load(d->s), 0);
    tallies_counts(&c);
    assert_true(c.loaded && c.entries > 0);
    copy_round(d, ids, keys, n, true);

    /* ballots of this connection: new rows, moved rows, another slot, a second group */
    const char *ballots[] = {
        "INSERT INTO vote_tallies (incident_id, question_version, rooting, slot, correct,"
        " incorrect, unsure) SELECT id, 1, 'away', 3, 1, 0, 0 FROM incidents"
        " WHERE rowid IN (2, 5)",
        "UPDATE vote_tallies SET correct = correct + 5 WHERE incident_id = (SELECT id FROM"
        " incidents WHERE rowid = 4)",
        "INSERT INTO vote_tallies (incident_id, question_version, rooting, slot, correct,"
        " incorrect, unsure) SELECT id, 1, 'neutral', 9, 0, 0, 4 FROM incidents WHERE rowid = 7",
    };
    for (size_t b = 0; b < sizeof ballots / sizeof ballots[0]; b++) {
        tallies_counts(&c);
        int64_t catch_ups = c.catch_ups;
        commit_write(d, ballots[b], true);
        copy_round(d, ids, keys, n, true);
        tallies_counts(&c);
        assert_int_equal(c.catch_ups, catch_ups + 1); /* once, by the first page */
    }

    /* another process's ballot (another connection to the file, its own commit) */
    struct store *other = other_store(d);
    assert_int_equal(store_begin_write(other), 0);
    store_write_tallies_only(other);
    assert_int_equal(store_exec(other,
                                "UPDATE vote_tallies SET unsure = unsure + 11 WHERE"
                                " incident_id = (SELECT id FROM incidents WHERE rowid = 10)"),
                     STORE_DONE);
    assert_int_equal(store_commit(other), 0);
    copy_round(d, ids, keys, n, true);

    /* a deleted row (an import's replacement), on the other connection too */
    assert_int_equal(store_begin_write(other), 0);
    assert_int_equal(store_exec(other, "DELETE FROM vote_tallies WHERE incident_id = (SELECT id"
                                       " FROM incidents WHERE rowid = 4)"),
                     STORE_DONE);
    assert_int_equal(store_commit(other), 0);
    copy_round(d, ids, keys, n, true);

    /* PostgreSQL: writers commit in any order. A ballot that began first and commits last
     * (its log row's transaction ID is older than one the copy has already read past) is
     * still caught up with. */
    if (pg) {
        assert_int_equal(store_begin_row_write(other), 0);
        store_write_tallies_only(other);
        assert_int_equal(store_exec(other, "UPDATE vote_tallies SET correct = correct + 3 WHERE"
                                           " incident_id = (SELECT id FROM incidents WHERE"
                                           " rowid = 19)"),
                         STORE_DONE);
        assert_int_equal(store_begin_row_write(d->s), 0); /* as a ballot: beside the other */
        store_write_tallies_only(d->s);
        run(d->s, "UPDATE vote_tallies SET incorrect = incorrect + 2 WHERE incident_id ="
                  " (SELECT id FROM incidents WHERE rowid = 22)");
        assert_int_equal(store_commit(d->s), 0);
        copy_round(d, ids, keys, n, true);
        assert_int_equal(store_commit(other), 0);
        copy_round(d, ids, keys, n, true);
    }
    store_close(other);

    /* a count past 32 bits: that incident from its rows, the others from the copy */
    commit_write(d,
                 "UPDATE vote_tallies SET correct = 5000000000 WHERE incident_id = (SELECT id"
                 " FROM incidents WHERE rowid = 13)",
                 true);
    copy_round(d, ids, keys, n, true);

    /* a hand edit moves no version: the copy still holds what it read; the next write that
     * moves a version brings the edit in */
    run(d->s, "UPDATE vote_tallies SET incorrect = incorrect + 100 WHERE incident_id = (SELECT"
              " id FROM incidents WHERE rowid = 16)");
    commit_write(d, "UPDATE incidents SET comment_count = comment_count + 1 WHERE rowid = 1",
                 false);
    copy_round(d, ids, keys, n, true);

    /* a question version moved: the fragment is stale (read by ID), then rendered again with
     * the new version, whose tallies are none yet */
    commit_write(d, "UPDATE incidents SET question_version = 2 WHERE rowid = 2", false);
    copy_round(d, ids, keys, n, true);
    render_stale(d);
    copy_round(d, ids, keys, n, true);

    /* further behind than a catch-up reads: nothing answers from the copy until it is read again
     * whole, and every read is still exact */
    commit_write(d, "UPDATE vote_tallies SET unsure = unsure + 1", true);
    copy_round(d, ids, keys, n, false);
    tallies_counts(&c);
    assert_false(c.loaded);
    assert_int_equal(tallies_load(d->s), 0);
    copy_round(d, ids, keys, n, true);

    /* PostgreSQL: the worker trims the log. Keeping a million transactions it deletes nothing
     * here; keeping none it deletes every row, and a copy whose snapshot is older than the
     * trim reads every tally again; SQLite's log trims itself. */
    if (pg) {
        commit_write(d,
                     "UPDATE vote_tallies SET unsure = unsure + 2 WHERE incident_id = (SELECT"
                     " id FROM incidents WHERE rowid = 25)",
                     true);
        int64_t logged = tmpdb_int(d->s, "SELECT count(*) FROM tally_log");
        assert_true(logged > 0);
        /* as the worker's housekeeping runs it: with nothing to delete it writes nothing, so
         * no version moves and no cached body is dropped */
        uint64_t v0[2], v1[2];
        assert_int_equal(store_data_version(d->s, v0), 0);
        assert_int_equal(store_begin_row_write(d->s), 0);
        assert_int_equal(tallies_prune(d->s, TALLIES_LOG_KEEP_XIDS), 0);
        assert_int_equal(store_commit(d->s), 0);
        assert_int_equal(store_data_version(d->s, v1), 0);
        assert_memory_equal(v0, v1, sizeof v0);
        assert_int_equal(tmpdb_int(d->s, "SELECT count(*) FROM tally_log"), logged);
        assert_int_equal(tallies_prune(d->s, 0), 0);
        assert_int_equal(tmpdb_int(d->s, "SELECT count(*) FROM tally_log"), 0);
        copy_round(d, ids, keys, n, false);
        tallies_counts(&c);
        assert_false(c.loaded);
        assert_int_equal(tallies_load(d->s), 0);
        copy_round(d, ids, keys, n, true);
        commit_write(d,
                     "UPDATE vote_tallies SET unsure = unsure + 1 WHERE incident_id = (SELECT"
                     " id FROM incidents WHERE rowid = 25)",
                     true);
        copy_round(d, ids, keys, n, true);
    } else {
        assert_int_equal(tallies_prune(d->s, 0), 0);
    }

    /* past its budget the copy is not kept */
    tallies_setup_empty(4096, 0);
    assert_int_equal(tallies_load(d->s), 0);
    tallies_counts(&c);
    assert_false(c.loaded);
    assert_false(tallies_enabled());
    copy_round(d, ids, keys, n, false);
    tallies_setup_empty(0, 0);
}

/* SQLite's compressed fragment bodies (store/fragcodec.h, migration 030): the first 8 bodies
 * stored plain make the database's dictionary, every later one is stored compressed, and
 * fragments_compress packs the plain ones; every read answers the same fragment bytes before
 * and after; a body decodes only with its own database's dictionary (IDs are random); a
 * damaged blob is not read (0), a plain body is read as it is. */
static void all_fragments(struct db *d, const char ids[][40], size_t n, struct arena *a,
                          struct incident_facts *out)
{
    for (size_t at = 0; at < n; at += 50) {
        const char *page[50];
        size_t k = n - at < 50 ? n - at : 50;
        for (size_t i = 0; i < k; i++)
            page[i] = ids[at + i];
        assert_int_equal(fragments_read_rows(d->s, a, page, k, out + at), 0);
    }
}

static void test_compressed_fragments(void **state)
{
    struct db *d = db(state);
    static char ids[N_INCIDENTS][40];
    size_t n = plain(d->s, "SELECT id FROM incidents ORDER BY id", ids, N_INCIDENTS);
    assert_int_equal(tmpdb_int(d->s, "SELECT count(*) FROM fragment_dicts"), 0);
    render_fragments(d);
    assert_int_equal(tmpdb_int(d->s, "SELECT count(*) FROM fragment_dicts"), 1);
    assert_int_equal(
        tmpdb_int(d->s, "SELECT count(*) FROM incident_fragments WHERE typeof(body) = 'text'"), 8);
    int64_t blobs =
        tmpdb_int(d->s, "SELECT count(*) FROM incident_fragments WHERE typeof(body) = 'blob'");
    assert_int_equal(blobs, N_INCIDENTS - 8);
    /* smaller: a tenth or so of the plain bytes */
    assert_true(tmpdb_int(d->s, "SELECT sum(length(body)) FROM incident_fragments WHERE"
                                " typeof(body) = 'blob'") *
                    3 <
                tmpdb_int(d->s, "SELECT avg(length(body)) FROM incident_fragments WHERE"
                                " typeof(body) = 'text'") *
                    blobs);
    struct arena a;
    arena_init(&a);
    static struct incident_facts before[N_INCIDENTS], after[N_INCIDENTS];
    all_fragments(d, ids, n, &a, before);
    size_t done = 0;
    assert_int_equal(fragments_compress(d->s, &done), 0);
    assert_int_equal(done, 8);
    assert_int_equal(
        tmpdb_int(d->s, "SELECT count(*) FROM incident_fragments WHERE typeof(body) = 'text'"), 0);
    assert_int_equal(fragments_compress(d->s, &done), 0);
    assert_int_equal(done, 0);
    all_fragments(d, ids, n, &a, after);
    for (size_t i = 0; i < n; i++) {
        same_facts(&after[i], &before[i]);
        assert_true(after[i].fragment && after[i].fragment[0] == '{');
    }

    /* the codec itself: a round trip; a damaged blob; a plain body as it is */
    const char *body = after[0].fragment;
    size_t len = after[0].fragment_len;
    assert_int_equal(store_begin_write(d->s), 0);
    unsigned char *z;
    size_t zlen;
    assert_int_equal(fragcodec_encode(d->s, body, len, &z, &zlen), 1);
    assert_true(zlen < len && z[0] == FRAGCODEC_V1);
    const char *back;
    size_t back_len;
    assert_int_equal(fragcodec_decode(d->s, &a, z, zlen, &back, &back_len), 1);
    assert_int_equal(back_len, len);
    assert_memory_equal(back, body, len);
    assert_int_equal(fragcodec_decode(d->s, &a, z, zlen - 5, &back, &back_len), 0);
    assert_int_equal(fragcodec_decode(d->s, &a, z, FRAGCODEC_HEAD, &back, &back_len), 0);
    z[1] ^= 1; /* another dictionary's ID: none here */
    assert_int_equal(fragcodec_decode(d->s, &a, z, zlen, &back, &back_len), 0);
    z[1] ^= 1;
    z[9] ^= 1; /* another plain length */
    assert_int_equal(fragcodec_decode(d->s, &a, z, zlen, &back, &back_len), 0);
    assert_int_equal(fragcodec_decode(d->s, &a, "{\"a\":1}", 7, &back, &back_len), 1);
    assert_string_equal(back, "{\"a\":1}");
    store_rollback(d->s);
    free(z);

    /* another database: its own dictionary, under another ID */
    int64_t mine = tmpdb_int(d->s, "SELECT id FROM fragment_dicts");
    struct tmpdb *other = tmpdb_open(NULL);
    assert_non_null(other);
    struct db od = {.s = other->s, .tmp = other};
    seed(&od);
    render_fragments(&od);
    int64_t theirs = tmpdb_int(other->s, "SELECT id FROM fragment_dicts");
    assert_true(theirs != mine && theirs > 0 && mine > 0);
    assert_int_equal(store_begin_write(d->s), 0);
    assert_int_equal(fragcodec_encode(d->s, body, len, &z, &zlen), 1);
    store_rollback(d->s);
    /* read through the other database's connection, it still decodes with this one's
     * dictionary (the process keeps each by its ID), never with the other's */
    assert_int_equal(fragcodec_decode(other->s, &a, z, zlen, &back, &back_len), 1);
    assert_memory_equal(back, body, len);
    free(z);
    tmpdb_close(other);
    arena_release(&a);
}

/* The doorkeeper (fragments_cache_doorkeeper): an incident read from the database is kept on
 * its second read, not its first, so a walk over incidents read once keeps none of them and
 * leaves those read twice in place; what it answers is the database's either way. */
static void test_fragments_cache_doorkeeper(void **state)
{
    struct db *d = db(state);
    render_fragments(d);
    static char ids[N_INCIDENTS][40];
    size_t n =
        plain(d->s, "SELECT incident_id FROM incident_fragments ORDER BY 1", ids, N_INCIDENTS);
    assert_true(n > 100);
    uint64_t v[2];
    assert_int_equal(store_data_version(d->s, v), 0);
    fragments_cache_setup(64 << 10); /* a dozen entries or so */
    int64_t hits, misses;
    size_t bytes;
    assert_false(cache_hit(d, v, ids[0])); /* first read: not kept */
    fragments_cache_counts(&hits, &misses, &bytes);
    assert_int_equal(bytes, 0);
    assert_false(cache_hit(d, v, ids[0])); /* second: kept */
    fragments_cache_counts(&hits, &misses, &bytes);
    assert_true(bytes > 0);
    assert_true(cache_hit(d, v, ids[0]));
    /* a walk over a hundred others read once: none kept, ids[0] still answered */
    for (size_t i = 1; i <= 100; i++)
        assert_false(cache_hit(d, v, ids[i]));
    size_t after_walk;
    fragments_cache_counts(&hits, &misses, &after_walk);
    assert_int_equal(after_walk, bytes);
    assert_true(cache_hit(d, v, ids[0]));
    /* the same walk again: now kept (within the budget, the oldest going) */
    for (size_t i = 1; i <= 100; i++)
        assert_false(cache_hit(d, v, ids[i]));
    fragments_cache_counts(&hits, &misses, &after_walk);
    assert_true(after_walk > bytes && after_walk <= 64 << 10);
    assert_true(cache_hit(d, v, ids[100]));
    fragments_cache_setup(0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_incident_pages_match_the_plain_query, setup, teardown),
        cmocka_unit_test_setup_teardown(test_game_pages_match_the_plain_query, setup, teardown),
        cmocka_unit_test_setup_teardown(test_game_write_moves_the_copies, setup, teardown),
        cmocka_unit_test_setup_teardown(test_incident_pages_from_the_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_list_items_from_the_index, setup, teardown),
        cmocka_unit_test_setup_teardown(test_incident_pages_match_the_plain_query, setup_pg,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_game_pages_match_the_plain_query, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_game_write_moves_the_copies, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_incident_pages_from_the_index, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_list_items_from_the_index, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_rebuild_reads_the_stale_list_a_batch_at_a_time, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_rebuild_reads_the_stale_list_a_batch_at_a_time,
                                        setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_read_over_budget_is_refused, setup, teardown),
        cmocka_unit_test_setup_teardown(test_select_ids_any_text, setup, teardown),
        cmocka_unit_test_setup_teardown(test_select_ids_any_text, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_facts_rows_carry_the_fragment_once, setup, teardown),
        cmocka_unit_test_setup_teardown(test_facts_rows_carry_the_fragment_once, setup_pg,
                                        teardown),
        /* last: the cache it turns on stays on in this process (each empties it first) */
        cmocka_unit_test_setup_teardown(test_fragments_by_key, setup, teardown),
        cmocka_unit_test_teardown(test_migration_026_moves_fragments, teardown),
        cmocka_unit_test_setup_teardown(test_fragments_by_key, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_fragments_by_key, setup_pg_copy, teardown_copy),
        cmocka_unit_test_setup_teardown(test_fragment_bodies_by_hash, setup_pg_copy, teardown_copy),
        cmocka_unit_test_setup_teardown(test_fragment_keeps_the_comment_count, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fragment_keeps_the_comment_count, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_fragments_cache, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fragments_cache, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_fragments_cache_second_chance, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fragments_cache_second_chance, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_fragments_cache_list_form, setup, teardown),
        cmocka_unit_test_setup_teardown(test_fragments_cache_list_form, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_fragments_cache_doorkeeper, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tally_copy, setup, teardown),
        cmocka_unit_test_setup_teardown(test_tally_copy, setup_pg, teardown),
        cmocka_unit_test_setup_teardown(test_compressed_fragments, setup, teardown),
    };
    return cmocka_run_group_tests_name("store/lists", tests, NULL, NULL);
}
