/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_write_mpi_internal.h - pieces shared by the MPI writers
 * (sp_h5_write_mpi*.c; SP_WITH_MPI only).
 *
 * The serial writer (sp_h5_write.c) writes a whole run in one pass. The MPI
 * writers need the same objects in separate steps (the root on rank 0, one
 * rank group at a time, call columns allocated now and written later through
 * MPI-IO), so these functions create exactly the objects of sp_h5_write(),
 * with the same names (sp_schema.h), types, storage settings and creation
 * properties, one piece at a time. Tests read every MPI file back with the C
 * reader and with h5py from SCHEMA.md alone.
 */
#ifndef SP_H5_WRITE_MPI_INTERNAL_H
#define SP_H5_WRITE_MPI_INTERNAL_H

#ifdef SP_WITH_MPI

#include <hdf5.h>
#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_h5_internal.h"
#include "sp_h5_write_mpi.h"

#pragma GCC visibility push(hidden)

/* One write: the published path (named in every message) and the storage
 * settings of sp_h5_write(). */
typedef struct sp__h5w {
    const char *path;
    sp__h5_write_options o;
    MPI_Comm comm;
    int rank, size;
} sp__h5w;

/* ---- layout pieces (sp_h5_write_mpi_layout.c); 0 or SP_EIO / SP_ENOMEM ---- */

/* Create (truncate) tmp with the file creation and access properties of
 * sp_h5_write(); fapl_driver: H5P_DEFAULT for POSIX I/O, or a file access
 * list with a driver already set (its format bounds are set here). */
int sp__h5w_create(const sp__h5w *w, const char *tmp, hid_t *file);

/* Open tmp for writing: serially (mpio false), or collectively through
 * MPI-IO on w->comm (mpio true). */
int sp__h5w_open(const sp__h5w *w, const char *tmp, bool mpio, hid_t *file);

/* The root: scope_profiler_schema, num_ranks, /metadata, /region_names. */
int sp__h5w_root(const sp__h5w *w, hid_t file, const sp_run *run);

/* The group /rank<r> with its attributes (clock: its measurements, NULL for
 * none), metadata, thread table, dropped table and call table. calls_data:
 * write the call columns; false: allocate them (no fill value) for a later
 * writer, the rank's call columns may then be NULL. */
int sp__h5w_rank(const sp__h5w *w, hid_t file, const sp_run *run, size_t r,
                 const sp__h5_mpi_clock *clock, bool calls_data);

/* Everything sp_h5_write() would refuse in the root (region table, run
 * metadata; checked on rank 0 only, which writes them) or in rank r
 * (columns, order, parents, names): SP_EINVAL. */
int sp__h5w_check(const sp_run *run, size_t r, const char *path);

/* ---- publishing (sp_h5_write_mpi_util.c) ---- */

/* "<path>.tmp.<pid of rank 0>", the same on every rank (collective). */
int sp__h5w_tmp_name(const sp__h5w *w, char **tmp);

/* fsync tmp (every rank that wrote to it: each syncs its own writes). */
int sp__h5w_sync(const sp__h5w *w, const char *tmp);

/* The end of every MPI write (collective): agree on this rank's rc; if every
 * rank succeeded, rank 0 renames tmp to the path and the ranks agree on
 * that; on any failure rank 0 removes tmp. Returns the agreed status. */
int sp__h5w_publish(const sp__h5w *w, int rc, const char *tmp);

/* After a failed agreement: rank 0 removes tmp (if it exists). */
void sp__h5w_discard(const sp__h5w *w, const char *tmp);

/* ---- the token pass (sp_h5_write_mpi_token.c) ---- */

/* Collective: rank 0 creates tmp with the root and /rank0, then each rank
 * in turn appends /rank<r> (calls_data: with its call columns written, else
 * only allocated). Returns this rank's status, not agreed (a rank after a
 * failed one writes nothing and returns 0: the failing rank reports). */
int sp__h5w_token_pass(const sp__h5w *w, const sp_run *run, const sp__h5_mpi_clock *clock,
                       const char *tmp, bool calls_data);

/* Tests only: the rank whose part of the write fails on purpose ("injected
 * failure"), after the temporary file exists; -1 (the default): none. */
extern int sp__h5_mpi_fail_rank;

/* The injected failure on this rank, if any: 0 or SP_EIO. */
int sp__h5w_injected_failure(const sp__h5w *w);

/* The writers (sp_h5_write_mpi_parallel.c, sp_h5_write_mpi_token.c). */
int sp__h5_write_mpi_parallel(const sp__h5w *w, const sp_run *run, const sp__h5_mpi_clock *clock);
int sp__h5_write_mpi_token(const sp__h5w *w, const sp_run *run, const sp__h5_mpi_clock *clock);

#pragma GCC visibility pop

#endif /* SP_WITH_MPI */

#endif /* SP_H5_WRITE_MPI_INTERNAL_H */
