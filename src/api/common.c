#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "api/api.h"
#include "api/render.h"
#include "app/app.h"
#include "app/incident.h"
#include "domain/model.h"
#include "store/store.h"
#include "util/jsonw.h"
#include "util/log.h"
#include "util/timefmt.h"
#include "util/uuid.h"

int api_check_range(struct request *req, const struct qp_value *v)
{
    if (v[P_FROM].set && v[P_TO].set && v[P_FROM].i >= v[P_TO].i) {
        reply_error(req, 400, "query parameter from must be before to");
        return -1;
    }
    return 0;
}

int64_t api_next_offset(int64_t offset, int64_t limit, int more)
{
    if (!more || offset + limit > API_OFFSET_MAX)
        return MODEL_NULL;
    return offset + limit;
}

void api_data_begin(struct request *req, struct jw *w)
{
    jw_init(w, &req->out);
    jw_obj_begin(w);
    jw_key(w, "data");
}

void api_data_end(struct request *req, struct jw *w, int status)
{
    jw_obj_end(w);
    reply_json(req, status);
}

void api_page_begin(struct request *req, struct jw *w)
{
    api_data_begin(req, w);
    jw_arr_begin(w);
}

void api_page_end(struct request *req, struct jw *w, int64_t limit, int64_t offset, bool more)
{
    jw_arr_end(w);
    render_pagination(w, limit, offset, api_next_offset(offset, limit, more));
    api_data_end(req, w, 200);
}

/* The use case of l's kind: its rows into l, *n and *more; APP_OK or APP_UNAVAILABLE. */
static int list_read(const struct app_ctx *c, struct api_list *l, size_t *n, bool *more)
{
    switch (l->kind) {
    case API_LIST_GAMES:
        return game_list(c, &l->games.f, &l->games.rows, n, more);
    case API_LIST_INCIDENTS:
        return incident_list_items(c, &l->incidents.f, &l->incidents.rows, n, more);
    case API_LIST_TEAMS:
        return team_list(c, l->teams.league, l->teams.limit, l->teams.offset, &l->teams.rows, n,
                         more);
    }
    return APP_UNAVAILABLE;
}

/* Writes row i of l's rows into w. */
static void list_row(struct request *req, struct jw *w, const struct api_list *l, size_t i)
{
    switch (l->kind) {
    case API_LIST_GAMES:
        render_game(w, req->cfg->base_url, &l->games.rows[i]);
        break;
    case API_LIST_INCIDENTS: {
        /* all are found: the page and them are one read */
        const struct incident_item *it = &l->incidents.rows[i];
        if (it->state != INCIDENT_READ_FOUND)
            break;
        size_t at = w->b->len;
        render_incident_item(w, req->cfg->base_url, it, false);
        /* what was written, without the comma before it, kept with the item's cached entry
         * for the next page at these versions */
        if (at < w->b->len && w->b->p[at] == ',')
            at++;
        incident_item_keep_list(it, w->b->p + at, w->b->len - at);
        break;
    }
    case API_LIST_TEAMS:
        render_team(w, &l->teams.rows[i]);
        break;
    }
}

void api_list_reply(struct request *req, struct api_list *l, int64_t limit, int64_t offset)
{
    struct app_ctx c;
    size_t n = 0;
    bool more = false;
    if (api_ctx(req, &c) < 0)
        return;
    if (list_read(&c, l, &n, &more) < 0) {
        reply_unavailable(req);
        return;
    }
    struct jw w;
    api_page_begin(req, &w);
    for (size_t i = 0; i < n; i++)
        list_row(req, &w, l, i);
    api_page_end(req, &w, limit, offset, more);
}

int api_no_query(struct request *req)
{
    struct qp_value none[1];
    return http_query(req, NULL, 0, none);
}

int api_ctx(struct request *req, struct app_ctx *c)
{
    c->s = store_thread();
    if (!c->s) {
        reply_unavailable(req);
        return -1;
    }
    c->a = &req->arena;
    c->now = time_now_us();
    c->actor = NULL;
    c->role = NULL;
    c->request_id = req->id;
    c->versions = NULL;
    if (req->versioned) {
        uint64_t *v = arena_alloc(&req->arena, sizeof *v * 2);
        v[0] = req->content_version;
        v[1] = req->tally_version;
        c->versions = v;
    }
    return 0;
}

void api_store_failed(struct request *req, int rc)
{
    log_warn("api", "store failure %d on %s rid=%s", rc, req->path, req->id);
    reply_unavailable(req);
}

bool api_json_content_type(struct request *req)
{
    static const char want[] = "application/json";
    const char *ct = http_header(req, "Content-Type");
    if (!ct || strncasecmp(ct, want, sizeof want - 1) != 0)
        return false;
    const char *rest = ct + sizeof want - 1;
    while (*rest == ' ')
        rest++;
    return *rest == '\0' || *rest == ';';
}

int api_incident_request(struct request *req, char *id, struct app_ctx *c)
{
    if (uuid_normalize(req->param, id) < 0) {
        reply_error(req, 400, "incident id must be a UUID");
        return -1;
    }
    return api_ctx(req, c);
}

void api_incident_absent(struct request *req, const char *id, const char *survivor_id,
                         const char *suffix, bool unavailable)
{
    if (survivor_id)
        api_duplicate_redirect(req, survivor_id, suffix);
    else if (unavailable)
        reply_unavailable(req);
    else
        reply_error(req, 404, "no public incident with id %s", id);
}

void api_duplicate_redirect(struct request *req, const char *survivor_id, const char *suffix)
{
    const char *location = arena_printf(&req->arena, "%s/api/v1/incidents/%s%s", req->cfg->base_url,
                                        survivor_id, suffix);
    struct jw w;
    jw_init(&w, &req->out);
    jw_obj_begin(&w);
    jw_kstr(&w, "duplicate_of", survivor_id);
    jw_kstr(&w, "location", location);
    jw_obj_end(&w);
    reply_header(req, "Location", location);
    reply_json(req, 308);
}
