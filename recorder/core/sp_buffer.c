/* SPDX-License-Identifier: MIT */
/*
 * sp_buffer.c - memory for the event buffers.
 *
 * Small buffers live on the malloc heap. From SP__BIG_BYTES on, a buffer is
 * its own anonymous mapping of whole, aligned 2 MiB units, marked for
 * transparent huge pages and grown with mremap (no copy). Every recorded call
 * writes fresh memory, and where a 4 KiB page fault is slow (in a VM ~2 us,
 * i.e. ~13 ns per 24-byte event) one fault per 2 MiB instead of per 4 KiB
 * takes most of that cost off the hot path.
 *
 * All growth goes through one failure switch so tests can inject ENOMEM.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "sp_recorder.h"

#define SP__BIG_BYTES ((size_t)1 << 20)

static long fail_after = -1;

void sp__test_fail_alloc_after(long n) { __atomic_store_n(&fail_after, n, __ATOMIC_RELAXED); }

/* Whether the next allocation may proceed (false: inject a failure). */
static bool alloc_allowed(void)
{
    long left = __atomic_load_n(&fail_after, __ATOMIC_RELAXED);
    while (left >= 0) {
        if (left == 0)
            return false;
        if (__atomic_compare_exchange_n(&fail_after, &left, left - 1, false, __ATOMIC_RELAXED,
                                        __ATOMIC_RELAXED))
            break;
    }
    return true;
}

void *sp__rec_realloc(void *p, size_t size)
{
    return alloc_allowed() ? realloc(p, size) : NULL;
}

#define SP__HUGE ((size_t)2 << 20) /* a transparent huge page on x86-64 */

/* Big buffers are mapped in whole huge pages, so a mapping's size follows
 * from the buffer's size. */
static size_t map_size(size_t bytes) { return (bytes + SP__HUGE - 1) & ~(SP__HUGE - 1); }

/* An anonymous mapping of `bytes` (a multiple of SP__HUGE) starting on a
 * SP__HUGE boundary: only aligned 2 MiB ranges can become huge pages. */
static void *map_aligned(size_t bytes)
{
    size_t span = bytes + SP__HUGE;
    char *p = mmap(NULL, span, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    char *a = (char *)(((uintptr_t)p + SP__HUGE - 1) & ~(uintptr_t)(SP__HUGE - 1));
    if (a > p)
        munmap(p, (size_t)(a - p));
    if (p + span > a + bytes)
        munmap(a + bytes, (size_t)(p + span - (a + bytes)));
#ifdef MADV_HUGEPAGE
    madvise(a, bytes, MADV_HUGEPAGE); /* a hint: failure is harmless */
#endif
    return a;
}

/* Grow a big mapping without copying: in place if the next addresses are
 * free, else move its pages (page tables only) into a new aligned mapping. */
static void *remap_big(void *old, size_t old_map, size_t new_map)
{
    if (new_map == old_map)
        return old;
    void *p = mremap(old, old_map, new_map, 0);
    if (p != MAP_FAILED)
        return p;
    char *dst = map_aligned(new_map);
    if (!dst)
        return NULL;
    p = mremap(old, old_map, old_map, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
    if (p == MAP_FAILED) {
        munmap(dst, new_map);
        return NULL; /* the old mapping stays */
    }
    return p;
}

sp__event *sp__events_grow(sp__event *old, uint64_t old_cap, uint64_t new_cap)
{
    if (!alloc_allowed())
        return NULL;
    size_t old_bytes = (size_t)old_cap * sizeof(sp__event);
    size_t new_bytes = (size_t)new_cap * sizeof(sp__event);
    if (new_bytes < SP__BIG_BYTES)
        return realloc(old, new_bytes);
    if (old_bytes >= SP__BIG_BYTES)
        return remap_big(old, map_size(old_bytes), map_size(new_bytes));
    sp__event *p = map_aligned(map_size(new_bytes));
    if (!p)
        return NULL;
    if (old_bytes)
        memcpy(p, old, old_bytes);
    free(old);
    return p;
}

void sp__events_free(sp__event *ev, uint64_t cap)
{
    size_t bytes = (size_t)cap * sizeof(sp__event);
    if (bytes >= SP__BIG_BYTES)
        munmap(ev, map_size(bytes));
    else
        free(ev);
}
