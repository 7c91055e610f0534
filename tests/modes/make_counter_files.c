/* SPDX-License-Identifier: MIT */
/*
 * make_counter_files.c - write two runs for the CLI tests of `inspect
 * --counters` and `inspect --likwid`:
 *   make_counter_files DIR FAKE_LIKWID_LIB DATA_DIR
 * DIR/perf.h5: perf_event counters (page faults of 1000 fresh pages x 3);
 * DIR/likwid.h5: LIKWID results through the stand-in liblikwid.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "scope_profiler.h"

static void touch(size_t n)
{
    long p = sysconf(_SC_PAGESIZE);
    char *m = mmap(NULL, n * (size_t)p, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (m == MAP_FAILED)
        return;
    for (size_t i = 0; i < n; i++)
        m[i * (size_t)p] = 1;
    munmap(m, n * (size_t)p);
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: %s DIR FAKE_LIKWID_LIB DATA_DIR\n", argv[0]);
        return 2;
    }
    char path[4096], marker[4096], groups[4096];
    snprintf(path, sizeof path, "%s/perf.h5", argv[1]);
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    o.perf_events = "task-clock,page-faults";
    if (sp_setup(&o) != 0)
        return fprintf(stderr, "%s\n", sp_last_error()), 1;
    for (int i = 0; i < 3; i++)
        SP_SCOPE("faults")
        {
            touch(1000);
        }
    if (sp_finalize(false, NULL) != 0)
        return fprintf(stderr, "%s\n", sp_last_error()), 1;

    snprintf(path, sizeof path, "%s/likwid.h5", argv[1]);
    snprintf(marker, sizeof marker, "%s/marker.txt", argv[1]);
    snprintf(groups, sizeof groups, "%s/likwid/groups", argv[3]);
    setenv("SCOPE_PROFILER_LIKWID_LIB", argv[2], 1);
    setenv("SCOPE_PROFILER_LIKWID_GROUPS", groups, 1);
    setenv("LIKWID_EVENTS", "FLOPS_TEST", 1);
    setenv("LIKWID_FILEPATH", marker, 1);
    setenv("LIKWID_THREADS", "0", 1);
    setenv("LIKWID_MODE", "1", 1);
    sp_options_init(&o);
    o.file_path = path;
    o.use_likwid = true;
    if (sp_setup(&o) != 0)
        return fprintf(stderr, "%s\n", sp_last_error()), 1;
    for (int i = 0; i < 4; i++)
        SP_SCOPE("compute") {}
    if (sp_finalize(false, NULL) != 0)
        return fprintf(stderr, "%s\n", sp_last_error()), 1;
    return 0;
}
