/* SPDX-License-Identifier: MIT */
/*
 * sp_collect.c - turn the session's per-thread buffers into an sp_run: one
 * rank, the threads that recorded, every call as columns (ticks converted to
 * ns), parents as call indices, dropped calls per region, model order.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_recorder.h"

void sp__note_name(char *buf, size_t size, const char *s)
{
    size_t len = strlen(buf), n = strlen(s);
    /* Already listed? Compare whole items of the ", "-separated list. */
    for (const char *p = buf; (p = strstr(p, s)) != NULL; p++)
        if ((p == buf || p[-1] == ' ') && (p[n] == ',' || p[n] == '\0'))
            return;
    if (len && len + 2 < size)
        memcpy(buf + len, ", ", 3), len += 2;
    if (len + n + 1 < size)
        memcpy(buf + len, s, n + 1);
    else if (len + 4 < size && !strstr(buf, "..."))
        memcpy(buf + len, "...", 4);
}

static const char *name_of(uint32_t id)
{
    struct sp_region *r = sp__registry_at(id);
    return r ? r->name : "?";
}

static void note_misuse(const sp__tstate *ts, sp__balance *bal)
{
    bal->unmatched_ends += ts->unmatched_ends;
    bal->mismatched += ts->mismatched;
    for (uint32_t i = 0; i < ts->n_unmatched_ids; i++)
        sp__note_name(bal->unmatched_names, sizeof bal->unmatched_names,
                      name_of(ts->unmatched_ids[i]));
    for (uint32_t i = 0; i < ts->n_mismatch_pairs; i++) {
        char pair[160];
        snprintf(pair, sizeof pair, "'%.60s' ended while '%.60s' was open",
                 name_of(ts->mismatch_pairs[i][0]), name_of(ts->mismatch_pairs[i][1]));
        sp__note_name(bal->mismatch_names, sizeof bal->mismatch_names, pair);
    }
}

static uint64_t thread_calls(const sp__tstate *ts)
{
    uint64_t n = 0;
    for (uint32_t id = 0; id < ts->bufs_cap; id++)
        n += ts->bufs[id].n;
    return n;
}

/* Regions with calls or drops get run ids in registry order. */
static int intern_regions(sp_run *run, int32_t *run_id, uint32_t nreg, sp__balance *bal)
{
    run->region_names = calloc(nreg ? nreg : 1, sizeof *run->region_names);
    if (!run->region_names)
        return SP_ENOMEM;
    for (uint32_t id = 0; id < nreg; id++) {
        struct sp_region *r = sp__registry_at(id);
        uint64_t calls = 0, dropped = __atomic_load_n(&r->dropped_unbuffered, __ATOMIC_RELAXED);
        for (const sp__tstate *ts = sp__threads_first(); ts; ts = ts->next)
            if (id < ts->bufs_cap)
                calls += ts->bufs[id].n, dropped += ts->bufs[id].dropped;
        run_id[id] = -1;
        if (calls == 0 && dropped == 0)
            continue;
        if (!(run->region_names[run->nregions] = strdup(r->name)))
            return SP_ENOMEM;
        run_id[id] = (int32_t)run->nregions++;
        if (dropped) {
            bal->dropped += dropped;
            sp__note_name(bal->dropped_names, sizeof bal->dropped_names, r->name);
        }
    }
    return 0;
}

static int add_threads(sp_rank_data *rk)
{
    size_t n = 0;
    for (const sp__tstate *ts = sp__threads_first(); ts; ts = ts->next)
        n += thread_calls(ts) > 0;
    rk->threads = calloc(n ? n : 1, sizeof *rk->threads);
    if (!rk->threads)
        return SP_ENOMEM;
    for (const sp__tstate *ts = sp__threads_first(); ts; ts = ts->next) {
        if (thread_calls(ts) == 0)
            continue;
        sp_thread_info *ti = &rk->threads[rk->nthreads++];
        ti->os_tid = ts->os_tid;
        if (ts->name[0] && !(ti->name = strdup(ts->name)))
            return SP_ENOMEM;
    }
    return 0;
}

/* Copy one thread's events into the columns from *pos on. off[id] receives
 * the rank index of the thread's first call of region id, so parents (always
 * calls of the same thread) become rank indices. */
static void fill_thread(sp_rank_data *rk, const sp__tstate *ts, int32_t tindex,
                        const int32_t *run_id, uint64_t *off, size_t *pos, int64_t close_ticks,
                        sp__balance *bal)
{
    const sp__clock_calib *c = &sp__sess.calib;
    uint64_t base = *pos;
    for (uint32_t id = 0; id < ts->bufs_cap; id++) {
        off[id] = base;
        base += ts->bufs[id].n;
    }
    for (uint32_t id = 0; id < ts->bufs_cap; id++) {
        const sp__rbuf *b = &ts->bufs[id];
        for (uint64_t i = 0; i < b->n; i++) {
            const sp__event *ev = &b->ev[i];
            size_t k = (size_t)(off[id] + i);
            int64_t end = ev->end;
            if (end == 0) { /* left open: closed at finalize */
                end = close_ticks;
                bal->open_calls++;
                sp__note_name(bal->open_names, sizeof bal->open_names, name_of(id));
            }
            rk->start_ns[k] = sp__clock_to_ns(c, ev->start);
            rk->end_ns[k] = sp__clock_to_ns(c, end);
            if (rk->end_ns[k] < rk->start_ns[k])
                rk->end_ns[k] = rk->start_ns[k];
            rk->region[k] = run_id[id];
            rk->thread[k] = tindex;
            int64_t p = ev->parent;
            /* A parent that was itself dropped is unknown: top level. */
            if (p >= 0 && !SP__IS_DROP(p) && SP__PACKED_ID(p) < ts->bufs_cap &&
                SP__PACKED_IDX(p) < ts->bufs[SP__PACKED_ID(p)].n)
                rk->parent[k] = (int64_t)(off[SP__PACKED_ID(p)] + SP__PACKED_IDX(p));
            else
                rk->parent[k] = -1;
        }
    }
    *pos = base;
}

int sp__collect_run(int64_t close_ticks, sp_run **out, sp__balance *bal)
{
    *out = NULL;
    uint32_t nreg = sp__registry_count(), maxcap = 1;
    for (const sp__tstate *ts = sp__threads_first(); ts; ts = ts->next)
        maxcap = ts->bufs_cap > maxcap ? ts->bufs_cap : maxcap;
    int32_t *run_id = malloc((nreg ? nreg : 1) * sizeof *run_id);
    uint64_t *off = malloc(maxcap * sizeof *off); /* per buffer slot of a thread */
    sp_run *run = sp_run_new();
    int rc = SP_ENOMEM;
    if (!run_id || !off || !run || sp_run_set_ranks(run, 1) != 0)
        goto done;
    sp_rank_data *rk = &run->ranks[0];
    if (intern_regions(run, run_id, nreg, bal) != 0 || add_threads(rk) != 0)
        goto done;

    size_t total = 0;
    for (const sp__tstate *ts = sp__threads_first(); ts; ts = ts->next)
        total += (size_t)thread_calls(ts);
    if (sp_rank_alloc_calls(rk, total) != 0)
        goto done;
    rk->dropped = calloc(run->nregions ? run->nregions : 1, sizeof *rk->dropped);
    if (!rk->dropped)
        goto done;
    for (uint32_t id = 0; id < nreg; id++)
        if (run_id[id] >= 0)
            rk->dropped[run_id[id]] =
                __atomic_load_n(&sp__registry_at(id)->dropped_unbuffered, __ATOMIC_RELAXED);

    size_t pos = 0;
    int32_t tindex = 0;
    for (const sp__tstate *ts = sp__threads_first(); ts; ts = ts->next) {
        note_misuse(ts, bal);
        for (uint32_t id = 0; id < ts->bufs_cap && id < nreg; id++)
            if (run_id[id] >= 0)
                rk->dropped[run_id[id]] += ts->bufs[id].dropped;
        if (thread_calls(ts) == 0)
            continue;
        fill_thread(rk, ts, tindex++, run_id, off, &pos, close_ticks, bal);
    }
    if (sp_rank_sort_calls(rk) != 0)
        goto done;
    rc = 0;
done:
    free(run_id);
    free(off);
    if (rc != 0) {
        sp_run_free(run);
        return sp__error(SP_ENOMEM, "sp_finalize: out of memory gathering the recorded calls");
    }
    *out = run;
    return 0;
}
