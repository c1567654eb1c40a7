/* libFuzzer: the RFC 3339 parser (src/util/timefmt.c); a parsed time formats and parses
 * back to the same instant. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/timefmt.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *s = malloc(size + 1);
    if (!s)
        return 0;
    memcpy(s, data, size);
    s[size] = '\0';
    for (unsigned flags = 0; flags <= TIME_DATE_OK; flags++) {
        int64_t us;
        if (time_parse_iso(s, flags, &us) == 0) {
            char out[TIME_ISO_MAX];
            time_format_iso(us, out);
            int64_t back;
            if (time_parse_iso(out, 0, &back) != 0 || back != us)
                __builtin_trap();
        }
    }
    free(s);
    return 0;
}
