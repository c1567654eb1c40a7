/* GET /api/v1/teams: every team, by ID, so that a client can discover team_id values. */
#include "api/api.h"
#include "api/render.h"
#include "app/incident.h"
#include "domain/model.h"

static const struct qp_spec team_params[] = {
    API_PAGE_PARAMS,
    {"league", QP_ENUM, 0, 0, 0, league_names},
};
enum { T_LIMIT, T_OFFSET, T_LEAGUE, T_COUNT };

void api_teams_list(struct request *req)
{
    struct qp_value v[T_COUNT];
    if (http_query(req, team_params, T_COUNT, v) < 0)
        return;
    struct app_ctx c;
    struct team *teams = NULL;
    size_t n = 0;
    bool more = false;
    if (api_ctx(req, &c) < 0)
        return;
    if (team_list(&c, v[T_LEAGUE].s, v[T_LIMIT].i, v[T_OFFSET].i, &teams, &n, &more) < 0) {
        reply_unavailable(req);
        return;
    }
    struct jw w;
    api_page_begin(req, &w);
    for (size_t i = 0; i < n; i++)
        render_team(&w, &teams[i]);
    api_page_end(req, &w, v[T_LIMIT].i, v[T_OFFSET].i, more);
}
