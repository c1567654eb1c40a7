#ifndef WHISTLE_STORE_AUDIT_H
#define WHISTLE_STORE_AUDIT_H

#include <stddef.h>
#include <stdint.h>

#include "store/store.h"
#include "util/arena.h"

/* One audit record (migration 007): who did what to which target, the changed fields before
 * and after (JSON objects or NULL), why, when, and the request it came from. */
struct audit_record {
    const char *id, *actor, *role, *action, *target_kind, *target_id;
    const char *before_json, *after_json, *reason, *request_id;
    int64_t at;
};

/* Inserts r (r->id a fresh UUID) in the caller's transaction: 0 or a negative store_rc. */
int audit_insert(struct store *s, const struct audit_record *r);

/* Newest first, optionally of one target kind, one target id and one action (each NULL:
 * any), at most limit rows from offset; arena-owned. 0 or a negative store_rc. */
int audit_list(struct store *s, struct arena *a, const char *target_kind, const char *target_id,
               const char *action, int64_t limit, int64_t offset, struct audit_record **out,
               size_t *n);

#endif
