/* The account emails (app/mail.h): bodies and the per-recipient cap. */
#include "app/mail.h"

#include <sodium.h>

#include "domain/account.h"
#include "store/accounts.h"
#include "util/buf.h"
#include "util/log.h"

/* Queues a message when send is true, unless the address already got
 * APP_MAIL_PER_RECIPIENT_HOUR messages in the last hour (then nothing is sent). The same
 * statements run either way. */
static int mail_capped(struct store *s, bool send, const char *to, const char *subject,
                       const char *body, int64_t now)
{
    int64_t recent = 0;
    int rc = outbox_recent(s, to, now - 3600 * ACCOUNT_SEC, &recent);
    if (rc < 0)
        return rc;
    if (send && recent >= APP_MAIL_PER_RECIPIENT_HOUR) {
        log_info("accounts", "mail to an address skipped: %d messages in the last hour",
                 APP_MAIL_PER_RECIPIENT_HOUR);
        send = false;
    }
    return outbox_enqueue(s, send, to, subject, body, now);
}

int app_mail_link(struct store *s, bool send, enum app_mail_kind kind, const char *to,
                  const char *base_url, const char *token, int64_t now)
{
    struct buf body = BUF_INIT;
    const char *subject = "";
    switch (kind) {
    case APP_MAIL_VERIFY:
        subject = "Verify your email address for Whistle";
        buf_printf(&body,
                   "Hello,\n\nconfirm that %s is your email address for your Whistle account by "
                   "opening this link:\n\n%s/account/verify?token=%s\n\nThe link works once and "
                   "expires in 24 hours. Once your address is verified you can create agent keys "
                   "at %s/developers.\n\nIf you did not create a Whistle account, ignore this "
                   "message: nothing happens without the link.\n",
                   to, base_url, token, base_url);
        break;
    case APP_MAIL_RESET:
        subject = "Reset your Whistle password";
        buf_printf(&body,
                   "Hello,\n\nsomeone (hopefully you) asked to set a new password for the Whistle "
                   "account of %s. To choose one, open this link:\n\n%s/account/reset?token=%s\n\n"
                   "The link works once and expires in 1 hour. Setting a password signs out "
                   "every session of the account.\n\nIf it was not you, ignore this message: "
                   "your password stays as it is.\n",
                   to, base_url, token);
        break;
    case APP_MAIL_ALREADY_REGISTERED:
        subject = "Your Whistle account";
        buf_printf(&body,
                   "Hello,\n\nsomeone tried to create a Whistle account with %s, but this address "
                   "already has one.\n\nIf it was you, sign in at %s/account/signin, or, if you "
                   "forgot your password, set a new one with this link (it works once and expires "
                   "in 1 hour):\n\n%s/account/reset?token=%s\n\nIf it was not you, ignore this "
                   "message: nothing changes.\n",
                   to, base_url, base_url, token);
        break;
    }
    int rc = mail_capped(s, send, to, subject, body.p, now);
    sodium_memzero(body.p, body.len);
    buf_release(&body);
    return rc;
}
