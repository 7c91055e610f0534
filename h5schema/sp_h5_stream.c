/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_stream.c - the event source of a schema v2 file (sp_h5_stream.h).
 *
 * Open reads what the whole-file reader reads but the events: the root,
 * /metadata, and per rank its attributes, threads, regions (interned into
 * the run's table), dropped calls, lines, counters and clock calibration
 * (sp_v2_read_rank_header), then the blocks table, checked row by row, with
 * the row of each block's first event. The event columns of a run that
 * records stay open; a finished run's are opened when its events are
 * first read, and closed once the pass has read them all; a read
 * of blocks [b0, b1) reads their rows in slices of whole blocks, turns
 * ticks into ns and region rows into run ids, and checks every event
 * (region row, begins announced, ticks that overflow) before the block is
 * handed out.
 *
 * A run that is recording appends to its parts (SWMR): refresh re-reads the
 * extents of the blocks and event columns, and takes the blocks whose
 * events have arrived, with the header tables (new regions and threads,
 * calibration points) read again.
 */
#include "sp_h5_stream.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_h5_read_v2.h"
#include "sp_mpi_data.h"

#define SLICE_EVENTS ((size_t)1 << 20)

enum { C_THREAD, C_EVENTS, C_BEGINS, C_T0, C_DT, C_REGION, NCOLS };

typedef struct srank {
    bool present;           /* the rank's group (or part) is open */
    sp_v2_rank_loc loc;
    sp_v2c col[NCOLS];
    sp_v2_rank_header hdr;
    uint64_t *first;        /* row of each known block's first event; nblocks + 1 */
    int64_t *t0_ticks;      /* each known block's t0 as stored (ticks) */
    size_t cap_first;
    uint64_t table_rows;    /* rows of the blocks table taken so far */
    uint64_t torn;          /* announced blocks whose events are missing */
} srank;

typedef struct h5src {
    char *path;
    sp__h5_opened o;
    sp_v2_read st;
    srank *rk;
} h5src;

static hsize_t min2(hsize_t a, hsize_t b) { return a < b ? a : b; }

/* The blocks table's columns, and the event columns unless a finished
 * run's (those are opened when the pass reaches the rank: open_events). */
static int open_columns(const char *file, srank *s, bool events)
{
    static const int table[NCOLS] = {0, 0, 0, 0, 1, 1};
    const char *tname[2] = {SP_NAME2(V2_BLOCKS), SP_NAME2(V2_EVENTS)};
    const char *name[NCOLS] = {SP_NAME2(V2_BLOCK_THREAD), SP_NAME2(V2_BLOCK_EVENTS),
                               SP_NAME2(V2_BLOCK_BEGINS), SP_NAME2(V2_BLOCK_T0),
                               SP_NAME2(V2_EVENT_DT),     SP_NAME2(V2_EVENT_REGION)};
    hid_t g[2] = {H5I_INVALID_HID, H5I_INVALID_HID};
    int rc = 0;
    for (int i = 0; i < NCOLS; i++)
        s->col[i].dset = H5I_INVALID_HID;
    /* Each table's group once (not once per column: every open walks the
     * rank's group). */
    int ntables = events ? 2 : 1, ncols = events ? NCOLS : C_DT;
    for (int t = 0; t < ntables && rc == 0; t++)
        rc = sp__h5_open_group(file, s->loc.group, tname[t], &g[t]);
    for (int i = 0; i < ncols && rc == 0; i++)
        rc = sp_v2c_open(file, g[table[i]], name[i], false, &s->col[i]);
    for (int t = 0; t < 2; t++)
        if (g[t] >= 0)
            H5Gclose(g[t]);
    return rc;
}

static void close_columns(srank *s)
{
    for (int i = 0; i < NCOLS; i++)
        sp_v2c_close(&s->col[i]);
}

/* The event columns of a finished run, opened when its events are first
 * read (or again, after the pass closed them): not at open, so that a run
 * of many ranks never holds every rank's columns open at once. Every block
 * taken must find its events there. */
static int open_events(const char *file, srank *s, size_t r, uint64_t announced)
{
    hid_t g;
    int rc = sp__h5_open_group(file, s->loc.group, SP_NAME2(V2_EVENTS), &g);
    if (rc)
        return rc;
    rc = sp_v2c_open(file, g, SP_NAME2(V2_EVENT_DT), false, &s->col[C_DT]);
    if (rc == 0)
        rc = sp_v2c_open(file, g, SP_NAME2(V2_EVENT_REGION), false, &s->col[C_REGION]);
    H5Gclose(g);
    hsize_t e = min2(s->col[C_DT].n, s->col[C_REGION].n);
    if (rc == 0 && announced > e)
        rc = sp__error(SP_EFORMAT, "%s: rank %zu: the blocks announce %" PRIu64 " events, the "
                       "event columns hold %llu", file, r, announced, (unsigned long long)e);
    if (rc) {
        sp_v2c_close(&s->col[C_DT]);
        sp_v2c_close(&s->col[C_REGION]);
    }
    return rc;
}

/* Take the rows of the blocks table from s->table_rows on whose events the
 * event columns hold, as blocks of rank r. */
static int take_blocks(sp_event_source *src, h5src *h, size_t r)
{
    srank *s = &h->rk[r];
    const char *file = h->path;
    const sp_rank_data *rk = &src->run->ranks[r];
    hsize_t k = min2(min2(s->col[C_THREAD].n, s->col[C_EVENTS].n),
                     min2(s->col[C_BEGINS].n, s->col[C_T0].n));
    /* A finished run's event columns are not open yet: its blocks are
     * checked against them when they are (open_events). */
    hsize_t e = s->col[C_DT].dset < 0 && h->st.complete ? (hsize_t)-1
                                                        : min2(s->col[C_DT].n, s->col[C_REGION].n);
    if (k <= s->table_rows)
        return 0;
    hsize_t n = k - s->table_rows;
    int32_t *th = NULL;
    uint32_t *ev = NULL, *be = NULL;
    int64_t *t0 = NULL;
    sp_block *out = NULL;
    int rc = sp__read_charge_n("the blocks table", n, 20 + sizeof *out + 8);
    if (rc)
        return rc;
    th = malloc(n * sizeof *th);
    ev = malloc(n * sizeof *ev);
    be = malloc(n * sizeof *be);
    t0 = malloc(n * sizeof *t0);
    out = malloc(n * sizeof *out);
    if (!th || !ev || !be || !t0 || !out) {
        rc = sp__error(SP_ENOMEM, "%s: rank %zu: out of memory for %llu blocks", file, r,
                       (unsigned long long)n);
        goto done;
    }
    if ((rc = sp_v2c_read(file, &s->col[C_THREAD], H5T_NATIVE_INT32, s->table_rows, n, th)) ||
        (rc = sp_v2c_read(file, &s->col[C_EVENTS], H5T_NATIVE_UINT32, s->table_rows, n, ev)) ||
        (rc = sp_v2c_read(file, &s->col[C_BEGINS], H5T_NATIVE_UINT32, s->table_rows, n, be)) ||
        (rc = sp_v2c_read(file, &s->col[C_T0], H5T_NATIVE_INT64, s->table_rows, n, t0)))
        goto done;
    size_t nb = src->nblocks[r], take = 0;
    uint64_t row = s->first[nb];
    for (hsize_t i = 0; i < n; i++) {
        uint64_t at = s->table_rows + i;
        if (th[i] < 0 || (size_t)th[i] >= rk->nthreads) {
            rc = sp__error(SP_EFORMAT, "%s: rank %zu: block %" PRIu64 " names thread %" PRId32
                           " (the thread table has %zu rows)", file, r, at, th[i],
                           rk->nthreads);
            goto done;
        }
        if (be[i] > ev[i] || ev[i] == 0 || ev[i] > SP_BLOCK_MAX_EVENTS) {
            rc = sp__error(SP_EFORMAT, "%s: rank %zu: block %" PRIu64 " has %" PRIu32
                           " begins among %" PRIu32 " events (a block holds 1 to %u)", file, r,
                           at, be[i], ev[i], SP_BLOCK_MAX_EVENTS);
            goto done;
        }
        if (row + ev[i] > e)
            break; /* its events are not (yet) there */
        out[take] = (sp_block){th[i], ev[i], be[i], sp_v2_clock_to_ns(&s->hdr.clock, t0[i])};
        row += ev[i];
        take++;
    }
    if (nb + take + 1 > s->cap_first) {
        size_t c = s->cap_first ? s->cap_first : 64;
        while (c < nb + take + 1)
            c *= 2;
        uint64_t *f = realloc(s->first, c * sizeof *f);
        if (f)
            s->first = f;
        int64_t *tt = f ? realloc(s->t0_ticks, c * sizeof *tt) : NULL;
        if (!tt) {
            rc = sp__error(SP_ENOMEM, "%s: out of memory", file);
            goto done;
        }
        s->t0_ticks = tt;
        s->cap_first = c;
    }
    if ((rc = sp_event_source_add_blocks(src, r, out, take))) {
        rc = sp__error(SP_ENOMEM, "%s: out of memory", file);
        goto done;
    }
    for (size_t i = 0; i < take; i++) {
        s->first[nb + i + 1] = s->first[nb + i] + out[i].events;
        s->t0_ticks[nb + i] = t0[i];
    }
    s->table_rows += take;
    s->torn = k - s->table_rows;
done:
    free(th);
    free(ev);
    free(be);
    free(t0);
    free(out);
    return rc;
}

static int open_rank(sp_event_source *src, h5src *h, size_t r)
{
    srank *s = &h->rk[r];
    bool missing = false;
    int rc = sp_v2_open_rank(&h->st, h->o.file, r, &s->loc, &missing);
    if (rc)
        return rc;
    if (missing) {
        sp_v2_note_missing(&h->st, r);
        return 0;
    }
    s->present = true;
    s->first = calloc(64, sizeof *s->first);
    s->t0_ticks = calloc(64, sizeof *s->t0_ticks);
    if (!s->first || !s->t0_ticks)
        return sp__error(SP_ENOMEM, "%s: out of memory", h->path);
    s->cap_first = 64;
    if ((rc = sp_v2_read_rank_header(&h->st, s->loc.group, r, &s->hdr)) ||
        (rc = open_columns(h->path, s, !h->st.complete)))
        return rc;
    if ((rc = take_blocks(src, h, r)))
        return rc;
    h->st.torn_blocks += s->torn; /* 0 for a finished run: checked at its read */
    /* A finished run gets no more blocks: its blocks table is closed now,
     * its event columns are opened for their read and closed after it
     * (every open dataset holds HDF5 state: a run of 1,024 ranks kept
     * 6,000 of them, 190 MB). */
    if (h->st.complete)
        for (int i = C_THREAD; i <= C_T0; i++)
            sp_v2c_close(&s->col[i]);
    return 0;
}

/* ---- reading events ---- */

/* Block b of rank r decoded in place from its rows: ticks dt into times t
 * (ns), region rows in code into run ids; every event checked. A damaged
 * block returns SP_EFORMAT with its message set (on the calling thread). */
static int decode_block(const sp_event_source *src, const h5src *h, size_t r, size_t b,
                        const uint32_t *dt, int32_t *code, int64_t *t)
{
    const srank *s = &h->rk[r];
    const sp_block *blk = &src->blocks[r][b];
    int64_t ticks = s->t0_ticks[b];
    uint32_t begins = 0;
    const sp_v2_clock_map *m = &s->hdr.clock;
    for (size_t i = 0; i < blk->events; i++) {
        if (i > 0) {
            if (ticks > INT64_MAX - (int64_t)dt[i])
                return sp__error(SP_EFORMAT, "%s: rank %zu, block %zu: the ticks overflow",
                                 h->path, r, b);
            ticks += dt[i];
        }
        /* sp_v2_clock_to_ns, its common case inline (the same arithmetic:
         * every event of a run goes through here). */
        double d = ((double)ticks - (double)m->t0) * m->ratio;
        if (m->ratio != 1.0 && d < 4.6e18 && d > -4.6e18 && m->ns0 < ((int64_t)1 << 62) &&
            m->ns0 > -((int64_t)1 << 62))
            t[i] = m->ns0 + sp_v2_round(d);
        else
            t[i] = sp_v2_clock_to_ns(m, ticks);
        int32_t c = code[i];
        if (c >= 0) {
            if ((size_t)c >= s->hdr.nlocal)
                return sp__error(SP_EFORMAT, "%s: rank %zu, block %zu, event %zu: region row %"
                                 PRId32 " (the region table has %zu rows)", h->path, r, b, i,
                                 c, s->hdr.nlocal);
            code[i] = s->hdr.map[c];
            begins++;
        } else if (c != -1) {
            return sp__error(SP_EFORMAT, "%s: rank %zu, block %zu, event %zu: region %" PRId32
                             " (an end is -1)", h->path, r, b, i, c);
        }
    }
    if (begins != blk->begins)
        return sp__error(SP_EFORMAT, "%s: rank %zu, block %zu: %" PRIu32 " begins, %" PRIu32
                         " announced", h->path, r, b, begins, blk->begins);
    return 0;
}

/* One slice of whole blocks [b0, b1) read from the event columns and
 * decoded: by a helper thread while the caller hands out the previous one,
 * so that HDF5's decompression and the decoding run on a second core
 * beside the caller's work (the aggregate pass). */
typedef struct fetch {
    const sp_event_source *src;
    const h5src *h;
    size_t r, b0, b1;
    uint64_t row, n;
    uint32_t *dt;
    int32_t *code;   /* region rows, decoded in place into run ids */
    int64_t *t;      /* times, ns */
    size_t ok;       /* blocks [b0, ok) decoded; at ok the slice failed (rc) */
    int rc;
    bool unread;     /* rc is the read's: none of the slice's rows arrived */
    char msg[512];   /* the error message is per thread: carried back */
} fetch;

static void *fetch_main(void *arg)
{
    fetch *f = arg;
    const srank *s = &f->h->rk[f->r];
    sp__h5_quiet quiet;
    sp__h5_quiet_begin(&quiet);
    f->ok = f->b0;
    f->unread = true;
    f->rc = sp_v2c_read(f->h->path, &s->col[C_DT], H5T_NATIVE_UINT32, f->row, f->n, f->dt);
    if (f->rc == 0)
        f->rc = sp_v2c_read(f->h->path, &s->col[C_REGION], H5T_NATIVE_INT32, f->row, f->n,
                            f->code);
    sp__h5_quiet_end(&quiet);
    if (f->rc == 0)
        f->unread = false;
    while (f->rc == 0 && f->ok < f->b1) {
        size_t at = (size_t)(s->first[f->ok] - f->row);
        f->rc = decode_block(f->src, f->h, f->r, f->ok, f->dt + at, f->code + at, f->t + at);
        if (f->rc == 0)
            f->ok++;
    }
    if (f->rc)
        snprintf(f->msg, sizeof f->msg, "%s", sp_last_error());
    return NULL;
}

/* The blocks from b on that fit one slice: returns the end block. */
static size_t slice_end(const srank *s, size_t b, size_t b1)
{
    uint64_t row = s->first[b];
    while (b < b1 && s->first[b + 1] - row <= SLICE_EVENTS)
        b++;
    return b;
}

/* Slice [b0, b1) into f (not yet read). */
static void fetch_set(fetch *f, const srank *s, size_t b0, size_t b1)
{
    f->b0 = b0;
    f->b1 = b1;
    f->row = s->first[b0];
    f->n = s->first[b1] - f->row;
}

static int h5_read(sp_event_source *src, size_t r, size_t b0, size_t b1, sp_event_fn fn,
                   void *ud)
{
    h5src *h = src->impl;
    srank *s = &h->rk[r];
    fetch f[2];
    memset(f, 0, sizeof f);
    if (b1 <= b0)
        return 0;
    if (s->col[C_DT].dset < 0) {
        sp__h5_quiet quiet;
        sp__h5_quiet_begin(&quiet);
        int orc = open_events(h->path, s, r, s->first[src->nblocks[r]]);
        sp__h5_quiet_end(&quiet);
        if (orc)
            return orc;
    }
    /* Buffers as large as what is read, up to a slice: a rank of a few
     * calls (a run of 1,024 of them) would otherwise map and unmap 17 MB
     * of fresh pages per rank. */
    uint64_t events = s->first[b1] - s->first[b0];
    size_t slice_n = events < SLICE_EVENTS ? (size_t)events : SLICE_EVENTS;
    if (slice_n == 0)
        slice_n = 1;
    int rc = 0;
    for (int i = 0; i < 2; i++) {
        f[i].src = src;
        f[i].h = h;
        f[i].r = r;
        f[i].dt = malloc(slice_n * sizeof *f[i].dt);
        f[i].code = malloc(slice_n * sizeof *f[i].code);
        f[i].t = malloc(slice_n * sizeof *f[i].t);
        if (!f[i].dt || !f[i].code || !f[i].t)
            rc = SP_ENOMEM;
    }
    if (rc) {
        rc = sp__error(SP_ENOMEM, "%s: out of memory reading events", h->path);
        goto done;
    }
    /* Slice k is read into f[k % 2]; slice k + 1 is fetched meanwhile. */
    fetch_set(&f[0], s, b0, slice_end(s, b0, b1));
    fetch_main(&f[0]);
    for (int cur = 0; rc == 0; cur ^= 1) {
        fetch *now = &f[cur], *next = &f[cur ^ 1];
        pthread_t th;
        bool started = false;
        if (now->rc == 0 && now->b1 < b1) {
            fetch_set(next, s, now->b1, slice_end(s, now->b1, b1));
            started = pthread_create(&th, NULL, fetch_main, next) == 0;
            if (!started)
                fetch_main(next); /* no thread: read it first, in turn */
        }
        /* The blocks decoded before any damage are handed out first, as a
         * block-by-block read would. */
        sp__h5_quiet quiet;
        sp__h5_quiet_begin(&quiet);
        for (size_t i = now->b0; i < now->ok && rc == 0; i++) {
            size_t at = (size_t)(s->first[i] - now->row);
            const sp_block *blk = &src->blocks[r][i];
            sp_event_batch batch = {r, i, blk->thread, blk->events, now->t + at,
                                    now->code + at};
            rc = fn(ud, &batch);
        }
        sp__h5_quiet_end(&quiet);
        if (started)
            pthread_join(th, NULL);
        if (rc == 0 && now->rc) {
            rc = sp__error(now->rc, "%s", now->msg);
            /* Unreadable chunks damage the slice's first block. */
            if (rc == SP_EFORMAT) {
                src->bad_rank = r;
                src->bad_block = now->unread ? now->b0 : now->ok;
            }
        }
        if (now->b1 >= b1)
            break;
    }
done:
    for (int i = 0; i < 2; i++) {
        free(f[i].dt);
        free(f[i].code);
        free(f[i].t);
    }
    /* The pass reads each rank once, to its last block: then its columns
     * of a finished run are closed (a later read opens them again). */
    if (rc == 0 && src->complete && b1 == src->nblocks[r]) {
        sp__h5_quiet quiet;
        sp__h5_quiet_begin(&quiet);
        close_columns(s);
        sp__h5_quiet_end(&quiet);
    }
    return rc;
}

/* ---- refresh: what a recording run appended ---- */

/* Free the per-rank header fields sp_v2_read_rank_header fills, before
 * they are read again. */
static void reset_rank_header(sp_rank_data *rk, srank *s)
{
    for (size_t t = 0; t < rk->nthreads; t++)
        free(rk->threads[t].name);
    free(rk->threads);
    rk->threads = NULL;
    rk->nthreads = 0;
    free(rk->dropped);
    rk->dropped = NULL;
    free(rk->sched); /* scheduling samples grow while a run records */
    rk->sched = NULL;
    rk->nsched = 0;
    free(s->hdr.map);
    s->hdr.map = NULL;
}

static int refresh_rank(sp_event_source *src, h5src *h, size_t r, bool *grew)
{
    srank *s = &h->rk[r];
    size_t before = src->nblocks[r];
    if (!s->present) {
        int rc = open_rank(src, h, r); /* the part may exist now */
        *grew |= src->nblocks[r] > before;
        return rc;
    }
    if (s->col[C_THREAD].dset < 0 || s->col[C_DT].dset < 0) {
        close_columns(s); /* closed once the run was finished: open again */
        hsize_t n[NCOLS];
        for (int i = 0; i < NCOLS; i++)
            n[i] = s->col[i].n;
        int rc = open_columns(h->path, s, true);
        for (int i = 0; rc == 0 && i < NCOLS; i++)
            s->col[i].n = n[i] > s->col[i].n ? n[i] : s->col[i].n;
        if (rc)
            return rc;
    }
    for (int i = 0; i < NCOLS; i++) {
        hsize_t dims[1];
        hid_t sp = H5I_INVALID_HID;
        if (H5Drefresh(s->col[i].dset) < 0 || (sp = H5Dget_space(s->col[i].dset)) < 0 ||
            H5Sget_simple_extent_dims(sp, dims, NULL) != 1) {
            if (sp >= 0)
                H5Sclose(sp);
            return sp__h5_error(SP_EIO, "%s: rank %zu: cannot refresh %s", h->path, r,
                                s->col[i].where);
        }
        H5Sclose(sp);
        if (dims[0] > s->col[i].n)
            s->col[i].n = dims[0];
    }
    /* New regions, threads, calibration points, dropped calls. */
    sp_rank_data *rk = &src->run->ranks[r];
    reset_rank_header(rk, s);
    if (src->run->mpi) /* its MPI tables grow too: read again whole */
        sp_mpi_rank_clear(&src->run->mpi->ranks[r]);
    int rc = sp_v2_read_rank_header(&h->st, s->loc.group, r, &s->hdr);
    if (rc == 0)
        rc = take_blocks(src, h, r);
    *grew |= src->nblocks[r] > before;
    return rc;
}

static int h5_refresh(sp_event_source *src, bool *grew)
{
    h5src *h = src->impl;
    sp__h5_quiet quiet;
    sp__h5_quiet_begin(&quiet);
    size_t regions = src->run->nregions;
    h->st.torn_blocks = 0;
    h->st.missing[0] = 0;
    int rc = 0;
    for (size_t r = 0; r < src->nranks && rc == 0; r++) {
        rc = refresh_rank(src, h, r, grew);
        h->st.torn_blocks += h->rk[r].torn;
    }
    if (rc == 0)
        rc = sp_v2_read_end(&h->st);
    *grew |= src->run->nregions > regions;
    sp__h5_quiet_end(&quiet);
    return rc;
}

static void h5_close(sp_event_source *src)
{
    h5src *h = src->impl;
    if (!h)
        return;
    sp__h5_quiet quiet;
    sp__h5_quiet_begin(&quiet);
    for (size_t r = 0; h->rk && r < src->nranks; r++) {
        srank *s = &h->rk[r];
        close_columns(s);
        if (s->present)
            sp_v2_close_rank(&s->loc);
        free(s->hdr.map);
        free(s->first);
        free(s->t0_ticks);
    }
    free(h->rk);
    sp_v2_read_free(&h->st);
    sp__h5_open_end(&h->o);
    sp__h5_quiet_end(&quiet);
    free(h->path);
    free(h);
    src->impl = NULL;
}

static const sp_event_source_ops h5_ops = {h5_read, h5_refresh, h5_close};

uint64_t sp_h5_stream_torn_blocks(const sp_event_source *src, size_t r)
{
    if (!src || src->ops != &h5_ops || r >= src->nranks)
        return 0;
    const h5src *h = src->impl;
    return h->rk[r].torn;
}

sp_event_source *sp_h5_stream_open(const char *path, int *status)
{
    return sp_h5_stream_open_ex(path, 0, status);
}

sp_event_source *sp_h5_stream_open_ex(const char *path, unsigned flags, int *status)
{
    sp_event_source *src = NULL;
    h5src *h = calloc(1, sizeof *h);
    sp_run *run = sp_run_new();
    int rc = (!h || !run) ? sp__error(SP_ENOMEM, "out of memory") : 0;
    if (rc == 0)
        rc = sp__h5_open_begin(path, &h->o);
    if (rc == 0 && (strcmp(h->o.layout, SP_LAYOUT_NATIVE) != 0 || h->o.version < 2))
        rc = sp__error(SP_ENOTSUP, "'%s' has no event tables (schema %d, layout %s): read it "
                       "whole", path, (int)h->o.version, h->o.layout);
    if (rc == 0 && (!(h->path = strdup(path)) ||
                    (rc = sp_v2_read_begin(&h->st, h->path, h->o.file, run)) != 0))
        rc = rc ? rc : sp__error(SP_ENOMEM, "out of memory");
    if (h)
        h->st.lean = (flags & SP_H5_STREAM_LEAN) != 0;
    if (rc == 0 && (!(src = sp_event_source_new(&h5_ops, run)) ||
                    !(h->rk = calloc(run->nranks ? run->nranks : 1, sizeof *h->rk))))
        rc = sp__error(SP_ENOMEM, "out of memory");
    if (src) {
        run = NULL; /* the source's now */
        src->impl = h;
        src->complete = h->st.complete;
    }
    for (size_t r = 0; rc == 0 && r < src->nranks; r++)
        rc = open_rank(src, h, r);
    if (rc == 0)
        rc = sp_v2_read_end(&h->st);
    /* What no reader lets through (clock offsets, line, counter and dropped
     * sums, memory for ranks x regions); the calls are checked as they
     * stream (sp_agg_pass.c: times, nesting, own time). */
    if (rc == 0)
        rc = sp__run_check_read(path, src->run);
    if (rc == 0)
        rc = sp__h5_finish_read(path, &h->o, src->run);
    if (h)
        sp__h5_open_release(&h->o);
    if (rc) {
        if (src)
            sp_event_source_free(src); /* closes h too */
        else if (h) {
            sp_v2_read_free(&h->st);
            sp__h5_open_end(&h->o);
            free(h->path);
            free(h);
        }
        sp_run_free(run);
        src = NULL;
    }
    if (status)
        *status = rc;
    return src;
}
