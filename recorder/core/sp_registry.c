/* SPDX-License-Identifier: MIT */
/*
 * sp_registry.c - the global region registry: name -> handle, handles live
 * forever (never freed, so pointers cached at call sites stay valid across
 * sessions), ids are dense and index every thread's buffer table.
 */
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_recorder.h"

pthread_mutex_t sp__lock = PTHREAD_MUTEX_INITIALIZER;

struct sp_region sp__dummy_region = {.id = SP__DUMMY_ID, .code = 0};

static struct sp_region **by_id; /* count entries */
static uint32_t count, by_id_cap;
static uint32_t *slots; /* open addressing: id + 1, 0 = empty; nslots power of 2 */
static uint32_t nslots;

static uint64_t hash_name(const char *s, size_t n)
{
    uint64_t h = UINT64_C(14695981039346656037); /* FNV-1a */
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)s[i];
        h *= UINT64_C(1099511628211);
    }
    return h;
}

static int rehash(uint32_t want)
{
    uint32_t *ns = calloc(want, sizeof *ns);
    if (!ns)
        return SP_ENOMEM;
    for (uint32_t id = 0; id < count; id++) {
        const char *name = by_id[id]->name;
        uint32_t j = (uint32_t)hash_name(name, strlen(name)) & (want - 1);
        while (ns[j])
            j = (j + 1) & (want - 1);
        ns[j] = id + 1;
    }
    free(slots);
    slots = ns;
    nslots = want;
    return 0;
}

/* Find name, or the empty slot where it belongs (*slot). */
static struct sp_region *lookup(const char *name, size_t len, uint32_t *slot)
{
    uint32_t j = (uint32_t)hash_name(name, len) & (nslots - 1);
    while (slots[j]) {
        struct sp_region *r = by_id[slots[j] - 1];
        if (strcmp(r->name, name) == 0)
            return r;
        j = (j + 1) & (nslots - 1);
    }
    *slot = j;
    return NULL;
}

static struct sp_region *add_locked(const char *name)
{
    size_t len = strlen(name);
    if (nslots == 0 && rehash(64) != 0)
        return NULL;
    uint32_t slot = 0;
    struct sp_region *r = lookup(name, len, &slot);
    if (r)
        return r;
    if (count + 2 > nslots)
        goto oom; /* the table could not grow: keep one slot free */
    if (count >= SP__MAX_REGIONS) {
        sp__error(SP_ENOMEM, "sp_region_get: too many regions (at most %u), '%s' records nothing",
                  (unsigned)SP__MAX_REGIONS, name);
        return NULL;
    }
    if (count == by_id_cap) {
        uint32_t cap = by_id_cap ? 2 * by_id_cap : 64;
        struct sp_region **b = realloc(by_id, cap * sizeof *b);
        if (!b)
            goto oom;
        by_id = b;
        by_id_cap = cap;
    }
    r = calloc(1, sizeof *r + len + 1);
    if (!r)
        goto oom;
    memcpy(r->name, name, len + 1);
    r->id = count;
    r->code = (int32_t)count + 1; /* the begin event's code (sp_stream.h) */
    by_id[count++] = r;
    slots[slot] = r->id + 1;
    /* Keep the table at most half full; if it cannot grow, probing still ends
     * while a free slot is left (add_locked refuses the last one). */
    if (2 * count > nslots)
        (void)rehash(2 * nslots);
    return r;
oom:
    sp__error(SP_ENOMEM, "sp_region_get: out of memory adding region '%s'", name);
    return NULL;
}

sp_region *sp_region_get(const char *name)
{
    if (!name || !*name) {
        sp__error(SP_EINVAL, "sp_region_get: region name is %s; the handle records nothing",
                  name ? "empty" : "NULL");
        return &sp__dummy_region;
    }
    pthread_mutex_lock(&sp__lock);
    struct sp_region *r = add_locked(name);
    pthread_mutex_unlock(&sp__lock);
    return r ? r : &sp__dummy_region;
}

uint32_t sp__registry_count(void) { return count; }

struct sp_region *sp__registry_at(uint32_t id)
{
    return id < count ? by_id[id] : NULL;
}

const char *sp_region_name(const sp_region *r)
{
    if (!r || r == &sp__dummy_region)
        return "";
    return r->name;
}

const char *sp_region_kind_name(sp_region_kind k)
{
    switch (k) {
    case SP_REGION_DISABLED:
        return "DisabledProfileRegion";
    case SP_REGION_TIME_ONLY:
        return "TimeOnlyProfileRegion";
    case SP_REGION_FULL:
        return "FullProfileRegion";
    case SP_REGION_LINE_PROFILER:
        return "LineProfilerRegion";
    }
    return "UnknownProfileRegion";
}

sp_region_kind sp_region_get_kind(const sp_region *r)
{
    if (!r || r == &sp__dummy_region)
        return SP_REGION_DISABLED;
    return sp__current_kind();
}
