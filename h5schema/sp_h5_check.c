/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_check.c - invariants of one rank's call columns. The writer checks
 * them before writing (SP_EINVAL) and the readers after reading (SP_EFORMAT),
 * so a file that one build writes, every build can read.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

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
    if (rk->nsched && !rk->sched)
        return sp__error(code, "%s: %zu scheduling samples but no table", ctx, rk->nsched);
    for (size_t i = 0; i < rk->nsched; i++) {
        const sp_sched_sample *s = &rk->sched[i];
        /* Times within 2^61 ns of the clock's zero, as the calls' (below). */
        if (s->thread < 0 || (size_t)s->thread >= rk->nthreads || s->t_ns > ((int64_t)1 << 61) ||
            s->t_ns < -((int64_t)1 << 61) || s->cpu_ns < -1 || s->wait_ns < -1 ||
            s->nivcsw < -1)
            return sp__error(code, "%s: scheduling sample %zu is out of range", ctx, i);
    }
    return 0;
}

/* ------------------------------------------------ what a read may let in */

/* |time| and |clock offset| bound: 2^61 ns, 73 years either side of the
 * clock's zero. With it, every expression the tools write on times (a time
 * plus an offset, minus the run's start; an end minus a start) stays within
 * int64 without a check at each use. */
#define TIME_LIMIT ((int64_t)1 << 61)
/* Bound of every sum over calls or rows (durations, samples, dropped calls):
 * 2^62 ns is 146 years of summed time; any per-region or per-node sum is a
 * part of it, so none can overflow downstream. */
#define SUM_LIMIT ((uint64_t)1 << 62)

static bool add_capped(uint64_t *sum, uint64_t v)
{
    if (v > SUM_LIMIT || *sum > SUM_LIMIT - v)
        return false;
    *sum += v;
    return true;
}

static int check_rank_times(const char *file, const sp_rank_data *rk, uint64_t *total)
{
    if (rk->clock_offset_ns < -TIME_LIMIT || rk->clock_offset_ns > TIME_LIMIT ||
        rk->clock_offset_err_ns < 0 || rk->clock_offset_err_ns > TIME_LIMIT)
        return sp__error(SP_EFORMAT,
                         "%s: rank %" PRId32 ": clock offset %" PRId64 " +- %" PRId64
                         " ns is impossible (offsets lie within +-2^61 ns, errors are >= 0)",
                         file, rk->rank, rk->clock_offset_ns, rk->clock_offset_err_ns);
    for (size_t i = 0; i < rk->ncalls; i++) {
        int64_t s = rk->start_ns[i], e = rk->end_ns[i];
        if (s < -TIME_LIMIT || e > TIME_LIMIT || e < s)
            return sp__error(SP_EFORMAT,
                             "%s: rank %" PRId32 ", call %zu: times [%" PRId64 ", %" PRId64
                             "] ns are impossible (times lie within +-2^61 ns, 73 years, "
                             "and end >= start): the file is damaged",
                             file, rk->rank, i, s, e);
        if (!add_capped(total, (uint64_t)(e - s)))
            return sp__error(SP_EFORMAT,
                             "%s: the calls' durations add up to more than 2^62 ns "
                             "(146 years, at rank %" PRId32 ", call %zu): the file is damaged",
                             file, rk->rank, i);
    }
    return 0;
}

/* Own time (a call's duration minus its direct children's) is never
 * negative in a real recording: children run inside their parent, one after
 * the other on its thread. Children that overlap each other would show a
 * negative own time; refuse the file instead of showing it. */
static int check_own_time(const char *file, const sp_rank_data *rk)
{
    size_t n = rk->ncalls;
    if (n == 0)
        return 0;
    int rc = sp__read_charge_n("the own-time check", n, sizeof(int64_t));
    if (rc < 0)
        return rc;
    int64_t *child = calloc(n, sizeof *child);
    if (!child)
        return sp__error(SP_ENOMEM, "%s: out of memory checking %zu calls", file, n);
    for (size_t i = 0; i < n; i++) {
        int64_t p = rk->parent[i];
        if (p >= 0 && (size_t)p < i) /* summed durations are <= 2^62: no overflow */
            child[p] += rk->end_ns[i] - rk->start_ns[i];
    }
    for (size_t i = 0; i < n && rc == 0; i++)
        if (child[i] > rk->end_ns[i] - rk->start_ns[i])
            rc = sp__error(SP_EFORMAT,
                           "%s: rank %" PRId32 ", call %zu: its calls inside last %" PRId64
                           " ns but it lasts %" PRId64 " ns (calls on one thread overlap "
                           "without nesting; own time would be negative): the file is damaged",
                           file, rk->rank, i, child[i], rk->end_ns[i] - rk->start_ns[i]);
    free(child);
    return rc;
}

static int check_rank_rows(const char *file, const sp_rank_data *rk, size_t nregions)
{
    uint64_t samples = 0, time = 0;
    for (size_t i = 0; i < rk->nlines; i++) {
        if (rk->line_time_ns[i] < 0 || !add_capped(&time, (uint64_t)rk->line_time_ns[i]) ||
            !add_capped(&samples, rk->line_samples[i]))
            return sp__error(SP_EFORMAT,
                             "%s: rank %" PRId32 ", line row %zu: %" PRIu64 " samples, %" PRId64
                             " ns: negative, or the rows add up to more than 2^62",
                             file, rk->rank, i, rk->line_samples[i], rk->line_time_ns[i]);
    }
    uint64_t calls = 0;
    for (size_t i = 0; i < rk->ncounters; i++)
        if (!add_capped(&calls, rk->counter_calls[i]))
            return sp__error(SP_EFORMAT,
                             "%s: rank %" PRId32 ", counter row %zu: %" PRIu64
                             " calls: the rows add up to more than 2^62",
                             file, rk->rank, i, rk->counter_calls[i]);
    uint64_t dropped = 0;
    for (size_t g = 0; rk->dropped && g < nregions; g++)
        if (!add_capped(&dropped, rk->dropped[g]))
            return sp__error(SP_EFORMAT,
                             "%s: rank %" PRId32 ": dropped calls add up to more than 2^62",
                             file, rk->rank);
    return 0;
}

int sp__run_check_read(const char *file, const sp_run *run)
{
    int rc;
    uint64_t durations = 0, dropped = 0;
    /* What analysing the run will allocate (per rank and region statistics,
     * per call depth, tree node and sort space): the limit bounds the
     * whole job, not only the read, and a file that names a million ranks
     * or regions in a few kilobytes is refused here, before analysis. */
    const sp__read_budget *b = sp__read_budget_current();
    if ((!(b && b->ranks_charged) &&
         (rc = sp__read_charge_ranks(run->nranks, run->nregions)) < 0) ||
        (rc = sp__read_charge_n("its regions", run->nregions, 256)) < 0)
        return rc;
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        if ((rc = sp__read_charge_n("its calls (analysis)", rk->ncalls, 32)) < 0 ||
            (rc = check_rank_times(file, rk, &durations)) < 0 ||
            (rc = check_own_time(file, rk)) < 0 ||
            (rc = check_rank_rows(file, rk, run->nregions)) < 0)
            return rc;
        for (size_t g = 0; rk->dropped && g < run->nregions; g++)
            if (!add_capped(&dropped, rk->dropped[g]))
                return sp__error(SP_EFORMAT,
                                 "%s: dropped calls add up to more than 2^62 over the ranks",
                                 file);
    }
    return sp__mpi_data_check(file, run->mpi, run);
}

int sp__h5_check_decoded(const char *file, sp_run *run)
{
    int rc;
    char ctx[512];
    if (run->nregions > INT32_MAX)
        return sp__error(SP_EFORMAT, "%s: too many regions", file);
    /* The run's own index finds a repeated name: one index of 10^6 names,
     * not one to check and another to keep. */
    int32_t dup;
    if ((rc = sp_run_index_regions(run, &dup)) < 0)
        return rc;
    if (dup >= 0)
        return sp__error(SP_EFORMAT, "%s: region name '%s' appears twice", file,
                         run->region_names[dup]);
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        size_t bad = 0;
        snprintf(ctx, sizeof ctx, "%s: rank %zu", file, r);
        if ((rc = sp__rank_check_columns(rk, run->nregions, SP_EFORMAT, ctx)) < 0 ||
            (rc = sp__rank_check_modes(rk, run->nregions, SP_EFORMAT, ctx)) < 0)
            return rc;
        if (!sp__rank_in_model_order(rk, &bad))
            return sp__error(SP_EFORMAT, "%s: call %zu is out of order", ctx, bad);
        if ((rc = sp__rank_check_parents(rk, SP_EFORMAT, ctx)) < 0)
            return rc;
    }
    return sp__run_check_read(file, run);
}
