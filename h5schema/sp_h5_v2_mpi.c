/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_v2_mpi.c - writing a rank's mpi/ group (sp_h5_v2_mpi.h): the
 * communicator and call-path tables and the two record tables, appendable
 * like the event tables (the part is SWMR: a killed run keeps every record
 * flushed), then copied whole into the finished file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_h5_v2_mpi.h"
#include "sp_mpi_data.h"

/* Column ids in the order of the X-macros. */
#define SP__P2P_ID(name, type, ctype, unit, desc) P2P_##name,
#define SP__COLL_ID(name, type, ctype, unit, desc) COLL_##name,
enum { SP_MPI_P2P_COLUMNS(SP__P2P_ID) NP2P };
enum { SP_MPI_COLL_COLUMNS(SP__COLL_ID) NCOLL };
#undef SP__P2P_ID
#undef SP__COLL_ID

struct sp_v2_mpi_cols {
    sp_v2_col members, members_end, flags;
    uint64_t members_total;
    sp_v2_col path_parent, path_region;
    sp_v2_col p2p[NP2P], coll[NCOLL];
};

static void invalidate(sp_v2_mpi_cols *m)
{
    m->members.dset = m->members_end.dset = m->flags.dset = H5I_INVALID_HID;
    m->path_parent.dset = m->path_region.dset = H5I_INVALID_HID;
    for (int i = 0; i < NP2P; i++)
        m->p2p[i].dset = H5I_INVALID_HID;
    for (int i = 0; i < NCOLL; i++)
        m->coll[i].dset = H5I_INVALID_HID;
}

void sp_v2_mpi_close(sp_v2_mpi_cols *m)
{
    if (!m)
        return;
    sp_v2_col *small[] = {&m->members, &m->members_end, &m->flags, &m->path_parent,
                          &m->path_region};
    for (size_t i = 0; i < sizeof small / sizeof *small; i++)
        sp_v2_col_close(small[i]);
    for (int i = 0; i < NP2P; i++)
        sp_v2_col_close(&m->p2p[i]);
    for (int i = 0; i < NCOLL; i++)
        sp_v2_col_close(&m->coll[i]);
    free(m);
}

/* A small uncompressed column of the mpi/ tables. */
#define SMALL(g, id, type, out)                                                \
    (rc = sp_v2_col_create(g, SP_NAMEM(id), SP_ST_##type, SP_V2_CHUNK_SMALL,   \
                           SP_V2_COMPRESS_NONE, path, out))

int sp_v2_mpi_create(hid_t rg, sp_v2_compress c, const char *path, sp_v2_mpi_cols **out)
{
    *out = NULL;
    sp_v2_mpi_cols *m = calloc(1, sizeof *m);
    if (!m)
        return sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
    invalidate(m);
    int rc = 0;
    hid_t g = H5I_INVALID_HID, t = H5I_INVALID_HID;
    H5TRY(g = sp__h5_group(rg, SP_NAMEM(MPI), false), "cannot write '%s': cannot create mpi/",
          path);
    H5TRY(t = sp__h5_group(g, SP_NAMEM(MPI_COMMS), false), "cannot write '%s'", path);
    if (SMALL(t, MPI_COMM_MEMBERS, I32, &m->members) ||
        SMALL(t, MPI_COMM_MEMBERS_END, U64, &m->members_end) ||
        SMALL(t, MPI_COMM_FLAGS, I32, &m->flags))
        goto done;
    H5Gclose(t);
    t = H5I_INVALID_HID;
    H5TRY(t = sp__h5_group(g, SP_NAMEM(MPI_PATHS), false), "cannot write '%s'", path);
    if (SMALL(t, MPI_PATH_PARENT, I32, &m->path_parent) ||
        SMALL(t, MPI_PATH_REGION, I32, &m->path_region))
        goto done;
    H5Gclose(t);
    t = H5I_INVALID_HID;
    H5TRY(t = sp__h5_group(g, SP_NAMEM(MPI_P2P), false), "cannot write '%s'", path);
#define SP__MAKE(name, type, ctype, unit, desc)                                \
    if (rc == 0)                                                               \
        rc = sp_v2_col_create(t, #name, SP_ST_##type, SP_V2_CHUNK_BLOCKS, c, path, &cols[i++]);
    {
        sp_v2_col *cols = m->p2p;
        int i = 0;
        SP_MPI_P2P_COLUMNS(SP__MAKE)
    }
    H5Gclose(t);
    t = H5I_INVALID_HID;
    if (rc)
        goto done;
    H5TRY(t = sp__h5_group(g, SP_NAMEM(MPI_COLL), false), "cannot write '%s'", path);
    {
        sp_v2_col *cols = m->coll;
        int i = 0;
        SP_MPI_COLL_COLUMNS(SP__MAKE)
    }
#undef SP__MAKE
done:
    if (t >= 0)
        H5Gclose(t);
    if (g >= 0)
        H5Gclose(g);
    if (rc) {
        sp_v2_mpi_close(m);
        return rc;
    }
    *out = m;
    return 0;
}
#undef SMALL

static int append_comms(sp_v2_mpi_cols *m, const sp_v2_mpi_batch *b, const char *path)
{
    uint64_t *end = malloc(b->ncomms * sizeof *end);
    if (!end)
        return sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
    uint64_t total = m->members_total;
    for (size_t i = 0; i < b->ncomms; i++)
        end[i] = total += b->comm_size[i];
    int rc = sp_v2_col_append(&m->members, b->comm_members, total - m->members_total, path);
    if (rc == 0 && (rc = sp_v2_col_append(&m->members_end, end, b->ncomms, path)) == 0 &&
        (rc = sp_v2_col_append(&m->flags, b->comm_flags, b->ncomms, path)) == 0)
        m->members_total = total;
    free(end);
    return rc;
}

int sp_v2_mpi_append(sp_v2_mpi_cols *m, const sp_v2_mpi_batch *b, const char *path)
{
    int rc = 0;
    if (b->ncomms && (rc = append_comms(m, b, path)))
        return rc;
    if (b->npaths &&
        ((rc = sp_v2_col_append(&m->path_parent, b->path_parent, b->npaths, path)) ||
         (rc = sp_v2_col_append(&m->path_region, b->path_region, b->npaths, path))))
        return rc;
#define SP__PUT(name, type, ctype, unit, desc)                                 \
    if (rc == 0)                                                               \
        rc = sp_v2_col_append(&cols[i++], t->name, t->n, path);
    if (b->p2p && b->p2p->n) {
        const sp_mpi_p2p *t = b->p2p;
        sp_v2_col *cols = m->p2p;
        int i = 0;
        SP_MPI_P2P_COLUMNS(SP__PUT)
    }
    if (rc == 0 && b->coll && b->coll->n) {
        const sp_mpi_coll *t = b->coll;
        sp_v2_col *cols = m->coll;
        int i = 0;
        SP_MPI_COLL_COLUMNS(SP__PUT)
    }
#undef SP__PUT
    return rc;
}

int sp_v2_mpi_final_copy(hid_t part, int32_t rank, hid_t rg, uint64_t records_dropped,
                         uint64_t untracked, const char *path)
{
    char from[96];
    snprintf(from, sizeof from, "/%s%d/%s", SP_NAME(RANK_GROUP), (int)rank, SP_NAMEM(MPI));
    htri_t has = H5Lexists(part, from, H5P_DEFAULT);
    if (has <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return 0; /* messages were not recorded */
    }
    int rc = 0;
    hid_t g = H5I_INVALID_HID;
    H5TRY(H5Ocopy(part, from, rg, SP_NAMEM(MPI), H5P_DEFAULT, H5P_DEFAULT),
          "cannot write '%s': copying %s", path, from);
    H5TRY(g = H5Gopen2(rg, SP_NAMEM(MPI), H5P_DEFAULT), "cannot write '%s'", path);
    if ((rc = sp_v2_int_attr(g, SP_NAMEM(MPI_RECORDS_DROPPED), SP_ST_U64,
                             (int64_t)records_dropped, path)) == 0)
        rc = sp_v2_int_attr(g, SP_NAMEM(MPI_UNTRACKED), SP_ST_U64, (int64_t)untracked, path);
done:
    if (g >= 0)
        H5Gclose(g);
    return rc;
}
