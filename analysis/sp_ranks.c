/* SPDX-License-Identifier: MIT */
/*
 * sp_ranks.c - cross-rank statistics (definitions in sp_ranks.h), rank
 * lists ("0-3,5") and restricting a run to some ranks.
 */
#include "sp_ranks.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sp_analysis_internal.h"
#include "sp_agg.h"
#include "sp_error.h"

int sp_rank_region_stats(const sp_run *run, int32_t region, const bool *sel, sp_rank_region *out)
{
    memset(out, 0, sizeof *out);
    out->region = region;
    out->slowest_rank = out->fastest_rank = -1;
    if (!run)
        return sp__error(SP_EINVAL, "sp_rank_region_stats: run is NULL");
    int rc = sp__ensure_analyzed(run);
    if (rc)
        return rc;
    if (region < 0 || (size_t)region >= run->nregions)
        return sp__error(SP_EINVAL, "sp_rank_region_stats: region id %d out of range (%zu)",
                         (int)region, run->nregions);
    const sp_stats *per = run->regions[region].per_rank;
    out->missing = malloc((run->nranks ? run->nranks : 1) * sizeof *out->missing);
    if (!out->missing)
        return sp__error(SP_ENOMEM, "out of memory computing cross-rank statistics");
    double have_total = 0.0;
    for (size_t r = 0; r < run->nranks; r++) {
        if (sel && !sel[r])
            continue;
        double t = per[r].total_s;
        if (out->nranks == 0 || per[r].calls < out->calls_min)
            out->calls_min = per[r].calls;
        if (per[r].calls > out->calls_max)
            out->calls_max = per[r].calls;
        out->nranks++;
        out->calls += per[r].calls;
        out->total_s += t;
        if (per[r].calls) {
            out->nhave++;
            have_total += t;
        } else {
            out->missing[out->nmissing++] = (int32_t)r;
        }
        /* Strict comparisons: the lowest rank wins a tie. */
        if (out->slowest_rank < 0 || t > out->max_total_s) {
            out->max_total_s = t;
            out->slowest_rank = (int32_t)r;
        }
        if (out->fastest_rank < 0 || t < out->min_total_s) {
            out->min_total_s = t;
            out->fastest_rank = (int32_t)r;
        }
    }
    if (out->nranks)
        out->mean_total_s = out->total_s / (double)out->nranks;
    if (out->nhave)
        out->mean_have_s = have_total / (double)out->nhave;
    if (out->mean_total_s > 0.0) {
        out->imbalance = out->max_total_s / out->mean_total_s;
        out->imbalance_pct = (out->imbalance - 1.0) * 100.0;
    }
    return 0;
}

void sp_rank_region_free(sp_rank_region *s)
{
    if (!s)
        return;
    free(s->missing);
    s->missing = NULL;
    s->nmissing = 0;
}

/* ---------------------------------------------------------------- lists */

/* A decimal rank at *p (advanced past it); -1 when there is none. */
static long parse_rank(const char **p)
{
    if (!isdigit((unsigned char)**p))
        return -1;
    errno = 0;
    char *end;
    unsigned long v = strtoul(*p, &end, 10);
    *p = end;
    return errno || v > (unsigned long)INT32_MAX ? -2 : (long)v;
}

int sp_rank_list_parse(const char *spec, size_t nranks, bool **sel, size_t *count)
{
    *sel = NULL;
    *count = 0;
    if (!spec || !*spec)
        return sp__error(SP_EINVAL, "--ranks: empty rank list (expected e.g. 0-3,5)");
    bool *s = calloc(nranks ? nranks : 1, sizeof *s);
    if (!s)
        return sp__error(SP_ENOMEM, "out of memory parsing --ranks");
    const char *p = spec;
    for (;;) {
        const char *item = p;
        long a = parse_rank(&p), b = a;
        if (a >= 0 && *p == '-') {
            p++;
            b = parse_rank(&p);
        }
        if (a < 0 || b < 0 || (*p && *p != ',')) {
            size_t n = strcspn(item, ",");
            free(s);
            return sp__error(SP_EINVAL, "--ranks '%s': '%.*s' is not a rank or a range A-B", spec,
                             (int)n, item);
        }
        if (b < a) {
            free(s);
            return sp__error(SP_EINVAL, "--ranks '%s': range %ld-%ld goes downwards", spec, a, b);
        }
        if ((size_t)b >= nranks) {
            free(s);
            return sp__error(SP_EINVAL,
                             "--ranks '%s': rank %ld is out of range (the run has %zu rank%s: "
                             "0-%zu)",
                             spec, b, nranks, nranks == 1 ? "" : "s", nranks ? nranks - 1 : 0);
        }
        for (long r = a; r <= b; r++)
            s[r] = true;
        if (!*p)
            break;
        p++; /* ',' */
    }
    for (size_t r = 0; r < nranks; r++)
        *count += s[r];
    *sel = s;
    return 0;
}

void sp_rank_list_format(const bool *sel, size_t nranks, char *buf, size_t len)
{
    size_t n = 0;
    if (!len)
        return;
    buf[0] = '\0';
    for (size_t r = 0; r < nranks; r++) {
        if (sel && !sel[r])
            continue;
        size_t e = r;
        while (e + 1 < nranks && (!sel || sel[e + 1]))
            e++;
        char item[64];
        if (e == r)
            snprintf(item, sizeof item, "%s%zu", n ? "," : "", r);
        else
            snprintf(item, sizeof item, "%s%zu-%zu", n ? "," : "", r, e);
        size_t il = strlen(item);
        if (n + il + 4 >= len) {
            snprintf(buf + n, len - n, "%s", len - n > 3 ? "..." : "");
            return;
        }
        memcpy(buf + n, item, il + 1);
        n += il;
        r = e;
    }
}

/* ---------------------------------------------------------------- keep */

int sp_run_keep_ranks(sp_run *run, const bool *keep)
{
    if (!run || !keep)
        return sp__error(SP_EINVAL, "sp_run_keep_ranks: run and keep are required");
    for (size_t r = 0; r < run->nranks; r++) {
        if (keep[r])
            continue;
        sp_rank_data *rk = &run->ranks[r];
        /* Free the rank's calls and every table with the model's own
         * sp_run_free (so tables added to the model later go too), keeping
         * what describes the rank: number, clock, metadata, threads. */
        sp_run *trash = sp_run_new();
        if (!trash || sp_run_set_ranks(trash, 1) != 0) {
            sp_run_free(trash);
            return sp__error(SP_ENOMEM, "out of memory selecting ranks");
        }
        sp_rank_data kept = {.rank = rk->rank,
                             .clock_offset_ns = rk->clock_offset_ns,
                             .clock_offset_err_ns = rk->clock_offset_err_ns,
                             .meta = rk->meta,
                             .nthreads = rk->nthreads,
                             .threads = rk->threads,
                             .excluded = 1};
        rk->meta = (sp_kvlist){0};
        rk->nthreads = 0;
        rk->threads = NULL;
        trash->ranks[0] = *rk;
        sp_run_free(trash);
        *rk = kept;
    }
    if (!run->agg) {
        run->analyzed = 0; /* statistics over the kept ranks on the next analysis */
        return 0;
    }
    /* Analysed already (a file read aggregate-first has no calls to analyse
     * again): the summaries are rebuilt from the kept ranks' aggregates. */
    sp_agg_drop_ranks(run->agg, keep);
    int rc = sp_agg_attach(run, run->agg);
    if (rc == 0)
        rc = sp__calls_tree_nodes(run);
    return rc;
}

/* ---------------------------------------------------------------- sort keys */

static const char *const sort_names[] = {
    [SP_RANKS_SORT_MAX] = "max",
    [SP_RANKS_SORT_IMBALANCE] = "imbalance",
    [SP_RANKS_SORT_TOTAL] = "total",
    [SP_RANKS_SORT_NAME] = "name",
};

int sp_ranks_sort_parse(const char *s, sp_ranks_sort *out)
{
    for (size_t k = 0; s && k < sizeof sort_names / sizeof *sort_names; k++) {
        if (strcmp(s, sort_names[k]) == 0) {
            *out = (sp_ranks_sort)k;
            return 0;
        }
    }
    return sp__error(SP_EINVAL, "unknown sort key '%s' (valid: max, imbalance, total, name)",
                     s ? s : "(null)");
}
