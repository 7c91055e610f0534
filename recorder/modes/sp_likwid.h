/* SPDX-License-Identifier: MIT */
/*
 * sp_likwid.h - reading LIKWID's results (internal; pure parsing, no LIKWID
 * needed, so tests can feed fixtures in LIKWID's own formats).
 *
 * Marker file (written by likwid_markerClose() to $LIKWID_FILEPATH, read by
 * likwid-perfctr -m afterwards):
 *
 *   <threads> <regions> <groups>
 *   <region id>:<region tag>-<group id>          one line per region
 *   <region id> <group id> <cpu> <count> <time %e> <nevents> <event %e>...
 *                                                one line per region and thread
 *
 * Performance group file (/usr/share/likwid/perfgroups/<arch>/<GROUP>.txt):
 * SHORT, EVENTSET ("<counter>[:opts] <event>" lines), METRICS ("<name>
 * <formula>" lines, the formula being the last field) and LONG sections.
 * Formulas are arithmetic over counter names, time, inverseClock,
 * num_sockets, num_numadomains, true and false.
 */
#ifndef SP_LIKWID_H
#define SP_LIKWID_H

#include <stddef.h>
#include <stdint.h>

#include "sp_model.h"

#pragma GCC visibility push(hidden)

typedef struct sp__lk_row {
    int region, group, cpu;
    uint64_t count;
    double time_s;
    int nevents;
    double *events;
} sp__lk_row;

typedef struct sp__lk_marker {
    int nthreads, nregions, ngroups;
    char **tag;     /* nregions entries (NULL where a line was missing) */
    int *tag_group; /* group of each region */
    size_t nrows;
    sp__lk_row *rows;
} sp__lk_marker;

/* Parse a marker file. 0, SP_ENOENT, SP_EFORMAT (err says which line),
 * SP_ENOMEM. */
int sp__lk_marker_read(const char *path, sp__lk_marker *m, char *err, size_t errsize);
void sp__lk_marker_free(sp__lk_marker *m);

typedef struct sp__lk_group {
    char *name; /* group name or "custom" */
    int nevents;
    char **counter; /* "PMC0", "PMC3:EDGEDETECT" */
    char **event;   /* "RETIRED_INSTRUCTIONS" */
    int nmetrics;
    char **metric;  /* "CPI" */
    char **formula; /* "PMC1/PMC0" */
} sp__lk_group;

/* Parse a performance group file. 0, SP_ENOENT, SP_EFORMAT, SP_ENOMEM. */
int sp__lk_group_read(const char *path, sp__lk_group *g, char *err, size_t errsize);

/* A group from an explicit event list "EVENT:COUNTER[:opts],..." (as in
 * likwid-perfctr -g). 0, SP_EFORMAT, SP_ENOMEM. */
int sp__lk_group_from_list(const char *list, sp__lk_group *g);
void sp__lk_group_free(sp__lk_group *g);

/* The variables a formula may use besides the counters. */
typedef struct sp__lk_env {
    double time_s;
    double inverse_clock; /* 1 / CPU clock in Hz */
    double num_sockets, num_numadomains;
} sp__lk_env;

/* Evaluate formula with the group's counters bound to events[0..nevents).
 * 0, or SP_EFORMAT (syntax error, unknown variable). */
int sp__lk_eval(const char *formula, const sp__lk_group *g, const double *events, int nevents,
                const sp__lk_env *env, double *out);

/* Store the marker results in run as counter rows of rank 0: per (region,
 * cpu) every event ("EVENT:COUNTER", SP_COUNTER_LIKWID_EVENT) and every
 * metric of its group (SP_COUNTER_LIKWID_METRIC; a group without metrics
 * gets "Runtime (RDTSC) [s]"). Regions not in the run are skipped and
 * counted in *skipped. env gives the clock and topology (time_s ignored).
 * 0 or SP_ENOMEM. */
int sp__lk_store(sp_run *run, const sp__lk_marker *m, const sp__lk_group *groups, int ngroups,
                 const sp__lk_env *env, size_t *skipped);

#pragma GCC visibility pop

#endif
