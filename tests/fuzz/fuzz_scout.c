/* libFuzzer: the scout request validator (src/domain/scout.c scout_request_parse). */
#include <stdint.h>

#include "domain/scout.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct scout_request r;
    char err[400];
    if (scout_request_parse((const char *)data, size, &r, err, sizeof err) == 0)
        scout_request_release(&r);
    return 0;
}
