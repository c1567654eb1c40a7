#ifndef WHISTLE_DOMAIN_INCIDENT_H
#define WHISTLE_DOMAIN_INCIDENT_H

/*
 * What the public sees of an incident (api-v1.md "Incident visibility", "Duplicates"): the
 * one home of the merged/withdrawn rule, applied by every reader — the API, the pages, the
 * ballot endpoint, the feed.
 */
enum incident_public {
    INCIDENT_PUBLIC_VISIBLE,  /* published: read it */
    INCIDENT_PUBLIC_GONE,     /* withdrawn, or a duplicate whose survivor is not published:
                               * reads as if it never existed (404), never a redirect to a
                               * page that is gone */
    INCIDENT_PUBLIC_REDIRECT, /* a merged duplicate of a published survivor: 308 there */
};

/* The public state of an incident from its visibility ("published", "withdrawn",
 * "merged") and, for a merged one, its survivor's visibility (NULL when unknown). */
enum incident_public incident_public_state(const char *visibility, const char *survivor_visibility);

#endif
