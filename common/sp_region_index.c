/* SPDX-License-Identifier: MIT */
/* sp_region_index.c - region name -> id: open addressing, linear probing. */
#include "sp_region_index.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

struct sp_region_index {
    size_t cap;     /* slots, a power of two */
    size_t used;    /* slots holding an id */
    int32_t *slots; /* id + 1; 0 = empty */
};

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

/* The slot holding name, or the empty slot where it would go. */
static size_t probe(const sp_region_index *ix, char *const *names, const char *name)
{
    size_t mask = ix->cap - 1;
    size_t i = (size_t)hash_str(name) & mask;
    while (ix->slots[i] && strcmp(names[ix->slots[i] - 1], name) != 0)
        i = (i + 1) & mask;
    return i;
}

/* Keep the load factor <= 1/2: rehash every id into a table for `want`. */
static int grow(sp_region_index *ix, char *const *names, size_t want)
{
    if (2 * want <= ix->cap)
        return 0;
    size_t cap = ix->cap ? ix->cap : 64;
    while (2 * want > cap)
        cap *= 2;
    int32_t *old = ix->slots;
    size_t oldcap = ix->cap;
    if (!(ix->slots = calloc(cap, sizeof *ix->slots))) {
        ix->slots = old;
        return sp__error(SP_ENOMEM, "out of memory indexing %zu region names", want);
    }
    ix->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i])
            ix->slots[probe(ix, names, names[old[i] - 1])] = old[i];
    free(old);
    return 0;
}

sp_region_index *sp_region_index_new(char *const *names, size_t n, int32_t *dup)
{
    if (dup)
        *dup = -1;
    sp_region_index *ix = calloc(1, sizeof *ix);
    if (!ix || grow(ix, names, n + 1) < 0) {
        free(ix);
        return sp__error_null(SP_ENOMEM, "out of memory indexing %zu region names", n);
    }
    for (size_t id = 0; id < n; id++) {
        int32_t had = sp_region_index_put(ix, names, (int32_t)id);
        if (had >= 0 && dup && *dup < 0)
            *dup = (int32_t)id;
    }
    return ix;
}

void sp_region_index_free(sp_region_index *ix)
{
    if (ix)
        free(ix->slots);
    free(ix);
}

int32_t sp_region_index_find(const sp_region_index *ix, char *const *names, const char *name)
{
    size_t i = probe(ix, names, name);
    return ix->slots[i] ? ix->slots[i] - 1 : -1;
}

int32_t sp_region_index_put(sp_region_index *ix, char *const *names, int32_t id)
{
    size_t i = probe(ix, names, names[id]);
    if (ix->slots[i])
        return ix->slots[i] - 1;
    if (2 * (ix->used + 1) > ix->cap) {
        if (grow(ix, names, ix->used + 1) < 0)
            return SP_ENOMEM;
        i = probe(ix, names, names[id]);
    }
    ix->slots[i] = id + 1;
    ix->used++;
    return -1;
}

void sp_region_index_remove(sp_region_index *ix, char *const *names, int32_t id)
{
    size_t mask = ix->cap - 1, i = probe(ix, names, names[id]);
    if (ix->slots[i] != id + 1)
        return;
    /* Backward-shift deletion: move up every later entry of the cluster
     * whose home slot is not between the hole and it, so that no probe
     * stops early at the hole. */
    ix->slots[i] = 0;
    ix->used--;
    for (size_t j = (i + 1) & mask; ix->slots[j]; j = (j + 1) & mask) {
        size_t home = (size_t)hash_str(names[ix->slots[j] - 1]) & mask;
        int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        ix->slots[i] = ix->slots[j];
        ix->slots[j] = 0;
        i = j;
    }
}

int sp_region_names_first_duplicate(char *const *names, size_t n, int32_t *dup)
{
    sp_region_index *ix = sp_region_index_new(names, n, dup);
    if (!ix)
        return SP_ENOMEM;
    sp_region_index_free(ix);
    return 0;
}
