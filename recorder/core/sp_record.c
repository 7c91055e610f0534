/* SPDX-License-Identifier: MIT */
/*
 * sp_record.c - the recording table of the session: sp_region_begin/end
 * jump through the table sp_setup() chose (disabled, or the streaming
 * time-only table of the session's clock, recorder/stream/
 * sp_stream_record.c, possibly wrapped by the modes).
 */
#include "sp_recorder.h"
#include "sp_stream.h"

static void disabled_begin(sp_region *r) { (void)r; }
static void disabled_end(sp_region *r) { (void)r; }

static const sp__ops_t ops_disabled = {disabled_begin, disabled_end};

/* While sp_finalize() collects the session: a call that begins now is not
 * recorded but counted as dropped (it reaches the file and the warning if
 * finalize has not counted yet, sp_session.c). */
static void closing_begin(sp_region *r)
{
    if (r->code > 0)
        __atomic_fetch_add(&r->dropped, 1, __ATOMIC_RELAXED);
}
const sp__ops_t sp__ops_closing = {closing_begin, disabled_end};

sp__ops_t sp__ops = {disabled_begin, disabled_end};
int sp__recording; /* declared in scope_profiler.h for the macros */

/* Threads read the table while another switches it: each pointer is one
 * atomic word (a plain load on x86-64, as before). */
void sp__set_ops(const sp__ops_t *ops)
{
    __atomic_store_n(&sp__ops.begin, ops->begin, __ATOMIC_RELEASE);
    __atomic_store_n(&sp__ops.end, ops->end, __ATOMIC_RELEASE);
    __atomic_store_n(&sp__recording, ops->begin != disabled_begin, __ATOMIC_RELAXED);
}

const sp__ops_t *sp__ops_for(sp_region_kind kind, sp__clock_source clock)
{
    switch (kind) {
    case SP_REGION_DISABLED:
        return &ops_disabled;
    case SP_REGION_TIME_ONLY:
    /* LIKWID markers and line sampling time their calls with this table too:
     * sp__modes_activate() wraps it (sp_mode_table.c). */
    case SP_REGION_FULL:
    case SP_REGION_LINE_PROFILER:
        return clock == SP__CLOCK_TSC ? &sp__stream_ops_tsc : &sp__stream_ops_mono;
    }
    return NULL;
}

/* The exported entry points: one indirect jump each. */
void sp_region_begin(sp_region *r) { __atomic_load_n(&sp__ops.begin, __ATOMIC_RELAXED)(r); }
void sp_region_end(sp_region *r) { __atomic_load_n(&sp__ops.end, __ATOMIC_RELAXED)(r); }
