/* GET /api/v1/incidents/{id}/comments: the published discussion of an incident (issue 15;
 * docs/comments.md), an extension beyond the spec's paths. Only visible comments, no
 * emails or account IDs; 404 and 308 exactly as GET /api/v1/incidents/{id}. */
#include "api/api.h"
#include "api/render.h"
#include "app/comments.h"
#include "util/jsonw.h"
#include "util/uuid.h"

static const char *const comment_sorts[] = {"oldest", "newest", NULL};

static const struct qp_spec params[] = {
    API_PAGE_PARAMS,
    {"sort", QP_ENUM, 0, 0, 0, comment_sorts},
};
enum { C_LIMIT, C_OFFSET, C_SORT, C_COUNT };

void api_incident_comments(struct request *req)
{
    char id[UUID_STR_LEN + 1];
    struct qp_value v[C_COUNT];
    if (http_query(req, params, C_COUNT, v) < 0)
        return;
    struct app_ctx c;
    if (api_incident_request(req, id, &c) < 0)
        return;
    bool newest = v[C_SORT].set && v[C_SORT].i == 1;
    struct comment_list list;
    int rc = comments_read_public(&c, id, newest, v[C_LIMIT].i, v[C_OFFSET].i, &list);
    if (rc != COMMENT_OK) {
        api_incident_absent(req, id, rc == COMMENT_MERGED ? list.survivor_id : NULL, "/comments",
                            rc == APP_UNAVAILABLE);
        return;
    }
    struct jw w;
    api_page_begin(req, &w);
    for (size_t i = 0; i < list.n; i++)
        render_comment(&w, &list.items[i], COMMENT_FORM_PUBLIC, NULL);
    api_page_end(req, &w, v[C_LIMIT].i, v[C_OFFSET].i, list.more);
}
