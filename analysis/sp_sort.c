/* SPDX-License-Identifier: MIT */
/* sp_sort.c - sort keys and sorted, filtered region listings. */
#include "sp_analysis.h"
#include "sp_analysis_internal.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

static const char *const key_names[] = {
    [SP_SORT_TOTAL] = "total", [SP_SORT_OWN] = "own", [SP_SORT_CALLS] = "calls",
    [SP_SORT_MEAN] = "mean",   [SP_SORT_MIN] = "min", [SP_SORT_MAX] = "max",
    [SP_SORT_STD] = "std",     [SP_SORT_P95] = "p95", [SP_SORT_NAME] = "name",
};
#define NKEYS (sizeof key_names / sizeof *key_names)

int sp_sort_key_parse(const char *s, sp_sort_key *out)
{
    for (size_t k = 0; s && k < NKEYS; k++) {
        if (strcmp(s, key_names[k]) == 0) {
            *out = (sp_sort_key)k;
            return 0;
        }
    }
    char valid[128] = "";
    for (size_t k = 0; k < NKEYS; k++) {
        if (k)
            strcat(valid, ", ");
        strcat(valid, key_names[k]);
    }
    return sp__error(SP_EINVAL, "unknown sort key '%s' (valid: %s)", s ? s : "(null)", valid);
}

static double key_value(const sp_stats *st, sp_sort_key key)
{
    switch (key) {
    case SP_SORT_TOTAL:
        return st->total_s;
    case SP_SORT_OWN:
        return st->own_s;
    case SP_SORT_CALLS:
        return (double)st->calls;
    case SP_SORT_MEAN:
        return st->mean_s;
    case SP_SORT_MIN:
        return st->min_s;
    case SP_SORT_MAX:
        return st->max_s;
    case SP_SORT_STD:
        return st->std_s;
    case SP_SORT_P95:
        return st->p95_s;
    case SP_SORT_NAME:
        break;
    }
    return 0.0;
}

typedef struct sort_item {
    double value;
    const char *name;
    int32_t id;
} sort_item;

/* Descending value, then ascending name (names are unique). */
static int cmp_item(const void *pa, const void *pb)
{
    const sort_item *a = pa, *b = pb;
    if (a->value != b->value)
        return a->value > b->value ? -1 : 1;
    return strcmp(a->name, b->name);
}

long sp_run_sorted_regions(const sp_run *run, sp_sort_key key, const sp_region_filter *f,
                           int32_t **out)
{
    *out = NULL;
    if (sp__ensure_analyzed(run))
        return -1;
    sort_item *items = malloc((run->nregions ? run->nregions : 1) * sizeof *items);
    int32_t *ids = malloc((run->nregions ? run->nregions : 1) * sizeof *ids);
    if (!items || !ids) {
        free(items);
        free(ids);
        sp__error(SP_ENOMEM, "out of memory sorting %zu regions", run->nregions);
        return -1;
    }
    size_t n = 0;
    for (size_t g = 0; g < run->nregions; g++) {
        const sp_run_region *reg = &run->regions[g];
        if (!sp_region_filter_match(f, reg->name))
            continue;
        /* name order: every value equal, so the tie-break decides */
        items[n++] =
            (sort_item){key == SP_SORT_NAME ? 0.0 : key_value(&reg->all, key), reg->name, reg->id};
    }
    qsort(items, n, sizeof *items, cmp_item);
    for (size_t i = 0; i < n; i++)
        ids[i] = items[i].id;
    free(items);
    *out = ids;
    return (long)n;
}
