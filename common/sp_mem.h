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

#endif
