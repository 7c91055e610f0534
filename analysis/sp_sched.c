/* SPDX-License-Identifier: MIT */
/* sp_sched.c - the threads' waits for a CPU, summed and indexed (sp_sched.h). */
#include "sp_sched.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

#define NS_TO_S 1e-9

/* Samples of a thread come in time order, but the threads' samples are
 * interleaved: every scan below walks the table once per thread. */
static bool usable(const sp_sched_sample *s)
{
    return s->cpu_ns >= 0 && s->wait_ns >= 0;
}

void sp_sched_rank_summary(const sp_rank_data *rk, sp_sched_summary *out)
{
    memset(out, 0, sizeof *out);
    for (size_t t = 0; t < rk->nthreads && rk->nsched; t++) {
        const sp_sched_sample *first = NULL, *last = NULL;
        for (size_t i = 0; i < rk->nsched; i++) {
            const sp_sched_sample *s = &rk->sched[i];
            if (s->thread != (int32_t)t || !usable(s))
                continue;
            if (!first)
                first = s;
            last = s;
        }
        if (!first || last == first || last->t_ns <= first->t_ns)
            continue;
        out->measured = true;
        out->threads++;
        out->covered_s += (double)(last->t_ns - first->t_ns) * NS_TO_S;
        out->cpu_s += (double)(last->cpu_ns - first->cpu_ns) * NS_TO_S;
        out->wait_s += (double)(last->wait_ns - first->wait_ns) * NS_TO_S;
        if (first->nivcsw >= 0 && last->nivcsw >= first->nivcsw)
            out->nivcsw += (uint64_t)(last->nivcsw - first->nivcsw);
    }
    sp_sched_summary_finish(out);
}

void sp_sched_summary_add(sp_sched_summary *into, const sp_sched_summary *s)
{
    into->measured |= s->measured;
    into->threads += s->threads;
    into->covered_s += s->covered_s;
    into->cpu_s += s->cpu_s;
    into->wait_s += s->wait_s;
    into->nivcsw += s->nivcsw;
}

void sp_sched_summary_finish(sp_sched_summary *s)
{
    s->wait_share = s->covered_s > 0 ? s->wait_s / s->covered_s : 0;
    s->wait_per_cpu_s = s->cpu_s > 0 ? s->wait_s / s->cpu_s : 0;
    s->switches_per_cpu_s = s->cpu_s > 0 ? (double)s->nivcsw / s->cpu_s : 0;
    s->wait_per_switch_s = s->nivcsw ? s->wait_s / (double)s->nivcsw : 0;
}

void sp_sched_run_summary(const sp_run *run, sp_sched_summary *out, int32_t *worst)
{
    memset(out, 0, sizeof *out);
    double worst_share = -1;
    if (worst)
        *worst = -1;
    for (size_t r = 0; r < run->nranks; r++) {
        sp_sched_summary s;
        sp_sched_rank_summary(&run->ranks[r], &s);
        if (!s.measured)
            continue;
        sp_sched_summary_add(out, &s);
        if (worst && s.wait_share > worst_share) {
            worst_share = s.wait_share;
            *worst = (int32_t)r;
        }
    }
    sp_sched_summary_finish(out);
}

char *sp_sched_text(const sp_sched_summary *s, char *buf, size_t n)
{
    if (!s->measured)
        snprintf(buf, n, "not measured");
    else
        snprintf(buf, n, "waited %.0f %% of its run for a CPU (%llu preemption%s)",
                 100 * s->wait_share, (unsigned long long)s->nivcsw, s->nivcsw == 1 ? "" : "s");
    return buf;
}

char *sp_sched_run_text(const sp_run *run, char *buf, size_t n)
{
    sp_sched_summary all;
    int32_t worst = -1;
    sp_sched_run_summary(run, &all, &worst);
    double lo = 1, hi = 0;
    size_t measured = 0;
    for (size_t r = 0; r < run->nranks; r++) {
        sp_sched_summary s;
        sp_sched_rank_summary(&run->ranks[r], &s);
        if (!s.measured)
            continue;
        measured++;
        lo = s.wait_share < lo ? s.wait_share : lo;
        hi = s.wait_share > hi ? s.wait_share : hi;
    }
    if (measured > 1 && lround(100 * lo) != lround(100 * hi))
        snprintf(buf, n, "ranks waited %.0f-%.0f %% of their run for a CPU (rank %d the most)",
                 100 * lo, 100 * hi, (int)worst);
    else
        sp_sched_text(&all, buf, n);
    return buf;
}

/* ---------------------------------------------------------------- index */

void sp_sched_index_free(sp_sched_index *ix)
{
    free(ix->off);
    free(ix->t_end);
    free(ix->t_first);
    free(ix->share);
    memset(ix, 0, sizeof *ix);
}

int sp_sched_index_build(const sp_rank_data *rk, sp_sched_index *ix)
{
    memset(ix, 0, sizeof *ix);
    size_t nt = rk->nthreads, ns = rk->nsched;
    if (!ns || !nt)
        return 0;
    ix->off = calloc(nt + 1, sizeof *ix->off);
    ix->t_first = malloc(nt * sizeof *ix->t_first);
    ix->t_end = malloc(ns * sizeof *ix->t_end);
    ix->share = malloc(ns * sizeof *ix->share);
    if (!ix->off || !ix->t_first || !ix->t_end || !ix->share) {
        sp_sched_index_free(ix);
        return sp__error(SP_ENOMEM, "out of memory indexing the scheduling samples");
    }
    ix->nthreads = nt;
    size_t k = 0;
    for (size_t t = 0; t < nt; t++) {
        ix->off[t] = k;
        ix->t_first[t] = INT64_MAX;
        const sp_sched_sample *prev = NULL;
        for (size_t i = 0; i < ns; i++) {
            const sp_sched_sample *s = &rk->sched[i];
            if (s->thread != (int32_t)t || !usable(s))
                continue;
            if (!prev) {
                ix->t_first[t] = s->t_ns;
            } else if (s->t_ns > prev->t_ns) {
                double w = (double)(s->wait_ns - prev->wait_ns) / (double)(s->t_ns - prev->t_ns);
                ix->t_end[k] = s->t_ns;
                ix->share[k++] = (float)(w < 0 ? 0 : w > 1 ? 1 : w);
            } else {
                continue; /* not later than the previous: no interval */
            }
            prev = s;
        }
    }
    ix->off[nt] = k;
    return 0;
}

double sp_sched_share_at(const sp_sched_index *ix, int32_t thread, int64_t t)
{
    if (!ix->nthreads || thread < 0 || (size_t)thread >= ix->nthreads)
        return 0;
    size_t lo = ix->off[thread], hi = ix->off[thread + 1];
    if (lo == hi)
        return 0;
    /* The first interval ending at or after t (the last one past the end). */
    size_t a = lo, b = hi;
    while (a < b) {
        size_t mid = a + (b - a) / 2;
        if (ix->t_end[mid] < t)
            a = mid + 1;
        else
            b = mid;
    }
    return ix->share[a < hi ? a : hi - 1];
}
