/* SPDX-License-Identifier: MIT */
/* sp_strtab.c - unique strings with a hash index (sp_strtab.h). */
#include <stdlib.h>
#include <string.h>

#include "sp_strtab.h"

static uint64_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 1099511628211ull;
    return h;
}

/* The slot of s, or the empty slot where it belongs. */
static size_t slot_of(const sp_strtab *t, const char *s)
{
    size_t mask = t->hcap - 1, i = (size_t)hash(s) & mask;
    while (t->slot[i] && strcmp(t->s[t->slot[i] - 1], s) != 0)
        i = (i + 1) & mask;
    return i;
}

static int rehash(sp_strtab *t)
{
    size_t cap = t->hcap ? 2 * t->hcap : 64;
    int32_t *slot = calloc(cap, sizeof *slot);
    if (!slot)
        return -1;
    free(t->slot);
    t->slot = slot;
    t->hcap = cap;
    for (size_t i = 0; i < t->n; i++)
        t->slot[slot_of(t, t->s[i])] = (int32_t)i + 1;
    return 0;
}

int32_t sp_strtab_find(const sp_strtab *t, const char *s)
{
    if (!t->hcap)
        return -1;
    size_t i = slot_of(t, s);
    return t->slot[i] ? t->slot[i] - 1 : -1;
}

int32_t sp_strtab_intern(sp_strtab *t, const char *s)
{
    if (2 * (t->n + 1) > t->hcap && rehash(t) != 0)
        return -1;
    size_t i = slot_of(t, s);
    if (t->slot[i])
        return t->slot[i] - 1;
    if (t->n >= INT32_MAX / 2)
        return -1;
    if (t->n == t->cap) {
        size_t cap = t->cap ? 2 * t->cap : 32;
        char **p = realloc(t->s, cap * sizeof *p);
        if (!p)
            return -1;
        t->s = p;
        t->cap = cap;
    }
    if (!(t->s[t->n] = strdup(s)))
        return -1;
    t->slot[i] = (int32_t)++t->n;
    return t->slot[i] - 1;
}

void sp_strtab_free(sp_strtab *t)
{
    for (size_t i = 0; i < t->n; i++)
        free(t->s[i]);
    free(t->s);
    free(t->slot);
    memset(t, 0, sizeof *t);
}
