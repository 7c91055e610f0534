/* SPDX-License-Identifier: MIT */
/*
 * main.c - the scope-profiler command: sp__cli_main (cli_main.c) does the
 * work. Under an MPI launcher with several processes (`mpirun -n N
 * scope-profiler summary RUN`), the verbs that read runs run in the MPI
 * helper instead (cli/mpi/cli_mpi.c, built when Open MPI is found and
 * installed next to the preload libraries): it spreads the run's ranks over
 * the processes and rank 0 prints what this program prints. This program
 * itself never links MPI. Without the helper, rank 0 says so and runs the
 * verb alone; the other processes exit 0 without output.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_verbs.h"

/* Verbs the helper runs: those that read runs and print once. */
static const char *const mpi_verbs[] = {"summary", "inspect", "ranks", "report", "check"};

/* A launcher's value from the first of names that is set, or -1. */
static long launcher_value(const char *const *names)
{
    for (; *names; names++) {
        const char *v = getenv(*names);
        if (v && *v)
            return strtol(v, NULL, 10);
    }
    return -1;
}

static long launcher_size(void)
{
    static const char *const n[] = {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE",
                                    "SLURM_STEP_NUM_TASKS", NULL};
    return launcher_value(n);
}

static long launcher_rank(void)
{
    static const char *const n[] = {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK",
                                    "SLURM_PROCID", NULL};
    return launcher_value(n);
}

/* The verb: the first argument that is not a global option. */
static const char *verb_of(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "--read-limit", 12) == 0) {
            i += argv[i][12] == '=' ? 0 : 1;
            continue;
        }
        return argv[i];
    }
    return NULL;
}

int main(int argc, char **argv)
{
    const char *verb = verb_of(argc, argv);
    bool spread = false;
    for (size_t i = 0; verb && i < sizeof mpi_verbs / sizeof *mpi_verbs; i++)
        spread |= strcmp(verb, mpi_verbs[i]) == 0;
    if (spread && launcher_size() > 1) {
        char helper[PATH_MAX];
        bool first = launcher_rank() <= 0;
        if (sp__cli_find_private("scope-profiler-mpi", "SCOPE_PROFILER_MPI_HELPER", verb, true,
                                 helper, sizeof helper) == 0) {
            execv(helper, argv);
            if (first)
                sp__cli_error("%s: cannot run the MPI helper '%s': %m", verb, helper);
        } else if (first) {
            sp__cli_error("%s: this " SP_CLI_NAME " was built without MPI (no "
                          "scope-profiler-mpi next to it): rank 0 reads the run alone",
                          verb);
        }
        /* What the serial command prints, once. */
        if (!first)
            return 0;
    }
    return sp__cli_main(argc, argv);
}
