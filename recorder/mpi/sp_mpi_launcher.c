/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_launcher.c - the serial library under an MPI launcher (issue 13):
 * a program linked with libscope_profiler (not libscope_profiler_mpi) and
 * started by mpirun/mpiexec/srun with several processes would have every
 * rank write the same file, and one rank's run would silently replace the
 * others'. Instead each rank writes its own file, name.rank<N>.h5 (the
 * Python package's serial build names them the same way and passes such a
 * name already: the suffix is never doubled), and every file says why in
 * its metadata (`mpi_misuse`). The MPI library does the real thing
 * (sp_mpi_session.c): here only stubs for it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_mpi.h"

#ifndef SP_WITH_MPI

static char note[512];
static int note_rank = -1;

/* A non-negative decimal environment value, or -1. */
static long env_num(const char *name)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return -1;
    char *end;
    long n = strtol(v, &end, 10);
    return *end || n < 0 ? -1 : n;
}

/* This process's rank and the job's size according to the launcher; false
 * when no launcher started several processes. */
static bool launcher_place(long *rank, long *size, const char **who)
{
    struct {
        const char *rank, *size, *who;
    } vars[] = {
        {"OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", "Open MPI"},
        {"PMI_RANK", "PMI_SIZE", "MPICH/Hydra"},
        {"PMIX_RANK", "PMIX_SIZE", "PMIx"},
        {"PMIX_RANK", "MPI_LOCALNRANKS", "PMIx"},
        /* srun only (SLURM_STEP_ID): a batch script has SLURM_NTASKS too. */
        {"SLURM_PROCID", "SLURM_STEP_NUM_TASKS", "Slurm srun"},
        {"SLURM_PROCID", "SLURM_NTASKS", "Slurm srun"},
    };
    for (size_t i = 0; i < sizeof vars / sizeof *vars; i++) {
        if (strncmp(vars[i].rank, "SLURM_", 6) == 0 && !getenv("SLURM_STEP_ID"))
            continue;
        long r = env_num(vars[i].rank), s = env_num(vars[i].size);
        if (r >= 0 && s > 1 && r < s) {
            *rank = r, *size = s, *who = vars[i].who;
            return true;
        }
    }
    return false;
}

/* "dir/run.h5" -> "dir/run.rank3.h5" ("run" -> "run.rank3.h5"), as the
 * Python package's os.path.splitext; unchanged if it already ends so. */
static char *rank_path(const char *path, long rank)
{
    char suffix[48];
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    if (dot == base) /* ".h5": a hidden name, no extension */
        dot = NULL;
    const char *ext = dot ? dot : ".h5";
    size_t stem = dot ? (size_t)(dot - path) : strlen(path);
    snprintf(suffix, sizeof suffix, ".rank%ld", rank);
    size_t sl = strlen(suffix);
    if (stem >= sl && memcmp(path + stem - sl, suffix, sl) == 0)
        return strdup(path); /* named per rank already (the Python binding) */
    size_t n = stem + sl + strlen(ext) + 1;
    char *out = malloc(n);
    if (out)
        snprintf(out, n, "%.*s%s%s", (int)stem, path, suffix, ext);
    return out;
}

int sp__mpi_serial_place(char **file_path)
{
    long rank, size;
    const char *who;
    note[0] = '\0';
    note_rank = -1;
    if (!launcher_place(&rank, &size, &who))
        return 0;
    if (file_path && *file_path) {
        char *p = rank_path(*file_path, rank);
        if (!p)
            return sp__error(SP_ENOMEM, "sp_setup: out of memory");
        free(*file_path);
        *file_path = p;
    }
    snprintf(note, sizeof note,
             "the serial library (libscope_profiler) ran under an MPI launcher (%s) with %ld "
             "processes: each rank wrote its own file <name>.rank<N>.h5, this is rank %ld's; "
             "link scope_profiler_mpi (pkg-config scope-profiler-mpi) for one file with every "
             "rank",
             who, size, rank);
    note_rank = (int)rank;
    return 0;
}

const char *sp__mpi_misuse_note(int *rank)
{
    if (rank)
        *rank = note_rank;
    return note[0] ? note : NULL;
}

#else /* the MPI library: every rank is in the one file */

int sp__mpi_serial_place(char **file_path)
{
    (void)file_path;
    return 0;
}

const char *sp__mpi_misuse_note(int *rank)
{
    if (rank)
        *rank = -1;
    return NULL;
}

#endif
