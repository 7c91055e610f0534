/* SPDX-License-Identifier: MIT */
#include "sp_strpool.h"

#include <stdlib.h>
#include <string.h>

/* A string longer than a block gets a block of its own. */
#define STRPOOL_BLOCK ((size_t)1 << 20)

struct sp_strpool_block {
    sp_strpool_block *next;
    size_t used, cap;
    char text[];
};

char *sp_strpool_copy(sp_strpool *pool, const char *s)
{
    size_t len = strlen(s) + 1;
    sp_strpool_block *b = pool->head;
    if (!b || b->cap - b->used < len) {
        size_t cap = len > STRPOOL_BLOCK ? len : STRPOOL_BLOCK;
        sp_strpool_block *nb = malloc(sizeof *nb + cap);
        if (!nb)
            return NULL;
        nb->used = 0;
        nb->cap = cap;
        nb->next = b;
        pool->head = b = nb;
    }
    char *copy = memcpy(b->text + b->used, s, len);
    b->used += len;
    return copy;
}

void sp_strpool_free(sp_strpool *pool)
{
    while (pool->head) {
        sp_strpool_block *next = pool->head->next;
        free(pool->head);
        pool->head = next;
    }
}
