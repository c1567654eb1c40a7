/* libFuzzer: the lead body validator (src/domain/lead.c lead_parse). */
#include <stdint.h>

#include "domain/lead.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct lead_input in;
    char err[400];
    if (lead_parse((const char *)data, size, &in, err, sizeof err) == 0)
        lead_input_release(&in);
    return 0;
}
