#ifndef WHISTLE_DOMAIN_TOTP_H
#define WHISTLE_DOMAIN_TOTP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "util/buf.h"

/*
 * Time-based one-time passwords (RFC 6238) for staff two-factor sign-in (docs/accounts.md
 * "Two-factor sign-in"): HMAC-SHA-1, 6 digits, 30-second steps from the epoch — what every
 * authenticator app assumes. The HMAC and the truncation are liboath's; this file holds
 * the choices (digits, step, the accepted drift) and the replay rule. Pure: `now` is an
 * argument, in seconds.
 */
#define TOTP_SECRET_BYTES 20 /* 160 bits (RFC 4226 section 4 recommends at least that) */
#define TOTP_DIGITS       6
#define TOTP_STEP_S       30
#define TOTP_WINDOW       1  /* one step either side: a clock a little off still signs in */
#define TOTP_BASE32_MAX   40 /* 20 bytes in base32, without padding, and its NUL */

/* The code of secret at now_s with digits digits (6..8) into out: 0, or -1. */
int totp_code(const unsigned char *secret, size_t len, int64_t now_s, unsigned digits, char out[9]);

/* The time step (counter) whose code is `code` (exactly TOTP_DIGITS digits) within
 * TOTP_WINDOW steps of now_s, or -1 when none matches. */
int64_t totp_match(const unsigned char *secret, size_t len, int64_t now_s, const char *code);

/* A code is used once: a matched step counts only when it is later than the last step the
 * account signed in or re-authenticated with (last_step -1: none yet). */
bool totp_step_fresh(int64_t step, int64_t last_step);

/* The secret in base32 (RFC 4648, no padding: what authenticator apps type) into out: 0 or
 * -1. */
int totp_base32(const unsigned char *secret, size_t len, char out[TOTP_BASE32_MAX]);

/* Appends the otpauth:// URI of the Key Uri Format (label "Whistle:EMAIL", issuer Whistle)
 * that a QR code or an app's "enter a link" takes. */
void totp_uri(struct buf *b, const char *email, const char *base32);

#endif
