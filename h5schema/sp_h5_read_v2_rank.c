/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_v2_rank.c - one rank of a v2 file: its own region and thread
 * tables, the clock calibration, the event stream replayed into calls in
 * one pass (slab by slab, whole blocks at a time), dropped calls, and the
 * optional line and counter tables (region rows mapped to the run's ids).
 *
 * A file that is being written, or that a killed writer left, may hold
 * more rows in one column of a table than in another (the columns are
 * appended one after the other): only the rows every column has are read,
 * and events beyond what the blocks table announces are not yet part of
 * the run.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_h5_read_mpi.h"
#include "sp_h5_read_v2.h"
#include "sp_mem.h"

#define SLAB_EVENTS ((size_t)1 << 20) /* events read at once: 8 MiB */

typedef struct rank_read {
    const char *file;
    char ctx[320];
    sp_v2_read *st;
    sp_rank_data *rk;
    hid_t rg;
    int32_t *map;      /* region row -> run region id */
    size_t nlocal;
    int32_t *flags;    /* region row -> flags (NULL: none) */
} rank_read;

static hsize_t min2(hsize_t a, hsize_t b) { return a < b ? a : b; }

static int open_table(rank_read *rr, const char *name, hid_t *g)
{
    return sp__h5_open_group(rr->file, rr->rg, name, g);
}

static int read_attrs(rank_read *rr, size_t r)
{
    int64_t v;
    int rc;
    if ((rc = sp__h5_read_int_attr(rr->file, rr->rg, SP_NAME(RANK_RANK), &v)))
        return rc;
    if (v != (int64_t)r)
        return sp__error(SP_EFORMAT, "%s: attribute rank is %" PRId64, rr->ctx, v);
    if ((rc = sp__h5_read_int_attr(rr->file, rr->rg, SP_NAME(RANK_CLOCK_OFFSET),
                                   &rr->rk->clock_offset_ns)) ||
        (rc = sp__h5_read_int_attr(rr->file, rr->rg, SP_NAME(RANK_CLOCK_OFFSET_ERR),
                                   &rr->rk->clock_offset_err_ns)))
        return rc;
    if (rr->st->lean) /* no verb that reads lean prints a rank's metadata */
        return 0;
    hid_t g;
    if ((rc = open_table(rr, SP_NAME(RANK_METADATA), &g)))
        return rc;
    rc = sp__h5_read_meta(rr->file, g, &rr->rk->meta);
    H5Gclose(g);
    return rc;
}

static int read_threads(rank_read *rr)
{
    hid_t g;
    sp_v2c tid;
    int64_t *tids = NULL;
    char **names = NULL;
    size_t nn = 0;
    int rc = open_table(rr, SP_NAME(THREADS), &g);
    if (rc)
        return rc;
    if ((rc = sp_v2c_open(rr->file, g, SP_NAME(THREAD_OS_TID), false, &tid)))
        goto done;
    if (tid.n > INT32_MAX) {
        rc = sp__error(SP_EFORMAT, "%s: %llu threads", rr->ctx, (unsigned long long)tid.n);
        goto done;
    }
    /* Lean: the threads are counted (and their OS ids read, which match
     * the scheduling samples); their names stay unread. */
    if (rr->st->lean)
        nn = (size_t)tid.n;
    else if ((rc = sp_v2c_names(rr->file, g, (size_t)tid.n, &nn, &names)))
        goto done;
    if ((rc = sp_v2c_read_all(rr->file, &tid, H5T_NATIVE_INT64, 8, nn, (void **)&tids)))
        goto done;
    if (nn && !(rr->rk->threads = calloc(nn, sizeof *rr->rk->threads))) {
        rc = sp__error(SP_ENOMEM, "%s: out of memory", rr->ctx);
        goto done;
    }
    rr->rk->nthreads = nn;
    for (size_t t = 0; t < nn; t++) {
        rr->rk->threads[t].os_tid = tids[t];
        if (names && names[t][0]) { /* "" = unnamed = NULL in the model */
            rr->rk->threads[t].name = names[t];
            names[t] = NULL;
        }
    }
done:
    sp__strings_free(names, nn);
    free(tids);
    sp_v2c_close(&tid);
    H5Gclose(g);
    return rc;
}

/* The rank's region rows, interned into the run's table. */
static int read_regions(rank_read *rr)
{
    hid_t g;
    char **names = NULL;
    size_t n = 0;
    sp_v2c fl;
    int rc = open_table(rr, SP_NAME2(V2_REGIONS), &g);
    if (rc)
        return rc;
    if ((rc = sp_v2c_names(rr->file, g, INT32_MAX, &n, &names)))
        goto done;
    if (!(rr->map = malloc((n ? n : 1) * sizeof *rr->map))) {
        rc = sp__error(SP_ENOMEM, "%s: out of memory", rr->ctx);
        goto done;
    }
    rr->nlocal = n;
    if ((rc = sp_run_reserve_regions(rr->st->run, n)))
        goto done;
    for (size_t i = 0; i < n; i++) {
        /* Two rows with one name (crafted files): one region. */
        if ((rr->map[i] = sp_run_intern_region(rr->st->run, names[i])) < 0) {
            rc = sp__error(SP_ENOMEM, "%s: out of memory", rr->ctx);
            goto done;
        }
    }
    if ((rc = sp_v2c_open(rr->file, g, SP_NAME2(V2_REGION_FLAGS), true, &fl)))
        goto done;
    if (fl.dset >= 0)
        rc = sp_v2c_read_all(rr->file, &fl, H5T_NATIVE_INT32, 4, min2(fl.n, n),
                             (void **)&rr->flags);
    /* Flags of rows the column does not reach are 0. */
    if (rc == 0 && rr->flags && fl.n < n) {
        int32_t *f = realloc(rr->flags, (n ? n : 1) * sizeof *f);
        if (!f) {
            rc = sp__error(SP_ENOMEM, "%s: out of memory", rr->ctx);
        } else {
            memset(f + fl.n, 0, (n - fl.n) * sizeof *f);
            rr->flags = f;
        }
    }
    sp_v2c_close(&fl);
done:
    sp__strings_free(names, n);
    H5Gclose(g);
    return rc;
}

static int read_clock(rank_read *rr, bool needed, sp_v2_clock_map *m)
{
    hid_t g;
    sp_v2c t, n;
    int64_t *ticks = NULL, *ns = NULL;
    m->t0 = m->ns0 = 0;
    m->ratio = 1.0;
    int rc = open_table(rr, SP_NAME2(V2_CLOCK), &g);
    if (rc)
        return rc;
    if ((rc = sp_v2c_open(rr->file, g, SP_NAME2(V2_CLOCK_TICKS), false, &t)))
        goto done;
    if ((rc = sp_v2c_open(rr->file, g, SP_NAME2(V2_CLOCK_NS), false, &n)))
        goto done_t;
    hsize_t np = min2(t.n, n.n);
    if (!needed)
        goto done_n;
    if ((rc = sp_v2c_read_all(rr->file, &t, H5T_NATIVE_INT64, 8, np, (void **)&ticks)) ||
        (rc = sp_v2c_read_all(rr->file, &n, H5T_NATIVE_INT64, 8, np, (void **)&ns)))
        goto done_n;
    if (sp_v2_clock_map_make(ticks, ns, (size_t)np, m) != 0)
        rc = sp__error(SP_EFORMAT, "%s: the clock calibration (%llu points) cannot convert "
                       "ticks to ns", rr->ctx, (unsigned long long)np);
done_n:
    sp_v2c_close(&n);
done_t:
    sp_v2c_close(&t);
done:
    free(ticks);
    free(ns);
    H5Gclose(g);
    return rc;
}

/* Events announced by blocks [0, n). */
static uint64_t events_before(const uint32_t *bevents, size_t n)
{
    uint64_t used = 0;
    for (size_t b = 0; b < n; b++)
        used += bevents[b];
    return used;
}

/* Blocks [0, k) replayed into calls, their `used` events read from the
 * event columns c[4] (dt) and c[5] (region) in slabs. *failed: the block a
 * check failed in, or SIZE_MAX. */
static int replay_blocks(rank_read *rr, sp_v2c *c, const int32_t *bthread,
                         const uint32_t *bevents, const uint32_t *bbegins, const int64_t *bt0,
                         size_t k, uint64_t used, size_t *failed)
{
    uint32_t *dt = NULL;
    int32_t *region = NULL;
    sp_v2_replay *rp = NULL;
    sp_v2_clock_map m;
    int rc;
    *failed = SIZE_MAX;
    if ((rc = read_clock(rr, used > 0, &m)) ||
        (rc = sp_v2_replay_new(rr->ctx, rr->rk, rr->rk->nthreads, rr->map, rr->nlocal, &m,
                               bthread, bevents, bbegins, bt0, k, used, &rp)))
        goto done;
    size_t slab = used < SLAB_EVENTS ? (size_t)used : SLAB_EVENTS;
    dt = sp_alloc_big(slab * sizeof *dt);
    region = sp_alloc_big(slab * sizeof *region);
    if (!dt || !region) {
        rc = sp__error(SP_ENOMEM, "%s: out of memory", rr->ctx);
        goto done;
    }
    /* Whole blocks per read while they fit a slab; a bigger block in
     * pieces. */
    uint64_t pos = 0;
    for (size_t b = 0; b < k && rc == 0;) {
        size_t first = b, n = 0;
        while (b < k && n + bevents[b] <= slab)
            n += bevents[b++];
        if (b == first) { /* one block larger than a slab */
            for (size_t off = 0; off < bevents[b] && rc == 0; off += slab) {
                size_t take = bevents[b] - off < slab ? bevents[b] - off : slab;
                if (!(rc = sp_v2c_read(rr->file, &c[4], H5T_NATIVE_UINT32, pos + off, take, dt)) &&
                    !(rc = sp_v2c_read(rr->file, &c[5], H5T_NATIVE_INT32, pos + off, take, region)))
                    rc = sp_v2_replay_feed(rp, b, off, dt, region, take);
            }
            pos += bevents[b++];
            continue;
        }
        if ((rc = sp_v2c_read(rr->file, &c[4], H5T_NATIVE_UINT32, pos, n, dt)) ||
            (rc = sp_v2c_read(rr->file, &c[5], H5T_NATIVE_INT32, pos, n, region)))
            break;
        size_t at = 0;
        for (size_t i = first; i < b && rc == 0; at += bevents[i++])
            rc = sp_v2_replay_feed(rp, i, 0, dt + at, region + at, bevents[i]);
        pos += n;
    }
    uint64_t open = 0;
    if (rc == 0 && (rc = sp_v2_replay_finish(rp, &open)) == 0) {
        if (open && rr->st->complete)
            rc = sp__error(SP_EFORMAT, "%s: %" PRIu64 " calls never end in a finished file",
                           rr->ctx, open);
        else
            rr->st->open_calls += open;
    }
    if (rc == SP_EFORMAT)
        *failed = sp_v2_replay_failed_block(rp);
done:
    sp_v2_replay_free(rp);
    free(dt);
    free(region);
    if (rc)
        sp_rank_free_calls(rr->rk); /* a retry allocates them again */
    return rc;
}

/* The blocks table, and the events it announces replayed into calls. A
 * file that did not finish may end in a torn write (the writer's last
 * append failed: a full disk): its blocks from the first damaged one on
 * are dropped and counted (file_state says so); a finished file is
 * refused. */
static int read_events(rank_read *rr)
{
    hid_t gb = H5I_INVALID_HID, ge = H5I_INVALID_HID;
    sp_v2c c[6];
    for (int i = 0; i < 6; i++)
        c[i].dset = H5I_INVALID_HID;
    int32_t *bthread = NULL;
    uint32_t *bevents = NULL, *bbegins = NULL;
    int64_t *bt0 = NULL;
    int rc;
    if ((rc = open_table(rr, SP_NAME2(V2_BLOCKS), &gb)) ||
        (rc = open_table(rr, SP_NAME2(V2_EVENTS), &ge)) ||
        (rc = sp_v2c_open(rr->file, gb, SP_NAME2(V2_BLOCK_THREAD), false, &c[0])) ||
        (rc = sp_v2c_open(rr->file, gb, SP_NAME2(V2_BLOCK_EVENTS), false, &c[1])) ||
        (rc = sp_v2c_open(rr->file, gb, SP_NAME2(V2_BLOCK_BEGINS), false, &c[2])) ||
        (rc = sp_v2c_open(rr->file, gb, SP_NAME2(V2_BLOCK_T0), false, &c[3])) ||
        (rc = sp_v2c_open(rr->file, ge, SP_NAME2(V2_EVENT_DT), false, &c[4])) ||
        (rc = sp_v2c_open(rr->file, ge, SP_NAME2(V2_EVENT_REGION), false, &c[5])))
        goto done;
    hsize_t k = min2(min2(c[0].n, c[1].n), min2(c[2].n, c[3].n));
    hsize_t e = min2(c[4].n, c[5].n);
    if ((rc = sp_v2c_read_all(rr->file, &c[0], H5T_NATIVE_INT32, 4, k, (void **)&bthread)) ||
        (rc = sp_v2c_read_all(rr->file, &c[1], H5T_NATIVE_UINT32, 4, k, (void **)&bevents)) ||
        (rc = sp_v2c_read_all(rr->file, &c[2], H5T_NATIVE_UINT32, 4, k, (void **)&bbegins)) ||
        (rc = sp_v2c_read_all(rr->file, &c[3], H5T_NATIVE_INT64, 8, k, (void **)&bt0)))
        goto done;
    uint64_t used = 0;
    hsize_t whole = 0; /* blocks whose events the event columns hold */
    for (hsize_t b = 0; b < k; b++) {
        if (used + bevents[b] > e)
            break;
        used += bevents[b];
        whole++;
    }
    if (whole < k && rr->st->complete) {
        rc = sp__error(SP_EFORMAT, "%s: the blocks announce %" PRIu64 " events, the event "
                       "columns hold %llu", rr->ctx, events_before(bevents, (size_t)k),
                       (unsigned long long)e);
        goto done;
    }
    size_t failed = SIZE_MAX;
    rc = replay_blocks(rr, c, bthread, bevents, bbegins, bt0, (size_t)whole, used, &failed);
    if (rc == SP_EFORMAT && !rr->st->complete && failed < whole) {
        whole = failed;
        rc = replay_blocks(rr, c, bthread, bevents, bbegins, bt0, failed,
                           events_before(bevents, failed), &failed);
    }
    if (rc == 0)
        rr->st->torn_blocks += k - whole;
done:
    for (int i = 0; i < 6; i++)
        sp_v2c_close(&c[i]);
    if (gb >= 0)
        H5Gclose(gb);
    if (ge >= 0)
        H5Gclose(ge);
    free(bthread);
    free(bevents);
    free(bbegins);
    free(bt0);
    return rc;
}

/* Dropped calls by region row; rows may repeat a region (they add up). */
static int read_dropped(rank_read *rr)
{
    hid_t g;
    sp_v2c reg, calls;
    int32_t *r = NULL;
    uint64_t *n = NULL;
    int rc = open_table(rr, SP_NAME(DROPPED), &g);
    if (rc)
        return rc;
    reg.dset = calls.dset = H5I_INVALID_HID;
    if ((rc = sp_v2c_open(rr->file, g, SP_NAME(DROPPED_REGION), false, &reg)) ||
        (rc = sp_v2c_open(rr->file, g, SP_NAME(DROPPED_CALLS), false, &calls)))
        goto done;
    hsize_t rows = min2(reg.n, calls.n);
    if ((rc = sp_v2c_read_all(rr->file, &reg, H5T_NATIVE_INT32, 4, rows, (void **)&r)) ||
        (rc = sp_v2c_read_all(rr->file, &calls, H5T_NATIVE_UINT64, 8, rows, (void **)&n)))
        goto done;
    size_t nreg = rr->st->run->nregions;
    if (rows && !(rr->rk->dropped = calloc(nreg ? nreg : 1, sizeof *rr->rk->dropped))) {
        rc = sp__error(SP_ENOMEM, "%s: out of memory", rr->ctx);
        goto done;
    }
    rr->st->dropped_len[rr->rk->rank] = rows ? nreg : 0;
    for (hsize_t i = 0; i < rows; i++) {
        if (r[i] < 0 || (size_t)r[i] >= rr->nlocal) {
            rc = sp__error(SP_EFORMAT, "%s: dropped row %llu names region row %" PRId32
                           " (%zu rows)", rr->ctx, (unsigned long long)i, r[i], rr->nlocal);
            goto done;
        }
        uint64_t *d = &rr->rk->dropped[rr->map[r[i]]];
        *d = n[i] > UINT64_MAX - *d ? UINT64_MAX : *d + n[i];
    }
done:
    free(r);
    free(n);
    sp_v2c_close(&reg);
    sp_v2c_close(&calls);
    H5Gclose(g);
    return rc;
}

/* The thread of os tid (-1: none; -1 itself never matches). */
static int32_t thread_of_tid(const sp_rank_data *rk, int64_t tid)
{
    for (size_t t = 0; tid != -1 && t < rk->nthreads; t++)
        if (rk->threads[t].os_tid == tid)
            return (int32_t)t;
    return -1;
}

/* Optional: the threads' CPU scheduling samples. Rows of a thread that has
 * no row in threads/ (it recorded no call) are left out. */
static int read_sched(rank_read *rr)
{
    free(rr->rk->sched); /* a header read again (a recording run refreshed) */
    rr->rk->sched = NULL;
    rr->rk->nsched = 0;
    if (!sp__h5_has(rr->rg, SP_NAME2(V2_SCHED)))
        return 0;
    static const sp_schema_v2_id ids[SP_V2_SCHED_COLS] = {
        SP_SN2_V2_SCHED_TID, SP_SN2_V2_SCHED_T, SP_SN2_V2_SCHED_CPU, SP_SN2_V2_SCHED_WAIT,
        SP_SN2_V2_SCHED_NIVCSW};
    hid_t g;
    sp_v2c c[SP_V2_SCHED_COLS];
    int64_t *v[SP_V2_SCHED_COLS] = {NULL};
    for (int i = 0; i < SP_V2_SCHED_COLS; i++)
        c[i].dset = H5I_INVALID_HID;
    int rc = open_table(rr, SP_NAME2(V2_SCHED), &g);
    if (rc)
        return rc;
    hsize_t rows = 0;
    for (int i = 0; i < SP_V2_SCHED_COLS && !rc; i++) {
        rc = sp_v2c_open(rr->file, g, sp__schema_v2[ids[i]].name, false, &c[i]);
        rows = i == 0 || c[i].n < rows ? c[i].n : rows;
    }
    for (int i = 0; i < SP_V2_SCHED_COLS && !rc; i++)
        rc = sp_v2c_read_all(rr->file, &c[i], H5T_NATIVE_INT64, 8, rows, (void **)&v[i]);
    sp_rank_data *rk = rr->rk;
    if (!rc && rows && !(rk->sched = malloc((size_t)rows * sizeof *rk->sched)))
        rc = sp__error(SP_ENOMEM, "%s: out of memory", rr->ctx);
    const int64_t lim = (int64_t)1 << 61; /* times as the calls' (sp_h5_check.c) */
    for (hsize_t i = 0; !rc && i < rows; i++) {
        int32_t t = thread_of_tid(rk, v[0][i]);
        if (v[1][i] > lim || v[1][i] < -lim || v[2][i] < -1 || v[3][i] < -1 || v[4][i] < -1)
            rc = sp__error(SP_EFORMAT, "%s: scheduling sample %llu is out of range", rr->ctx,
                           (unsigned long long)i);
        else if (t >= 0)
            rk->sched[rk->nsched++] = (sp_sched_sample){t, v[1][i], v[2][i], v[3][i], v[4][i]};
    }
    for (int i = 0; i < SP_V2_SCHED_COLS; i++) {
        free(v[i]);
        sp_v2c_close(&c[i]);
    }
    H5Gclose(g);
    return rc;
}

/* A column of an optional table, any integer type, as int32/int64. */
#define READ_INTS(name, w, n, out) sp__h5_read_ints(rr->file, g, (name), (w), (n), (void **)(out))

static int read_lines(rank_read *rr)
{
    sp_rank_data *rk = rr->rk;
    if (!sp__h5_has(rr->rg, SP_NAME(LINES)))
        return 0;
    hid_t g;
    size_t n[6] = {0};
    static const sp_schema_id ids[] = {SP_SN_LINE_REGION, SP_SN_LINE_FILE, SP_SN_LINE_LINENO,
                                       SP_SN_LINE_FUNCTION, SP_SN_LINE_SAMPLES, SP_SN_LINE_TIME};
    int rc = open_table(rr, SP_NAME(LINES), &g);
    if (rc)
        return rc;
    if ((rc = READ_INTS(SP_NAME(LINE_REGION), 4, &n[0], &rk->line_region)) ||
        (rc = sp__h5_read_strings(rr->file, g, SP_NAME(LINE_FILE), &n[1], &rk->line_file)) ||
        (rc = READ_INTS(SP_NAME(LINE_LINENO), 4, &n[2], &rk->line_lineno)) ||
        (rc = sp__h5_read_strings(rr->file, g, SP_NAME(LINE_FUNCTION), &n[3],
                                  &rk->line_function)) ||
        (rc = READ_INTS(SP_NAME(LINE_SAMPLES), 8, &n[4], &rk->line_samples)) ||
        (rc = READ_INTS(SP_NAME(LINE_TIME), 8, &n[5], &rk->line_time_ns)) ||
        (rc = sp__h5_lengths_differ(rr->file, g, n, ids, 6)))
        goto done;
    for (size_t i = 0; i < n[0]; i++) {
        if (rk->line_region[i] < 0 || (size_t)rk->line_region[i] >= rr->nlocal ||
            (int64_t)rk->line_samples[i] < 0) {
            rc = sp__error(SP_EFORMAT, "%s: line row %zu is out of range", rr->ctx, i);
            goto done;
        }
        rk->line_region[i] = rr->map[rk->line_region[i]];
    }
    rk->nlines = n[0];
done:
    if (rc) { /* the model frees per-row strings only for nlines rows */
        sp__strings_free(rk->line_file, n[1]);
        sp__strings_free(rk->line_function, n[3]);
        rk->line_file = rk->line_function = NULL;
    }
    H5Gclose(g);
    return rc;
}

static int read_counters(rank_read *rr)
{
    sp_rank_data *rk = rr->rk;
    if (!sp__h5_has(rr->rg, SP_NAME(COUNTERS)))
        return 0;
    hid_t g;
    size_t n[7] = {0};
    static const sp_schema_id ids[] = {SP_SN_COUNTER_REGION, SP_SN_COUNTER_THREAD,
                                       SP_SN_COUNTER_CPU,    SP_SN_COUNTER_SOURCE,
                                       SP_SN_COUNTER_NAME,   SP_SN_COUNTER_VALUE,
                                       SP_SN_COUNTER_CALLS};
    int rc = open_table(rr, SP_NAME(COUNTERS), &g);
    if (rc)
        return rc;
    if ((rc = READ_INTS(SP_NAME(COUNTER_REGION), 4, &n[0], &rk->counter_region)) ||
        (rc = READ_INTS(SP_NAME(COUNTER_THREAD), 4, &n[1], &rk->counter_thread)) ||
        (rc = READ_INTS(SP_NAME(COUNTER_CPU), 4, &n[2], &rk->counter_cpu)) ||
        (rc = READ_INTS(SP_NAME(COUNTER_SOURCE), 4, &n[3], &rk->counter_source)) ||
        (rc = sp__h5_read_strings(rr->file, g, SP_NAME(COUNTER_NAME), &n[4],
                                  &rk->counter_name)) ||
        (rc = sp__h5_read_f64(rr->file, g, SP_NAME(COUNTER_VALUE), &n[5], &rk->counter_value)) ||
        (rc = READ_INTS(SP_NAME(COUNTER_CALLS), 8, &n[6], &rk->counter_calls)) ||
        (rc = sp__h5_lengths_differ(rr->file, g, n, ids, 7)))
        goto done;
    for (size_t i = 0; i < n[0]; i++) {
        int32_t t = rk->counter_thread[i];
        if (rk->counter_region[i] < 0 || (size_t)rk->counter_region[i] >= rr->nlocal ||
            t < -1 || (t >= 0 && (size_t)t >= rk->nthreads)) {
            rc = sp__error(SP_EFORMAT, "%s: counter row %zu is out of range", rr->ctx, i);
            goto done;
        }
        rk->counter_region[i] = rr->map[rk->counter_region[i]];
    }
    rk->ncounters = n[0];
done:
    if (rc) {
        sp__strings_free(rk->counter_name, n[4]);
        rk->counter_name = NULL;
    }
    H5Gclose(g);
    return rc;
}

/* Region flags OR'ed into the run's (by run region id). */
static int merge_flags(rank_read *rr)
{
    sp_run *run = rr->st->run;
    if (!rr->flags)
        return 0;
    if (run->nregion_flags < run->nregions) {
        int32_t *f = realloc(run->region_flags, run->nregions * sizeof *f);
        if (!f)
            return sp__error(SP_ENOMEM, "%s: out of memory", rr->ctx);
        memset(f + run->nregion_flags, 0, (run->nregions - run->nregion_flags) * sizeof *f);
        run->region_flags = f;
        run->nregion_flags = run->nregions;
    }
    for (size_t i = 0; i < rr->nlocal; i++)
        run->region_flags[rr->map[i]] |= rr->flags[i];
    return 0;
}

static int mpi_clock(void *arg, sp_v2_clock_map *m) { return read_clock(arg, true, m); }

/* The optional mpi/ group: its call paths name rows of the rank's region
 * table, by the names the run gave them. */
static int read_mpi(rank_read *rr, size_t r)
{
    sp_run *run = rr->st->run;
    const char **names = malloc((rr->nlocal ? rr->nlocal : 1) * sizeof *names);
    if (!names)
        return sp__error(SP_ENOMEM, "%s: out of memory", rr->ctx);
    for (size_t i = 0; i < rr->nlocal; i++)
        names[i] = run->region_names[rr->map[i]];
    sp__mpi_read_ctx in = {.file = rr->file, .complete = rr->st->complete, .nrows = rr->nlocal,
                           .row_names = names, .clock = mpi_clock, .clock_arg = rr};
    int rc = sp__h5_read_mpi_rank(&in, rr->rg, run, r);
    free(names);
    return rc;
}

/* Everything of the rank but its events (its MPI tables too: the waits are
 * computed from them without the calls); rr->map and rr->flags are the
 * caller's to free. */
static int read_header(rank_read *rr, size_t r)
{
    int rc;
    if ((rc = read_attrs(rr, r)) || (rc = read_threads(rr)) || (rc = read_regions(rr)) ||
        (rc = read_dropped(rr)) || (rc = read_sched(rr)) || (rc = read_lines(rr)) ||
        (rc = read_counters(rr)) || (rc = read_mpi(rr, r)))
        return rc;
    return merge_flags(rr);
}

int sp_v2_read_rank(sp_v2_read *st, hid_t rg, size_t r)
{
    rank_read rr = {.file = st->file, .st = st, .rk = &st->run->ranks[r], .rg = rg};
    snprintf(rr.ctx, sizeof rr.ctx, "%s: rank %zu", st->file, r);
    int rc = read_header(&rr, r);
    if (rc == 0)
        rc = read_events(&rr);
    free(rr.map);
    free(rr.flags);
    return rc;
}

int sp_v2_read_rank_header(sp_v2_read *st, hid_t rg, size_t r, sp_v2_rank_header *out)
{
    rank_read rr = {.file = st->file, .st = st, .rk = &st->run->ranks[r], .rg = rg};
    snprintf(rr.ctx, sizeof rr.ctx, "%s: rank %zu", st->file, r);
    memset(out, 0, sizeof *out);
    int rc = read_header(&rr, r);
    if (rc == 0)
        rc = read_clock(&rr, true, &out->clock);
    free(rr.flags);
    if (rc) {
        free(rr.map);
        return rc;
    }
    out->map = rr.map;
    out->nlocal = rr.nlocal;
    return 0;
}
