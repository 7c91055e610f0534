/* SPDX-License-Identifier: MIT */
/*
 * sp_stream_query.c - what the session knows about a region while it
 * records (sp_region_num_calls, _capacity, _durations_ns; sp_query.c), and
 * what finalize takes from the consumer. Queries consume every published
 * event first, so they see every call made before them.
 */
#include <stdlib.h>
#include <string.h>

#include "sp_stream_consume.h"

/* The seed's buffer capacity for n calls: buffer_limit doubled as often as
 * needed (the Python package's numpy buffers; kept for its semantics). */
static size_t seed_capacity(uint64_t n, size_t limit)
{
    if (n == 0)
        return 0;
    uint64_t cap = limit ? limit : 1;
    while (cap < n && cap < ((uint64_t)1 << 62))
        cap *= 2;
    return (size_t)cap;
}

void sp__stream_region_counts(uint32_t id, size_t buffer_limit, uint64_t *calls,
                              size_t *capacity)
{
    *calls = 0;
    *capacity = 0;
    pthread_mutex_lock(&sp__cons.lock);
    if (sp__cons.active)
        sp__cons_catch_up();
    int32_t row = id < sp__cons.row_of_cap ? sp__cons.row_of_id[id] - 1 : -1;
    if (row >= 0) {
        *calls = sp__cons.row_calls[row];
        for (uint32_t t = 0; t < sp__cons.nthreads; t++) {
            const sp__cthread *ct = sp__cons.thread_row[t]->cons;
            if (ct && (uint32_t)row < ct->ncalls_cap)
                *capacity += seed_capacity(ct->calls[row], buffer_limit);
        }
    }
    pthread_mutex_unlock(&sp__cons.lock);
}

/* ---------------------------------------------------------------- durations */

typedef struct open_call {
    int32_t row;
    int64_t start;
    size_t slot; /* index in the thread's durations, SIZE_MAX: another region */
} open_call;

typedef struct thread_calls {
    size_t depth, cap;
    open_call *open;
    size_t n, ncap;
    int64_t *dur; /* ticks, -1 while open; start order */
} thread_calls;

static bool grow(void **p, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap)
        return true;
    size_t c = *cap ? 2 * *cap : 64;
    while (c < need)
        c *= 2;
    void *q = realloc(*p, c * elem);
    if (!q)
        return false;
    *p = q;
    *cap = c;
    return true;
}

size_t sp__stream_durations(uint32_t id, const sp__clock_calib *calib, int64_t *out, size_t max)
{
    size_t k = 0;
    pthread_mutex_lock(&sp__cons.lock);
    if (sp__cons.active)
        sp__cons_catch_up();
    int32_t row = id < sp__cons.row_of_cap ? sp__cons.row_of_id[id] - 1 : -1;
    const sp_v2_events *e = &sp__cons.batch;
    thread_calls *tc = row >= 0 ? calloc(sp__cons.nthreads + 1, sizeof *tc) : NULL;
    if (!tc)
        goto done;
    /* The events still in memory: every one of a memory-only session; in a
     * file session those not yet written (a call whose begin was written
     * already has no duration here). */
    size_t pos = 0;
    for (size_t b = 0; b < e->nblocks; b++) {
        thread_calls *t = &tc[e->bthread[b]];
        int64_t tick = e->bt0[b];
        for (uint32_t i = 0; i < e->bevents[b]; i++, pos++) {
            if (i)
                tick += e->dt[pos];
            int32_t r = e->region[pos];
            if (r >= 0) {
                if (!grow((void **)&t->open, &t->cap, t->depth + 1, sizeof *t->open))
                    goto done;
                open_call *o = &t->open[t->depth++];
                o->row = r;
                o->start = tick;
                o->slot = SIZE_MAX;
                if (r == row) {
                    if (!grow((void **)&t->dur, &t->ncap, t->n + 1, sizeof *t->dur))
                        goto done;
                    o->slot = t->n;
                    t->dur[t->n++] = -1;
                }
            } else if (t->depth) {
                open_call *o = &t->open[--t->depth];
                if (o->slot != SIZE_MAX)
                    t->dur[o->slot] = sp__clock_to_ns(calib, tick) - sp__clock_to_ns(calib, o->start);
            }
        }
    }
    for (uint32_t t = 0; t < sp__cons.nthreads && k < max; t++)
        for (size_t i = 0; i < tc[t].n && k < max; i++)
            if (tc[t].dur[i] >= 0)
                out[k++] = tc[t].dur[i];
done:
    for (uint32_t t = 0; tc && t <= sp__cons.nthreads; t++) {
        free(tc[t].open);
        free(tc[t].dur);
    }
    free(tc);
    pthread_mutex_unlock(&sp__cons.lock);
    return k;
}

/* ---------------------------------------------------------------- for finalize */

void sp__stream_tables_get(sp__stream_tables *t)
{
    t->nregions = sp__cons.nrows;
    t->region_names = sp__cons.row_name;
    t->region_ids = sp__cons.row_id;
    t->region_dropped = sp__cons.row_dropped;
    t->nthreads = sp__cons.nthreads;
    t->threads = sp__cons.thread_row;
}

const char *sp__stream_part_path(void) { return sp__cons.memory ? NULL : sp__cons.part_path; }

sp_v2_events *sp__stream_memory_events(void) { return &sp__cons.batch; }

int sp__stream_error(char *msg, size_t size)
{
    if (msg && size)
        snprintf(msg, size, "%s", sp__cons.errmsg);
    return sp__cons.err;
}

sp_v2_compress sp__stream_compress(void) { return sp__cons.compress; }

void sp__stream_release(void)
{
    pthread_mutex_lock(&sp__cons.lock);
    sp__cons_reset();
    pthread_mutex_unlock(&sp__cons.lock);
}
