/* SPDX-License-Identifier: MIT */
/* sp_mpi_data.c - the MPI record tables in memory (sp_mpi_data.h). */
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_mpi_data.h"

sp_mpi_data *sp_mpi_data_new(size_t nranks)
{
    sp_mpi_data *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    d->ranks = calloc(nranks ? nranks : 1, sizeof *d->ranks);
    if (!d->ranks) {
        free(d);
        return NULL;
    }
    d->nranks = nranks;
    return d;
}

void sp_mpi_rank_clear(sp_mpi_rank *rk)
{
    free(rk->comm_end);
    free(rk->comm_members);
    free(rk->comm_flags);
    free(rk->path_parent);
    free(rk->path_region);
    sp_mpi_p2p_free(&rk->p2p);
    sp_mpi_coll_free(&rk->coll);
    memset(rk, 0, sizeof *rk);
}

void sp_mpi_data_free(sp_mpi_data *d)
{
    if (!d)
        return;
    for (size_t r = 0; r < d->nranks; r++)
        sp_mpi_rank_clear(&d->ranks[r]);
    sp_strtab_free(&d->names);
    free(d->ranks);
    free(d);
}

/* ---------------------------------------------------------------- columns */

/* Grow one column to cap rows; false on ENOMEM (the column is unchanged). */
static int grow(void **col, size_t width, size_t cap)
{
    void *p = realloc(*col, cap * width);
    if (!p)
        return -1;
    *col = p;
    return 0;
}

#define SP__GROW(name, type, ctype, unit, desc)                                \
    if (rc == 0 && grow((void **)&t->name, sizeof(ctype), cap) != 0)           \
        rc = SP_ENOMEM;
#define SP__PUT(name, type, ctype, unit, desc) t->name[t->n] = row->name;
#define SP__GET(name, type, ctype, unit, desc) row->name = t->name[i];
#define SP__FREE(name, type, ctype, unit, desc) free(t->name);

/* Columns may end up with different capacities after a failure: cap only
 * moves when every column grew. */
#define SP__DEFINE_TABLE(kind, COLUMNS)                                        \
    int sp_mpi_##kind##_reserve(sp_mpi_##kind *t, size_t rows)                 \
    {                                                                          \
        if (rows <= t->cap)                                                    \
            return 0;                                                          \
        size_t cap = t->cap ? t->cap : 64;                                     \
        while (cap < rows)                                                     \
            cap *= 2;                                                          \
        int rc = 0;                                                            \
        COLUMNS(SP__GROW)                                                      \
        if (rc == 0)                                                           \
            t->cap = cap;                                                      \
        return rc;                                                             \
    }                                                                          \
    int sp_mpi_##kind##_add(sp_mpi_##kind *t, const sp_mpi_##kind##_row *row)  \
    {                                                                          \
        if (t->n == t->cap && sp_mpi_##kind##_reserve(t, t->n + 1) != 0)       \
            return SP_ENOMEM;                                                  \
        COLUMNS(SP__PUT)                                                       \
        t->n++;                                                                \
        return 0;                                                              \
    }                                                                          \
    void sp_mpi_##kind##_get(const sp_mpi_##kind *t, size_t i,                 \
                             sp_mpi_##kind##_row *row)                         \
    {                                                                          \
        COLUMNS(SP__GET)                                                       \
    }                                                                          \
    void sp_mpi_##kind##_clear(sp_mpi_##kind *t) { t->n = 0; }                 \
    void sp_mpi_##kind##_free(sp_mpi_##kind *t)                                \
    {                                                                          \
        COLUMNS(SP__FREE)                                                      \
        memset(t, 0, sizeof *t);                                               \
    }

SP__DEFINE_TABLE(p2p, SP_MPI_P2P_COLUMNS)
SP__DEFINE_TABLE(coll, SP_MPI_COLL_COLUMNS)

#undef SP__DEFINE_TABLE
#undef SP__GROW
#undef SP__PUT
#undef SP__GET
#undef SP__FREE

/* ---------------------------------------------------------------- lookups */

const int32_t *sp_mpi_comm_members(const sp_mpi_rank *rk, size_t c, size_t *n)
{
    uint64_t from = c ? rk->comm_end[c - 1] : 0;
    *n = (size_t)(rk->comm_end[c] - from);
    return rk->comm_members + from;
}
