/* SPDX-License-Identifier: MIT */
/*
 * sp_source_mem.h - the calls of an in-memory run as an event source
 * (sp_events.h), for the one streaming pass every run goes through.
 */
#ifndef SP_SOURCE_MEM_H
#define SP_SOURCE_MEM_H

#include "sp_events.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * A source whose events are those of calls' call columns (every rank in
 * model order: thread, start, parents first). `calls` is not copied and must
 * outlive the source; `header` becomes the source's header run (owned by the
 * source; it may be `calls` itself only if the caller takes it back with
 * sp_event_source_take_run() before freeing the source). Building the block
 * table costs one pass over the calls and 16 bytes per 16,384 events, plus
 * 8 bytes per call for a rank whose parent column has calls whose parent is
 * not open when they begin (damaged input). NULL with sp_last_error() on
 * SP_ENOMEM (header not freed).
 */
sp_event_source *sp_source_mem_new(const sp_run *calls, sp_run *header);

#ifdef __cplusplus
}
#endif

#endif /* SP_SOURCE_MEM_H */
