#include "domain/incident.h"

#include "domain/vocab.h"

enum incident_public incident_public_state(const char *visibility, const char *survivor_visibility)
{
    int vis = vocab_find(visibility_names, visibility);
    if (vis == VISIBILITY_PUBLISHED)
        return INCIDENT_PUBLIC_VISIBLE;
    /* api-v1.md: a duplicate "redirects to the surviving published incident" */
    if (vis == VISIBILITY_MERGED &&
        vocab_find(visibility_names, survivor_visibility) == VISIBILITY_PUBLISHED)
        return INCIDENT_PUBLIC_REDIRECT;
    return INCIDENT_PUBLIC_GONE;
}
