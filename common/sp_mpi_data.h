/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_data.h - a run's MPI messages and collectives in memory (internal,
 * shared by the recorder's writer, h5schema and analysis): per rank the
 * communicators it used, the call paths of its MPI calls and the two record
 * tables of /rank<N>/mpi (h5schema/sp_schema_mpi.h names and documents the
 * columns; SCHEMA.md "MPI messages and collectives").
 *
 * The tables are a run's second, much smaller stream beside its calls: one
 * row per message side and per collective call, never per call of the
 * program, so an analysis of who waits for whom never needs the calls.
 *
 * Ownership: an sp_mpi_data owns every array reachable from it
 * (sp_mpi_data_free). Times are ns on the rank's own clock (the reader
 * converts ticks with the rank's calibration); add clock_offset_ns to put
 * them on rank 0's clock.
 */
#ifndef SP_MPI_DATA_H
#define SP_MPI_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "sp_schema_mpi.h"
#include "sp_strtab.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Point-to-point rows (one per send, receive or probe), as columns. */
typedef struct sp_mpi_p2p {
    size_t n, cap;
#define SP__MPI_FIELD(name, type, ctype, unit, desc) ctype *name;
    SP_MPI_P2P_COLUMNS(SP__MPI_FIELD)
} sp_mpi_p2p;

/* Collective rows (one per call), as columns. */
typedef struct sp_mpi_coll {
    size_t n, cap;
    SP_MPI_COLL_COLUMNS(SP__MPI_FIELD)
#undef SP__MPI_FIELD
} sp_mpi_coll;

/* One row of each table, as values (for appending). */
typedef struct sp_mpi_p2p_row {
#define SP__MPI_VALUE(name, type, ctype, unit, desc) ctype name;
    SP_MPI_P2P_COLUMNS(SP__MPI_VALUE)
} sp_mpi_p2p_row;

typedef struct sp_mpi_coll_row {
    SP_MPI_COLL_COLUMNS(SP__MPI_VALUE)
#undef SP__MPI_VALUE
} sp_mpi_coll_row;

typedef struct sp_mpi_rank {
    int present;                 /* the rank recorded messages (its file has mpi/) */
    int64_t clock_offset_ns;     /* as sp_rank_data: add to put times on rank 0's clock */
    int64_t clock_offset_err_ns;

    size_t ncomms;
    uint64_t *comm_end;          /* end of communicator c's members in comm_members */
    int32_t *comm_members;       /* MPI_COMM_WORLD ranks, communicator rank order */
    int32_t *comm_flags;         /* SP_MPI_COMM_* bits */

    size_t npaths;
    int32_t *path_parent;        /* enclosing path, -1 at the top */
    int32_t *path_region;        /* index into sp_mpi_data.region_names */

    sp_mpi_p2p p2p;
    sp_mpi_coll coll;
    uint64_t records_dropped;    /* records the recorder could not keep */
    uint64_t untracked;          /* completions of requests whose start it did not see */
} sp_mpi_rank;

typedef struct sp_mpi_data {
    size_t nranks;
    sp_mpi_rank *ranks;          /* index = rank */
    sp_strtab names;             /* the regions the paths name (path_region: ids) */
} sp_mpi_data;

/* A new table set for nranks ranks (all absent). NULL on out of memory. */
sp_mpi_data *sp_mpi_data_new(size_t nranks);
void sp_mpi_data_free(sp_mpi_data *d);

/* Free one rank's arrays (zeroed afterwards). */
void sp_mpi_rank_clear(sp_mpi_rank *rk);

/* Append a row; 0 or SP_ENOMEM (nothing appended). */
int sp_mpi_p2p_add(sp_mpi_p2p *t, const sp_mpi_p2p_row *row);
int sp_mpi_coll_add(sp_mpi_coll *t, const sp_mpi_coll_row *row);

/* Room for n rows in all (columns allocated, n untouched). 0 or SP_ENOMEM. */
int sp_mpi_p2p_reserve(sp_mpi_p2p *t, size_t rows);
int sp_mpi_coll_reserve(sp_mpi_coll *t, size_t rows);

/* Row i as values. */
void sp_mpi_p2p_get(const sp_mpi_p2p *t, size_t i, sp_mpi_p2p_row *row);
void sp_mpi_coll_get(const sp_mpi_coll *t, size_t i, sp_mpi_coll_row *row);

/* Forget the rows (memory kept) / free the columns. */
void sp_mpi_p2p_clear(sp_mpi_p2p *t);
void sp_mpi_coll_clear(sp_mpi_coll *t);
void sp_mpi_p2p_free(sp_mpi_p2p *t);
void sp_mpi_coll_free(sp_mpi_coll *t);

/* Members of communicator c of rank rk (count in *n). */
const int32_t *sp_mpi_comm_members(const sp_mpi_rank *rk, size_t c, size_t *n);

#ifdef __cplusplus
}
#endif

#endif /* SP_MPI_DATA_H */
