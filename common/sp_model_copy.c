/* SPDX-License-Identifier: MIT */
/* sp_model_copy.c - a run's header without its calls (sp_run_copy_header). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_model.h"

/* n elements of size sz from src into *dst (NULL stays NULL). */
static int copy_array(void *dst, const void *src, size_t n, size_t sz)
{
    void **d = dst;
    *d = NULL;
    if (!src)
        return 0;
    if (!(*d = malloc((n ? n : 1) * sz)))
        return -1;
    if (n)
        memcpy(*d, src, n * sz);
    return 0;
}

static int copy_strings(char ***dst, char *const *src, size_t n)
{
    *dst = NULL;
    if (!src)
        return 0;
    if (!(*dst = calloc(n ? n : 1, sizeof **dst)))
        return -1;
    for (size_t i = 0; i < n; i++)
        if (src[i] && !((*dst)[i] = strdup(src[i])))
            return -1;
    return 0;
}


/* Everything of a rank but its calls and what analysis derives from them. */
static int copy_rank(sp_rank_data *d, const sp_rank_data *s, size_t nregions)
{
    memset(d, 0, sizeof *d);
    d->rank = s->rank;
    d->clock_offset_ns = s->clock_offset_ns;
    d->clock_offset_err_ns = s->clock_offset_err_ns;
    d->excluded = s->excluded;
    if (sp_kvlist_copy(&d->meta, &s->meta))
        return -1;
    if (s->nthreads) {
        if (!(d->threads = calloc(s->nthreads, sizeof *d->threads)))
            return -1;
        d->nthreads = s->nthreads;
        for (size_t t = 0; t < s->nthreads; t++) {
            d->threads[t].os_tid = s->threads[t].os_tid;
            if (s->threads[t].name && !(d->threads[t].name = strdup(s->threads[t].name)))
                return -1;
        }
    }
    if (copy_array(&d->dropped, s->dropped, nregions, sizeof *d->dropped))
        return -1;
    /* The scheduling samples are header too (read with it, sp_sched.h). */
    if (copy_array(&d->sched, s->sched, s->nsched, sizeof *d->sched))
        return -1;
    d->nsched = s->sched ? s->nsched : 0;
    size_t nl = s->nlines, nc = s->ncounters;
    d->nlines = nl;
    if (copy_array(&d->line_region, s->line_region, nl, sizeof *d->line_region) ||
        copy_strings(&d->line_file, s->line_file, nl) ||
        copy_array(&d->line_lineno, s->line_lineno, nl, sizeof *d->line_lineno) ||
        copy_strings(&d->line_function, s->line_function, nl) ||
        copy_array(&d->line_samples, s->line_samples, nl, sizeof *d->line_samples) ||
        copy_array(&d->line_time_ns, s->line_time_ns, nl, sizeof *d->line_time_ns))
        return -1;
    d->ncounters = nc;
    if (copy_array(&d->counter_region, s->counter_region, nc, sizeof *d->counter_region) ||
        copy_array(&d->counter_thread, s->counter_thread, nc, sizeof *d->counter_thread) ||
        copy_array(&d->counter_cpu, s->counter_cpu, nc, sizeof *d->counter_cpu) ||
        copy_array(&d->counter_source, s->counter_source, nc, sizeof *d->counter_source) ||
        copy_strings(&d->counter_name, s->counter_name, nc) ||
        copy_array(&d->counter_value, s->counter_value, nc, sizeof *d->counter_value) ||
        copy_array(&d->counter_calls, s->counter_calls, nc, sizeof *d->counter_calls))
        return -1;
    return 0;
}

sp_run *sp_run_copy_header(const sp_run *run)
{
    sp_run *c = sp_run_new();
    if (!c)
        return sp__error_null(SP_ENOMEM, "out of memory");
    c->schema_version = run->schema_version;
    bool ok = (!run->source_path || (c->source_path = strdup(run->source_path))) &&
              (!run->layout || (c->layout = strdup(run->layout))) &&
              sp_kvlist_copy(&c->meta, &run->meta) == 0;
    /* Names copied as an array: interning one by one would compare each
     * with all before it. */
    if (ok && copy_strings(&c->region_names, run->region_names, run->nregions) == 0)
        c->nregions = run->region_names ? run->nregions : 0;
    else
        ok = false;
    if (ok && copy_array(&c->region_flags, run->region_flags, run->nregion_flags,
                         sizeof *c->region_flags) == 0)
        c->nregion_flags = run->region_flags ? run->nregion_flags : 0;
    else
        ok = false;
    if (ok && run->nranks) {
        if (!(c->ranks = calloc(run->nranks, sizeof *c->ranks)))
            ok = false;
        for (size_t r = 0; ok && r < run->nranks; r++) {
            c->nranks = r + 1; /* freed with the run on failure */
            ok = copy_rank(&c->ranks[r], &run->ranks[r], run->nregions) == 0;
        }
    }
    if (!ok) {
        sp_run_free(c);
        return sp__error_null(SP_ENOMEM, "out of memory copying a run's header");
    }
    return c;
}
