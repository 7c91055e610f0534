/* SPDX-License-Identifier: MIT */
/*
 * make_seeds.c - seed corpus of fuzz_wire: each run file given, read, and
 * written as the stream a reading process sends back.
 *   make_seeds OUTDIR FILE.h5...
 */
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "scope_profiler.h"
#include "sp_h5.h"
#include "sp_h5_wire.h"

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: make_seeds OUTDIR FILE.h5...\n");
        return 2;
    }
    int made = 0;
    for (int i = 2; i < argc; i++) {
        int st;
        sp_run *run = sp_h5_read(argv[i], &st);
        if (!run)
            continue; /* refused files are no seeds for the analysis */
        const char *base = strrchr(argv[i], '/');
        char out[4096];
        snprintf(out, sizeof out, "%s/%s.wire", argv[1], base ? base + 1 : argv[i]);
        int fd = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fd >= 0 && sp__h5_wire_write(fd, run, 0, NULL) == 0)
            made++;
        if (fd >= 0)
            close(fd);
        sp_run_free(run);
    }
    printf("make_seeds: %d seeds in %s\n", made, argv[1]);
    return made ? 0 : 1;
}
