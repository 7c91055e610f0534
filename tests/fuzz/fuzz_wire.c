/* SPDX-License-Identifier: MIT */
/*
 * fuzz_wire.c - libFuzzer target without HDF5: arbitrary bytes as the stream
 * a reading process sends back (sp_h5_wire.c), decoded under a read budget
 * and checked as a read file is; what is accepted goes through the analysis
 * and the text views. So every run the checks let through - any counts,
 * times, nesting, names - must analyse without a sanitizer report. Fast (no
 * file format in the way): it reaches the checks and the analysis far more
 * often than fuzz_read.
 */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "sp_analysis.h"
#include "sp_h5.h"
#include "sp_h5_internal.h"
#include "sp_h5_wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    static FILE *sink;
    if (fd < 0) {
        fd = memfd_create("sp-fuzz-wire", MFD_CLOEXEC);
        if (fd < 0)
            abort();
        sink = fopen("/dev/null", "w");
        setenv(SP_READ_LIMIT_ENV, "64M", 1);
    }
    if (ftruncate(fd, 0) != 0 || (size && pwrite(fd, data, size, 0) != (ssize_t)size) ||
        lseek(fd, 0, SEEK_SET) != 0)
        abort();
    sp__read_budget b;
    if (sp__read_budget_begin(&b, "fuzz", -1) != 0)
        abort();
    sp_run *run = NULL;
    bool timed_out;
    int rc = sp__h5_wire_read(fd, -1, "fuzz", 0, &run, &timed_out);
    sp__read_budget_end(&b);
    if (rc != 0)
        return 0;
    if (sp_run_analyze(run) == 0) {
        int64_t t0, t1;
        sp_run_time_span(run, &t0, &t1);
        sp_print_summary(run, "fuzz.h5", sink);
        sp_print_inspect(run, SP_SORT_TOTAL, NULL, sink);
    }
    sp_run_free(run);
    return 0;
}
