/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_pycolumnar.c - read the Python scope-profiler's columnar layout:
 * a region-name table, a (rank, region) index of offsets and counts into one
 * set of event columns (start, end, thread id, parent row). Exact names and
 * rules: SCHEMA.md, "Files written by the Python package".
 *
 * Every row of /events must belong to exactly one (rank, region) range; rows
 * are then copied into per-rank columns, thread ids become indices into a
 * per-rank thread table and parent rows become per-rank call indices.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_h5_internal.h"

#define MAX_RANKS ((size_t)1 << 20)
/* Idle ranks (no calls) allowed: a few kilobytes of compressed index must
 * not make every verb handle a million empty ranks. */
#define IDLE_RANKS_PER_ACTIVE 64
#define IDLE_RANKS_FREE 1024

/* ---- thread id -> thread index, per rank (open addressing) ---- */

typedef struct tid_map {
    size_t cap; /* power of two */
    int64_t *key;
    int32_t *val; /* index + 1, 0 = empty */
} tid_map;

static void tid_map_free(tid_map *m)
{
    free(m->key);
    free(m->val);
    memset(m, 0, sizeof *m);
}

static int tid_map_reset(tid_map *m, size_t expect)
{
    size_t cap = 16;
    while (cap < 2 * expect)
        cap *= 2;
    tid_map_free(m);
    m->key = malloc(cap * sizeof *m->key);
    m->val = calloc(cap, sizeof *m->val);
    m->cap = cap;
    return m->key && m->val ? 0 : SP_ENOMEM;
}

/* Index of tid in rk's thread table, adding a row when new; -1 on ENOMEM. */
static int32_t tid_index(tid_map *m, sp_rank_data *rk, int64_t tid, size_t *threads_cap)
{
    size_t mask = m->cap - 1;
    size_t i = (size_t)((uint64_t)tid * 0x9E3779B97F4A7C15ull >> 17) & mask;
    for (; m->val[i]; i = (i + 1) & mask)
        if (m->key[i] == tid)
            return m->val[i] - 1;
    if (rk->nthreads == *threads_cap) {
        size_t cap = *threads_cap ? 2 * *threads_cap : 4;
        sp_thread_info *t = realloc(rk->threads, cap * sizeof *t);
        if (!t)
            return -1;
        rk->threads = t;
        *threads_cap = cap;
    }
    int32_t idx = (int32_t)rk->nthreads++;
    rk->threads[idx] = (sp_thread_info){.os_tid = tid, .name = NULL};
    m->key[i] = tid;
    m->val[i] = idx + 1;
    return idx;
}

/* ---- the file ---- */

typedef struct columnar {
    size_t nranks, nregions, nevents;
    int64_t *offsets, *counts;            /* [nranks * nregions] */
    int64_t *start, *end, *tid, *parent;  /* [nevents] */
    int32_t *row_rank;                    /* owner rank of each row, -1 none */
    int64_t *row_call;                    /* call index within its rank */
    size_t *rank_calls;                   /* calls per rank */
} columnar;

static void columnar_free(columnar *c)
{
    free(c->offsets);
    free(c->counts);
    free(c->start);
    free(c->end);
    free(c->tid);
    free(c->parent);
    free(c->row_rank);
    free(c->row_call);
    free(c->rank_calls);
}

static int read_names(const char *file, hid_t fid, sp_run *run)
{
    int rc = sp__h5_read_strings(file, fid, SP_NAME(PY_REGION_NAMES), &run->nregions,
                                 &run->region_names);
    if (rc < 0)
        return rc;
    if (run->nregions > INT32_MAX)
        return sp__error(SP_EFORMAT, "%s: /%s has too many rows", file,
                         SP_NAME(PY_REGION_NAMES));
    int32_t dup;
    if ((rc = sp_run_index_regions(run, &dup)) < 0)
        return rc;
    if (dup >= 0)
        return sp__error(SP_EFORMAT, "%s: /%s: name '%s' appears twice", file,
                         SP_NAME(PY_REGION_NAMES), run->region_names[dup]);
    return 0;
}

static int read_index(const char *file, hid_t fid, columnar *c)
{
    int rc;
    hid_t g = H5I_INVALID_HID;
    int nd_off = 0, nd_cnt = 0;
    size_t d_off[2], d_cnt[2];
    const char *off_name = SP_NAME(PY_INDEX_OFFSETS), *cnt_name = SP_NAME(PY_INDEX_COUNTS);
    size_t dims[2];
    int nd;
    if ((rc = sp__h5_open_group(file, fid, SP_NAME(PY_INDEX), &g)) < 0 ||
        (rc = sp__h5_dims(file, g, off_name, &nd, dims)) < 0)
        goto done;
    /* Rows are ranks: charge what they will cost before reading them. */
    if (dims[0] > MAX_RANKS) {
        rc = sp__error(SP_EFORMAT, "%s: /%s claims %zu ranks", file, SP_NAME(PY_INDEX),
                       dims[0]);
        goto done;
    }
    if ((rc = sp__read_charge_ranks(dims[0], c->nregions)) < 0 ||
        (rc = sp__h5_read_ints_2d(file, g, off_name, &nd_off, d_off, &c->offsets)) < 0 ||
        (rc = sp__h5_read_ints_2d(file, g, cnt_name, &nd_cnt, d_cnt, &c->counts)) < 0)
        goto done;
    if (nd_off != 2 || nd_cnt != 2 || d_off[0] != d_cnt[0] || d_off[1] != d_cnt[1] ||
        d_off[1] != c->nregions) {
        rc = sp__error(SP_EFORMAT,
                       "%s: /%s: %s and %s must both have shape (ranks, %zu regions); "
                       "got %s(%zu, %zu) and %s(%zu, %zu)",
                       file, SP_NAME(PY_INDEX), off_name, cnt_name, c->nregions,
                       nd_off == 2 ? "" : "1-D ", d_off[0], nd_off == 2 ? d_off[1] : 0,
                       nd_cnt == 2 ? "" : "1-D ", d_cnt[0], nd_cnt == 2 ? d_cnt[1] : 0);
        goto done;
    }
    if (d_off[0] > MAX_RANKS) {
        rc = sp__error(SP_EFORMAT, "%s: /%s claims %zu ranks", file, SP_NAME(PY_INDEX),
                       d_off[0]);
        goto done;
    }
    c->nranks = d_off[0];
done:
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

static int read_events(const char *file, hid_t fid, columnar *c)
{
    const sp__h5_int_column cols[] = {
        {SP_SN_PY_EV_START, 8, (void **)&c->start},
        {SP_SN_PY_EV_END, 8, (void **)&c->end},
        {SP_SN_PY_EV_THREAD, 8, (void **)&c->tid},
        {SP_SN_PY_EV_PARENT, 8, (void **)&c->parent},
    };
    return sp__h5_read_int_table(file, fid, SP_SN_PY_EVENTS, cols, 4, &c->nevents);
}

/* Give every event row its (rank, call index), refusing ranges outside the
 * events, overlapping ranges and rows that no range covers. */
static int assign_rows(const char *file, columnar *c)
{
    size_t n = c->nevents;
    c->row_rank = malloc((n ? n : 1) * sizeof *c->row_rank);
    c->row_call = malloc((n ? n : 1) * sizeof *c->row_call);
    c->rank_calls = calloc(c->nranks ? c->nranks : 1, sizeof *c->rank_calls);
    if (!c->row_rank || !c->row_call || !c->rank_calls)
        return sp__error(SP_ENOMEM, "%s: out of memory indexing %zu events", file, n);
    for (size_t i = 0; i < n; i++)
        c->row_rank[i] = -1;
    for (size_t p = 0; p < c->nranks; p++) {
        for (size_t r = 0; r < c->nregions; r++) {
            int64_t off = c->offsets[p * c->nregions + r];
            int64_t cnt = c->counts[p * c->nregions + r];
            if (off < 0 || cnt < 0 || (uint64_t)off > n || (uint64_t)cnt > n - (uint64_t)off)
                return sp__error(SP_EFORMAT,
                                 "%s: /%s[%zu, %zu]: rows %" PRId64 " + %" PRId64
                                 " lie outside the %zu events",
                                 file, SP_NAME(PY_INDEX), p, r, off, cnt, n);
            for (size_t row = (size_t)off; row < (size_t)(off + cnt); row++) {
                if (c->row_rank[row] >= 0)
                    return sp__error(SP_EFORMAT,
                                     "%s: /%s[%zu, %zu]: event row %zu is also claimed "
                                     "by rank %" PRId32,
                                     file, SP_NAME(PY_INDEX), p, r, row, c->row_rank[row]);
                c->row_rank[row] = (int32_t)p;
                c->row_call[row] = (int64_t)c->rank_calls[p]++;
            }
        }
    }
    for (size_t row = 0; row < n; row++)
        if (c->row_rank[row] < 0)
            return sp__error(SP_EFORMAT, "%s: /%s row %zu belongs to no entry of /%s", file,
                             SP_NAME(PY_EVENTS), row, SP_NAME(PY_INDEX));
    return 0;
}

static int fill_rank(const char *file, const columnar *c, sp_rank_data *rk, tid_map *m)
{
    size_t p = (size_t)rk->rank, threads_cap = 0;
    int rc;
    if ((rc = sp_rank_alloc_calls(rk, c->rank_calls[p])) < 0 ||
        tid_map_reset(m, 16) < 0)
        return sp__error(SP_ENOMEM, "%s: out of memory reading rank %zu", file, p);
    for (size_t r = 0; r < c->nregions; r++) {
        size_t off = (size_t)c->offsets[p * c->nregions + r];
        size_t cnt = (size_t)c->counts[p * c->nregions + r];
        for (size_t row = off; row < off + cnt; row++) {
            size_t k = (size_t)c->row_call[row];
            int64_t g = c->parent[row];
            rk->start_ns[k] = c->start[row];
            rk->end_ns[k] = c->end[row];
            rk->region[k] = (int32_t)r;
            if (g < -1 || g >= (int64_t)c->nevents)
                return sp__error(SP_EFORMAT,
                                 "%s: /%s/%s[%zu] = %" PRId64 " is out of range (-1 or a row "
                                 "of the %zu events)",
                                 file, SP_NAME(PY_EVENTS), SP_NAME(PY_EV_PARENT), row, g,
                                 c->nevents);
            if (g >= 0 && c->row_rank[g] != (int32_t)p)
                return sp__error(SP_EFORMAT,
                                 "%s: /%s/%s[%zu] = %" PRId64 " is a call of rank %" PRId32
                                 ", not of rank %zu",
                                 file, SP_NAME(PY_EVENTS), SP_NAME(PY_EV_PARENT), row, g,
                                 c->row_rank[g], p);
            rk->parent[k] = g >= 0 ? c->row_call[g] : -1;
            if (rk->nthreads * 2 >= m->cap) { /* keep the map sparse: rebuild */
                size_t nt = rk->nthreads;
                if (tid_map_reset(m, 2 * nt + 16) < 0)
                    return sp__error(SP_ENOMEM, "%s: out of memory", file);
                rk->nthreads = 0;
                for (size_t t = 0; t < nt; t++)
                    tid_index(m, rk, rk->threads[t].os_tid, &threads_cap);
            }
            int32_t t = tid_index(m, rk, c->tid[row], &threads_cap);
            if (t < 0)
                return sp__error(SP_ENOMEM, "%s: out of memory", file);
            rk->thread[k] = t;
        }
    }
    return 0;
}

int sp__h5_read_py_columnar(const char *file, hid_t fid, sp_run *run)
{
    int rc;
    columnar c = {0};
    tid_map m = {0};
    if ((rc = read_names(file, fid, run)) < 0)
        goto done;
    c.nregions = run->nregions;
    if ((rc = read_index(file, fid, &c)) < 0 || (rc = read_events(file, fid, &c)) < 0 ||
        (rc = assign_rows(file, &c)) < 0)
        goto done;
    if (sp__h5_has(fid, SP_NAME(PY_METADATA))) {
        hid_t g;
        if ((rc = sp__h5_open_group(file, fid, SP_NAME(PY_METADATA), &g)) < 0)
            goto done;
        rc = sp__h5_read_meta(file, g, &run->meta);
        H5Gclose(g);
        if (rc < 0)
            goto done;
    }
    size_t active = 0;
    for (size_t p = 0; p < c.nranks; p++)
        active += c.rank_calls[p] > 0;
    if (c.nranks > IDLE_RANKS_PER_ACTIVE * active + IDLE_RANKS_FREE) {
        rc = sp__error(SP_EFORMAT,
                       "%s: /%s has %zu ranks but only %zu recorded calls: more idle ranks "
                       "than a real run leaves (damaged or crafted)",
                       file, SP_NAME(PY_INDEX), c.nranks, active);
        goto done;
    }
    if ((rc = sp_run_set_ranks(run, c.nranks)) < 0)
        goto done;
    for (size_t p = 0; p < c.nranks; p++) {
        if ((rc = fill_rank(file, &c, &run->ranks[p], &m)) < 0 ||
            (rc = sp__h5_finish_rank(file, &run->ranks[p], run->nregions, false)) < 0)
            goto done;
    }
done:
    tid_map_free(&m);
    columnar_free(&c);
    return rc;
}
