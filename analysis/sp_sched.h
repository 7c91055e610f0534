/* SPDX-License-Identifier: MIT */
/*
 * sp_sched.h - how much a run was disturbed: the time its threads were
 * runnable but waited for a CPU (other processes had the cores), from the
 * scheduling samples the recorder took while the program ran
 * (sp_model.h sp_sched_sample; SCHEMA.md "CPU scheduling of the threads").
 * Pure computation.
 *
 * The samples are cumulative per thread; what happened between a thread's
 * first and last sample is what is summed here. A run without samples
 * (files written before they existed, Python files, memory-only sessions)
 * is "not measured", never "undisturbed".
 */
#ifndef SP_SCHED_H
#define SP_SCHED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_sched_summary {
    bool measured;     /* some thread has two samples with known counts */
    size_t threads;    /* such threads */
    double covered_s;  /* time between their first and last samples, summed */
    double cpu_s;      /* of it, time on a CPU */
    double wait_s;     /* time runnable but waiting for a CPU */
    uint64_t nivcsw;   /* involuntary context switches (preemptions) */
    double wait_share; /* wait_s / covered_s: the share of the run spent
                          waiting for a CPU (0 when not measured) */
    double wait_per_cpu_s;   /* wait_s / cpu_s: waiting per second of work */
    double wait_per_switch_s;/* wait_s / nivcsw: the mean wait of a preemption */
    double switches_per_cpu_s; /* nivcsw / cpu_s: preemptions per second of work */
} sp_sched_summary;

/* Add the sums of s into `into` (measured if either is), then derive the
 * ratios (share, per CPU second, per switch) from the sums. */
void sp_sched_summary_add(sp_sched_summary *into, const sp_sched_summary *s);
void sp_sched_summary_finish(sp_sched_summary *s);

/* The summary of one rank (all its threads). */
void sp_sched_rank_summary(const sp_rank_data *rk, sp_sched_summary *out);

/* The summary of a run: its ranks' added up; *worst (may be NULL) is the
 * rank that waited the largest share of its run, -1 when none measured. */
void sp_sched_run_summary(const sp_run *run, sp_sched_summary *out, int32_t *worst);

/* "waited 31 % of its run for a CPU (1,204 preemptions)" or "not measured"
 * (older files). Returns buf. */
char *sp_sched_text(const sp_sched_summary *s, char *buf, size_t n);

/* How much of the run each rank waited for a CPU, for headers: "waited 31 %
 * of its run for a CPU (1204 preemptions)" (one rank, or the ranks alike),
 * "ranks waited 4-31 % of their run for a CPU (rank 3 the most)", or "not
 * measured" (files of older builds). Returns buf. */
char *sp_sched_run_text(const sp_run *run, char *buf, size_t n);

/* Per thread of a rank, its wait share between consecutive samples, for
 * looking up the share at an instant (the comparison's estimate of the
 * wait inside a region's calls). */
typedef struct sp_sched_index {
    size_t nthreads;
    size_t *off;        /* thread t's intervals: [off[t], off[t + 1]) */
    int64_t *t_end;     /* end of each interval (its start is the previous end
                           or the thread's first sample) */
    int64_t *t_first;   /* per thread: its first sample (INT64_MAX: none) */
    float *share;       /* wait / elapsed in the interval, 0..1 */
} sp_sched_index;

/* Build the index of rk (empty when not measured). 0 or SP_ENOMEM. */
int sp_sched_index_build(const sp_rank_data *rk, sp_sched_index *ix);
void sp_sched_index_free(sp_sched_index *ix);

/* The wait share of thread at time t: that of the interval containing t,
 * the nearest interval's before the first or after the last sample, 0
 * where the thread has none. */
double sp_sched_share_at(const sp_sched_index *ix, int32_t thread, int64_t t);

#ifdef __cplusplus
}
#endif

#endif /* SP_SCHED_H */
