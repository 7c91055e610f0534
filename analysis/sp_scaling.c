/* SPDX-License-Identifier: MIT */
/* sp_scaling.c - a scaling study over N runs (see sp_scaling.h). */
#include "sp_scaling.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_compare_keys.h"
#include "sp_error.h"
#include "sp_schema.h"

void sp_scaling_options_init(sp_scaling_options *o)
{
    if (!o)
        return;
    memset(o, 0, sizeof *o);
    o->min_efficiency = 0.6;
    o->min_share_pct = 1;
}

const char *sp_scaling_axis_name(sp_scaling_axis a)
{
    return a == SP_SCALING_THREADS ? "threads" : "ranks";
}

int sp_scaling_axis_parse(const char *s, sp_scaling_axis *out)
{
    if (s && strcmp(s, "ranks") == 0)
        *out = SP_SCALING_RANKS;
    else if (s && strcmp(s, "threads") == 0)
        *out = SP_SCALING_THREADS;
    else
        return sp__error(SP_EINVAL, "unknown scaling axis '%s' (valid: ranks, threads)",
                         s ? s : "(null)");
    return 0;
}

void sp_scaling_free(sp_scaling *s)
{
    if (!s)
        return;
    for (size_t g = 0; g < s->nregions; g++) {
        free(s->regions[g].name);
        free(s->regions[g].pt);
    }
    free(s->regions);
    free(s->p);
    free(s->input_index);
    free(s->ranks);
    free(s->threads);
    free(s->whole);
    free(s);
}

/* Speedup and efficiency of point q against reference r (counts pq, pr). */
static void scale_point(sp_scaling_point *q, const sp_scaling_point *r, double pq, double pr,
                        bool weak)
{
    q->speedup = q->efficiency = NAN;
    if (!q->present || !r->present || !(q->time_max_s > 0) || !(r->time_max_s > 0))
        return;
    double ratio = r->time_max_s / q->time_max_s;
    if (weak) {
        q->efficiency = ratio;
        q->speedup = ratio * pq / pr;
    } else {
        q->speedup = ratio;
        q->efficiency = ratio * pr / pq;
    }
}

typedef struct order_item {
    double p;
    size_t idx;
} order_item;

static int cmp_order(const void *a, const void *b)
{
    const order_item *x = a, *y = b;
    return (x->p > y->p) - (x->p < y->p);
}

static int cmp_regions(const void *a, const void *b)
{
    const sp_scaling_region *x = a, *y = b;
    double u = x->pt[0].time_max_s, v = y->pt[0].time_max_s;
    if (u != v)
        return u > v ? -1 : 1;
    return strcmp(x->name, y->name);
}

static int fill(sp_scaling *s, const sp_run *const *runs, size_t n, const sp_scaling_options *o,
                sp__cmp_run *cr, sp__cmp_keys *keys)
{
    for (size_t j = 0; j < n; j++) {
        if (!runs[j])
            return sp__error(SP_EINVAL, "scaling: NULL run");
        int rc = sp__cmp_run_keys(&cr[j], runs[j], false, 0, keys);
        if (rc)
            return rc;
    }
    for (size_t j = 0; j < n; j++) {
        int rc = sp__cmp_run_figures(&cr[j], keys->n, o->own);
        if (rc)
            return rc;
    }
    /* Order the runs by count. */
    order_item *ord = malloc(n * sizeof *ord);
    if (!ord)
        return SP_ENOMEM;
    for (size_t j = 0; j < n; j++) {
        size_t threads = cr[j].threads_max ? cr[j].threads_max : 1;
        ord[j].p = (double)(o->axis == SP_SCALING_THREADS ? threads : runs[j]->nranks);
        ord[j].idx = j;
    }
    qsort(ord, n, sizeof *ord, cmp_order);
    /* Weak or strong: asked, or what the problem-size metadata says. */
    const sp_run **sorted = malloc(n * sizeof *sorted);
    double *ps = malloc(n * sizeof *ps);
    if (!sorted || !ps) {
        free(sorted), free(ps), free(ord);
        return SP_ENOMEM;
    }
    for (size_t j = 0; j < n; j++) {
        sorted[j] = runs[ord[j].idx];
        ps[j] = ord[j].p;
    }
    char seen[200];
    bool detected = sp_scaling_detect_weak(sorted, ps, n, o->axis, seen, sizeof seen);
    free(sorted), free(ps);
    if (o->kind == SP_SCALING_AUTO) {
        s->weak = detected;
        snprintf(s->kind_why, sizeof s->kind_why, "detected: %s", seen);
    } else {
        s->weak = o->kind == SP_SCALING_WEAK;
        snprintf(s->kind_why, sizeof s->kind_why, "asked%s%s", detected != s->weak ? " (the metadata suggests otherwise: " : "",
                 detected != s->weak ? seen : "");
        if (detected != s->weak)
            strncat(s->kind_why, ")", sizeof s->kind_why - strlen(s->kind_why) - 1);
    }
    for (size_t j = 0; j < n; j++) {
        int rc = 0;
        if (j && ord[j].p == ord[j - 1].p)
            rc = sp__error(SP_EINVAL,
                           "scaling: runs %zu and %zu both have %g %s (a study needs one run per "
                           "count)",
                           ord[j - 1].idx + 1, ord[j].idx + 1, ord[j].p,
                           sp_scaling_axis_name(o->axis));
        else if (cr[ord[j].idx].span_s <= 0)
            rc = sp__error(SP_EINVAL, "scaling: run %zu has no calls", ord[j].idx + 1);
        if (rc) {
            free(ord);
            return rc;
        }
        s->p[j] = ord[j].p;
        s->input_index[j] = ord[j].idx;
        s->ranks[j] = runs[ord[j].idx]->nranks;
        s->threads[j] = cr[ord[j].idx].threads_max;
        s->whole[j] = (sp_scaling_point){.present = true,
                                         .time_mean_s = cr[ord[j].idx].span_s,
                                         .time_max_s = cr[ord[j].idx].span_s};
        scale_point(&s->whole[j], &s->whole[0], s->p[j], s->p[0], s->weak);
    }
    /* One region per key that passes the filter. */
    s->regions = calloc(keys->n ? keys->n : 1, sizeof *s->regions);
    if (!s->regions) {
        free(ord);
        return SP_ENOMEM;
    }
    double ref_span = cr[ord[0].idx].span_s;
    for (size_t k = 0; k < keys->n; k++) {
        if (!sp_region_filter_match(o->filter, keys->keys[k].name))
            continue;
        sp_scaling_region *g = &s->regions[s->nregions];
        g->name = strdup(keys->keys[k].name);
        g->pt = calloc(n, sizeof *g->pt);
        if (!g->name || !g->pt) {
            free(g->name);
            free(g->pt);
            free(ord);
            return SP_ENOMEM;
        }
        s->nregions++;
        for (size_t j = 0; j < n; j++) {
            const sp__cmp_fig *f = &cr[ord[j].idx].fig[k];
            sp_scaling_point *q = &g->pt[j];
            q->present = f->calls > 0;
            q->calls = f->calls;
            q->time_mean_s = f->time_mean_s;
            q->time_max_s = f->time_max_s;
            scale_point(q, &g->pt[0], s->p[j], s->p[0], s->weak);
        }
        g->share_pct = 100 * g->pt[0].time_max_s / ref_span;
        for (size_t j = 1; j < n && g->share_pct >= o->min_share_pct; j++) {
            if (g->pt[j].efficiency < o->min_efficiency) {
                g->stops = true;
                g->stop_at = j;
                break;
            }
        }
    }
    free(ord);
    qsort(s->regions, s->nregions, sizeof *s->regions, cmp_regions);
    return 0;
}

/* ---------------------------------------------------------------- weak? */

/* Does a metadata key name a problem size (and is it per rank)? */
static bool size_key(const char *key, bool *per_rank)
{
    static const char *const words[] = {"size", "problem", "elem", "cell", "zone", "grid",
                                        "mesh", "dof",  "points",  "nx",   "ny",   "nz"};
    char low[128];
    size_t i = 0;
    for (; key[i] && i + 1 < sizeof low; i++)
        low[i] = (char)tolower((unsigned char)key[i]);
    low[i] = '\0';
    /* Facts the recorder writes are about the run, not the problem. */
#define SP__META_KEY(id, k, desc) if (strcmp(key, k) == 0) return false;
    SP_SCHEMA_META_KEYS(SP__META_KEY)
#undef SP__META_KEY
    if (strncmp(key, SP_SCHEMA_META_SLURM_PREFIX, strlen(SP_SCHEMA_META_SLURM_PREFIX)) == 0)
        return false;
    bool any = false;
    for (size_t w = 0; w < sizeof words / sizeof *words && !any; w++)
        any = strstr(low, words[w]) != NULL;
    *per_rank = strstr(low, "per_rank") || strstr(low, "per-rank") || strstr(low, "perrank") ||
                strstr(low, "local");
    return any;
}

/* A size as a number: "4096", "2.5e6", "64x64x32" (the product). */
static bool size_value(const char *v, double *out)
{
    double prod = 1;
    const char *s = v;
    for (int factors = 0;; factors++) {
        char *end;
        double x = strtod(s, &end);
        if (end == s || !(x > 0) || factors > 8)
            return false;
        prod *= x;
        while (*end == ' ')
            end++;
        if (*end == '\0')
            break;
        if (*end != 'x' && *end != 'X' && *end != '*')
            return false;
        s = end + 1;
    }
    *out = prod;
    return true;
}

bool sp_scaling_detect_weak(const sp_run *const *runs, const double *p, size_t n,
                            sp_scaling_axis axis, char *why, size_t nwhy)
{
    const char *unit = sp_scaling_axis_name(axis);
    snprintf(why, nwhy, "no problem-size metadata that grows with the %s", unit);
    if (n < 2 || !runs[0] || !(p[n - 1] > p[0]))
        return false;
    const sp_kvlist *m0 = &runs[0]->meta;
    for (size_t i = 0; i < m0->n; i++) {
        bool per_rank = false;
        const char *key = m0->items[i].key;
        double v0, v1, prev = 0;
        if (!size_key(key, &per_rank) || !size_value(m0->items[i].value, &v0))
            continue;
        bool ok = true, grows = true, same = true;
        for (size_t j = 0; j < n && ok; j++) {
            const char *val = sp_kvlist_get(&runs[j]->meta, key);
            double v;
            ok = val && size_value(val, &v);
            if (!ok)
                break;
            grows &= j == 0 || v >= prev;
            same &= fabs(v - v0) <= 1e-9 * v0;
            prev = v1 = v;
        }
        if (!ok)
            continue;
        double want = p[n - 1] / p[0], got = v1 / v0;
        if (!per_rank && grows && got >= 0.8 * want && got <= 1.25 * want) {
            snprintf(why, nwhy, "metadata '%s' grows with the %s: %g at %g, %g at %g", key, unit,
                     v0, p[0], v1, p[n - 1]);
            return true;
        }
        if (per_rank && same) {
            snprintf(why, nwhy, "metadata '%s' (per rank) stays %g from %g to %g %s", key, v0,
                     p[0], p[n - 1], unit);
            return true;
        }
        if (!per_rank && same)
            snprintf(why, nwhy, "metadata '%s' stays %g from %g to %g %s: strong scaling", key, v0,
                     p[0], p[n - 1], unit);
    }
    return false;
}

sp_scaling *sp_scaling_study(const sp_run *const *runs, size_t n, const sp_scaling_options *opts)
{
    sp_scaling_options defaults;
    sp_scaling_options_init(&defaults);
    const sp_scaling_options *o = opts ? opts : &defaults;
    if (!runs || n < 2)
        return sp__error_null(SP_EINVAL, "scaling: a study needs at least 2 runs, got %zu", n);
    if (!(o->min_efficiency >= 0) || !(o->min_share_pct >= 0))
        return sp__error_null(SP_EINVAL, "scaling: negative threshold");
    sp_scaling *s = calloc(1, sizeof *s);
    sp__cmp_run *cr = calloc(n, sizeof *cr);
    sp__cmp_keys keys = {0};
    int rc = 0;
    if (s) {
        s->opts = *o;
        s->opts.filter = NULL;
        s->nruns = n;
        s->p = calloc(n, sizeof *s->p);
        s->input_index = calloc(n, sizeof *s->input_index);
        s->ranks = calloc(n, sizeof *s->ranks);
        s->threads = calloc(n, sizeof *s->threads);
        s->whole = calloc(n, sizeof *s->whole);
    }
    if (!s || !cr || !s->p || !s->input_index || !s->ranks || !s->threads || !s->whole)
        rc = SP_ENOMEM;
    else
        rc = fill(s, runs, n, o, cr, &keys);
    for (size_t j = 0; cr && j < n; j++)
        sp__cmp_run_free(&cr[j]);
    free(cr);
    sp__cmp_keys_free(&keys);
    if (rc) {
        sp_scaling_free(s);
        if (rc == SP_ENOMEM)
            sp__error(SP_ENOMEM, "out of memory in the scaling study");
        return NULL;
    }
    return s;
}

char *sp_scaling_stops_text(const sp_scaling *s, char *buf, size_t n)
{
    size_t o = 0;
    if (n)
        buf[0] = '\0';
    for (size_t g = 0; g < s->nregions; g++) {
        const sp_scaling_region *r = &s->regions[g];
        if (!r->stops)
            continue;
        int w = snprintf(buf + o, o < n ? n - o : 0, "%s%s (at %g %s: %.2f)", o ? ", " : "",
                         r->name, s->p[r->stop_at], sp_scaling_axis_name(s->opts.axis),
                         r->pt[r->stop_at].efficiency);
        if (w > 0)
            o += (size_t)w;
        if (o >= n)
            break;
    }
    return buf;
}
