/* SPDX-License-Identifier: MIT */
/*
 * sp_schema_v2.h - the names of schema version 2 that version 1 does not
 * have (SCHEMA.md, "Schema version 2"). Names shared with version 1 (the
 * root attributes, /metadata, rank<N>, the rank attributes, metadata, lines
 * and counters) keep their sp_schema.h entries.
 *
 * Version 2 stores each rank's calls as an event stream written while the
 * program runs: a begin event and an end event per call, times as 32-bit
 * deltas in clock ticks, in blocks of one thread's events. Every table of a
 * rank can be appended to (chunked, unlimited), so a file stays readable
 * while it grows and after the writer is killed (HDF5 SWMR).
 */
#ifndef SP_SCHEMA_V2_H
#define SP_SCHEMA_V2_H

#include "sp_schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/* X(ID, parent, name, kind, type, shape, unit, description); shapes: P
 * calibration points, R regions of the rank, B name bytes, T threads, K
 * blocks, E events, D dropped rows, S scheduling samples. */
#define SP_SCHEMA_V2_NAMES(X)                                                  \
    X(V2_ROOT_COMPLETE, "/", "complete", ATTR, I32, "scalar", "",              \
      "1: finished file; 0: recording (rank<N> are external links to parts)") \
    X(V2_CLOCK, "/rank<N>", "clock", GROUP, NONE, "", "",                      \
      "clock calibration points: columns of length P")                         \
    X(V2_CLOCK_TICKS, "/rank<N>/clock", "ticks", DSET, I64, "[P]", "ticks",    \
      "a reading of the event clock")                                          \
    X(V2_CLOCK_NS, "/rank<N>/clock", "ns", DSET, I64, "[P]", "ns",             \
      "CLOCK_MONOTONIC at the same instant")                                   \
    X(V2_REGIONS, "/rank<N>", "regions", GROUP, NONE, "", "",                  \
      "the rank's region table: row = region id in events/region")            \
    X(V2_NAME_BYTES, "/rank<N>/regions", "name_bytes", DSET, U8, "[B]", "",    \
      "every name's bytes, one after the other (raw, as the program gave them)") \
    X(V2_NAME_END, "/rank<N>/regions", "name_end", DSET, U64, "[R]", "bytes",  \
      "end of row i's name in name_bytes (it starts at the previous end)")    \
    X(V2_REGION_FLAGS, "/rank<N>/regions", "flags", DSET, I32, "[R]", "",      \
      "optional: 1 traced, 2 sampled, 4 throttled")                            \
    X(V2_THREAD_NAME_BYTES, "/rank<N>/threads", "name_bytes", DSET, U8, "[B]", \
      "", "thread names' bytes, one after the other")                          \
    X(V2_THREAD_NAME_END, "/rank<N>/threads", "name_end", DSET, U64, "[T]",    \
      "bytes", "end of thread t's name in name_bytes")                         \
    X(V2_BLOCKS, "/rank<N>", "blocks", GROUP, NONE, "", "",                    \
      "runs of consecutive events of one thread: columns of length K")        \
    X(V2_BLOCK_THREAD, "/rank<N>/blocks", "thread", DSET, I32, "[K]", "",      \
      "row of threads/ whose events these are")                                \
    X(V2_BLOCK_EVENTS, "/rank<N>/blocks", "events", DSET, U32, "[K]", "",      \
      "number of events in the block (blocks follow each other in events/)")  \
    X(V2_BLOCK_BEGINS, "/rank<N>/blocks", "begins", DSET, U32, "[K]", "",      \
      "how many of them are begin events")                                     \
    X(V2_BLOCK_T0, "/rank<N>/blocks", "t0", DSET, I64, "[K]", "ticks",         \
      "clock reading of the block's first event")                              \
    X(V2_EVENTS, "/rank<N>", "events", GROUP, NONE, "", "",                    \
      "the event stream: columns of length E")                                 \
    X(V2_EVENT_DT, "/rank<N>/events", "dt", DSET, U32, "[E]", "ticks",         \
      "ticks since the previous event of the block (0 for its first)")        \
    X(V2_EVENT_REGION, "/rank<N>/events", "region", DSET, I32, "[E]", "",      \
      "begin: row of regions/; end of the innermost open call: -1")            \
    /* Optional (absent = not measured): CPU scheduling of the threads. */     \
    X(V2_SCHED, "/rank<N>", "sched", GROUP, NONE, "", "",                      \
      "samples of the recording threads' CPU scheduling: columns of length S") \
    X(V2_SCHED_TID, "/rank<N>/sched", "tid", DSET, I64, "[S]", "",             \
      "os_tid of the sampled thread (a row of threads/ with that os_tid)")     \
    X(V2_SCHED_T, "/rank<N>/sched", "t_ns", DSET, I64, "[S]", "ns",            \
      "CLOCK_MONOTONIC when sampled (the clock/ns domain)")                    \
    X(V2_SCHED_CPU, "/rank<N>/sched", "cpu_ns", DSET, I64, "[S]", "ns",        \
      "the thread's time on a CPU so far (schedstat field 1), -1 unknown")     \
    X(V2_SCHED_WAIT, "/rank<N>/sched", "wait_ns", DSET, I64, "[S]", "ns",      \
      "its time runnable but waiting for a CPU so far (field 2), -1 unknown")  \
    X(V2_SCHED_NIVCSW, "/rank<N>/sched", "nivcsw", DSET, I64, "[S]", "",       \
      "its involuntary context switches so far, -1 unknown")

typedef enum sp_schema_v2_id {
#define SP__SCHEMA_V2_ENUM(id, parent, name, kind, type, shape, unit, desc) SP_SN2_##id,
    SP_SCHEMA_V2_NAMES(SP__SCHEMA_V2_ENUM)
#undef SP__SCHEMA_V2_ENUM
    SP_SN2_COUNT
} sp_schema_v2_id;

/* The table (sp_schema_v2.c), indexed by the ids above. */
extern const sp_schema_entry sp__schema_v2[SP_SN2_COUNT];

/* The name of a v2 entry: SP_NAME2(V2_EVENT_DT) is "dt". */
#define SP_NAME2(id) (sp__schema_v2[SP_SN2_##id].name)

#ifdef __cplusplus
}
#endif

#endif /* SP_SCHEMA_V2_H */
