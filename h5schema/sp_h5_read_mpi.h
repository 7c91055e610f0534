/* SPDX-License-Identifier: MIT */
/* sp_h5_read_mpi.h - reading a rank's mpi/ group (sp_h5_read_mpi.c);
 * internal to h5schema. */
#ifndef SP_H5_READ_MPI_H
#define SP_H5_READ_MPI_H

#include "sp_h5_read_v2.h"

/* What the rank's reader knows that the mpi/ tables refer to. */
typedef struct sp__mpi_read_ctx {
    const char *file;
    bool complete;                 /* a finished file: column lengths must agree */
    size_t nrows;                  /* rows of the rank's region table */
    const char *const *row_names;  /* their names (as the run has them) */
    /* The rank's tick -> ns map, asked only when there are records (a
     * killed run that never flushed may have no usable calibration). */
    int (*clock)(void *arg, sp_v2_clock_map *m);
    void *clock_arg;
} sp__mpi_read_ctx;

/* Read /rank<r>/mpi of rank group rg, if it has one, into run->mpi (made
 * on the first rank that has one) and check it row by row. 0, SP_EFORMAT,
 * SP_ENOMEM. */
int sp__h5_read_mpi_rank(const sp__mpi_read_ctx *in, hid_t rg, sp_run *run, size_t r);

#endif
