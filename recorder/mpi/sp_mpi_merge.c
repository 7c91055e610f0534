/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_merge.c - turn a rank's one-rank run into its part of the job's
 * run: one region-name table for all ranks (region names differ per rank),
 * and this rank's data at its rank index.
 *
 *   1. every rank sends its region names to rank 0 (MPI_Gather of the
 *      sizes, MPI_Gatherv of the NUL-separated names);
 *   2. rank 0 builds the global table (its own names first, then each rank's
 *      new names in rank order) with a hash table, and the map local id ->
 *      global id of every rank;
 *   3. rank 0 sends each rank its map (MPI_Scatterv) and broadcasts the
 *      table (MPI_Bcast);
 *   4. each rank rewrites its region ids (calls, dropped counts, line and
 *      counter tables); region flags are OR-ed over the ranks.
 *
 * Only names and ids travel, never calls.
 */
#ifdef SP_WITH_MPI

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_mpi_internal.h"
#include "sp_strtab.h"

#define OOM() sp__error(SP_ENOMEM, "sp_finalize: out of memory merging the ranks' regions")

/* ---- steps ---- */

/* Names as one NUL-separated buffer. */
static char *pack_names(char *const *names, size_t n, size_t *len)
{
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += strlen(names[i]) + 1;
    char *buf = malloc(total ? total : 1), *p = buf;
    if (!buf)
        return NULL;
    for (size_t i = 0; i < n; i++) {
        size_t l = strlen(names[i]) + 1;
        memcpy(p, names[i], l);
        p += l;
    }
    *len = total;
    return buf;
}

/* Rank 0: the global table from everyone's names, and every rank's map
 * (maps[off[r] ...] for rank r, in names' order). */
typedef struct gathered {
    char *names;      /* all ranks' buffers, back to back */
    int *len, *off;   /* bytes per rank */
    int *nmap, *moff; /* names per rank, and where their map starts */
    int32_t *map;
} gathered;

static int build_global(const gathered *g, int size, sp_strtab *t)
{
    for (int r = 0; r < size; r++) {
        const char *p = g->names + g->off[r], *end = p + g->len[r];
        for (int i = 0; i < g->nmap[r]; i++) {
            int32_t id = sp_strtab_intern(t, p);
            if (id < 0)
                return OOM();
            g->map[g->moff[r] + i] = id;
            p += strlen(p) + 1;
            if (p > end)
                return sp__error(SP_EIO, "sp_finalize: rank %d sent malformed region names", r);
        }
    }
    return 0;
}

/* Rewrite this rank's region ids through map (local id -> global id): calls,
 * dropped counts, and the recording modes' tables (line samples, counters,
 * region flags, which become nglobal entries to be OR-ed across ranks). */
static int remap(sp_run *run, sp_rank_data *rk, const int32_t *map, size_t nlocal, size_t nglobal)
{
    uint64_t *dropped = calloc(nglobal ? nglobal : 1, sizeof *dropped);
    int32_t *flags = calloc(nglobal ? nglobal : 1, sizeof *flags);
    if (!dropped || !flags) {
        free(dropped);
        free(flags);
        return OOM();
    }
    for (size_t i = 0; rk->dropped && i < nlocal; i++)
        dropped[map[i]] += rk->dropped[i];
    free(rk->dropped);
    rk->dropped = dropped;
    for (size_t k = 0; k < rk->ncalls; k++)
        rk->region[k] = map[rk->region[k]];
    for (size_t k = 0; rk->line_region && k < rk->nlines; k++)
        if (rk->line_region[k] >= 0 && (size_t)rk->line_region[k] < nlocal)
            rk->line_region[k] = map[rk->line_region[k]];
    for (size_t k = 0; rk->counter_region && k < rk->ncounters; k++)
        if (rk->counter_region[k] >= 0 && (size_t)rk->counter_region[k] < nlocal)
            rk->counter_region[k] = map[rk->counter_region[k]];
    for (size_t i = 0; run->region_flags && i < run->nregion_flags && i < nlocal; i++)
        flags[map[i]] |= run->region_flags[i];
    free(run->region_flags);
    run->region_flags = flags;
    run->nregion_flags = nglobal;
    return 0;
}

/* Region flags of all ranks, OR-ed (collective); none left: no table. */
static int merge_flags(sp_run *run, MPI_Comm comm)
{
    if (run->nregion_flags > INT_MAX)
        return sp__error(SP_EINVAL, "sp_finalize: too many regions to merge their flags");
    if (PMPI_Allreduce(MPI_IN_PLACE, run->region_flags, (int)run->nregion_flags, MPI_INT32_T,
                       MPI_BOR, comm) != MPI_SUCCESS)
        return sp__error(SP_EIO, "sp_finalize: MPI_Allreduce of the region flags failed");
    bool any = false;
    for (size_t i = 0; i < run->nregion_flags && !any; i++)
        any = run->region_flags[i] != 0;
    if (!any) {
        free(run->region_flags);
        run->region_flags = NULL;
        run->nregion_flags = 0;
    }
    return 0;
}

/* Replace run's region table by the n names packed in buf. */
static int unpack_table(sp_run *run, const char *buf, size_t len, size_t n)
{
    char **names = calloc(n ? n : 1, sizeof *names);
    if (!names)
        return OOM();
    const char *p = buf, *end = buf + len;
    for (size_t i = 0; i < n; i++) {
        size_t l = strnlen(p, (size_t)(end - p));
        if (p + l >= end || !(names[i] = strdup(p))) {
            for (size_t j = 0; j < i; j++)
                free(names[j]);
            free(names);
            return p + l >= end ? sp__error(SP_EIO, "sp_finalize: malformed region table") : OOM();
        }
        p += l + 1;
    }
    for (size_t i = 0; i < run->nregions; i++)
        free(run->region_names[i]);
    free(run->region_names);
    run->region_names = names;
    run->nregions = n;
    sp_run_regions_changed(run);
    return 0;
}

/* This rank's data at index rank of size empty ranks. */
static int spread(sp_run *run, int rank, int size)
{
    sp_rank_data *ranks = calloc((size_t)size, sizeof *ranks);
    if (!ranks)
        return OOM();
    for (int r = 0; r < size; r++)
        ranks[r].rank = r;
    ranks[rank] = run->ranks[0];
    ranks[rank].rank = rank;
    free(run->ranks);
    run->ranks = ranks;
    run->nranks = (size_t)size;
    return 0;
}

#define MPI_OK(call, what)                                                                         \
    do {                                                                                           \
        if (rc == 0 && (call) != MPI_SUCCESS)                                                      \
            rc = sp__error(SP_EIO, "sp_finalize: %s failed merging the region tables", what);      \
    } while (0)

int sp__mpi_merge_run(sp_run *run, MPI_Comm comm, int rank, int size)
{
    int rc = 0;
    gathered g;
    memset(&g, 0, sizeof g);
    sp_strtab t = {0};
    char *mine = NULL, *global = NULL;
    int32_t *mymap = NULL;
    size_t mylen = 0;
    long long glen = 0, gcount = 0;

    if (run->nregions > INT_MAX || !(mine = pack_names(run->region_names, run->nregions, &mylen)))
        rc = OOM();
    else if (mylen > INT_MAX)
        rc = sp__error(SP_EINVAL, "sp_finalize: this rank's region names exceed 2 GiB");
    if (rank == 0) {
        g.len = calloc((size_t)size, sizeof *g.len);
        g.off = calloc((size_t)size, sizeof *g.off);
        g.nmap = calloc((size_t)size, sizeof *g.nmap);
        g.moff = calloc((size_t)size, sizeof *g.moff);
        if (rc == 0 && (!g.len || !g.off || !g.nmap || !g.moff))
            rc = OOM();
    }
    if ((rc = sp__mpi_agree(comm, rc)) != 0)
        goto done;

    /* 1. sizes and names to rank 0 */
    int counts[2] = {(int)mylen, (int)run->nregions}, *all_counts = NULL;
    if (rank == 0 && !(all_counts = malloc(2 * (size_t)size * sizeof *all_counts)))
        rc = OOM();
    if ((rc = sp__mpi_agree(comm, rc)) != 0)
        goto done;
    MPI_OK(PMPI_Gather(counts, 2, MPI_INT, all_counts, 2, MPI_INT, 0, comm), "MPI_Gather");
    if (rank == 0 && rc == 0) {
        long long bytes = 0, nmap = 0;
        for (int r = 0; r < size; r++) {
            g.len[r] = all_counts[2 * r];
            g.nmap[r] = all_counts[2 * r + 1];
            g.off[r] = (int)(bytes < INT_MAX ? bytes : 0);
            g.moff[r] = (int)(nmap < INT_MAX ? nmap : 0);
            bytes += g.len[r];
            nmap += g.nmap[r];
        }
        if (bytes > INT_MAX || nmap > INT_MAX)
            rc = sp__error(SP_EINVAL, "sp_finalize: the ranks' region names exceed 2 GiB");
        else if (!(g.names = malloc(bytes ? (size_t)bytes : 1)) ||
                 !(g.map = malloc((nmap ? (size_t)nmap : 1) * sizeof *g.map)))
            rc = OOM();
    }
    free(all_counts);
    if ((rc = sp__mpi_agree(comm, rc)) != 0)
        goto done;
    MPI_OK(PMPI_Gatherv(mine, (int)mylen, MPI_CHAR, g.names, g.len, g.off, MPI_CHAR, 0, comm),
           "MPI_Gatherv");

    /* 2. the global table and the maps, on rank 0 */
    if (rank == 0 && rc == 0 && (rc = build_global(&g, size, &t)) == 0) {
        size_t len = 0;
        if (!(global = pack_names(t.s, t.n, &len)))
            rc = OOM();
        else if (len > INT_MAX)
            rc = sp__error(SP_EINVAL, "sp_finalize: the region table exceeds 2 GiB");
        glen = (long long)len;
        gcount = (long long)t.n;
    }
    if (!(mymap = malloc((run->nregions ? run->nregions : 1) * sizeof *mymap)))
        rc = OOM();
    if ((rc = sp__mpi_agree(comm, rc)) != 0)
        goto done;

    /* 3. maps back, table to everyone */
    MPI_OK(PMPI_Scatterv(g.map, g.nmap, g.moff, MPI_INT32_T, mymap, (int)run->nregions, MPI_INT32_T,
                         0, comm),
           "MPI_Scatterv");
    long long sizes[2] = {glen, gcount};
    MPI_OK(PMPI_Bcast(sizes, 2, MPI_LONG_LONG, 0, comm), "MPI_Bcast");
    if (rc == 0 && rank != 0 && !(global = malloc(sizes[0] ? (size_t)sizes[0] : 1)))
        rc = OOM();
    if ((rc = sp__mpi_agree(comm, rc)) != 0)
        goto done;
    MPI_OK(PMPI_Bcast(global, (int)sizes[0], MPI_CHAR, 0, comm), "MPI_Bcast");

    /* 4. this rank's ids, the table, the rank index */
    if (rc == 0) {
        for (size_t i = 0; i < run->nregions && rc == 0; i++)
            if (mymap[i] < 0 || mymap[i] >= sizes[1])
                rc = sp__error(SP_EIO, "sp_finalize: rank 0 sent a bad region map");
    }
    size_t nlocal = run->nregions;
    if (rc == 0 && (rc = unpack_table(run, global, (size_t)sizes[0], (size_t)sizes[1])) == 0 &&
        (rc = remap(run, &run->ranks[0], mymap, nlocal, run->nregions)) == 0)
        rc = spread(run, rank, size);
    if ((rc = sp__mpi_agree(comm, rc)) == 0)
        rc = sp__mpi_agree(comm, merge_flags(run, comm));
done:
    sp_strtab_free(&t);
    free(g.names);
    free(g.len);
    free(g.off);
    free(g.nmap);
    free(g.moff);
    free(g.map);
    free(mine);
    free(global);
    free(mymap);
    return rc;
}

#else
typedef int sp__mpi_merge_unused; /* ISO C: no empty translation unit */
#endif /* SP_WITH_MPI */
