/* SPDX-License-Identifier: MIT */
/* plot_args.c - rank lists, sizes, counts, analyzed runs, run subsets and
 * region selection for the verbs (see plot_args.h). */
#include "plot_args.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "sp_error.h"

static int parse_long(const char **p, long *out)
{
    const char *s = *p;
    if (*s < '0' || *s > '9')
        return -1;
    errno = 0;
    char *end;
    long v = strtol(s, &end, 10);
    if (errno || v > INT32_MAX)
        return -1;
    *out = v;
    *p = end;
    return 0;
}

int sp__rank_list_parse(const char *s, sp__rank_list *out)
{
    memset(out, 0, sizeof *out);
    const char *p = s;
    while (1) {
        long lo, hi;
        if (parse_long(&p, &lo))
            goto bad;
        hi = lo;
        if (*p == '-') {
            p++;
            if (parse_long(&p, &hi) || hi < lo)
                goto bad;
        }
        if (out->n == sizeof out->r / sizeof out->r[0])
            return sp__error(SP_EINVAL, "--ranks '%s': more than 64 ranges", s);
        out->r[out->n].lo = lo;
        out->r[out->n].hi = hi;
        out->n++;
        if (*p == '\0')
            return 0;
        if (*p++ != ',')
            goto bad;
    }
bad:
    return sp__error(SP_EINVAL, "invalid --ranks '%s' (expected e.g. 0-3,5)", s);
}

int sp__selection_option(sp__selection *sel, int c, const char *arg, const char *verb)
{
    switch (c) {
    case 'r':
        if (sp__rank_list_parse(arg, &sel->ranks))
            return sp__cli_usage_error(verb, "%s", sp_last_error());
        break;
    case 'i':
        sel->include = arg;
        break;
    case 'e':
        sel->exclude = arg;
        break;
    }
    return 0;
}

bool sp__rank_list_has(const sp__rank_list *l, long rank)
{
    if (!l || l->n == 0)
        return true;
    for (size_t i = 0; i < l->n; i++)
        if (rank >= l->r[i].lo && rank <= l->r[i].hi)
            return true;
    return false;
}

int sp__size_parse(const char *s, double *w, double *h)
{
    char *end;
    errno = 0;
    long a = strtol(s, &end, 10);
    if (!errno && end != s && (*end == 'x' || *end == 'X')) {
        const char *q = end + 1;
        long b = strtol(q, &end, 10);
        if (!errno && end != q && *end == '\0' && a >= 50 && b >= 50 && a <= 20000 && b <= 20000 &&
            s[0] >= '0' && s[0] <= '9' && q[0] >= '0' && q[0] <= '9') {
            *w = (double)a;
            *h = (double)b;
            return 0;
        }
    }
    return sp__error(SP_EINVAL, "invalid --size '%s' (expected WxH, e.g. 1200x700, 50..20000)", s);
}

int sp__count_parse(const char *s, const char *option, long max, long *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < 1 || v > max || s[0] < '0' || s[0] > '9')
        return sp__error(SP_EINVAL, "invalid %s '%s' (expected a whole number 1..%ld)", option, s,
                         max);
    *out = v;
    return 0;
}

sp_run *sp__open_analyzed(const char *path)
{
    sp_run *run = sp__cli_open_run(path);
    if (run && sp_run_analyze(run)) {
        sp__cli_error("cannot analyze '%s': %s", path, sp_last_error());
        sp_run_free(run);
        return NULL;
    }
    return run;
}

/* ---------------------------------------------------------------- subset */

static int copy_kvlist(sp_kvlist *dst, const sp_kvlist *src)
{
    for (size_t i = 0; i < src->n; i++)
        if (sp_kvlist_set(dst, src->items[i].key, src->items[i].value))
            return SP_ENOMEM;
    return 0;
}

static char *dup_or_null(const char *s, int *rc)
{
    if (!s)
        return NULL;
    char *d = strdup(s);
    if (!d)
        *rc = SP_ENOMEM;
    return d;
}

/* Copy the kept calls of src into dst (rank data already zeroed). */
static int subset_rank(sp_rank_data *dst, const sp_rank_data *src, const bool *keep_region,
                       bool keep_rank)
{
    int rc = 0;
    dst->clock_offset_ns = src->clock_offset_ns;
    dst->clock_offset_err_ns = src->clock_offset_err_ns;
    dst->excluded = src->excluded || !keep_rank; /* per-rank figures skip it */
    if (copy_kvlist(&dst->meta, &src->meta))
        return SP_ENOMEM;
    dst->nthreads = src->nthreads;
    dst->threads = calloc(src->nthreads ? src->nthreads : 1, sizeof *dst->threads);
    if (!dst->threads)
        return SP_ENOMEM;
    for (size_t t = 0; t < src->nthreads; t++) {
        dst->threads[t].os_tid = src->threads[t].os_tid;
        dst->threads[t].name = dup_or_null(src->threads[t].name, &rc);
    }
    size_t n = 0;
    for (size_t i = 0; keep_rank && i < src->ncalls; i++)
        n += keep_region[src->region[i]];
    if (rc || sp_rank_alloc_calls(dst, n))
        return SP_ENOMEM;
    int64_t *newidx = malloc((src->ncalls ? src->ncalls : 1) * sizeof *newidx);
    if (!newidx)
        return SP_ENOMEM;
    size_t k = 0;
    for (size_t i = 0; keep_rank && i < src->ncalls; i++) {
        newidx[i] = -1;
        /* Nearest kept ancestor: parents come first, so newidx[p] is known. */
        int64_t p = src->parent[i];
        int64_t np = -1;
        while (p >= 0 && (size_t)p < i) {
            if (newidx[p] >= 0) {
                np = newidx[p];
                break;
            }
            int64_t pp = src->parent[p];
            p = (pp >= 0 && pp < p) ? pp : -1;
        }
        if (!keep_region[src->region[i]])
            continue;
        dst->start_ns[k] = src->start_ns[i];
        dst->end_ns[k] = src->end_ns[i];
        dst->region[k] = src->region[i];
        dst->thread[k] = src->thread[i];
        dst->parent[k] = np;
        newidx[i] = (int64_t)k++;
    }
    free(newidx);
    return 0;
}

static void describe_ranks(const sp_run *run, char *buf, size_t n)
{
    if (run->nranks == 0)
        snprintf(buf, n, "no ranks");
    else if (run->nranks == 1)
        snprintf(buf, n, "1 rank: 0");
    else
        snprintf(buf, n, "%zu ranks: 0-%zu", run->nranks, run->nranks - 1);
}

sp_run *sp__run_subset(const sp_run *run, const sp__rank_list *ranks, const sp_region_filter *f)
{
    for (size_t i = 0; ranks && i < ranks->n; i++) {
        if ((size_t)ranks->r[i].hi >= run->nranks) {
            char what[64];
            describe_ranks(run, what, sizeof what);
            long bad = (size_t)ranks->r[i].lo >= run->nranks ? ranks->r[i].lo : (long)run->nranks;
            return sp__error_null(SP_EINVAL, "--ranks: rank %ld is not in '%s' (%s)", bad,
                                  run->source_path ? run->source_path : "the run", what);
        }
    }
    sp_run *out = sp_run_new();
    bool *keep = calloc(run->nregions ? run->nregions : 1, sizeof *keep);
    int rc = (!out || !keep) ? SP_ENOMEM : 0;
    for (size_t g = 0; !rc && g < run->nregions; g++) {
        keep[g] = sp_region_filter_match(f, run->region_names[g]);
        if (sp_run_intern_region(out, run->region_names[g]) < 0)
            rc = SP_ENOMEM;
    }
    if (!rc) {
        out->schema_version = run->schema_version;
        out->source_path = dup_or_null(run->source_path, &rc);
        out->layout = dup_or_null(run->layout, &rc);
    }
    if (!rc && (copy_kvlist(&out->meta, &run->meta) || sp_run_set_ranks(out, run->nranks)))
        rc = SP_ENOMEM;
    if (!rc && run->nregion_flags && run->region_flags) {
        /* sampled / throttled marks (sp_figures.h) follow the regions */
        out->region_flags = malloc(run->nregion_flags * sizeof *out->region_flags);
        if (!out->region_flags)
            rc = SP_ENOMEM;
        else {
            memcpy(out->region_flags, run->region_flags,
                   run->nregion_flags * sizeof *out->region_flags);
            out->nregion_flags = run->nregion_flags;
        }
    }
    for (size_t r = 0; !rc && r < run->nranks; r++)
        rc = subset_rank(&out->ranks[r], &run->ranks[r], keep, sp__rank_list_has(ranks, (long)r));
    free(keep);
    if (!rc)
        rc = sp_run_analyze(out);
    if (rc) {
        sp_run_free(out);
        return sp__error_null(rc, "out of memory filtering the run");
    }
    return out;
}

int32_t sp__pick_region(const sp_run *run, const char *name, const char *path)
{
    if (name) {
        int32_t id = sp_run_region_id(run, name);
        if (id < 0 || run->regions[id].all.calls == 0)
            return sp__error(SP_ENOENT, "no region '%s' with calls in '%s'", name, path), -1;
        return id;
    }
    int32_t best = -1;
    for (size_t g = 0; g < run->nregions; g++) {
        const sp_stats *st = &run->regions[g].all;
        /* Own time, not total: the outermost region (main) always has the
         * largest total and one call, which says nothing; the viewer's
         * default is the same. */
        if (st->calls && (best < 0 || st->own_s > run->regions[best].all.own_s))
            best = (int32_t)g;
    }
    if (best < 0)
        sp__error(SP_ENOENT, "'%s' has no regions with calls", path);
    return best;
}
