/* The route table: method, path, parameter segment, handler, body limit, cacheable
 * (STYLE.md habit 1). */
#include "api/api.h"

const struct route api_routes[] = {
    {HTTP_GET, "/api/v1/games", false, api_games_list, 0, true},
    {HTTP_GET, "/api/v1/games/", true, api_games_get, 0, true},
    {HTTP_GET, "/api/v1/incidents", false, api_incidents_list, 0, true},
    {HTTP_GET, "/api/v1/incidents/", true, api_incidents_get, 0, true},
    {HTTP_POST, "/api/v1/agent-leads", false, api_leads_submit, 64 * 1024, false},
    {HTTP_GET, "/api/v1/agent-leads/", true, api_leads_get, 0, false},
    {HTTP_GET, "/api/v1/openapi.json", false, api_openapi, 0, false},
    {HTTP_GET, "/healthz", false, api_healthz, 0, false},
    {HTTP_GET, "/readyz", false, api_readyz, 0, false},
};

const size_t api_nroutes = sizeof api_routes / sizeof api_routes[0];
