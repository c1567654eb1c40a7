/* The route table: method, path, parameter segment, handler, body limit, flags
 * (ROUTE_CACHEABLE, ROUTE_CORS), suffix (STYLE.md habit 1). Public reads answer CORS (any
 * origin, no credentials); the agent and scout endpoints do not (agents are servers: a key
 * in a web page is a leaked key), nor does any browser-only route (ballots, accounts, the
 * portal). */
#include "api/api.h"
#include "domain/scout.h"
#include "web/web.h"

const struct route api_routes[] = {
    {HTTP_GET, "/api/v1/games", false, api_games_list, 0, ROUTE_CACHEABLE | ROUTE_CORS, NULL},
    {HTTP_GET, "/api/v1/games/", true, api_games_get, 0, ROUTE_CACHEABLE | ROUTE_CORS, NULL},
    {HTTP_GET, "/api/v1/incidents", false, api_incidents_list, 0, ROUTE_CACHEABLE | ROUTE_CORS,
     NULL},
    {HTTP_GET, "/api/v1/incidents/", true, api_incidents_get, 0, ROUTE_CACHEABLE | ROUTE_CORS,
     NULL},
    {HTTP_GET, "/api/v1/incidents/", true, api_incident_comments, 0, ROUTE_CACHEABLE | ROUTE_CORS,
     "/comments"},
    {HTTP_POST, "/api/v1/agent-leads", false, api_leads_submit, API_JSON_BODY_MAX, false, NULL},
    {HTTP_GET, "/api/v1/agent-leads/", true, api_leads_get, 0, false, NULL},
    {HTTP_POST, "/api/agents/v1/scout", false, api_scout, SCOUT_BODY_MAX, false, NULL},
    {HTTP_GET, "/api/v1/openapi.json", false, api_openapi, 0, ROUTE_CORS, NULL},
    {HTTP_GET, "/healthz", false, api_healthz, 0, false, NULL},
    {HTTP_GET, "/", false, web_home, 0, false, NULL},
    {HTTP_GET, "/incidents/feed.xml", false, web_feed, 0, ROUTE_CACHEABLE | ROUTE_CORS, NULL},
    {HTTP_GET, "/incidents/", true, web_incident, 0, false, NULL},
    {HTTP_POST, "/incidents/", true, web_vote, WEB_FORM_BODY_MAX, false, "/vote"},
    {HTTP_GET, "/games/", true, web_game, 0, false, NULL},
    {HTTP_GET, "/static/whistle.css", false, web_css, 0, false, NULL},
    {HTTP_GET, "/static/vote.js", false, web_js, 0, false, NULL},
    {HTTP_GET, "/favicon.ico", false, web_favicon, 0, false, NULL},
    {HTTP_GET, "/readyz", false, api_readyz, 0, false, NULL},
    /* accounts and the developer portal (docs/accounts.md) */
    {HTTP_GET, "/account/signup", false, web_signup_form, 0, false, NULL},
    {HTTP_POST, "/account/signup", false, web_signup, WEB_FORM_BODY_MAX, false, NULL},
    {HTTP_GET, "/account/verify", false, web_verify_form, 0, false, NULL},
    {HTTP_POST, "/account/verify", false, web_verify, WEB_FORM_BODY_MAX, false, NULL},
    {HTTP_POST, "/account/resend-verification", false, web_resend_verification, WEB_FORM_BODY_MAX,
     false, NULL},
    {HTTP_GET, "/account/signin", false, web_signin_form, 0, false, NULL},
    {HTTP_POST, "/account/signin", false, web_signin, WEB_FORM_BODY_MAX, false, NULL},
    {HTTP_POST, "/account/signout", false, web_signout, WEB_FORM_BODY_MAX, false, NULL},
    {HTTP_GET, "/account/forgot", false, web_forgot_form, 0, false, NULL},
    {HTTP_POST, "/account/forgot", false, web_forgot, WEB_FORM_BODY_MAX, false, NULL},
    {HTTP_GET, "/account/reset", false, web_reset_form, 0, false, NULL},
    {HTTP_POST, "/account/reset", false, web_reset, WEB_FORM_BODY_MAX, false, NULL},
    {HTTP_GET, "/account", false, web_account, 0, false, NULL},
    {HTTP_POST, "/account/password", false, web_password, WEB_FORM_BODY_MAX, false, NULL},
    {HTTP_GET, "/developers", false, web_developers, 0, false, NULL},
    {HTTP_POST, "/developers/keys", false, web_key_create, WEB_FORM_BODY_MAX, false, NULL},
    {HTTP_POST, "/developers/keys/", true, web_key_revoke, WEB_FORM_BODY_MAX, false, "/revoke"},
    {HTTP_GET, "/static/developers.js", false, web_developers_js, 0, false, NULL},
    /* comments and moderation (docs/comments.md) */
    {HTTP_POST, "/incidents/", true, web_comment_post, WEB_COMMENT_BODY_MAX, false, "/comments"},
    {HTTP_GET, "/comments/", true, web_comment_edit_form, 0, false, "/edit"},
    {HTTP_POST, "/comments/", true, web_comment_edit, WEB_COMMENT_BODY_MAX, false, "/edit"},
    {HTTP_POST, "/comments/", true, web_comment_delete, WEB_FORM_BODY_MAX, false, "/delete"},
    {HTTP_POST, "/comments/", true, web_comment_report, WEB_FORM_BODY_MAX, false, "/report"},
    {HTTP_GET, "/account/profile", false, web_profile, 0, false, NULL},
    {HTTP_POST, "/account/profile", false, web_profile_save, WEB_FORM_BODY_MAX, false, NULL},
    {HTTP_GET, "/moderate", false, web_moderate, 0, false, NULL},
    {HTTP_POST, "/moderate/comments/", true, web_moderate_decide, WEB_FORM_BODY_MAX, false,
     "/approve"},
    {HTTP_POST, "/moderate/comments/", true, web_moderate_decide, WEB_FORM_BODY_MAX, false,
     "/reject"},
    {HTTP_POST, "/moderate/comments/", true, web_moderate_decide, WEB_FORM_BODY_MAX, false,
     "/feature"},
    {HTTP_POST, "/moderate/comments/", true, web_moderate_decide, WEB_FORM_BODY_MAX, false,
     "/unfeature"},
    {HTTP_POST, "/moderate/accounts/", true, web_moderate_decide, WEB_FORM_BODY_MAX, false,
     "/suspend"},
    {HTTP_POST, "/moderate/accounts/", true, web_moderate_decide, WEB_FORM_BODY_MAX, false,
     "/unsuspend"},
};

const size_t api_nroutes = sizeof api_routes / sizeof api_routes[0];
