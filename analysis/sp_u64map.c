/* SPDX-License-Identifier: MIT */
/* sp_u64map.c - the uint64 -> int32 hash map (see sp_u64map.h). */
#include "sp_u64map.h"

#include <stdlib.h>

#include "sp_error.h"

int sp_u64map_init(sp_u64map *m, size_t cap)
{
    m->keys = malloc(cap * sizeof *m->keys);
    m->vals = malloc(cap * sizeof *m->vals);
    if (!m->keys || !m->vals) {
        free(m->keys);
        free(m->vals);
        m->keys = NULL;
        m->vals = NULL;
        m->cap = m->n = 0;
        return SP_ENOMEM;
    }
    for (size_t i = 0; i < cap; i++)
        m->keys[i] = SP_U64MAP_EMPTY;
    m->cap = cap;
    m->n = 0;
    return 0;
}

void sp_u64map_free(sp_u64map *m)
{
    free(m->keys);
    free(m->vals);
    m->keys = NULL;
    m->vals = NULL;
    m->cap = m->n = 0;
}

static void put_new(sp_u64map *m, uint64_t key, int32_t val)
{
    size_t i = sp_u64map_hash(key) & (m->cap - 1);
    while (m->keys[i] != SP_U64MAP_EMPTY)
        i = (i + 1) & (m->cap - 1);
    m->keys[i] = key;
    m->vals[i] = val;
    m->n++;
}

int sp_u64map_put(sp_u64map *m, uint64_t key, int32_t val)
{
    if (2 * (m->n + 1) > m->cap) {
        sp_u64map bigger;
        if (sp_u64map_init(&bigger, m->cap ? 2 * m->cap : 64))
            return SP_ENOMEM;
        for (size_t i = 0; i < m->cap; i++)
            if (m->keys[i] != SP_U64MAP_EMPTY)
                put_new(&bigger, m->keys[i], m->vals[i]);
        sp_u64map_free(m);
        *m = bigger;
    }
    put_new(m, key, val);
    return 0;
}
