/* SPDX-License-Identifier: MIT */
/*
 * sp_query.c - per-region counts and durations of the current session,
 * summed over threads (they take the lock: not for the hot path). Without an
 * active session they answer from the counts frozen at the last finalize.
 */
#include "sp_recorder.h"

typedef struct counts {
    uint64_t calls, dropped;
    size_t capacity;
} counts;

static counts live_counts(const sp_region *r)
{
    counts c = {0, __atomic_load_n(&r->dropped_unbuffered, __ATOMIC_RELAXED), 0};
    for (const sp__tstate *ts = sp__threads_first(); ts; ts = ts->next) {
        if (r->id >= ts->bufs_cap)
            continue;
        const sp__rbuf *b = &ts->bufs[r->id];
        c.calls += b->n;
        c.dropped += b->dropped;
        c.capacity += b->cap;
    }
    return c;
}

static counts region_counts(const sp_region *r)
{
    counts c = {0, 0, 0};
    if (!r || r->id >= SP__MAX_REGIONS)
        return c;
    pthread_mutex_lock(&sp__lock);
    if (sp__sess.active) {
        c = live_counts(r);
    } else {
        c.calls = r->final_calls;
        c.dropped = r->final_dropped;
        c.capacity = r->final_capacity;
    }
    pthread_mutex_unlock(&sp__lock);
    return c;
}

uint64_t sp_region_num_calls(const sp_region *r) { return region_counts(r).calls; }
uint64_t sp_region_dropped_calls(const sp_region *r) { return region_counts(r).dropped; }
size_t sp_region_capacity(const sp_region *r) { return region_counts(r).capacity; }

void sp__regions_snapshot(void)
{
    uint32_t n = sp__registry_count();
    for (uint32_t id = 0; id < n; id++) {
        struct sp_region *r = sp__registry_at(id);
        counts c = live_counts(r);
        r->final_calls = c.calls;
        r->final_dropped = c.dropped;
        r->final_capacity = c.capacity;
    }
}

void sp__regions_reset(void)
{
    uint32_t n = sp__registry_count();
    for (uint32_t id = 0; id < n; id++) {
        struct sp_region *r = sp__registry_at(id);
        __atomic_store_n(&r->dropped_unbuffered, 0, __ATOMIC_RELAXED);
        r->final_calls = r->final_dropped = 0;
        r->final_capacity = 0;
    }
}

size_t sp_region_durations_ns(const sp_region *r, int64_t *out, size_t max)
{
    if (!r || r->id >= SP__MAX_REGIONS || !out || max == 0)
        return 0;
    size_t k = 0;
    pthread_mutex_lock(&sp__lock);
    if (sp__sess.active) {
        /* Every completed call lies between setup and now, so a calibration
         * point taken now makes the conversion as exact as at finalize. */
        sp__clock_calib c = sp__sess.calib;
        c.p1 = sp__clock_sample(c.source);
        for (const sp__tstate *ts = sp__threads_first(); ts && k < max; ts = ts->next) {
            if (r->id >= ts->bufs_cap)
                continue;
            const sp__rbuf *b = &ts->bufs[r->id];
            for (uint64_t i = 0; i < b->n && k < max; i++) {
                const sp__event *ev = &b->ev[i];
                if (ev->end == 0)
                    continue; /* still open */
                int64_t d = sp__clock_to_ns(&c, ev->end) - sp__clock_to_ns(&c, ev->start);
                out[k++] = d > 0 ? d : 0;
            }
        }
    }
    pthread_mutex_unlock(&sp__lock);
    return k;
}
