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
    struct api_list l = {.kind = API_LIST_TEAMS,
                         .teams = {v[T_LEAGUE].s, v[T_LIMIT].i, v[T_OFFSET].i, NULL}};
    api_list_reply(req, &l, l.teams.limit, l.teams.offset);
}
