/* GET /api/v1/incidents and GET /api/v1/incidents/{id} */
#include "api/api.h"
#include "api/render.h"
#include "app/incident.h"
#include "store/incidents.h"
#include "util/timefmt.h"
#include "util/uuid.h"

static const char *const incident_sorts[] = {"recent", NULL};

static const struct qp_spec list_params[] = {
    API_COMMON_LIST_PARAMS,
    {"status", QP_ENUM, 0, 0, 0, maturity_names},
    {"sort", QP_ENUM, 0, 0, 0, incident_sorts},
    {"game_id", QP_ID, 0, 0, 0, NULL},
    {"category", QP_ENUM, 0, 0, 0, category_names},
    {"has_verdict", QP_BOOL, 0, 0, 0, NULL},
};
enum { P_STATUS = P_COMMON_COUNT, P_SORT, P_GAME, P_CATEGORY, P_HAS_VERDICT, P_COUNT };

void api_incidents_list(struct request *req)
{
    struct qp_value v[P_COUNT];
    if (http_query(req, list_params, P_COUNT, v) < 0 || api_check_range(req, v) < 0)
        return;
    struct api_list l = {.kind = API_LIST_INCIDENTS,
                         .incidents.f = {
                             API_COMMON_FILTER(req, v),
                             .game_id = v[P_GAME].s,
                             .category = v[P_CATEGORY].s,
                             .status = v[P_STATUS].s,
                             .has_verdict = v[P_HAS_VERDICT].set ? (int)v[P_HAS_VERDICT].i : -1,
                         }};
    api_list_reply(req, &l, l.incidents.f.limit, l.incidents.f.offset);
}

void api_incidents_get(struct request *req)
{
    char id[UUID_STR_LEN + 1];
    if (api_no_query(req) < 0)
        return;
    struct app_ctx c;
    if (api_incident_request(req, id, &c) < 0)
        return;
    struct incident_item v;
    const char *ids[1] = {id};
    int rc = incident_items(&c, ids, 1, true, &v);
    int state = rc < 0 ? rc : v.state;
    if (state != INCIDENT_READ_FOUND) {
        api_incident_absent(req, id, state == INCIDENT_READ_MERGED ? v.survivor_id : NULL, "",
                            state == APP_UNAVAILABLE);
        return;
    }
    struct jw w;
    api_data_begin(req, &w);
    render_incident_item(&w, req->cfg->base_url, &v, true);
    api_data_end(req, &w, 200);
}

long api_fragments_rebuild(struct store *s, size_t max)
{
    struct arena a;
    arena_init(&a);
    struct app_ctx c = {.s = s, .a = &a, .now = time_now_us(), .actor = "worker"};
    size_t done = 0;
    int rc = incident_fragments_rebuild(&c, render_incident_fragment, max, &done);
    arena_release(&a);
    return rc < 0 ? -1 : (long)done;
}

void api_fragments_after_commit(struct store *s)
{
    api_fragments_rebuild(s, 256);
}
