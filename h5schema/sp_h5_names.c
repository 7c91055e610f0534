/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_names.c - a hash index over run->region_names, so reading 10,000
 * regions (times every rank of a Python file) stays linear; the model's
 * sp_run_intern_region() scans the table on every call.
 */
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_h5_internal.h"

static uint64_t hash_str(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++) {
        h ^= (unsigned char)*s;
        h *= 1099511628211ull;
    }
    return h;
}

/* Insert id; returns -1, or the id of an equal name already indexed (then
 * nothing is inserted). */
static int32_t put(sp__name_index *ix, const sp_run *run, int32_t id)
{
    size_t mask = ix->cap - 1;
    const char *name = run->region_names[id];
    size_t i = (size_t)hash_str(name) & mask;
    for (; ix->slots[i]; i = (i + 1) & mask)
        if (strcmp(run->region_names[ix->slots[i] - 1], name) == 0)
            return ix->slots[i] - 1;
    ix->slots[i] = id + 1;
    return -1;
}

/* Keep the load factor <= 1/2. */
static int grow(sp__name_index *ix, const sp_run *run, size_t want)
{
    if (2 * want <= ix->cap)
        return 0;
    size_t cap = ix->cap ? ix->cap : 64;
    while (2 * want > cap)
        cap *= 2;
    int32_t *slots = calloc(cap, sizeof *slots);
    if (!slots)
        return sp__error(SP_ENOMEM, "out of memory indexing %zu region names", want);
    free(ix->slots);
    ix->slots = slots;
    ix->cap = cap;
    for (size_t id = 0; id < run->nregions; id++)
        if (put(ix, run, (int32_t)id) >= 0 && ix->dup < 0)
            ix->dup = (int32_t)id;
    return 0;
}

int sp__name_index_init(sp__name_index *ix, const sp_run *run, int32_t *dup)
{
    memset(ix, 0, sizeof *ix);
    ix->names_cap = run->nregions;
    ix->dup = -1;
    int rc = grow(ix, run, run->nregions + 1);
    if (dup)
        *dup = ix->dup;
    return rc;
}

void sp__name_index_free(sp__name_index *ix)
{
    free(ix->slots);
    memset(ix, 0, sizeof *ix);
}

int32_t sp__name_index_find(const sp__name_index *ix, const sp_run *run,
                            const char *name)
{
    size_t mask = ix->cap - 1;
    for (size_t i = (size_t)hash_str(name) & mask; ix->slots[i]; i = (i + 1) & mask)
        if (strcmp(run->region_names[ix->slots[i] - 1], name) == 0)
            return ix->slots[i] - 1;
    return -1;
}

int32_t sp__name_index_intern(sp__name_index *ix, sp_run *run, const char *name)
{
    int32_t id = sp__name_index_find(ix, run, name);
    if (id >= 0)
        return id;
    if (run->nregions >= INT32_MAX)
        return sp__error(SP_ENOMEM, "too many regions"), -1;
    if (run->nregions == ix->names_cap) {
        size_t cap = ix->names_cap ? 2 * ix->names_cap : 16;
        char **names = realloc(run->region_names, cap * sizeof *names);
        if (!names)
            return sp__error(SP_ENOMEM, "out of memory adding region '%s'", name), -1;
        run->region_names = names;
        ix->names_cap = cap;
    }
    size_t len = strlen(name) + 1;
    char *copy = malloc(len);
    if (!copy)
        return sp__error(SP_ENOMEM, "out of memory adding region '%s'", name), -1;
    memcpy(copy, name, len);
    if (grow(ix, run, run->nregions + 1) < 0) {
        free(copy);
        return -1;
    }
    id = (int32_t)run->nregions;
    run->region_names[run->nregions++] = copy;
    put(ix, run, id);
    return id;
}
