#ifndef WHISTLE_API_API_H
#define WHISTLE_API_API_H

#include <stdbool.h>
#include <stddef.h>

#include "domain/limits.h"
#include "domain/vocab.h"
#include "http/http.h"
#include "store/games.h"
#include "store/incidents.h"

/* The route table of the public API and the human pages (routes.c). */
extern const struct route api_routes[];
extern const size_t api_nroutes;

/* Handlers, one file per resource: each is a route's http_handler (http/http.h). */
typedef void api_handler_fn(struct request *req);
api_handler_fn api_games_list, api_games_get, api_teams_list, api_incidents_list, api_incidents_get;
api_handler_fn api_incident_comments; /* comments.c */
api_handler_fn api_openapi, api_leads_submit, api_leads_get, api_scout, api_healthz, api_readyz;
/* Renders the fragments that writes made stale (app/incident.h incident_fragments_rebuild),
 * up to max of them: the store's after-commit hook (store_after_content_commit, max 256)
 * and `whistle migrate` (all). Returns how many, or -1 when the store failed. */
struct store;
long api_fragments_rebuild(struct store *s, size_t max);
void api_fragments_after_commit(struct store *s);
/* The body of GET /metrics on the metrics listener (metrics.c; server_config.metrics). */
void api_metrics_write(struct buf *out);

/* Common list rules (api-v1.md): limit and offset, the parameters of every list endpoint
 * (first in its table), and the shared parameters of both list endpoints. */
#define API_OFFSET_MAX 100000
#define API_PAGE_PARAMS                                                                            \
    {"limit", QP_INT, 1, 100, 20, NULL},                                                           \
    {                                                                                              \
        "offset", QP_INT, 0, API_OFFSET_MAX, 0, NULL                                               \
    }
#define API_COMMON_LIST_PARAMS                                                                     \
    API_PAGE_PARAMS, {"season", QP_INT, 2000, 2100, 0, NULL}, {"week", QP_INT, 0, 30, 0, NULL},    \
        {"team_id", QP_ID, 0, 0, 0, NULL}, {"league", QP_ENUM, 0, 0, 0, league_names},             \
        {"season_type", QP_ENUM, 0, 0, 0, season_type_names}, {"from", QP_TIME, 0, 0, 0, NULL},    \
    {                                                                                              \
        "to", QP_TIME, 0, 0, 0, NULL                                                               \
    }
enum {
    P_LIMIT,
    P_OFFSET,
    P_SEASON,
    P_WEEK,
    P_TEAM,
    P_LEAGUE,
    P_SEASON_TYPE,
    P_FROM,
    P_TO,
    P_COMMON_COUNT
};

/* The members of a list filter (store/games.h game_filter, store/incidents.h incident_filter:
 * the same names) that API_COMMON_LIST_PARAMS's values v and the request req give, as
 * designated initializers: an unset number is MODEL_NULL. */
#define API_COMMON_FILTER(req, v)                                                                  \
    .season = (v)[P_SEASON].set ? (v)[P_SEASON].i : MODEL_NULL,                                    \
    .week = (v)[P_WEEK].set ? (v)[P_WEEK].i : MODEL_NULL,                                          \
    .from = (v)[P_FROM].set ? (v)[P_FROM].i : MODEL_NULL,                                          \
    .to = (v)[P_TO].set ? (v)[P_TO].i : MODEL_NULL, .team_id = (v)[P_TEAM].s,                      \
    .league = (v)[P_LEAGUE].s, .season_type = (v)[P_SEASON_TYPE].s, .limit = (v)[P_LIMIT].i,       \
    .offset = (v)[P_OFFSET].i, .versioned = (req)->versioned, .version = (req)->content_version

/* Checks from < to when both are given; answers 400 and returns -1 otherwise. */
int api_check_range(struct request *req, const struct qp_value *v);

/* The nextOffset of a page: offset + limit when a further record exists and can be asked
 * for (offset is capped at API_OFFSET_MAX by the spec), else MODEL_NULL. */
int64_t api_next_offset(int64_t offset, int64_t limit, int more);

/* A list reply, the spec's {data: [...], pagination} envelope: api_page_begin() opens it on
 * req->out (render each item into w), api_page_end() closes it with the pagination of this
 * page and answers 200. */
struct jw;
void api_page_begin(struct request *req, struct jw *w);
/* A single resource's reply, {data: ...}: api_data_begin() opens it on req->out and writes
 * the key (write the resource into w), api_data_end() closes it and answers status. */
void api_data_begin(struct request *req, struct jw *w);
void api_data_end(struct request *req, struct jw *w, int status);
void api_page_end(struct request *req, struct jw *w, int64_t limit, int64_t offset, bool more);

/* A list endpoint's request for api_list_reply: which list (kind) and the arguments of its
 * use case (games: game_list, incidents: incident_list_items, teams: team_list, in
 * app/incident.h); api_list_reply keeps the rows the use case returns in it (arena-owned). */
enum api_list_kind { API_LIST_GAMES, API_LIST_INCIDENTS, API_LIST_TEAMS };
struct api_list {
    enum api_list_kind kind;
    union {
        struct {
            struct game_filter f;
            struct game *rows;
        } games;
        struct {
            struct incident_filter f;
            struct incident_item *rows;
        } incidents;
        struct {
            const char *league;
            int64_t limit, offset;
            struct team *rows;
        } teams;
    };
};

/* Answers a list endpoint after its query check: the use-case context (api_ctx), the use case
 * of l->kind, 503 when it failed, else the page of its rows (api_page_begin, each row's
 * render_*, api_page_end with limit, offset and whether a further row exists). */
void api_list_reply(struct request *req, struct api_list *l, int64_t limit, int64_t offset);

/* Answers 400 when the request carries any query parameter (item endpoints take none). */
int api_no_query(struct request *req);

/* Whether the request's Content-Type is application/json (parameters allowed). */
bool api_json_content_type(struct request *req);

/* The body cap of the JSON write endpoints (agent leads): 413 beyond (scout ops have
 * their own, SCOUT_BODY_MAX). */
#define API_JSON_BODY_MAX (64 * 1024)

/* The use-case context of a request: the thread's connection, the request's arena, now,
 * the request id. Answers 503 itself and returns -1 when the store cannot be reached. */
struct app_ctx;
int api_ctx(struct request *req, struct app_ctx *c);

/* The preamble of an incident's item endpoints, after their query check: the incident id of
 * req's path normalised into id (UUID_STR_LEN + 1 bytes; 400 when it is no UUID), then the
 * use-case context (api_ctx). Answers the request itself and returns -1 when one fails. */
int api_incident_request(struct request *req, char *id, struct app_ctx *c);

/* The answer to a read that found no public incident id: 308 to survivor_id (non-NULL: the
 * incident is a merged duplicate) as api_duplicate_redirect with suffix, 503 when the store
 * was unavailable, else 404. */
void api_incident_absent(struct request *req, const char *id, const char *survivor_id,
                         const char *suffix, bool unavailable);

/* 308 to the surviving incident of a merged duplicate: Location is
 * {base}/api/v1/incidents/{survivor_id}{suffix}, the body {duplicate_of, location}. */
void api_duplicate_redirect(struct request *req, const char *survivor_id, const char *suffix);

/* Maps a negative store_rc to a reply (503) and drops a broken connection. */
void api_store_failed(struct request *req, int rc);

#endif
