/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_write_mpi_layout.c - the objects of a scope-profiler file, one piece
 * at a time, for the MPI writers (see sp_h5_write_mpi_internal.h): the
 * groups and datasets come from sp_h5_write.c's own pieces (one definition
 * of the layout), the files are opened with the same properties, and each
 * rank group gets its clock measurements. HDF5 style: handles start at
 * H5I_INVALID_HID and every function leaves through one `done:` label.
 */
#ifdef SP_WITH_MPI

#include <stdio.h>

#include "sp_error.h"
#include "sp_h5_write_mpi_internal.h"

int sp__h5w_check(const sp_run *run, size_t r, const char *path)
{
    (void)r; /* the other ranks of this rank's run are empty: check it all */
    return sp__h5_write_check(run, path);
}

/* ---------------------------------------------------------------- files */

/* sp_h5_write()'s file access properties, with MPI-IO when mpio. */
static int file_access(const sp__h5w *w, bool mpio, hid_t *out)
{
    hid_t fapl = H5I_INVALID_HID;
    int rc = sp__h5_file_access(w->path, &fapl);
    if (rc < 0)
        return rc;
    if (mpio) {
#ifdef H5_HAVE_PARALLEL
        H5TRY(H5Pset_fapl_mpio(fapl, w->comm, MPI_INFO_NULL),
              "cannot write '%s': MPI-IO file access", w->path);
#else
        rc = sp__error(SP_ENOTSUP, "cannot write '%s': this HDF5 has no parallel I/O", w->path);
        goto done;
#endif
    }
    *out = fapl;
    fapl = H5I_INVALID_HID;
done:
    if (fapl >= 0)
        H5Pclose(fapl);
    return rc;
}

int sp__h5w_create(const sp__h5w *w, const char *tmp, hid_t *file)
{
    hid_t fapl = H5I_INVALID_HID;
    *file = H5I_INVALID_HID;
    /* Create it ourselves first, as sp_h5_write(). */
    int rc = sp__h5_touch_tmp(tmp, w->path);
    if (rc < 0 || (rc = file_access(w, false, &fapl)) < 0)
        return rc;
    rc = sp__h5_file_create(w->path, tmp, fapl, file);
    H5Pclose(fapl);
    return rc;
}

int sp__h5w_open(const sp__h5w *w, const char *tmp, bool mpio, hid_t *file)
{
    int rc = 0;
    hid_t fapl = H5I_INVALID_HID;
    *file = H5I_INVALID_HID;
    if ((rc = file_access(w, mpio, &fapl)) < 0)
        return rc;
    H5TRY(*file = H5Fopen(tmp, H5F_ACC_RDWR, fapl), "cannot write '%s': cannot open '%s'%s",
          w->path, tmp, mpio ? " through MPI-IO" : "");
done:
    H5Pclose(fapl);
    return rc;
}

/* ---------------------------------------------------------------- pieces */

int sp__h5w_root(const sp__h5w *w, hid_t file, const sp_run *run)
{
    return sp__h5_write_root(file, run, w->path, &w->o);
}

/* The clock measurements of an MPI rank (SCHEMA.md, "MPI"); a measurement
 * with a negative uncertainty was not taken and gets no attributes. */
static int write_clock(const sp__h5w *w, hid_t g, const sp__h5_mpi_clock *c)
{
    int rc = 0;
    if (c->setup_err_ns >= 0 &&
        ((rc = sp__h5_write_int_attr(w->path, g, SP_SN_RANK_CLOCK_SETUP, c->setup_ns)) < 0 ||
         (rc = sp__h5_write_int_attr(w->path, g, SP_SN_RANK_CLOCK_SETUP_ERR,
                                     c->setup_err_ns)) < 0))
        return rc;
    if (c->finalize_err_ns >= 0 &&
        ((rc = sp__h5_write_int_attr(w->path, g, SP_SN_RANK_CLOCK_FINALIZE, c->finalize_ns)) < 0 ||
         (rc = sp__h5_write_int_attr(w->path, g, SP_SN_RANK_CLOCK_FINALIZE_ERR,
                                     c->finalize_err_ns)) < 0))
        return rc;
    return 0;
}

int sp__h5w_rank(const sp__h5w *w, hid_t file, const sp_run *run, size_t r,
                 const sp__h5_mpi_clock *clock, bool calls_data)
{
    int rc = sp__h5_write_rank(file, run, r, w->path, &w->o, calls_data);
    if (rc < 0 || !clock)
        return rc;
    hid_t g = H5I_INVALID_HID;
    char name[64];
    snprintf(name, sizeof name, "%s%zu", SP_NAME(RANK_GROUP), r);
    H5TRY(g = H5Gopen2(file, name, H5P_DEFAULT), "cannot write '%s': cannot open group /%s",
          w->path, name);
    rc = write_clock(w, g, clock);
done:
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

#else
typedef int sp__h5_write_mpi_layout_unused; /* ISO C: no empty translation unit */
#endif /* SP_WITH_MPI */
