#ifndef WHISTLE_APP_CANDIDATE_H
#define WHISTLE_APP_CANDIDATE_H

#include "app/app.h"
#include "domain/model.h"
#include "store/research.h"

/*
 * The editor's side of lead research (docs/research.md): a candidate (a researched lead that
 * passed every gate) is published as a Developing incident or rejected with a reason. Shared
 * by `whistle candidate publish|reject` and the editorial desk; one write transaction and one
 * audit record each; a refusal writes nothing.
 */
enum candidate_outcome {
    CANDIDATE_OK = 0,
    CANDIDATE_INVALID,       /* an input is wrong: message */
    CANDIDATE_MISSING,       /* no such lead */
    CANDIDATE_NOT_CANDIDATE, /* the lead is not (or no longer) a candidate: message */
    /* APP_UNAVAILABLE */
};

struct candidate_publish_input {
    const char *title, *description, *summary; /* NULL: research's own */
    const struct question *question;           /* NULL: no Fan Verdict question yet */
};

struct candidate_result {
    const char *message;
    char incident_id[ID_LEN]; /* publish: the new incident */
};

/* lead_id is a normalized UUID. */
int candidate_publish(const struct app_ctx *c, const char *lead_id,
                      const struct candidate_publish_input *in, struct candidate_result *r);
int candidate_reject(const struct app_ctx *c, const char *lead_id, const char *reason,
                     struct candidate_result *r);

#endif
