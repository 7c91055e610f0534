/* SPDX-License-Identifier: MIT */
/*
 * sp_mem.h - large arrays that are filled right after allocation (a run's
 * call columns, the analysis' scratch arrays): allocated 2 MiB-aligned with
 * transparent huge pages asked for, so filling them costs one page fault per
 * 2 MiB instead of one per 4 KiB. On this project's VMs a fault costs
 * microseconds: 32 MB of call columns are 8,000 faults, a third of reading a
 * file. Internal, shared by every layer.
 */
#ifndef SP_MEM_H
#define SP_MEM_H

#include <stddef.h>

/* Like malloc(bytes) (release with free()); NULL on out of memory. Small
 * sizes are plain malloc. */
void *sp_alloc_big(size_t bytes);

/* For programs that read runs (the CLI and the viewer's reading helper;
 * call it first thing in main, never from the library: it sets the
 * process's malloc; not in the viewer's window process, whose frames
 * allocate image surfaces that glibc's own adjustment serves better:
 * frames took 1.3 -> 5 ms of CPU with a fixed 4 MiB threshold). libhdf5 and its LZ4 filter allocate a 256 KiB buffer
 * per chunk and free it; glibc serves those with mmap or trims the freed
 * top of a thread's heap at once, so every chunk read faults its pages in
 * again: a second of system time per 100M calls read, 12 % of the pass.
 * Buffers under 32 MiB come from the heap (the most glibc's adjustment
 * would reach) and up to 64 MiB of free top is kept (peak RSS is
 * unchanged: the pass's memory does not grow). Nothing happens outside
 * glibc. */
void sp_mem_tune_for_reading(void);

#endif
