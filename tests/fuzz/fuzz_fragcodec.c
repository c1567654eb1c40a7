/*
 * libFuzzer: SQLite's compressed fragment bodies (src/store/fragcodec.c) on a scratch database
 * made once per process, holding one dictionary. Each input is read twice:
 *   - as stored bytes, with its first 9 bytes made a compressed body's head naming that
 *     dictionary (so that most inputs reach LZ4's decoder): decoding never reads or writes
 *     out of bounds, and a body it answers has the length its head states and no NUL;
 *   - as a body to store (when it has no NUL): encoded, it decodes back to the same bytes.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scratchdb.h"
#include "store/fragcodec.h"

#define DICT_ID 4242

static struct store *db;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    db = scratch_db_open("fragcodec");
    if (STORE_RUN(db, "INSERT INTO fragment_dicts (id, dict) VALUES (?, CAST(? AS BLOB))",
                  STORE_INT(DICT_ID),
                  STORE_TEXT("{\"id\":\"00000000-0000-4000-8000-000000000000\",\"game_id\":"
                             "\"g01\",\"title\":\"t\",\"category\":\"penalty\",\"links\":"
                             "{\"self\":\"/api/v1/incidents/\"},\"votes\":{}}")) < 0)
        abort();
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct arena a;
    arena_init(&a);
    unsigned char *head = malloc(size ? size : 1);
    memcpy(head, data, size);
    if (size >= FRAGCODEC_HEAD) {
        head[0] = FRAGCODEC_V1;
        for (int i = 0; i < 8; i++)
            head[1 + i] = (unsigned char)((uint64_t)DICT_ID >> (8 * i));
    }
    const char *body;
    size_t len;
    int rc = fragcodec_decode(db, &a, head, size, &body, &len);
    if (rc < 0)
        abort();
    if (rc == 1 &&
        (strlen(body) != len || (size >= FRAGCODEC_HEAD && head[0] == FRAGCODEC_V1 &&
                                 len != ((size_t)head[9] | (size_t)head[10] << 8 |
                                         (size_t)head[11] << 16 | (size_t)head[12] << 24))))
        abort();
    free(head);

    if (size > 0 && !memchr(data, '\0', size)) {
        char *text = malloc(size + 1);
        memcpy(text, data, size);
        text[size] = '\0';
        unsigned char *z;
        size_t zlen;
        if (store_begin_write(db) < 0)
            abort();
        rc = fragcodec_encode(db, text, size, &z, &zlen);
        store_rollback(db);
        if (rc < 0)
            abort();
        if (rc == 1) {
            if (fragcodec_decode(db, &a, z, zlen, &body, &len) != 1 || len != size ||
                memcmp(body, text, size) != 0)
                abort();
            free(z);
        }
        free(text);
    }
    arena_release(&a);
    return 0;
}
