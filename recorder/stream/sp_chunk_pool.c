/* SPDX-License-Identifier: MIT */
/*
 * sp_chunk_pool.c - the per-process pool of 64 KiB event chunks.
 *
 * Chunks are carved from 2 MiB anonymous mappings (transparent huge pages
 * where the kernel grants them) that are never unmapped: a chunk given back
 * is reused, newest first, so a thread usually records into memory that is
 * already mapped and warm in the cache, and a thread that races the end of
 * a session only ever writes into mapped memory. The limit counts chunks in
 * use (held by threads or waiting for the writer), not chunks created.
 *
 * Only the slow path of recording (once per ~5400 events) and the writer
 * come here; the pool's mutex is uncontended in practice.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "sp_stream.h"

#define SLAB_BYTES ((size_t)2 << 20)
#define SLAB_CHUNKS (SLAB_BYTES / SP__CHUNK_BYTES)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t freed = PTHREAD_COND_INITIALIZER;
static sp__chunk *free_list;
static size_t in_use, created, max_chunks;
static size_t soft_chunks; /* the writer's limit for its flush promise (0: none) */
static size_t soft_cap;    /* tests: the soft limit's largest value (0: none) */
static bool may_block;
static int waiters;
static long fail_after = -1; /* tests: requests that still succeed */
static unsigned epoch;      /* bumped by every session: see sp__pool_configure */

void (*sp__pool_wake)(void);

void sp__test_fail_alloc_after(long n)
{
    pthread_mutex_lock(&lock);
    fail_after = n;
    pthread_mutex_unlock(&lock);
}

void sp__pool_configure(size_t max, bool block)
{
    pthread_mutex_lock(&lock);
    max_chunks = max;
    soft_chunks = soft_cap;
    may_block = block;
    epoch++;
    in_use = 0;
    pthread_cond_broadcast(&freed); /* waiters re-check under the new limit */
    pthread_mutex_unlock(&lock);
}

/* A new slab's chunks onto the free list (lock held). */
static bool add_slab(void)
{
    char *p = mmap(NULL, SLAB_BYTES + SLAB_BYTES, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return false;
    /* Keep only a 2 MiB-aligned 2 MiB: only aligned ranges become huge pages. */
    char *a = (char *)(((uintptr_t)p + SLAB_BYTES - 1) & ~(uintptr_t)(SLAB_BYTES - 1));
    if (a > p)
        munmap(p, (size_t)(a - p));
    munmap(a + SLAB_BYTES, (size_t)(p + 2 * SLAB_BYTES - (a + SLAB_BYTES)));
#ifdef MADV_HUGEPAGE
    madvise(a, SLAB_BYTES, MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
    for (size_t i = SLAB_CHUNKS; i-- > 0;) {
        sp__chunk *c = (sp__chunk *)(a + i * SP__CHUNK_BYTES);
        c->t = (int64_t *)((char *)c + SP__CHUNK_HEADER);
        c->code = (int32_t *)(c->t + SP__CHUNK_EVENTS);
        c->pool_next = free_list;
        free_list = c;
    }
    created += SLAB_CHUNKS;
    return true;
}

/* The chunks that may be in use now (0: no limit; lock held). */
static size_t limit(void)
{
    return soft_chunks && (!max_chunks || soft_chunks < max_chunks) ? soft_chunks : max_chunks;
}

static bool hard_limit_reached(void) { return max_chunks && in_use >= max_chunks; }

/* The soft limit binds a thread that may wait (SP_FULL_BLOCK), once per
 * chunk and for one wait at most: every chunk in use may be a thread's
 * current one (threads that all need a fresh chunk at once, none of them
 * full yet: the writer could free none), so it never blocks for good; and
 * it never makes the drop policy drop calls (only the session's limit
 * does). */
static bool soft_limit_reached(bool block)
{
    return block && may_block && soft_chunks && in_use >= soft_chunks;
}

void sp__test_soft_limit_cap(size_t n)
{
    pthread_mutex_lock(&lock);
    soft_cap = n;
    soft_chunks = n;
    pthread_mutex_unlock(&lock);
}

void sp__pool_soft_limit(size_t n)
{
    pthread_mutex_lock(&lock);
    if (soft_cap && (!n || n > soft_cap))
        n = soft_cap;
    bool raised = !n || (soft_chunks && n > soft_chunks);
    soft_chunks = n;
    if (raised && waiters)
        pthread_cond_broadcast(&freed);
    pthread_mutex_unlock(&lock);
}

sp__chunk *sp__pool_get(bool block)
{
    sp__chunk *c = NULL;
    pthread_mutex_lock(&lock);
    if (fail_after == 0)
        goto done;
    for (bool soft_waited = false;;) {
        bool hard = hard_limit_reached();
        if (!hard && (soft_waited || !soft_limit_reached(block)))
            break;
        /* The writer gives chunks back as it writes them; without a writer
         * (or under the drop policy) nobody would. */
        void (*wake)(void) = __atomic_load_n(&sp__pool_wake, __ATOMIC_ACQUIRE);
        if (!block || !may_block || !wake) {
            if (hard)
                goto done;
            break;
        }
        waiters++;
        pthread_mutex_unlock(&lock);
        wake();
        pthread_mutex_lock(&lock);
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20 * 1000 * 1000;
        if (ts.tv_nsec >= 1000000000) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000;
        }
        if (hard_limit_reached() || soft_limit_reached(block))
            pthread_cond_timedwait(&freed, &lock, &ts);
        waiters--;
        soft_waited = !hard;
    }
    if (!free_list && !add_slab())
        goto done;
    c = free_list;
    free_list = c->pool_next;
    c->next = NULL;
    c->final_n = 0;
    c->epoch = epoch;
    __atomic_store_n(&c->full, 0, __ATOMIC_RELAXED);
    in_use++;
    if (fail_after > 0)
        fail_after--;
    /* Past half the limit: ask the writer not to wait for its next poll. */
    bool low = limit() && 2 * in_use > limit();
    void (*wake)(void) = __atomic_load_n(&sp__pool_wake, __ATOMIC_ACQUIRE);
    pthread_mutex_unlock(&lock);
    if (low && wake)
        wake();
    return c;
done:
    pthread_mutex_unlock(&lock);
    return c;
}

void sp__pool_put(sp__chunk *c)
{
    if (!c)
        return;
    pthread_mutex_lock(&lock);
    c->pool_next = free_list;
    free_list = c;
    if (c->epoch == epoch && in_use)
        in_use--;
    if (waiters)
        pthread_cond_broadcast(&freed);
    pthread_mutex_unlock(&lock);
}

size_t sp__pool_in_use(void)
{
    pthread_mutex_lock(&lock);
    size_t n = in_use;
    pthread_mutex_unlock(&lock);
    return n;
}

size_t sp__pool_created(void)
{
    pthread_mutex_lock(&lock);
    size_t n = created;
    pthread_mutex_unlock(&lock);
    return n;
}
