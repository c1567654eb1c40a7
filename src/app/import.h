#ifndef WHISTLE_APP_IMPORT_H
#define WHISTLE_APP_IMPORT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

#include "app/app.h"
#include "domain/model.h"

/*
 * Importing a document of teams, games and incidents (docs/import-format.md): the use case
 * behind `whistle import`. The CLI reads and parses the file; everything it then decides —
 * the document's rules, the transaction, what is written — happens here.
 */

enum import_outcome {
    IMPORT_OK = APP_OK,   /* imported; with dry_run: valid, and nothing was written */
    IMPORT_NOT_EMPTY = 1, /* if_empty, and the database has games or incidents: nothing written */
    IMPORT_INVALID = 2,   /* the document is refused: err is "<json path>: <problem>" */
    IMPORT_UNAVAILABLE = APP_UNAVAILABLE, /* the store failed: err is the whole message */
};

struct import_options {
    bool if_empty; /* import only into a database without games and incidents */
    bool dry_run;  /* validate everything inside the transaction, then roll it back */
    /* called every 1000 rows of a section of 2000 or more (NULL: no progress) */
    void (*progress)(void *arg, const char *section, size_t done, size_t total);
    void *progress_arg;
};

struct import_report {
    size_t teams, games, incidents, comments; /* rows imported (or, on a dry run, checked) */
    char err[1000];                           /* why, when the outcome is not IMPORT_OK */
};

/* Imports doc in one transaction of its own on ctx->s (upserts by id; ctx->now stamps rows
 * without timestamps): every row or none. doc stays the caller's; derived texts are kept on
 * its objects, so it must outlive nothing but this call. Returns an enum import_outcome with
 * *out filled in. */
int import_document(struct app_ctx *ctx, json_t *doc, const struct import_options *opt,
                    struct import_report *out);

/* The sample-data marker (docs/import-format.md "sample"): a document with "sample": true
 * (the bundled demo, data/demo.json) records in the same transaction that the database holds
 * sample data, and the human pages then show a banner saying so. A document without the
 * marker never sets it and never clears it (the sample rows are still there). */
#define IMPORT_SAMPLE_SETTING "sample_data"

/* Whether the database holds the bundled sample data: 1, 0, or APP_UNAVAILABLE. */
int import_sample_loaded(const struct app_ctx *ctx);
/* The same for a request that has read the content version (store_data_version; NULL: it
 * has not): the marker changes only with an import, which moves that version, so the
 * calling thread keeps the answer beside the version it was read under and reads the
 * settings row again only when a request comes with another version (one round trip less
 * per page on PostgreSQL). */
int import_sample_loaded_at(const struct app_ctx *ctx, const uint64_t *content_version);

/* ---- export (the twin of import_document: its output imports back) ---- */

/* What export_document hands its caller, in the document's order; the caller writes the
 * document (cli/export.c). Every pointer lives until the callback returns; each callback
 * returns 0, or a negative value that ends the export. */
struct comment; /* store/comments.h */
struct export_visit {
    void *arg;
    /* "teams", then "games", then "incidents": a section begins (the previous one ends) */
    void (*section)(void *arg, const char *name);
    int (*team)(void *arg, const struct team *t);
    int (*game)(void *arg, const struct game *g);
    /* an incident begins: its row, the visibility it is exported with (a merged incident is
     * exported published, with duplicate_of), its sources and its question versions */
    int (*incident)(void *arg, const struct incident *i, const char *visibility,
                    const struct source *src, size_t nsrc, const struct question *qs, size_t nq);
    /* the ballots on its current question (only when it has one) */
    int (*ballot)(void *arg, const char *choice, const char *rooting);
    /* its comments begin; then each comment; then the incident ends */
    void (*comments)(void *arg);
    int (*comment)(void *arg, const struct comment *c);
    void (*incident_end)(void *arg);
};

struct export_report {
    long long teams, games, incidents; /* rows handed to the visit */
    bool sample;                       /* the database holds the sample data (a "sample" key) */
};

/* Every team, game and incident (whatever its visibility, with sources, question history,
 * ballots and comments) in one read transaction of ctx->s (one consistent snapshot), handed
 * to v in the order of an import document (docs/import-format.md). APP_OK with *out filled
 * in, or APP_UNAVAILABLE (the store failed or a callback refused; store_errmsg says which
 * store error). */
int export_document(const struct app_ctx *ctx, const struct export_visit *v,
                    struct export_report *out);

#endif
