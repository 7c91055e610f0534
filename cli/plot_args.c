/* SPDX-License-Identifier: MIT */
/* plot_args.c - rank lists, sizes, counts, analyzed runs, run subsets and
 * region selection for the verbs (see plot_args.h). */
#include "plot_args.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "sp_agg.h"
#include "sp_analysis_internal.h"
#include "sp_error.h"
#include "sp_ranks.h"

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

static void describe_ranks(const sp_run *run, char *buf, size_t n)
{
    if (run->nranks == 0)
        snprintf(buf, n, "no ranks");
    else if (run->nranks == 1)
        snprintf(buf, n, "1 rank: 0");
    else
        snprintf(buf, n, "%zu ranks: 0-%zu", run->nranks, run->nranks - 1);
}

int sp__check_rank_list(const sp_run *run, const sp__rank_list *ranks, const char *path)
{
    for (size_t i = 0; ranks && i < ranks->n; i++) {
        if ((size_t)ranks->r[i].hi >= run->nranks) {
            char what[64];
            describe_ranks(run, what, sizeof what);
            long bad = (size_t)ranks->r[i].lo >= run->nranks ? ranks->r[i].lo : (long)run->nranks;
            return sp__error(SP_EINVAL, "--ranks: rank %ld is not in '%s' (%s)", bad, path, what);
        }
    }
    return 0;
}

/* Ranks wanted before the rank count is known: ranks[0 .. max listed]
 * (NULL: every rank, or a list too long to spell out: read all, drop after). */
static bool *wanted_ranks(const sp__rank_list *ranks, size_t *n)
{
    *n = 0;
    long max = -1;
    for (size_t i = 0; ranks && i < ranks->n; i++)
        max = ranks->r[i].hi > max ? ranks->r[i].hi : max;
    if (max < 0 || max >= (1L << 24))
        return NULL;
    bool *want = calloc((size_t)max + 1, sizeof *want);
    for (size_t i = 0; want && i < ranks->n; i++)
        for (long v = ranks->r[i].lo; v <= ranks->r[i].hi; v++)
            want[v] = true;
    *n = want ? (size_t)max + 1 : 0;
    return want;
}

int sp__run_keep_region_ids(sp_run *run, const bool *keep)
{
    int rc = sp_agg_keep_regions(run->agg, keep, run->nregions);
    if (rc == 0)
        rc = sp_agg_attach(run, run->agg);
    for (size_t r = 0; rc == 0 && r < run->nranks; r++)
        if (run->ranks[r].ncalls) { /* calls kept in memory (v1 files): their paths */
            rc = sp__calls_tree_nodes(run);
            break;
        }
    return rc;
}

int sp__run_keep_regions(sp_run *run, const sp_region_filter *f)
{
    if (!f || !run->agg)
        return 0;
    bool *keep = calloc(run->nregions ? run->nregions : 1, sizeof *keep);
    if (!keep)
        return sp__error(SP_ENOMEM, "out of memory selecting regions");
    for (size_t g = 0; g < run->nregions; g++)
        keep[g] = sp_region_filter_match(f, run->region_names[g]);
    int rc = sp__run_keep_region_ids(run, keep);
    free(keep);
    return rc;
}

sp_run *sp__open_selected(const char *path, unsigned flags, const sp__rank_list *ranks,
                          const sp_region_filter *filter)
{
    size_t nsel = 0;
    bool *want = wanted_ranks(ranks, &nsel);
    sp_agg_opts o = {.flags = flags, .ranks = want, .nranks_sel = nsel, .series_bins = 1024};
    sp_run *run = sp__cli_read(path, &o);
    free(want);
    if (!run)
        return NULL;
    int rc = sp__check_rank_list(run, ranks, path);
    if (rc == 0 && ranks && ranks->n) {
        bool *keep = calloc(run->nranks ? run->nranks : 1, sizeof *keep);
        rc = keep ? 0 : sp__error(SP_ENOMEM, "out of memory selecting ranks");
        for (size_t r = 0; keep && r < run->nranks; r++)
            keep[r] = sp__rank_list_has(ranks, (long)r);
        if (rc == 0)
            rc = sp_run_keep_ranks(run, keep);
        free(keep);
    }
    if (rc == 0)
        rc = sp__run_keep_regions(run, filter);
    if (rc) {
        sp__cli_error("%s", sp_last_error());
        sp_run_free(run);
        return NULL;
    }
    return run;
}

sp_run *sp__open_analyzed(const char *path)
{
    return sp__open_selected(path, 0, NULL, NULL);
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
