/* The route table: method, path, parameter segment, handler, body limit, cacheable
 * (STYLE.md habit 1). */
#include "api/api.h"
#include "domain/scout.h"
#include "web/web.h"

const struct route api_routes[] = {
    {HTTP_GET, "/api/v1/games", false, api_games_list, 0, true, NULL},
    {HTTP_GET, "/api/v1/games/", true, api_games_get, 0, true, NULL},
    {HTTP_GET, "/api/v1/incidents", false, api_incidents_list, 0, true, NULL},
    {HTTP_GET, "/api/v1/incidents/", true, api_incidents_get, 0, true, NULL},
    {HTTP_POST, "/api/v1/agent-leads", false, api_leads_submit, 64 * 1024, false, NULL},
    {HTTP_GET, "/api/v1/agent-leads/", true, api_leads_get, 0, false, NULL},
    {HTTP_POST, "/api/agents/v1/scout", false, api_scout, SCOUT_BODY_MAX, false, NULL},
    {HTTP_GET, "/api/v1/openapi.json", false, api_openapi, 0, false, NULL},
    {HTTP_GET, "/healthz", false, api_healthz, 0, false, NULL},
    {HTTP_GET, "/", false, web_home, 0, false, NULL},
    {HTTP_GET, "/incidents/feed.xml", false, web_feed, 0, true, NULL},
    {HTTP_GET, "/incidents/", true, web_incident, 0, false, NULL},
    {HTTP_POST, "/incidents/", true, web_vote, 16 * 1024, false, "/vote"},
    {HTTP_GET, "/games/", true, web_game, 0, false, NULL},
    {HTTP_GET, "/static/whistle.css", false, web_css, 0, false, NULL},
    {HTTP_GET, "/static/vote.js", false, web_js, 0, false, NULL},
    {HTTP_GET, "/favicon.ico", false, web_favicon, 0, false, NULL},
    {HTTP_GET, "/readyz", false, api_readyz, 0, false, NULL},
};

const size_t api_nroutes = sizeof api_routes / sizeof api_routes[0];
