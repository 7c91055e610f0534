/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_pyregions.c - read the Python scope-profiler's per-region layout
 * (0.2.x): rank<N>/regions/<name>/{start_times,end_times}. It stores neither
 * threads nor nesting: every call goes on thread 0 and parents are inferred
 * from time containment. h5py turns a '/' in a region name into nested
 * groups, so the walk below joins nested group names back with '/'.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_h5_internal.h"

#define MAX_RANK ((size_t)1 << 20) /* far beyond any run; bounds allocation */
/* The package writes no group for an idle rank, so rank numbers may have
 * gaps, but not thousands of idle ranks per recorded one: a few kilobytes
 * naming rank 1048575 must not make every verb handle a million ranks. */
#define IDLE_RANKS_PER_GROUP 64
#define IDLE_RANKS_FREE 1024
#define MAX_NESTING 64
#define MAX_NAME 4096

typedef struct walk {
    const char *file;
    sp_run *run;
    sp_rank_data *rk;
    sp__h5_visited *visited; /* groups entered: a second visit is a cycle */
    size_t cap; /* allocated calls in rk's columns */
    char name[MAX_NAME]; /* region name of the group being visited */
    int depth;
    int rc;
} walk;

static int grow_calls(walk *w, size_t more)
{
    sp_rank_data *rk = w->rk;
    if (rk->ncalls + more <= w->cap)
        return 0;
    size_t cap = w->cap ? w->cap : 64;
    while (cap < rk->ncalls + more)
        cap *= 2;
    int64_t *s = realloc(rk->start_ns, cap * sizeof *s);
    if (s)
        rk->start_ns = s;
    int64_t *e = realloc(rk->end_ns, cap * sizeof *e);
    if (e)
        rk->end_ns = e;
    int32_t *r = realloc(rk->region, cap * sizeof *r);
    if (r)
        rk->region = r;
    int32_t *t = realloc(rk->thread, cap * sizeof *t);
    if (t)
        rk->thread = t;
    int64_t *p = realloc(rk->parent, cap * sizeof *p);
    if (p)
        rk->parent = p;
    if (!s || !e || !r || !t || !p)
        return sp__error(SP_ENOMEM, "%s: out of memory reading %zu calls", w->file, cap);
    w->cap = cap;
    return 0;
}

/* Append the calls stored in region group g under the current name. */
static int add_region(walk *w, hid_t g)
{
    int rc;
    size_t ns = 0, ne = 0;
    int64_t *start = NULL, *end = NULL;
    if ((rc = sp__h5_read_ints(w->file, g, SP_NAME(PY_START_TIMES), 8, &ns, (void **)&start)) < 0 ||
        (rc = sp__h5_read_ints(w->file, g, SP_NAME(PY_END_TIMES), 8, &ne, (void **)&end)) < 0)
        goto done;
    if (ns != ne) {
        char where[256];
        rc = sp__error(SP_EFORMAT, "%s: %s: %s has %zu values but %s has %zu", w->file,
                       sp__h5_path(g, NULL, where, sizeof where), SP_NAME(PY_START_TIMES),
                       ns, SP_NAME(PY_END_TIMES), ne);
        goto done;
    }
    int32_t id = sp_run_intern_region(w->run, w->name);
    if (id < 0) {
        rc = SP_ENOMEM;
        goto done;
    }
    if ((rc = grow_calls(w, ns)) < 0)
        goto done;
    sp_rank_data *rk = w->rk;
    for (size_t i = 0; i < ns; i++) {
        size_t k = rk->ncalls + i;
        rk->start_ns[k] = start[i];
        rk->end_ns[k] = end[i];
        rk->region[k] = id;
        rk->thread[k] = 0;
        rk->parent[k] = -1;
    }
    rk->ncalls += ns;
done:
    free(start);
    free(end);
    return rc;
}

static herr_t region_cb(hid_t loc, const char *name, const H5L_info_t *info, void *data)
{
    walk *w = data;
    if (info->type != H5L_TYPE_HARD) /* never follow soft or external links */
        return 0;
    hid_t obj = H5Oopen(loc, name, H5P_DEFAULT);
    if (obj < 0) {
        w->rc = sp__h5_error(SP_EFORMAT, "%s: cannot open region '%s'", w->file, name);
        return -1;
    }
    if (H5Iget_type(obj) != H5I_GROUP) { /* a region's own datasets */
        H5Oclose(obj);
        return 0;
    }
    bool seen = false;
    if ((w->rc = sp__h5_visit(w->file, w->visited, obj, &seen)) < 0) {
        H5Oclose(obj);
        return -1;
    }
    if (seen) {
        char where[256];
        w->rc = sp__error(SP_EFORMAT,
                          "%s: %s is a group already read (a hard-link cycle or alias): "
                          "the file is damaged or crafted",
                          w->file, sp__h5_path(obj, NULL, where, sizeof where));
        H5Oclose(obj);
        return -1;
    }
    size_t len = strlen(w->name);
    int k = snprintf(w->name + len, sizeof w->name - len, "%s%s", len ? "/" : "", name);
    if (k < 0 || (size_t)k >= sizeof w->name - len) {
        w->rc = sp__error(SP_EFORMAT, "%s: region name '%s...' too long", w->file, w->name);
    } else if (sp__h5_has(obj, SP_NAME(PY_START_TIMES)) ||
               sp__h5_has(obj, SP_NAME(PY_END_TIMES))) {
        w->rc = add_region(w, obj);
    }
    if (w->rc == 0 && w->depth < MAX_NESTING) { /* "a/b" is group b inside group a */
        w->depth++;
        if (H5Literate(obj, H5_INDEX_NAME, H5_ITER_INC, NULL, region_cb, w) < 0 &&
            w->rc == 0)
            w->rc = sp__h5_error(SP_EFORMAT, "%s: cannot list region '%s'", w->file, w->name);
        w->depth--;
    }
    w->name[len] = '\0';
    H5Oclose(obj);
    return w->rc < 0 ? -1 : 0;
}

static int read_rank(const char *file, hid_t fid, sp_run *run,
                     sp__h5_visited *visited, size_t r)
{
    int rc = 0;
    hid_t g = H5I_INVALID_HID, regions = H5I_INVALID_HID;
    sp_rank_data *rk = &run->ranks[r];
    char name[64];
    snprintf(name, sizeof name, "%s%zu", SP_NAME(PY_RANK_GROUP), r);
    if (!sp__h5_has(fid, name)) /* the package writes no group for an idle rank */
        return 0;
    if (!(rk->threads = calloc(1, sizeof *rk->threads)))
        return sp__error(SP_ENOMEM, "%s: out of memory", file);
    rk->nthreads = 1;
    rk->threads[0].os_tid = -1; /* not recorded */
    if ((rc = sp__h5_open_group(file, fid, name, &g)) < 0)
        goto done;
    if (sp__h5_has(g, SP_NAME(PY_REGIONS))) {
        if ((rc = sp__h5_open_group(file, g, SP_NAME(PY_REGIONS), &regions)) < 0)
            goto done;
        bool seen = false;
        if ((rc = sp__h5_visit(file, visited, regions, &seen)) < 0)
            goto done;
        if (seen) {
            rc = sp__error(SP_EFORMAT,
                           "%s: /%s/%s is a group already read (a hard-link alias of another "
                           "rank's regions): the file is damaged or crafted",
                           file, name, SP_NAME(PY_REGIONS));
            goto done;
        }
        walk *w = calloc(1, sizeof *w);
        if (!w) {
            rc = sp__error(SP_ENOMEM, "%s: out of memory", file);
            goto done;
        }
        *w = (walk){.file = file, .run = run, .rk = rk, .visited = visited};
        if (H5Literate(regions, H5_INDEX_NAME, H5_ITER_INC, NULL, region_cb, w) < 0 &&
            w->rc == 0)
            w->rc = sp__h5_error(SP_EFORMAT, "%s: cannot list /%s/%s", file, name,
                                 SP_NAME(PY_REGIONS));
        rc = w->rc;
        free(w);
        if (rc < 0)
            goto done;
    }
    rc = sp__h5_finish_rank(file, rk, run->nregions, true);
done:
    if (regions >= 0)
        H5Gclose(regions);
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

/* "rank<N>" with N in canonical decimal ("rank07" is not a rank group). */
static bool parse_rank(const char *name, size_t *out)
{
    const char *prefix = SP_NAME(PY_RANK_GROUP);
    size_t plen = strlen(prefix);
    if (strncmp(name, prefix, plen) != 0)
        return false;
    const char *d = name + plen;
    size_t len = strlen(d);
    if (len == 0 || len > 9 || (d[0] == '0' && len > 1))
        return false;
    size_t v = 0;
    for (size_t i = 0; i < len; i++) {
        if (d[i] < '0' || d[i] > '9')
            return false;
        v = v * 10 + (size_t)(d[i] - '0');
    }
    *out = v;
    return true;
}

typedef struct rank_scan {
    size_t nranks; /* highest rank + 1 */
    size_t groups; /* rank groups present */
    bool too_big;
} rank_scan;

static herr_t rank_cb(hid_t loc, const char *name, const H5L_info_t *info, void *data)
{
    (void)loc;
    rank_scan *s = data;
    size_t r;
    if (info->type == H5L_TYPE_HARD && parse_rank(name, &r)) {
        s->groups++;
        if (r >= MAX_RANK)
            s->too_big = true;
        else if (r + 1 > s->nranks)
            s->nranks = r + 1;
    }
    return 0;
}

int sp__h5_read_py_regions(const char *file, hid_t fid, sp_run *run)
{
    int rc;
    rank_scan scan = {0, 0, false};
    if (H5Literate(fid, H5_INDEX_NAME, H5_ITER_INC, NULL, rank_cb, &scan) < 0)
        return sp__h5_error(SP_EFORMAT, "%s: cannot list /", file);
    if (scan.too_big)
        return sp__error(SP_EFORMAT, "%s: a rank group number is %zu or more", file, MAX_RANK);
    if (scan.nranks > IDLE_RANKS_PER_GROUP * scan.groups + IDLE_RANKS_FREE)
        return sp__error(SP_EFORMAT,
                         "%s: rank groups go up to rank %zu but only %zu are present: more "
                         "idle ranks than a file of the Python package can imply "
                         "(damaged or crafted)",
                         file, scan.nranks - 1, scan.groups);
    if (sp__h5_has(fid, SP_NAME(PY_METADATA))) {
        hid_t g;
        if ((rc = sp__h5_open_group(file, fid, SP_NAME(PY_METADATA), &g)) < 0)
            return rc;
        rc = sp__h5_read_meta(file, g, &run->meta);
        H5Gclose(g);
        if (rc < 0)
            return rc;
    }
    /* Regions are known only after the walk: sp__run_check_read() charges
     * ranks x regions then; here the rank structs alone. */
    if ((rc = sp__read_charge_n("its ranks", scan.nranks, sizeof(sp_rank_data))) < 0 ||
        (rc = sp_run_set_ranks(run, scan.nranks)) < 0)
        return rc;
    sp__h5_visited visited = {0};
    for (size_t r = 0; r < scan.nranks && rc == 0; r++)
        rc = read_rank(file, fid, run, &visited, r);
    sp__h5_visited_free(&visited);
    return rc;
}
