/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_check.c - invariants of one rank's call columns. The writer checks
 * them before writing (SP_EINVAL) and the readers after reading (SP_EFORMAT),
 * so a file that one build writes, every build can read.
 */
#include <inttypes.h>

#include "sp_error.h"
#include "sp_h5_internal.h"

int sp__rank_check_columns(const sp_rank_data *rk, size_t nregions, int code,
                           const char *ctx)
{
    size_t n = rk->ncalls;
    if (n == 0)
        return 0;
    if (!rk->start_ns || !rk->end_ns || !rk->region || !rk->thread || !rk->parent)
        return sp__error(code, "%s: %zu calls but a call column is missing", ctx, n);
    for (size_t i = 0; i < n; i++) {
        if (rk->region[i] < 0 || (size_t)rk->region[i] >= nregions)
            return sp__error(code,
                             "%s: call %zu: region %" PRId32
                             " out of range (the region table has %zu rows)",
                             ctx, i, rk->region[i], nregions);
        if (rk->thread[i] < 0 || (size_t)rk->thread[i] >= rk->nthreads)
            return sp__error(code,
                             "%s: call %zu: thread %" PRId32
                             " out of range (the thread table has %zu rows)",
                             ctx, i, rk->thread[i], rk->nthreads);
        if (rk->parent[i] < -1 || rk->parent[i] >= (int64_t)n ||
            rk->parent[i] == (int64_t)i)
            return sp__error(code,
                             "%s: call %zu: parent %" PRId64
                             " out of range (-1 or another of the %zu calls)",
                             ctx, i, rk->parent[i], n);
        if (rk->end_ns[i] < rk->start_ns[i])
            return sp__error(code,
                             "%s: call %zu ends before it starts (%" PRId64
                             " < %" PRId64 " ns)",
                             ctx, i, rk->end_ns[i], rk->start_ns[i]);
    }
    return 0;
}

bool sp__rank_in_model_order(const sp_rank_data *rk, size_t *first_bad)
{
    for (size_t i = 1; i < rk->ncalls; i++) {
        size_t a = i - 1;
        bool ok;
        if (rk->thread[a] != rk->thread[i])
            ok = rk->thread[a] < rk->thread[i];
        else if (rk->start_ns[a] != rk->start_ns[i])
            ok = rk->start_ns[a] < rk->start_ns[i];
        else if (rk->end_ns[a] != rk->end_ns[i])
            ok = rk->end_ns[a] > rk->end_ns[i]; /* longer (enclosing) first */
        else
            ok = rk->parent[a] != (int64_t)i; /* a child never precedes its parent */
        if (!ok) {
            if (first_bad)
                *first_bad = i;
            return false;
        }
    }
    return true;
}

int sp__rank_check_parents(const sp_rank_data *rk, int code, const char *ctx)
{
    for (size_t i = 0; i < rk->ncalls; i++) {
        int64_t p = rk->parent[i];
        if (p < 0)
            continue;
        if (p >= (int64_t)i) /* model order puts every parent first */
            return sp__error(code,
                             "%s: call %zu: parent %" PRId64
                             " does not precede it in (thread, start) order",
                             ctx, i, p);
        if (rk->thread[p] != rk->thread[i])
            return sp__error(code,
                             "%s: call %zu: parent %" PRId64
                             " is on another thread (%" PRId32 " vs %" PRId32 ")",
                             ctx, i, p, rk->thread[p], rk->thread[i]);
        if (rk->start_ns[p] > rk->start_ns[i] || rk->end_ns[p] < rk->end_ns[i])
            return sp__error(code,
                             "%s: call %zu [%" PRId64 ", %" PRId64
                             "] ns is not enclosed by its parent %" PRId64
                             " [%" PRId64 ", %" PRId64 "] ns",
                             ctx, i, rk->start_ns[i], rk->end_ns[i], p,
                             rk->start_ns[p], rk->end_ns[p]);
    }
    return 0;
}

static bool text_ok(const char *s)
{
    return !s || sp__utf8_valid(s);
}

int sp__rank_check_modes(const sp_rank_data *rk, size_t nregions, int code,
                         const char *ctx)
{
    if (rk->nlines && (!rk->line_region || !rk->line_file || !rk->line_lineno ||
                       !rk->line_function || !rk->line_samples || !rk->line_time_ns))
        return sp__error(code, "%s: %zu line rows but a line column is missing", ctx,
                         rk->nlines);
    for (size_t i = 0; i < rk->nlines; i++) {
        if (rk->line_region[i] < 0 || (size_t)rk->line_region[i] >= nregions)
            return sp__error(code, "%s: line row %zu: region %" PRId32 " out of range", ctx,
                             i, rk->line_region[i]);
        if (rk->line_lineno[i] < 0)
            return sp__error(code, "%s: line row %zu: line number %" PRId32, ctx, i,
                             rk->line_lineno[i]);
        if (!text_ok(rk->line_file[i]) || !text_ok(rk->line_function[i]))
            return sp__error(code, "%s: line row %zu: file or function is not valid UTF-8",
                             ctx, i);
    }
    if (rk->ncounters &&
        (!rk->counter_region || !rk->counter_thread || !rk->counter_cpu ||
         !rk->counter_source || !rk->counter_name || !rk->counter_value || !rk->counter_calls))
        return sp__error(code, "%s: %zu counter rows but a counter column is missing", ctx,
                         rk->ncounters);
    for (size_t i = 0; i < rk->ncounters; i++) {
        if (rk->counter_region[i] < 0 || (size_t)rk->counter_region[i] >= nregions)
            return sp__error(code, "%s: counter row %zu: region %" PRId32 " out of range",
                             ctx, i, rk->counter_region[i]);
        if (rk->counter_thread[i] < -1 || rk->counter_thread[i] >= (int64_t)rk->nthreads)
            return sp__error(code, "%s: counter row %zu: thread %" PRId32 " out of range",
                             ctx, i, rk->counter_thread[i]);
        /* Unknown sources are kept: a later minor version may add some. */
        if (rk->counter_cpu[i] < -1 || rk->counter_source[i] < 0)
            return sp__error(code, "%s: counter row %zu: cpu %" PRId32 " or source %" PRId32
                             " out of range", ctx, i, rk->counter_cpu[i], rk->counter_source[i]);
        if (!text_ok(rk->counter_name[i]))
            return sp__error(code, "%s: counter row %zu: name is not valid UTF-8", ctx, i);
    }
    return 0;
}
