#include "util/uuid.h"

#include <sodium.h>
#include <stdio.h>
#include <string.h>

static bool is_hex(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool uuid_is_valid(const char *s)
{
    if (!s)
        return false;
    for (int i = 0; i < UUID_STR_LEN; i++) {
        bool dash = i == 8 || i == 13 || i == 18 || i == 23;
        if (dash ? s[i] != '-' : !is_hex(s[i]))
            return false;
    }
    return s[UUID_STR_LEN] == '\0';
}

int uuid_normalize(const char *s, char out[UUID_STR_LEN + 1])
{
    if (!uuid_is_valid(s))
        return -1;
    for (int i = 0; i < UUID_STR_LEN; i++)
        out[i] = (s[i] >= 'A' && s[i] <= 'F') ? (char)(s[i] + 32) : s[i];
    out[UUID_STR_LEN] = '\0';
    return 0;
}

void uuid_v4(char out[UUID_STR_LEN + 1])
{
    unsigned char r[16];
    randombytes_buf(r, sizeof r);
    r[6] = (unsigned char)((r[6] & 0x0f) | 0x40);
    r[8] = (unsigned char)((r[8] & 0x3f) | 0x80);
    snprintf(out, UUID_STR_LEN + 1,
             "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", r[0], r[1],
             r[2], r[3], r[4], r[5], r[6], r[7], r[8], r[9], r[10], r[11], r[12], r[13], r[14],
             r[15]);
}
