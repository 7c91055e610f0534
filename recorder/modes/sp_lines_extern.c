/* SPDX-License-Identifier: MIT */
/*
 * sp_lines_extern.c - sp_lines_add(): line timings measured outside the
 * line sampler (the Python module's line tracer), kept for the session and
 * appended to the rank's line table at finalize, beside the sampler's rows.
 */
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_modes.h"

typedef struct xrow {
    uint32_t region; /* registry id */
    char *file, *function;
    int lineno;
    uint64_t count;
    int64_t time_ns;
} xrow;

static xrow *xrows; /* sp__lock */
static size_t nx, capx;

void sp__lines_extern_reset(void)
{
    for (size_t i = 0; i < nx; i++) {
        free(xrows[i].file);
        free(xrows[i].function);
    }
    free(xrows);
    xrows = NULL;
    nx = capx = 0;
}

/* Add to the row of the same key, or append one (sp__lock held). */
static int add_locked(uint32_t region, const char *file, int lineno, const char *function,
                      uint64_t count, int64_t time_ns)
{
    for (size_t i = 0; i < nx; i++) { /* a few hundred lines at most: linear is fine */
        xrow *x = &xrows[i];
        if (x->region == region && x->lineno == lineno && strcmp(x->file, file) == 0 &&
            strcmp(x->function, function) == 0) {
            x->count += count;
            x->time_ns += time_ns;
            return 0;
        }
    }
    if (nx == capx) {
        size_t cap = capx ? 2 * capx : 64;
        xrow *v = realloc(xrows, cap * sizeof *v);
        if (!v)
            return SP_ENOMEM;
        xrows = v;
        capx = cap;
    }
    xrow x = {region, strdup(file), strdup(function), lineno, count, time_ns};
    if (!x.file || !x.function) {
        free(x.file);
        free(x.function);
        return SP_ENOMEM;
    }
    xrows[nx++] = x;
    return 0;
}

int sp_lines_add(sp_region *region, const char *file, int lineno, const char *function,
                 uint64_t count, int64_t time_ns)
{
    if (!region || !file || !function || lineno < 0 || time_ns < 0)
        return sp__error(SP_EINVAL, "sp_lines_add: %s",
                         !region ? "region is NULL"
                         : !file || !function ? "file and function are required"
                         : lineno < 0         ? "negative line number"
                                              : "negative time");
    if (region->id >= SP__MAX_REGIONS)
        return sp__error(SP_EINVAL, "sp_lines_add: not a region of sp_region_get()");
    pthread_mutex_lock(&sp__lock);
    int rc = !sp__sess.active ? SP_ESTATE
                              : add_locked(region->id, file, lineno, function, count, time_ns);
    pthread_mutex_unlock(&sp__lock);
    if (rc == SP_ESTATE)
        return sp__error(rc, "sp_lines_add: no session (call sp_setup() first)");
    if (rc)
        return sp__error(rc, "sp_lines_add: out of memory");
    return 0;
}

int sp__lines_extern_collect(sp_run *run)
{
    if (!nx)
        return 0;
    int32_t *run_id = sp__run_ids_by_registry(run);
    if (!run_id)
        return sp__error(SP_ENOMEM, "sp_finalize: out of memory storing line timings");
    uint32_t nreg = sp__registry_count();
    int rc = 0;
    for (size_t i = 0; i < nx && rc == 0; i++) {
        const xrow *x = &xrows[i];
        /* A region without calls in this run has no row to refer to. */
        if (x->region < nreg && run_id[x->region] >= 0)
            rc = sp__rank_add_line(&run->ranks[0], run_id[x->region], x->file, x->lineno,
                                   x->function, x->count, x->time_ns);
    }
    free(run_id);
    sp__lines_extern_reset();
    if (rc)
        return sp__error(rc, "sp_finalize: out of memory storing line timings");
    return 0;
}
