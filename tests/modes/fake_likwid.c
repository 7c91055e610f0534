/* SPDX-License-Identifier: MIT */
/*
 * fake_likwid.c - a stand-in liblikwid for the tests (loaded through
 * SCOPE_PROFILER_LIKWID_LIB): the marker API functions scope-profiler calls,
 * keeping per (region, thread) call counts, and likwid_markerClose() writing
 * a marker file in LIKWID's format to $LIKWID_FILEPATH. Event k of a region
 * on a thread is count * (k + 1) * 1000, its time count * 1 ms, so metric
 * values are known in advance. Also records how it was called, for the test
 * to check (fake_likwid_calls()).
 */
#include <likwid.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXR 64
#define MAXT 16
#define NEV 6

static int inited, nregions, nthreads_seen;
static char names[MAXR][128];
static unsigned counts[MAXR][MAXT];
static int open_[MAXR][MAXT];
static int registered, thread_inits, starts, stops, bad_stops;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static __thread int my_thread = -1;

static CpuInfo info = {.family = 25, .model = 33, .clock = 2000000000ull};

/* The counters the test reads back (not part of LIKWID's API). */
int fake_likwid_calls(int *reg, int *tinit, int *st, int *sp, int *bad);
int fake_likwid_calls(int *reg, int *tinit, int *st, int *sp, int *bad)
{
    *reg = registered;
    *tinit = thread_inits;
    *st = starts;
    *sp = stops;
    *bad = bad_stops;
    return inited;
}

int topology_init(void)
{
    info.name = "Fake CPU for scope-profiler tests";
    info.short_name = "zen3";
    return 0;
}

CpuInfo_t get_cpuInfo(void)
{
    return &info;
}
uint64_t timer_getCpuClock(void)
{
    return info.clock;
}
int perfmon_getNumberOfGroups(void)
{
    return inited ? 1 : 0;
}

void likwid_markerInit(void)
{
    inited = getenv("LIKWID_FILEPATH") && getenv("LIKWID_EVENTS");
}

static int thread_index(void)
{
    if (my_thread < 0)
        my_thread = nthreads_seen < MAXT ? nthreads_seen++ : MAXT - 1;
    return my_thread;
}

void likwid_markerThreadInit(void)
{
    pthread_mutex_lock(&lock);
    thread_index();
    thread_inits++;
    pthread_mutex_unlock(&lock);
}

static int region_index(const char *tag)
{
    for (int i = 0; i < nregions; i++)
        if (strcmp(names[i], tag) == 0)
            return i;
    if (nregions == MAXR)
        return MAXR - 1;
    snprintf(names[nregions], sizeof names[0], "%s", tag);
    return nregions++;
}

int likwid_markerRegisterRegion(const char *tag)
{
    if (!inited)
        return -14;
    pthread_mutex_lock(&lock);
    region_index(tag);
    registered++;
    pthread_mutex_unlock(&lock);
    return 0;
}

int likwid_markerStartRegion(const char *tag)
{
    if (!inited)
        return -14;
    pthread_mutex_lock(&lock);
    int r = region_index(tag), t = thread_index();
    open_[r][t]++;
    starts++;
    pthread_mutex_unlock(&lock);
    return 0;
}

int likwid_markerStopRegion(const char *tag)
{
    if (!inited)
        return -14;
    pthread_mutex_lock(&lock);
    int r = region_index(tag), t = thread_index();
    if (open_[r][t] > 0) {
        open_[r][t]--;
        counts[r][t]++;
    } else {
        bad_stops++;
    }
    stops++;
    pthread_mutex_unlock(&lock);
    return 0;
}

void likwid_markerClose(void)
{
    const char *path = getenv("LIKWID_FILEPATH");
    if (!inited || !path)
        return;
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    int used = 0;
    for (int r = 0; r < nregions; r++) {
        unsigned total = 0;
        for (int t = 0; t < nthreads_seen; t++)
            total += counts[r][t];
        used += total > 0;
    }
    fprintf(f, "%d %d %d\n", nthreads_seen, used, 1);
    int id = 0;
    int ids[MAXR];
    for (int r = 0; r < nregions; r++) {
        unsigned total = 0;
        for (int t = 0; t < nthreads_seen; t++)
            total += counts[r][t];
        ids[r] = total ? id++ : -1;
        if (total)
            fprintf(f, "%d:%s-%d\n", ids[r], names[r], 0);
    }
    for (int r = 0; r < nregions; r++) {
        if (ids[r] < 0)
            continue;
        for (int t = 0; t < nthreads_seen; t++) {
            unsigned c = counts[r][t];
            fprintf(f, "%d %d %d %u %e %d ", ids[r], 0, t, c, c * 1e-3, NEV);
            for (int k = 0; k < NEV; k++)
                fprintf(f, "%e ", (double)c * (k + 1) * 1000.0);
            fprintf(f, "\n");
        }
    }
    fclose(f);
    inited = 0;
}
