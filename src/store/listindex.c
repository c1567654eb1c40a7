/* The list index of published incidents (listindex.h; docs/architecture.md "Reads"). */
#include "store/listindex.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <roaring/roaring.h>

#include "util/log.h"
#include "util/thread.h"
#include "util/timefmt.h"

/* One filter value: kind (a letter: T team, s season, w week, l league, t season type,
 * S status, c category, v verdict) and text (integers in decimal), with the positions it
 * selects (gathered while building, then a bitmap). */
struct value {
    char kind;
    char *text;
    uint32_t *pos;
    size_t n, cap;
    roaring_bitmap_t *bm;
};

/* A run of positions whose times are all known and sorted in the list's direction. */
#define RUNS_MAX 8
struct run {
    size_t lo, hi;
};

/* One list: its positions, ids, times and values. */
struct order {
    size_t n, cap;
    int64_t *time;   /* per position: the time from/to compare (STORE_NULL_INT: none) */
    uint32_t *id_at; /* per position: offset of the id in pool */
    int64_t *key;    /* per position: the row's key (SQLite: its rowid), or NULL: none */
    char *pool;      /* the ids, NUL-terminated */
    size_t pool_len, pool_cap;
    struct value *slots; /* open addressing, nslots a power of two */
    size_t nslots, nvalues;
    struct run runs[RUNS_MAX];
    int nruns; /* -1: more runs than RUNS_MAX (from/to are answered from SQL) */
};

struct listindex {
    uint64_t version;
    struct order list[LISTINDEX_LISTS];
    size_t bytes;
    atomic_int refs;
};

/* What each list reads: id, time, then one column per letter of attrs (the value kinds;
 * 'v' is the verdict: whether the column is null), in the list's order; keyed: on SQLite the
 * rowid last (the key store/fragments.h reads a fragment by). */
static const struct spec {
    const char *head, *from, *hint, *tail, *attrs;
    bool desc; /* times descend along the list */
    bool keyed;
} specs[LISTINDEX_LISTS] = {
    [LISTINDEX_INCIDENTS] = {"SELECT id, published_at, g_home, g_away, g_season, g_week, g_league,"
                             " g_season_type, status, category, question_version",
                             " FROM incidents", " INDEXED BY incidents_by_published",
                             " WHERE visibility = 'published' ORDER BY published_at DESC, id DESC",
                             "TTswltScv", true, true},
    [LISTINDEX_GAMES_KICKOFF] = {"SELECT id, starts_at, home_team_id, away_team_id, season, week,"
                                 " league, season_type, status",
                                 " FROM games", " INDEXED BY games_all_kickoff",
                                 " ORDER BY kickoff_known DESC, starts_at ASC, id ASC", "TTswltS",
                                 false, false},
    [LISTINDEX_GAMES_RECENT] = {"SELECT id, starts_at, home_team_id, away_team_id, season, week,"
                                " league, season_type, status",
                                " FROM games", " INDEXED BY games_all_recent",
                                " ORDER BY kickoff_known DESC, starts_at DESC, id ASC", "TTswltS",
                                true, false},
};

static uint64_t hash(char kind, const char *text)
{
    uint64_t h = (1469598103934665603ULL ^ (unsigned char)kind) * 1099511628211ULL;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        h = (h ^ *p) * 1099511628211ULL;
    return h;
}

static struct value *slot(const struct order *o, char kind, const char *text)
{
    size_t mask = o->nslots - 1;
    for (size_t i = (size_t)hash(kind, text) & mask;; i = (i + 1) & mask) {
        struct value *v = &o->slots[i];
        if (!v->text || (v->kind == kind && strcmp(v->text, text) == 0))
            return v;
    }
}

static const struct value *find(const struct order *o, char kind, const char *text)
{
    const struct value *v = o->nslots ? slot(o, kind, text) : NULL;
    return v && v->text ? v : NULL;
}

static bool grow_slots(struct order *o)
{
    size_t old_n = o->nslots;
    struct value *old = o->slots;
    o->nslots = old_n ? old_n * 2 : 256;
    o->slots = calloc(o->nslots, sizeof *o->slots);
    if (!o->slots) {
        o->slots = old;
        o->nslots = old_n;
        return false;
    }
    for (size_t i = 0; i < old_n; i++)
        if (old[i].text)
            *slot(o, old[i].kind, old[i].text) = old[i];
    free(old);
    return true;
}

/* Adds position p to the value (kind, text); text NULL (a null column) selects nothing. */
static bool add(struct order *o, char kind, const char *text, uint32_t p)
{
    if (!text)
        return true;
    if ((o->nvalues + 1) * 2 > o->nslots && !grow_slots(o))
        return false;
    struct value *v = slot(o, kind, text);
    if (!v->text) {
        v->kind = kind;
        if (!(v->text = strdup(text)))
            return false;
        o->nvalues++;
    }
    if (v->n && v->pos[v->n - 1] == p) /* a team both home and away: once */
        return true;
    if (v->n == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 16;
        uint32_t *pos = realloc(v->pos, cap * sizeof *pos);
        if (!pos)
            return false;
        v->pos = pos;
        v->cap = cap;
    }
    v->pos[v->n++] = p;
    return true;
}

/* Adds the row st reads (keyed: its key in the column after attrs') at the list's end. */
static bool add_row(struct order *o, const char *attrs, bool keyed, struct store_stmt *st)
{
    if (o->n == o->cap) {
        size_t cap = o->cap ? o->cap * 2 : 1024;
        int64_t *time = realloc(o->time, cap * sizeof *time);
        if (time)
            o->time = time;
        uint32_t *at = realloc(o->id_at, cap * sizeof *at);
        if (at)
            o->id_at = at;
        int64_t *key = keyed ? realloc(o->key, cap * sizeof *key) : NULL;
        if (key)
            o->key = key;
        if (!time || !at || (keyed && !key))
            return false;
        o->cap = cap;
    }
    const char *id = store_col_text(st, 0);
    size_t len = strlen(id ? id : "") + 1;
    if (o->pool_len + len > o->pool_cap) {
        size_t cap = o->pool_cap ? o->pool_cap * 2 : 65536;
        while (cap < o->pool_len + len)
            cap *= 2;
        char *pool = cap <= UINT32_MAX ? realloc(o->pool, cap) : NULL;
        if (!pool)
            return false;
        o->pool = pool;
        o->pool_cap = cap;
    }
    memcpy(o->pool + o->pool_len, id ? id : "", len);
    uint32_t p = (uint32_t)o->n;
    o->id_at[p] = (uint32_t)o->pool_len;
    o->pool_len += len;
    o->time[p] = store_col_int(st, 1);
    if (keyed)
        o->key[p] = store_col_int(st, 2 + (int)strlen(attrs));
    o->n++;
    for (int c = 0; attrs[c]; c++) {
        char text[24];
        const char *v = store_col_text(st, c + 2);
        if (attrs[c] == 'v') {
            v = store_col_null(st, c + 2) ? "0" : "1";
        } else if (attrs[c] == 's' || attrs[c] == 'w') { /* integers, in decimal */
            int64_t i = store_col_int(st, c + 2);
            snprintf(text, sizeof text, "%lld", (long long)i);
            v = i == STORE_NULL_INT ? NULL : text;
        }
        if (!add(o, attrs[c], v, p))
            return false;
    }
    return true;
}

/* The runs of known times sorted in the list's direction. */
static void find_runs(struct order *o, bool desc)
{
    o->nruns = 0;
    for (size_t p = 0; p < o->n && o->nruns >= 0; p++) {
        int64_t t = o->time[p];
        if (t == STORE_NULL_INT)
            continue;
        struct run *r = o->nruns ? &o->runs[o->nruns - 1] : NULL;
        int64_t last = r && r->hi == p ? o->time[p - 1] : 0;
        if (r && r->hi == p && (desc ? t <= last : t >= last)) {
            r->hi = p + 1;
        } else if (o->nruns == RUNS_MAX) {
            o->nruns = -1;
        } else {
            o->runs[o->nruns++] = (struct run){p, p + 1};
        }
    }
}

/* The values' positions become bitmaps; the position arrays go. Returns the bytes held, or
 * 0 when memory ran out. */
static size_t seal(struct order *o, bool desc)
{
    size_t bytes = o->n * (sizeof *o->time + sizeof *o->id_at + (o->key ? sizeof *o->key : 0)) +
                   o->pool_len + o->nslots * sizeof *o->slots + 1;
    find_runs(o, desc);
    for (size_t i = 0; i < o->nslots; i++) {
        struct value *v = &o->slots[i];
        if (!v->text)
            continue;
        v->bm = roaring_bitmap_of_ptr(v->n, v->pos);
        free(v->pos);
        v->pos = NULL;
        if (!v->bm)
            return 0;
        roaring_bitmap_run_optimize(v->bm);
        roaring_bitmap_shrink_to_fit(v->bm);
        bytes += roaring_bitmap_portable_size_in_bytes(v->bm) + strlen(v->text) + 1;
    }
    return bytes;
}

static void order_free(struct order *o)
{
    for (size_t i = 0; i < o->nslots; i++) {
        free(o->slots[i].text);
        free(o->slots[i].pos);
        if (o->slots[i].bm)
            roaring_bitmap_free(o->slots[i].bm);
    }
    free(o->slots);
    free(o->time);
    free(o->id_at);
    free(o->key);
    free(o->pool);
}

void listindex_free(struct listindex *ix)
{
    if (!ix)
        return;
    for (int l = 0; l < LISTINDEX_LISTS; l++)
        order_free(&ix->list[l]);
    free(ix);
}

/* Reads one list: 0, 1 over max, or a negative store_rc. */
static int read_list(struct store *s, int64_t max, const struct spec *sp, struct order *o)
{
    char sql[512];
    bool sqlite = !store_is_pg(s), keyed = sqlite && sp->keyed;
    snprintf(sql, sizeof sql, "%s%s%s%s%s", sp->head, keyed ? ", rowid" : "", sp->from,
             sqlite ? sp->hint : "", sp->tail);
    struct store_stmt *st = store_prepare(s, sql);
    if (!st)
        return STORE_ERR;
    int rc;
    bool too_many = false;
    while ((rc = store_step(st)) == STORE_ROW) {
        too_many = (max >= 0 && (int64_t)o->n >= max) || o->n >= UINT32_MAX;
        if (too_many || !add_row(o, sp->attrs, keyed, st)) {
            rc = STORE_ERR;
            break;
        }
    }
    store_reset(st);
    return too_many ? 1 : rc;
}

int listindex_build(struct store *s, int64_t max, struct listindex **out)
{
    *out = NULL;
    struct listindex *ix = calloc(1, sizeof *ix);
    if (!ix)
        return STORE_ERR;
    /* the version first: every write it counts is in the read that follows (store.h) */
    uint64_t v[2];
    int rc = store_data_version(s, v);
    if (rc >= 0)
        rc = store_begin_read(s);
    for (int l = 0; rc == 0 && l < LISTINDEX_LISTS; l++)
        rc = read_list(s, max, &specs[l], &ix->list[l]);
    store_rollback(s);
    for (int l = 0; rc == 0 && l < LISTINDEX_LISTS; l++) {
        size_t bytes = seal(&ix->list[l], specs[l].desc);
        ix->bytes += bytes;
        if (!bytes)
            rc = STORE_ERR;
    }
    if (rc != 0) {
        listindex_free(ix);
        return rc;
    }
    ix->version = v[0];
    atomic_init(&ix->refs, 1);
    *out = ix;
    return 0;
}

uint64_t listindex_version(const struct listindex *ix)
{
    return ix->version;
}

/* The first position of [lo, hi) where the time is past t in the list's direction (desc:
 * below t; asc: at or above t): the times of a run are sorted. */
static size_t first_past(const struct order *o, size_t lo, size_t hi, int64_t t, bool desc)
{
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (desc ? o->time[mid] < t : o->time[mid] >= t)
            hi = mid;
        else
            lo = mid + 1;
    }
    return lo;
}

/* The positions whose time is in [from, to) (either may be STORE_NULL_INT: no bound). */
static roaring_bitmap_t *time_range(const struct order *o, bool desc, int64_t from, int64_t to)
{
    roaring_bitmap_t *r = roaring_bitmap_create();
    for (int k = 0; r && k < o->nruns; k++) {
        size_t lo = o->runs[k].lo, hi = o->runs[k].hi, a, b;
        if (desc) { /* [past to, past from) */
            a = to != STORE_NULL_INT ? first_past(o, lo, hi, to, true) : lo;
            b = from != STORE_NULL_INT ? first_past(o, lo, hi, from, true) : hi;
        } else { /* [reaching from, reaching to) */
            a = from != STORE_NULL_INT ? first_past(o, lo, hi, from, false) : lo;
            b = to != STORE_NULL_INT ? first_past(o, lo, hi, to, false) : hi;
        }
        if (a < b)
            roaring_bitmap_add_range(r, a, b);
    }
    return r;
}

static int by_cardinality(const void *a, const void *b)
{
    uint64_t x = roaring_bitmap_get_cardinality(*(const roaring_bitmap_t *const *)a);
    uint64_t y = roaring_bitmap_get_cardinality(*(const roaring_bitmap_t *const *)b);
    return x < y ? -1 : x > y;
}

int listindex_page(const struct listindex *ix, enum listindex_list list,
                   const struct listindex_query *q, const char **ids, int64_t *keys, size_t *n,
                   bool *more)
{
    const struct order *o = &ix->list[list];
    bool desc = specs[list].desc, ranged = q->from != STORE_NULL_INT || q->to != STORE_NULL_INT;
    *n = 0;
    *more = false;
    if (q->limit > LISTINDEX_PAGE_MAX || (ranged && o->nruns < 0))
        return 0;
    const roaring_bitmap_t *sets[12];
    int k = 0;
    bool none = false;
    char season[24], week[24];
    snprintf(season, sizeof season, "%lld", (long long)q->season);
    snprintf(week, sizeof week, "%lld", (long long)q->week);
    struct {
        char kind;
        const char *text;
    } want[] = {
        {'T', q->team_id},
        {'s', q->season != STORE_NULL_INT ? season : NULL},
        {'w', q->week != STORE_NULL_INT ? week : NULL},
        {'l', q->league},
        {'t', q->season_type},
        {'S', q->status},
        {'c', q->category},
        {'v', q->has_verdict == 1   ? "1"
              : q->has_verdict == 0 ? "0"
                                    : NULL},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        if (!want[i].text)
            continue;
        const struct value *v = find(o, want[i].kind, want[i].text);
        if (v)
            sets[k++] = v->bm;
        else
            none = true;
    }
    if (none || q->offset < 0 || q->limit <= 0 || q->offset >= (int64_t)o->n)
        return 1;
    roaring_bitmap_t *range = ranged ? time_range(o, desc, q->from, q->to) : NULL, *meet = NULL;
    if (ranged && !range)
        return 0;
    if (range)
        sets[k++] = range;
    size_t want_n = (size_t)q->limit + 1, got = 0;
    uint32_t at[LISTINDEX_PAGE_MAX + 1];
    if (k == 0) {
        for (size_t p = (size_t)q->offset; p < o->n && got < want_n; p++)
            at[got++] = (uint32_t)p;
    } else {
        const roaring_bitmap_t *base = sets[0];
        if (k > 1) {
            qsort(sets, (size_t)k, sizeof sets[0], by_cardinality);
            meet = roaring_bitmap_and(sets[0], sets[1]);
            for (int i = 2; meet && i < k; i++)
                roaring_bitmap_and_inplace(meet, sets[i]);
            base = meet;
        }
        uint32_t p;
        if (base && roaring_bitmap_select(base, (uint32_t)q->offset, &p)) {
            roaring_uint32_iterator_t it;
            roaring_init_iterator(base, &it);
            roaring_move_uint32_iterator_equalorlarger(&it, p);
            for (; it.has_value && got < want_n; roaring_advance_uint32_iterator(&it))
                at[got++] = it.current_value;
        }
        if (k > 1 && !meet) {
            roaring_bitmap_free(range);
            return 0;
        }
    }
    if (meet)
        roaring_bitmap_free(meet);
    if (range)
        roaring_bitmap_free(range);
    *more = got == want_n;
    *n = *more ? got - 1 : got;
    for (size_t i = 0; i < *n; i++) {
        ids[i] = o->pool + o->id_at[at[i]];
        if (keys)
            keys[i] = o->key ? o->key[at[i]] : 0;
    }
    return 1;
}

/* The rows of the page's ids (see listindex_serve): 1 when they are exactly those ids, 0
 * when one is missing, or a negative store_rc. */
static int rows_by_id(struct store *s, struct arena *a, const char *select, const char *const *ids,
                      size_t n, store_read_fn read, void *rows)
{
    if (n == 0)
        return 1;
    struct store_stmt *st = store_select_ids(s, select, "", ids, n, store_id_slots(n, 8));
    if (!st)
        return STORE_ERR;
    size_t count = 0;
    int rc;
    while ((rc = store_step(st)) == STORE_ROW) {
        const char *id = store_col_text(st, 0);
        size_t k = 0;
        while (id && k < n && strcmp(ids[k], id) != 0)
            k++;
        if (k == n)
            break;
        read(a, st, rows, k);
        count++;
    }
    store_reset(st);
    if (rc < 0)
        return rc;
    return rc == STORE_DONE && count == n;
}

int listindex_ids(struct arena *a, uint64_t version, enum listindex_list list,
                  const struct listindex_query *q, const char ***ids, const int64_t **keys,
                  size_t *n, bool *more)
{
    *ids = NULL;
    if (keys)
        *keys = NULL;
    *n = 0;
    *more = false;
    struct listindex *ix = q->limit <= LISTINDEX_PAGE_MAX ? listindex_acquire(version) : NULL;
    if (!ix)
        return 0;
    const char **page = arena_alloc(a, sizeof *page * (size_t)q->limit);
    bool keyed = keys && ix->list[list].key;
    int64_t *page_keys = keyed ? arena_alloc(a, sizeof *page_keys * (size_t)q->limit) : NULL;
    int rc = listindex_page(ix, list, q, page, page_keys, n, more);
    for (size_t k = 0; rc == 1 && k < *n; k++) /* the index goes: copies */
        page[k] = arena_strdup(a, page[k]);
    listindex_release(ix);
    if (rc == 1) {
        *ids = page;
        if (keys)
            *keys = page_keys;
    }
    return rc;
}

int listindex_serve(struct store *s, struct arena *a, uint64_t version, enum listindex_list list,
                    const struct listindex_query *q, const char *select, store_read_fn read,
                    void *rows, const char ***ids, size_t *n, bool *more)
{
    int rc = listindex_ids(a, version, list, q, ids, NULL, n, more);
    if (rc == 1)
        rc = rows_by_id(s, a, select, *ids, *n, read, rows);
    if (rc != 1)
        *ids = NULL;
    listindex_count_request(rc == 1);
    return rc;
}

/* ---- the process's index and its builder ------------------------------------------- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t asked = PTHREAD_COND_INITIALIZER;
static struct listindex *current; /* under lock */
static bool enabled, wanted;      /* under lock */
/* What the builder thread is given at setup, then only read (no limit is a mutable global) */
struct builder_config {
    char *db_uri;          /* the database the builder opens for each build */
    int64_t max_incidents; /* --list-index-max */
};
static atomic_llong served_n, missed_n;

void listindex_release(struct listindex *ix)
{
    if (ix && atomic_fetch_sub(&ix->refs, 1) == 1)
        listindex_free(ix);
}

static void install(struct listindex *ix)
{
    pthread_mutex_lock(&lock);
    struct listindex *old = current;
    current = ix;
    pthread_mutex_unlock(&lock);
    listindex_release(old);
}

bool listindex_enabled(void)
{
    pthread_mutex_lock(&lock);
    bool on = enabled;
    pthread_mutex_unlock(&lock);
    return on;
}

struct listindex *listindex_acquire(uint64_t version)
{
    struct listindex *ix = NULL;
    pthread_mutex_lock(&lock);
    if (current && current->version == version) {
        ix = current;
        atomic_fetch_add(&ix->refs, 1);
    } else if (enabled && !wanted) {
        wanted = true;
        pthread_cond_signal(&asked);
    }
    pthread_mutex_unlock(&lock);
    return ix;
}

int listindex_refresh(struct store *s)
{
    struct listindex *ix;
    int rc = listindex_build(s, -1, &ix);
    if (rc == 0)
        install(ix);
    return rc;
}

static void rest(int64_t us)
{
    struct timespec ts = {.tv_sec = (time_t)(us / 1000000), .tv_nsec = (long)(us % 1000000) * 1000};
    while (us > 0 && nanosleep(&ts, &ts) != 0)
        ;
}

/* One build at a time, never on a request's thread, on a connection of its own opened for
 * the build; after each build the thread rests as long as the build took (at least 100 ms),
 * so that a stream of writes costs at most half a core in rebuilds. */
static void *builder(void *arg)
{
    const struct builder_config *cfg = arg; /* the thread's for the process's life */
    struct store *s = NULL;
    bool too_many_said = false;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (!wanted)
            pthread_cond_wait(&asked, &lock);
        pthread_mutex_unlock(&lock);
        char err[256];
        if (!s && store_open(cfg->db_uri, false, &s, err, sizeof err) != 0) {
            log_warn("listindex", "cannot open the database: %s", err);
            s = NULL;
        }
        int64_t t0 = time_mono_us();
        pthread_mutex_lock(&lock);
        wanted = false; /* a request from now on asks again */
        pthread_mutex_unlock(&lock);
        struct listindex *ix = NULL;
        int rc = s ? listindex_build(s, cfg->max_incidents, &ix) : STORE_GONE;
        int64_t took = time_mono_us() - t0;
        if (rc == 0) {
            log_info("listindex", "%zu incidents, %zu games, %zu KiB, built in %lld ms",
                     ix->list[LISTINDEX_INCIDENTS].n, ix->list[LISTINDEX_GAMES_KICKOFF].n,
                     ix->bytes >> 10, (long long)(took / 1000));
            install(ix);
            too_many_said = false;
        } else if (rc == 1) {
            if (!too_many_said)
                log_warn("listindex",
                         "more than %lld published incidents (--list-index-max):"
                         " no list index, lists are answered from SQL",
                         (long long)cfg->max_incidents);
            too_many_said = true;
            took *= 10;
        } else {
            log_warn("listindex", "cannot build: %s", s ? store_errmsg(s) : "no database");
        }
        /* The connection lasts one build: builds are rare (content writes), an open one
         * would hold a database session of its own on every node between them (and one
         * a PostgreSQL restart breaks). */
        store_close(s);
        s = NULL;
        rest(took > 100000 ? took : 100000);
    }
    return NULL;
}

void listindex_setup(const char *uri, int64_t max)
{
    if (max <= 0 || enabled)
        return;
    struct builder_config *cfg = malloc(sizeof *cfg);
    if (cfg) {
        cfg->db_uri = strdup(uri);
        cfg->max_incidents = max;
    }
    /* the builder takes none of the server's signals (sigwait in http_serve) */
    if (cfg && cfg->db_uri && thread_detached(builder, cfg) == 0) {
        pthread_mutex_lock(&lock);
        enabled = wanted = true;
        pthread_cond_signal(&asked);
        pthread_mutex_unlock(&lock);
    } else if (cfg) {
        free(cfg->db_uri);
        free(cfg);
    }
}

void listindex_counts(int64_t *served, int64_t *missed)
{
    *served = atomic_load(&served_n);
    *missed = atomic_load(&missed_n);
}

void listindex_count_request(bool served)
{
    atomic_fetch_add(served ? &served_n : &missed_n, 1);
}

void listindex_current(size_t *incidents, size_t *bytes)
{
    pthread_mutex_lock(&lock);
    *incidents = current ? current->list[LISTINDEX_INCIDENTS].n : 0;
    *bytes = current ? current->bytes : 0;
    pthread_mutex_unlock(&lock);
}
