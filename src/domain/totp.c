#include "domain/totp.h"

#include <liboath/oath.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static pthread_once_t once = PTHREAD_ONCE_INIT;
static int init_rc = -1;

static void init(void)
{
    init_rc = oath_init() == OATH_OK ? 0 : -1;
}

static int ready(void)
{
    pthread_once(&once, init);
    return init_rc;
}

int totp_code(const unsigned char *secret, size_t len, int64_t now_s, unsigned digits, char out[9])
{
    if (ready() < 0 || digits < 6 || digits > 8 || now_s < 0)
        return -1;
    int rc =
        oath_totp_generate((const char *)secret, len, (time_t)now_s, TOTP_STEP_S, 0, digits, out);
    return rc == OATH_OK ? 0 : -1;
}

int64_t totp_match(const unsigned char *secret, size_t len, int64_t now_s, const char *code)
{
    if (ready() < 0 || !code || strlen(code) != TOTP_DIGITS || now_s < 0)
        return -1;
    for (const char *p = code; *p; p++)
        if (*p < '0' || *p > '9')
            return -1;
    uint64_t counter = 0;
    int pos = 0;
    int rc = oath_totp_validate3((const char *)secret, len, (time_t)now_s, TOTP_STEP_S, 0,
                                 TOTP_WINDOW, &pos, &counter, code);
    return rc >= 0 ? (int64_t)counter : -1;
}

bool totp_step_fresh(int64_t step, int64_t last_step)
{
    return step >= 0 && step > last_step;
}

int totp_base32(const unsigned char *secret, size_t len, char out[TOTP_BASE32_MAX])
{
    char *enc = NULL;
    size_t n = 0;
    if (ready() < 0 || oath_base32_encode((const char *)secret, len, &enc, &n) != OATH_OK)
        return -1;
    while (n > 0 && enc[n - 1] == '=')
        n--;
    int rc = n < TOTP_BASE32_MAX ? 0 : -1;
    if (rc == 0) {
        memcpy(out, enc, n);
        out[n] = '\0';
    }
    free(enc);
    return rc;
}

void totp_uri(struct buf *b, const char *email, const char *base32)
{
    buf_puts(b, "otpauth://totp/Whistle:");
    buf_put_urlencoded(b, email);
    buf_printf(b, "?secret=%s&issuer=Whistle&algorithm=SHA1&digits=%d&period=%d", base32,
               TOTP_DIGITS, TOTP_STEP_S);
}
