#include "domain/lead.h"

#include <jansson.h>
#include <sodium.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <uriparser/Uri.h>

#include "domain/vocab.h"
#include "util/buf.h"
#include "util/jsonin.h"

size_t utf8_length(const char *s)
{
    size_t n = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        if ((*p & 0xc0) != 0x80)
            n++;
    return n;
}

const char *lead_public_reason(const char *status, const char *reason)
{
    static const char operator_prefix[] = "rejected by an operator";
    if (!status || !reason || !*reason)
        return NULL;
    if (strcmp(status, "rejected") == 0) {
        if (strncmp(reason, operator_prefix, sizeof operator_prefix - 1) == 0)
            return operator_prefix;
        return reason;
    }
    return strcmp(status, "failed") == 0 ? reason : NULL;
}

bool lead_clock_valid(const char *s)
{
    size_t n = strlen(s);
    if (n != 4 && n != 5)
        return false;
    const char *colon = s + n - 3;
    if (*colon != ':')
        return false;
    for (const char *p = s; *p; p++)
        if (p != colon && (*p < '0' || *p > '9'))
            return false;
    int minutes = n == 4 ? s[0] - '0' : (s[0] - '0') * 10 + (s[1] - '0');
    int tens = colon[1] - '0';
    return minutes <= 15 && tens <= 5;
}

bool lead_url_valid(const char *s)
{
    UriUriA uri;
    const char *err = NULL;
    if (uriParseSingleUriA(&uri, s, &err) != URI_SUCCESS)
        return false;
    bool ok = false;
    size_t scheme = (size_t)(uri.scheme.afterLast - uri.scheme.first);
    size_t host = (size_t)(uri.hostText.afterLast - uri.hostText.first);
    if (uri.scheme.first && uri.hostText.first && host > 0 &&
        ((scheme == 4 && strncasecmp(uri.scheme.first, "http", 4) == 0) ||
         (scheme == 5 && strncasecmp(uri.scheme.first, "https", 5) == 0)))
        ok = true;
    uriFreeUriMembersA(&uri);
    return ok;
}

bool lead_idempotency_key_valid(const char *s)
{
    if (!s)
        return false;
    size_t n = 0;
    for (; s[n]; n++) {
        char c = s[n];
        bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                  c == '_' || c == '.' || c == ':' || c == '-';
        if (!ok || n >= 128)
            return false;
    }
    return n >= 8;
}

void lead_input_release(struct lead_input *in)
{
    free(in->source_urls_json);
    json_decref(in->doc);
    memset(in, 0, sizeof *in);
}

/* The member name of doc, or NULL with "<name> is required" in err. doc owns it. */
static json_t *required(json_t *doc, const char *name, char *err, size_t errlen)
{
    json_t *v = json_object_get(doc, name);
    if (!v)
        err_printf(err, errlen, "%s is required", name);
    return v;
}

int lead_parse(const char *body, size_t len, struct lead_input *out, char *err, size_t errlen)
{
    static const char *const keys[] = {"game_id", "description", "source_urls", "period",
                                       "clock",   "category",    "confidence",  NULL};
    memset(out, 0, sizeof *out);
    out->period = INT64_MIN;
    json_t *doc = jin_load_body(body, len, err, errlen);
    if (!doc)
        return -1;
    out->doc = doc;
    if (!json_is_object(doc))
        goto bad_top;
    const char *key;
    json_t *v;
    json_object_foreach(doc, key, v)
    {
        bool known = false;
        for (size_t i = 0; keys[i]; i++)
            known = known || strcmp(key, keys[i]) == 0;
        if (!known) {
            char shown[65];
            size_t k = 0;
            for (; key[k] && k < sizeof shown - 1; k++)
                shown[k] = (key[k] >= 0x20 && key[k] < 0x7f) ? key[k] : '?';
            shown[k] = '\0';
            err_printf(err, errlen,
                       "unsupported field %s (allowed: game_id, description, "
                       "source_urls, period, clock, category, confidence)",
                       shown);
            goto fail;
        }
    }

    v = required(doc, "game_id", err, errlen);
    if (!v)
        goto fail;
    if (!json_is_string(v) || json_string_length(v) == 0 ||
        utf8_length(json_string_value(v)) > LEAD_GAME_ID_MAX) {
        err_printf(err, errlen, "game_id must be a string of 1 to %d characters", LEAD_GAME_ID_MAX);
        goto fail;
    }
    out->game_id = json_string_value(v);

    v = required(doc, "description", err, errlen);
    if (!v)
        goto fail;
    size_t dl = json_is_string(v) ? utf8_length(json_string_value(v)) : 0;
    if (!json_is_string(v) || dl < LEAD_DESCRIPTION_MIN || dl > LEAD_DESCRIPTION_MAX) {
        err_printf(err, errlen, "description must be a string of %d to %d characters",
                   LEAD_DESCRIPTION_MIN, LEAD_DESCRIPTION_MAX);
        goto fail;
    }
    out->description = json_string_value(v);

    v = required(doc, "source_urls", err, errlen);
    if (!v)
        goto fail;
    if (!json_is_array(v) || json_array_size(v) < 1 || json_array_size(v) > LEAD_URLS_MAX) {
        err_printf(err, errlen, "source_urls must be an array of 1 to %d URLs", LEAD_URLS_MAX);
        goto fail;
    }
    size_t i;
    json_t *u;
    json_array_foreach(v, i, u)
    {
        if (!json_is_string(u) || !lead_url_valid(json_string_value(u))) {
            err_printf(err, errlen, "source_urls[%zu] must be an absolute http or https URI", i);
            goto fail;
        }
        for (size_t j = 0; j < i; j++) {
            if (strcmp(json_string_value(json_array_get(v, j)), json_string_value(u)) == 0) {
                err_printf(err, errlen, "source_urls[%zu] repeats source_urls[%zu]", i, j);
                goto fail;
            }
        }
    }
    out->source_urls_json = json_dumps(v, JSON_COMPACT | JSON_ENSURE_ASCII);

    v = json_object_get(doc, "period");
    if (v && !json_is_null(v)) {
        if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 30) {
            err_printf(err, errlen, "period must be an integer from 1 to 30, or null");
            goto fail;
        }
        out->period = (int64_t)json_integer_value(v);
    }

    v = json_object_get(doc, "clock");
    if (v && !json_is_null(v)) {
        if (!json_is_string(v) || !lead_clock_valid(json_string_value(v))) {
            err_printf(err, errlen,
                       "clock must be M:SS or MM:SS (minutes 0 to 15, seconds 00 to "
                       "59), or null");
            goto fail;
        }
        out->clock = json_string_value(v);
    }

    v = json_object_get(doc, "category");
    if (v && !json_is_null(v)) {
        int k = vocab_find(lead_category_names, json_string_value(v));
        if (k < 0) {
            char allowed[200], refused[100] = "";
            for (int c = 0; c < CATEGORY_COUNT; c++) {
                if (vocab_find(lead_category_names, category_names[c]) >= 0)
                    continue;
                size_t used = strlen(refused);
                snprintf(refused + used, sizeof refused - used, "%s%s", used ? " and " : "",
                         category_names[c]);
            }
            err_printf(err, errlen, "category must be one of %s, or null (%s are not accepted)",
                       strlist_join(lead_category_names, allowed, sizeof allowed), refused);
            goto fail;
        }
        out->category = lead_category_names[k];
    }

    v = json_object_get(doc, "confidence");
    if (v && !json_is_null(v)) {
        if (!json_is_number(v) || json_number_value(v) < 0 || json_number_value(v) > 100) {
            err_printf(err, errlen, "confidence must be a number from 0 to 100, or null");
            goto fail;
        }
        out->has_confidence = true;
        out->confidence = json_number_value(v);
    }

    /* the fingerprint of the canonical form: key order and white space do not matter */
    char *canon = json_dumps(doc, JSON_COMPACT | JSON_SORT_KEYS | JSON_ENSURE_ASCII);
    unsigned char h[crypto_hash_sha256_BYTES];
    crypto_hash_sha256(h, (const unsigned char *)canon, strlen(canon));
    sodium_bin2hex(out->fingerprint, sizeof out->fingerprint, h, sizeof h);
    free(canon);
    return 0;
bad_top:
    err_printf(err, errlen, "body must be a JSON object (an AgentLead)");
fail:
    lead_input_release(out);
    return -1;
}
