#include "util/lz4dict.h"

#include <pthread.h>
#include <stdlib.h>
#include <lz4.h>

/* Each thread's compression state and scratch, freed when it ends. */
struct zctx {
    LZ4_stream_t *stream;
    char *scratch;
    size_t scratch_len;
};

static pthread_key_t ctx_key;
static pthread_once_t ctx_once = PTHREAD_ONCE_INIT;

static void free_ctx(void *p)
{
    struct zctx *z = p;
    LZ4_freeStream(z->stream);
    free(z->scratch);
    free(z);
}

static void make_key(void)
{
    pthread_key_create(&ctx_key, free_ctx);
}

static struct zctx *thread_ctx(void)
{
    pthread_once(&ctx_once, make_key);
    struct zctx *z = pthread_getspecific(ctx_key);
    if (z)
        return z;
    z = calloc(1, sizeof *z);
    if (!z)
        return NULL;
    z->stream = LZ4_createStream();
    if (!z->stream || pthread_setspecific(ctx_key, z) != 0) {
        free_ctx(z);
        return NULL;
    }
    return z;
}

size_t lz4dict_compress(const char *dict, int dict_len, const char *src, size_t len,
                        const char **out)
{
    *out = NULL;
    if (len > LZ4_MAX_INPUT_SIZE)
        return 0;
    struct zctx *z = thread_ctx();
    if (!z)
        return 0;
    size_t bound = (size_t)LZ4_compressBound((int)len);
    if (z->scratch_len < bound) {
        char *grown = realloc(z->scratch, bound);
        if (!grown)
            return 0;
        z->scratch = grown;
        z->scratch_len = bound;
    }
    LZ4_loadDict(z->stream, dict, dict_len);
    int c = LZ4_compress_fast_continue(z->stream, src, z->scratch, (int)len, (int)bound, 1);
    if (c <= 0)
        return 0;
    *out = z->scratch;
    return (size_t)c;
}
