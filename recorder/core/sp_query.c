/* SPDX-License-Identifier: MIT */
/*
 * sp_query.c - per-region counts and durations of the current session
 * (sp_region_num_calls, _dropped_calls, _capacity, _durations_ns); the
 * writer's consumer knows them (recorder/stream/sp_stream_query.c).
 * Without an active session they answer from the counts frozen at the last
 * finalize.
 */
#include "sp_recorder.h"
#include "sp_stream.h"

typedef struct counts {
    uint64_t calls, dropped;
    size_t capacity;
} counts;

static counts live_counts(const sp_region *r, size_t buffer_limit)
{
    counts c = {0, __atomic_load_n(&r->dropped, __ATOMIC_RELAXED), 0};
    sp__stream_region_counts(r->id, buffer_limit, &c.calls, &c.capacity);
    return c;
}

static counts region_counts(const sp_region *r)
{
    counts c = {0, 0, 0};
    if (!r || r->id >= SP__MAX_REGIONS)
        return c;
    pthread_mutex_lock(&sp__lock);
    bool active = sp__sess.active;
    size_t limit = sp__sess.buffer_limit;
    c.calls = r->final_calls;
    c.dropped = r->final_dropped;
    c.capacity = r->final_capacity;
    pthread_mutex_unlock(&sp__lock);
    /* The consumer takes its own lock, then sp__lock: never under sp__lock. */
    return active ? live_counts(r, limit) : c;
}

uint64_t sp_region_num_calls(const sp_region *r) { return region_counts(r).calls; }
uint64_t sp_region_dropped_calls(const sp_region *r) { return region_counts(r).dropped; }
size_t sp_region_capacity(const sp_region *r) { return region_counts(r).capacity; }

void sp__regions_snapshot(size_t buffer_limit)
{
    pthread_mutex_lock(&sp__lock);
    uint32_t n = sp__registry_count();
    pthread_mutex_unlock(&sp__lock);
    for (uint32_t id = 0; id < n; id++) {
        pthread_mutex_lock(&sp__lock);
        struct sp_region *r = sp__registry_at(id);
        pthread_mutex_unlock(&sp__lock);
        counts c = live_counts(r, buffer_limit);
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
        __atomic_store_n(&r->dropped, 0, __ATOMIC_RELAXED);
        r->final_calls = r->final_dropped = 0;
        r->final_capacity = 0;
    }
}

size_t sp_region_durations_ns(const sp_region *r, int64_t *out, size_t max)
{
    if (!r || r->id >= SP__MAX_REGIONS || !out || max == 0)
        return 0;
    pthread_mutex_lock(&sp__lock);
    bool active = sp__sess.active;
    /* Every completed call lies between setup and now, so a calibration
     * point taken now makes the conversion as exact as at finalize. */
    sp__clock_calib c = sp__sess.calib;
    pthread_mutex_unlock(&sp__lock);
    if (!active)
        return 0;
    c.p1 = sp__clock_sample(c.source);
    return sp__stream_durations(r->id, &c, out, max);
}
