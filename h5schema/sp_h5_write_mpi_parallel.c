/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_write_mpi_parallel.c - the parallel MPI writer: the call data of
 * every rank goes to the file at the same time through MPI-IO.
 *
 *   1. every rank checks its data; the ranks agree;
 *   2. layout: the token pass of the token writer without the call data:
 *      rank 0 creates the file with the root, then each rank in turn appends
 *      its rank group (metadata, threads, dropped counts, ...) with its call
 *      columns allocated at their exact size but not written (no fill
 *      value); the ranks agree;
 *   3. all ranks open the file through MPI-IO (H5Pset_fapl_mpio, collective)
 *      and each writes its own five call columns with independent writes
 *      into the allocated space, all ranks at once; close (collective),
 *      fsync;
 *   4. publish: agree, rank 0 renames (or removes) the temporary file.
 *
 * Why the layout is not created collectively: HDF5 1.10 refuses to write
 * variable-length strings (region and thread names, line tables) through
 * MPI-IO ("Parallel IO does not support writing VL datatypes"), and
 * collective creation would make every rank repeat every rank's metadata
 * operations with identical arguments, so every rank would need everybody's
 * names and tables. In step 2 only sizes and small tables are written and no
 * data crosses ranks but a token; the call columns, the bulk of the file
 * (32 bytes per call), are written in parallel.
 */
#ifdef SP_WITH_MPI

#include <stdio.h>
#include <stdlib.h>

#include "sp_error.h"
#include "sp_h5_write_mpi_internal.h"

static int write_own_calls(const sp__h5w *w, hid_t file, const sp_rank_data *rk)
{
    const struct {
        sp_schema_id id;
        const void *data;
    } cols[] = {{SP_SN_CALL_START, rk->start_ns},
                {SP_SN_CALL_END, rk->end_ns},
                {SP_SN_CALL_REGION, rk->region},
                {SP_SN_CALL_THREAD, rk->thread},
                {SP_SN_CALL_PARENT, rk->parent}};
    int rc = 0;
    char gname[96];
    snprintf(gname, sizeof gname, "/%s%d/%s", SP_NAME(RANK_GROUP), w->rank, SP_NAME(CALLS));
    /* Opening without modifying may be independent in parallel HDF5. */
    hid_t g = H5Gopen2(file, gname, H5P_DEFAULT);
    if (g < 0)
        return sp__h5_error(SP_EIO, "cannot write '%s': cannot open %s", w->path, gname);
    for (size_t i = 0; rc == 0 && i < sizeof cols / sizeof *cols; i++) {
        const sp_schema_entry *e = &sp__schema[cols[i].id];
        hid_t mtype = sp__h5_mem_type(e->type);
        hid_t d = H5Dopen2(g, e->name, H5P_DEFAULT);
        /* Independent transfer (the default): no rank waits for another, and
         * the space was allocated in step 2, so no metadata changes. */
        if (mtype < 0 || d < 0 ||
            H5Dwrite(d, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, cols[i].data) < 0)
            rc = sp__h5_error(SP_EIO,
                              "cannot write '%s': writing %s/%s (%zu elements) through MPI-IO",
                              w->path, gname, e->name, rk->ncalls);
        if (d >= 0)
            H5Dclose(d);
        sp__h5_type_close(mtype);
    }
    H5Gclose(g);
    return rc;
}

static int write_calls_parallel(const sp__h5w *w, const sp_run *run, const char *tmp)
{
    hid_t file = H5I_INVALID_HID;
    int rc = sp__h5w_open(w, tmp, true, &file); /* collective */
    if (rc == 0 && run->ranks[w->rank].ncalls > 0)
        rc = write_own_calls(w, file, &run->ranks[w->rank]);
    if (rc == 0)
        rc = sp__h5w_injected_failure(w);
    if (file >= 0 && H5Fclose(file) < 0 && rc == 0) /* collective */
        rc = sp__h5_error(SP_EIO, "cannot write '%s': closing '%s' (MPI-IO)", w->path, tmp);
    if (rc == 0)
        rc = sp__h5w_sync(w, tmp); /* each rank syncs what it wrote */
    return rc;
}

int sp__h5_write_mpi_parallel(const sp__h5w *w, const sp_run *run, const sp__h5_mpi_clock *clock)
{
    char *tmp = NULL;
    int rc = sp__h5w_tmp_name(w, &tmp);
    if (rc == 0)
        rc = sp__h5w_check(run, (size_t)w->rank, w->path);
    if ((rc = sp__mpi_agree(w->comm, rc)) != 0)
        goto done;
    rc = sp__h5w_token_pass(w, run, clock, tmp, false);
    if ((rc = sp__mpi_agree(w->comm, rc)) != 0) {
        sp__h5w_discard(w, tmp);
        goto done;
    }
    rc = sp__h5w_publish(w, write_calls_parallel(w, run, tmp), tmp);
done:
    free(tmp);
    return rc;
}

#else
typedef int sp__h5_write_mpi_parallel_unused; /* ISO C: no empty translation unit */
#endif /* SP_WITH_MPI */
