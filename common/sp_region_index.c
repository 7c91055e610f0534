/* SPDX-License-Identifier: MIT */
/* sp_region_index.c - region name -> id: open addressing, linear probing. */
#include "sp_region_index.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

/* A slot keeps its name's hash beside the id: a probe compares names only
 * when the hashes match, and growing rehashes without reading a name (with
 * 10^6 names each strcmp of a probe and each rehash was a cache miss). */
typedef struct slot {
    uint32_t hash;
    int32_t id1; /* id + 1; 0 = empty */
} slot;

struct sp_region_index {
    size_t cap;  /* slots, a power of two, at most 2^32 (ids are int32) */
    size_t used; /* slots holding an id */
    slot *slots;
};

static uint32_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return (uint32_t)(h ^ h >> 32);
}

/* The slot holding name (whose hash is h), or the empty slot where it
 * would go. */
static size_t probe(const sp_region_index *ix, char *const *names, const char *name, uint32_t h)
{
    size_t mask = ix->cap - 1;
    size_t i = h & mask;
    for (const slot *s; (s = &ix->slots[i])->id1; i = (i + 1) & mask)
        if (s->hash == h && strcmp(names[s->id1 - 1], name) == 0)
            break;
    return i;
}

/* The empty slot where an entry of hash h goes (its name is not indexed). */
static size_t free_slot(const sp_region_index *ix, uint32_t h)
{
    size_t mask = ix->cap - 1, i = h & mask;
    while (ix->slots[i].id1)
        i = (i + 1) & mask;
    return i;
}

/* Keep the load factor <= 1/2: rehash every id into a table for `want`. */
static int grow(sp_region_index *ix, size_t want)
{
    if (2 * want <= ix->cap)
        return 0;
    size_t cap = ix->cap ? ix->cap : 64;
    while (2 * want > cap)
        cap *= 2;
    slot *old = ix->slots;
    size_t oldcap = ix->cap;
    if (!(ix->slots = calloc(cap, sizeof *ix->slots))) {
        ix->slots = old;
        return sp__error(SP_ENOMEM, "out of memory indexing %zu region names", want);
    }
    ix->cap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i].id1)
            ix->slots[free_slot(ix, old[i].hash)] = old[i];
    free(old);
    return 0;
}

sp_region_index *sp_region_index_new(char *const *names, size_t n, int32_t *dup)
{
    if (dup)
        *dup = -1;
    sp_region_index *ix = calloc(1, sizeof *ix);
    if (!ix || grow(ix, n + 1) < 0) {
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
    return ix->slots[probe(ix, names, name, hash_str(name))].id1 - 1;
}

int sp_region_index_reserve(sp_region_index *ix, size_t n)
{
    return grow(ix, n);
}

int32_t sp_region_index_put(sp_region_index *ix, char *const *names, int32_t id)
{
    uint32_t h = hash_str(names[id]);
    size_t i = probe(ix, names, names[id], h);
    if (ix->slots[i].id1)
        return ix->slots[i].id1 - 1;
    if (2 * (ix->used + 1) > ix->cap) {
        if (grow(ix, ix->used + 1) < 0)
            return SP_ENOMEM;
        i = free_slot(ix, h);
    }
    ix->slots[i] = (slot){h, id + 1};
    ix->used++;
    return -1;
}

void sp_region_index_remove(sp_region_index *ix, char *const *names, int32_t id)
{
    size_t mask = ix->cap - 1, i = probe(ix, names, names[id], hash_str(names[id]));
    if (ix->slots[i].id1 != id + 1)
        return;
    /* Backward-shift deletion: move up every later entry of the cluster
     * whose home slot is not between the hole and it, so that no probe
     * stops early at the hole. */
    ix->slots[i] = (slot){0, 0};
    ix->used--;
    for (size_t j = (i + 1) & mask; ix->slots[j].id1; j = (j + 1) & mask) {
        size_t home = ix->slots[j].hash & mask;
        int stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        ix->slots[i] = ix->slots[j];
        ix->slots[j] = (slot){0, 0};
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
