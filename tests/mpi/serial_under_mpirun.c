/* SPDX-License-Identifier: MIT */
/*
 * serial_under_mpirun.c - a program linked with the serial library
 * (libscope_profiler) started by mpirun with several processes (issue 13):
 *   serial_under_mpirun record DIR   each rank records 10 * (rank + 1)
 *                                    calls of "rank_work", file DIR/run.h5
 *   serial_under_mpirun check DIR NP every rank's file DIR/run.rank<N>.h5 is
 *                                    there with its calls and `mpi_misuse`,
 *                                    and no DIR/run.h5
 * The rank comes from the launcher's environment: the program knows no MPI.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "scope_profiler.h"
#include "sp_model.h"

static long launcher_rank(void)
{
    const char *v = getenv("OMPI_COMM_WORLD_RANK");
    if (!v)
        v = getenv("PMI_RANK");
    return v ? atol(v) : -1;
}

static int record(const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/run.h5", dir);
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "FAIL: sp_setup: %s\n", sp_last_error());
        return 1;
    }
    sp_region *r = sp_region_get("rank_work");
    long rank = launcher_rank();
    for (long i = 0; i < 10 * (rank + 1); i++) {
        sp_region_begin(r);
        sp_region_end(r);
    }
    int rc = sp_finalize(true, NULL);
    if (rc != 0) {
        fprintf(stderr, "FAIL: sp_finalize: %s\n", sp_last_error());
        return 1;
    }
    return 0;
}

static int check(const char *dir, int np)
{
    char path[4096];
    int bad = 0;
    snprintf(path, sizeof path, "%s/run.h5", dir);
    if (access(path, F_OK) == 0) {
        printf("FAIL: %s exists: one rank's file would hide the others\n", path);
        bad++;
    }
    for (int rank = 0; rank < np; rank++) {
        snprintf(path, sizeof path, "%s/run.rank%d.h5", dir, rank);
        sp_run *run = sp_read_h5(path);
        if (!run) {
            printf("FAIL: rank %d: %s: %s\n", rank, path, sp_last_error());
            bad++;
            continue;
        }
        int32_t id = sp_run_region_id(run, "rank_work");
        size_t n = 0;
        for (size_t i = 0; id >= 0 && i < run->ranks[0].ncalls; i++)
            n += run->ranks[0].region[i] == id;
        const char *why = sp_kvlist_get(&run->meta, "mpi_misuse");
        char want[32];
        snprintf(want, sizeof want, "this is rank %d's", rank);
        if (n != (size_t)(10 * (rank + 1))) {
            printf("FAIL: rank %d: %zu calls of rank_work, expected %d\n", rank, n,
                   10 * (rank + 1));
            bad++;
        } else if (!why || !strstr(why, want) || !strstr(why, "scope_profiler_mpi")) {
            printf("FAIL: rank %d: metadata mpi_misuse is '%s'\n", rank, why ? why : "(none)");
            bad++;
        } else {
            printf("rank %d: %s: %zu calls, mpi_misuse: %s\n", rank, path, n, why);
        }
        sp_run_free(run);
    }
    return bad != 0;
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "record") == 0)
        return record(argv[2]);
    if (argc == 4 && strcmp(argv[1], "check") == 0)
        return check(argv[2], atoi(argv[3]));
    fprintf(stderr, "usage: %s record DIR | check DIR NP\n", argv[0]);
    return 2;
}
