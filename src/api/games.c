/* GET /api/v1/games and GET /api/v1/games/{id} */
#include "api/api.h"
#include "api/render.h"
#include "app/incident.h"
#include "domain/ids.h"
#include "store/games.h"

static const char *const game_sorts[] = {"kickoff", "recent", NULL};

static const struct qp_spec list_params[] = {
    API_COMMON_LIST_PARAMS,
    {"status", QP_ENUM, 0, 0, 0, game_status_filter_names},
    {"sort", QP_ENUM, 0, 0, 0, game_sorts},
};
enum { P_STATUS = P_COMMON_COUNT, P_SORT, P_COUNT };

void api_games_list(struct request *req)
{
    struct qp_value v[P_COUNT];
    if (http_query(req, list_params, P_COUNT, v) < 0 || api_check_range(req, v) < 0)
        return;
    struct api_list l = {.kind = API_LIST_GAMES,
                         .games.f = {
                             API_COMMON_FILTER(req, v),
                             .status = v[P_STATUS].s,
                             .recent = v[P_SORT].set && v[P_SORT].i == 1,
                         }};
    api_list_reply(req, &l, l.games.f.limit, l.games.f.offset);
}

void api_games_get(struct request *req)
{
    if (api_no_query(req) < 0)
        return;
    if (!entity_id_is_valid(req->param)) {
        reply_error(req, 400, "game id must be 1 to 255 characters of A-Z a-z 0-9 . _ : ~ -");
        return;
    }
    struct app_ctx c;
    struct game g;
    if (api_ctx(req, &c) < 0)
        return;
    int rc = game_read(&c, req->param, &g, 0, NULL, NULL);
    if (rc < 0) {
        reply_unavailable(req);
        return;
    }
    if (rc == 0) {
        reply_error(req, 404, "no game with id %s", req->param);
        return;
    }
    struct jw w;
    api_data_begin(req, &w);
    render_game(&w, req->cfg->base_url, &g);
    api_data_end(req, &w, 200);
}
