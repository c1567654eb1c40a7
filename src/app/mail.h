#ifndef WHISTLE_APP_MAIL_H
#define WHISTLE_APP_MAIL_H

#include <stdbool.h>
#include <stdint.h>

#include "store/store.h"

/*
 * The emails Whistle sends (through the outbox, worker/outbox.c): their bodies, and the cap
 * on how many one address receives. Called by use cases inside their write transaction.
 */

/* Messages queued for one address within an hour, beyond which the outbox stays quiet (the
 * page still says the same thing, so the cap reveals nothing). */
#define APP_MAIL_PER_RECIPIENT_HOUR 5

enum app_mail_kind {
    APP_MAIL_VERIFY,             /* confirm the address: {base}/account/verify?token= */
    APP_MAIL_RESET,              /* choose a new password: {base}/account/reset?token= */
    APP_MAIL_ALREADY_REGISTERED, /* a sign-up with a taken address: a sign-in hint and a
                                  * reset link */
};

/* Queues the message of that kind for `to`, carrying the link token, in the caller's
 * transaction; nothing when `to` already got APP_MAIL_PER_RECIPIENT_HOUR messages in the
 * hour before now. The body (which holds the token) is wiped from memory once queued.
 * send false: the message is built and the same statements run, but nothing is queued
 * (an answer that must not tell whether `to` is registered). 0 or a negative store_rc. */
int app_mail_link(struct store *s, bool send, enum app_mail_kind kind, const char *to,
                  const char *base_url, const char *token, int64_t now);

#endif
