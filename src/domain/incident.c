#include "domain/incident.h"

#include <string.h>

enum incident_public incident_public_state(const char *visibility, const char *survivor_visibility)
{
    if (!visibility)
        return INCIDENT_PUBLIC_GONE;
    if (strcmp(visibility, "published") == 0)
        return INCIDENT_PUBLIC_VISIBLE;
    /* api-v1.md: a duplicate "redirects to the surviving published incident" */
    if (strcmp(visibility, "merged") == 0 && survivor_visibility &&
        strcmp(survivor_visibility, "published") == 0)
        return INCIDENT_PUBLIC_REDIRECT;
    return INCIDENT_PUBLIC_GONE;
}
