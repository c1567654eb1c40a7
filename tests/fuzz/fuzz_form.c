/* libFuzzer: the form parser (src/util/form.c), on the raw body bytes. */
#include <stdint.h>
#include <string.h>

#include "util/arena.h"
#include "util/form.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct arena a;
    arena_init(&a);
    struct form_pair pairs[32];
    int n = form_parse(&a, (const char *)data, size, pairs, 32);
    for (int i = 0; i < n; i++) /* every pair is two NUL-terminated strings */
        if (strlen(pairs[i].name) + strlen(pairs[i].value) > size)
            __builtin_trap();
    arena_release(&a);
    return 0;
}
