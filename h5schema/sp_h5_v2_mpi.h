/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_v2_mpi.h - the mpi/ group of a rank (SCHEMA.md "MPI messages and
 * collectives") in the files the recorder writes: created in the part with
 * the other tables, appended to by the writer thread with each batch,
 * copied into the finished file as it is. Internal to h5schema.
 */
#ifndef SP_H5_V2_MPI_H
#define SP_H5_V2_MPI_H

#include "sp_h5_v2_io.h"
#include "sp_schema_mpi.h"

/* The part's open mpi/ tables. */
typedef struct sp_v2_mpi_cols sp_v2_mpi_cols;

/* Create /rank<N>/mpi with every table empty under rank group rg. */
int sp_v2_mpi_create(hid_t rg, sp_v2_compress c, const char *path, sp_v2_mpi_cols **out);

/* Append a batch (new communicator and path rows first, so no record names
 * a row the file does not have). */
int sp_v2_mpi_append(sp_v2_mpi_cols *m, const sp_v2_mpi_batch *b, const char *path);

/* Close the tables (NULL: no-op). */
void sp_v2_mpi_close(sp_v2_mpi_cols *m);

/* The finished file: copy /rank<N>/mpi of the open part file into rg (if
 * the part has one) and set its counters. */
int sp_v2_mpi_final_copy(hid_t part, int32_t rank, hid_t rg, uint64_t records_dropped,
                         uint64_t untracked, const char *path);

#endif /* SP_H5_V2_MPI_H */
