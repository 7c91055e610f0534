/* SPDX-License-Identifier: MIT */
/*
 * fuzz_read.c - libFuzzer target: a run file from arbitrary bytes through the
 * reader (every layout: schema v1, the Python package's two layouts) and, when
 * it is accepted, the analysis and the text views of what it read.
 *
 * The bytes are written to a temporary file (in $TMPDIR, or /dev/shm when it
 * exists: memory) and read by path, as the reader reads real files (its
 * size checks, budget and layout detection run as for a file on disk; a
 * memfd will not do: HDF5 resolves the real path). Reads are bounded by a
 * 256 MiB limit, under libFuzzer's memory limit. HDF5 is not instrumented:
 * crashes inside libhdf5 itself are sorted out by scripts/fuzz.sh.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include <hdf5.h>

#include "sp_analysis.h"
#include "sp_h5.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[4096];

static void remove_file(void)
{
    unlink(path);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static FILE *sink;
    if (fd < 0) {
        const char *dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/sp-fuzz-read-XXXXXX.h5", dir ? dir : "/tmp");
        fd = mkstemps(path, 3);
        if (fd < 0)
            abort();
        atexit(remove_file);
        sink = fopen("/dev/null", "w");
        setenv(SP_READ_LIMIT_ENV, "256M", 1);
        H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size))
        abort();
    int status = 0;
    sp_run *run = sp_h5_read(path, &status);
    if (!run)
        return 0;
    if (sp_run_analyze(run) == 0) {
        int64_t t0, t1;
        sp_run_time_span(run, &t0, &t1);
        sp_print_summary(run, "fuzz.h5", sink);
        sp_print_inspect(run, SP_SORT_OWN, NULL, sink);
    }
    sp_run_free(run);
    return 0;
}
