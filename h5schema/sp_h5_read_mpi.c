/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_mpi.c - a rank's optional mpi/ group (SCHEMA.md "MPI messages
 * and collectives") into the run's sp_mpi_data, and the checks every such
 * table passes before anything uses it (also on a run that crossed a pipe
 * from a reading process: sp__mpi_data_check).
 *
 * The file is untrusted: every column is opened through sp_v2c_open (shape,
 * class, stored bytes), read with the read budget charged, and every row is
 * checked (rows it names exist, kinds and functions are known, times within
 * +-2^61 ns and in order, byte counts not negative). A run that is still
 * recording may show one column longer than another: the rows every column
 * has are read; in a finished file the lengths must agree.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_h5_read_mpi.h"
#include "sp_mpi_data.h"

#define TIME_LIMIT ((int64_t)1 << 61)
#define BYTES_LIMIT ((int64_t)1 << 62)

static hsize_t min2(hsize_t a, hsize_t b) { return a < b ? a : b; }

static hid_t native(sp_schema_type t)
{
    return t == SP_ST_I64 ? H5T_NATIVE_INT64 : t == SP_ST_U64 ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT32;
}

/* ---------------------------------------------------------------- checks */

static bool time_ok(int64_t t) { return t > -TIME_LIMIT && t < TIME_LIMIT; }

static int check_comms(const char *ctx, const sp_mpi_rank *rk, size_t nranks)
{
    uint64_t prev = 0;
    for (size_t c = 0; c < rk->ncomms; c++) {
        if (rk->comm_end[c] < prev)
            return sp__error(SP_EFORMAT, "%s: communicator %zu ends before it starts", ctx, c);
        prev = rk->comm_end[c];
    }
    for (uint64_t i = 0; i < prev; i++)
        if (rk->comm_members[i] < -1 || rk->comm_members[i] >= (int64_t)nranks)
            return sp__error(SP_EFORMAT, "%s: communicator member %" PRIu64 " is rank %" PRId32
                             " (%zu ranks)", ctx, i, rk->comm_members[i], nranks);
    return 0;
}

static int check_paths(const char *ctx, const sp_mpi_rank *rk, size_t nregions)
{
    for (size_t i = 0; i < rk->npaths; i++)
        if (rk->path_parent[i] < -1 || rk->path_parent[i] >= (int64_t)i ||
            rk->path_region[i] < 0 || (size_t)rk->path_region[i] >= nregions)
            return sp__error(SP_EFORMAT, "%s: call path %zu is out of range", ctx, i);
    return 0;
}

/* The rows of the two record tables. */
static int check_records(const char *ctx, const sp_mpi_rank *rk, size_t nranks, size_t nthreads)
{
    const sp_mpi_p2p *p = &rk->p2p;
    for (size_t i = 0; i < p->n; i++) {
        sp_mpi_class cls = sp_mpi_func_class(p->op[i]), done = sp_mpi_func_class(p->done_op[i]);
        bool kind_ok = p->kind[i] >= SP_MPI_KIND_SEND && p->kind[i] <= SP_MPI_KIND_PROBE;
        bool op_ok = cls != SP_MPI_CLASS_NONE && !SP_MPI_CLASS_IS_COLL(cls) &&
                     cls != SP_MPI_CLASS_WAIT && cls != SP_MPI_CLASS_TEST &&
                     done != SP_MPI_CLASS_NONE && !SP_MPI_CLASS_IS_COLL(done);
        if (!kind_ok || !op_ok || p->thread[i] < 0 || (size_t)p->thread[i] >= nthreads ||
            p->path[i] < -1 || p->path[i] >= (int64_t)rk->npaths || p->comm[i] < 0 ||
            (size_t)p->comm[i] >= rk->ncomms || p->peer[i] < -1 || p->peer[i] >= (int64_t)nranks ||
            p->bytes[i] < -1 || p->bytes[i] > BYTES_LIMIT)
            return sp__error(SP_EFORMAT, "%s: point-to-point row %zu is out of range", ctx, i);
        if (!time_ok(p->post_enter[i]) || !time_ok(p->post_exit[i]) ||
            !time_ok(p->done_enter[i]) || !time_ok(p->done_exit[i]) ||
            p->post_exit[i] < p->post_enter[i] || p->done_exit[i] < p->done_enter[i] ||
            p->done_exit[i] < p->post_enter[i])
            return sp__error(SP_EFORMAT, "%s: point-to-point row %zu: times out of order or "
                             "beyond +-2^61 ns", ctx, i);
    }
    const sp_mpi_coll *c = &rk->coll;
    for (size_t i = 0; i < c->n; i++) {
        if (!SP_MPI_CLASS_IS_COLL(sp_mpi_func_class(c->op[i])) || c->thread[i] < 0 ||
            (size_t)c->thread[i] >= nthreads || c->path[i] < -1 ||
            c->path[i] >= (int64_t)rk->npaths || c->comm[i] < 0 ||
            (size_t)c->comm[i] >= rk->ncomms || c->root[i] < -1 ||
            c->root[i] >= (int64_t)nranks || c->bytes_sent[i] < 0 ||
            c->bytes_sent[i] > BYTES_LIMIT || c->bytes_recv[i] < 0 ||
            c->bytes_recv[i] > BYTES_LIMIT)
            return sp__error(SP_EFORMAT, "%s: collective row %zu is out of range", ctx, i);
        if (!time_ok(c->enter[i]) || !time_ok(c->exit[i]) || c->exit[i] < c->enter[i])
            return sp__error(SP_EFORMAT, "%s: collective row %zu: times out of order or "
                             "beyond +-2^61 ns", ctx, i);
    }
    return 0;
}

int sp__mpi_data_check(const char *file, const sp_mpi_data *d, const sp_run *run)
{
    if (!d)
        return 0;
    if (d->nranks != run->nranks || (d->nranks && !d->ranks) ||
        (d->names.n && !d->names.s) || d->names.n > INT32_MAX)
        return sp__error(SP_EFORMAT, "%s: MPI tables for %zu ranks in a run of %zu", file,
                         d->nranks, run->nranks);
    for (size_t i = 0; i < d->names.n; i++)
        if (!d->names.s[i])
            return sp__error(SP_EFORMAT, "%s: MPI call path region %zu has no name", file, i);
    uint64_t rows = 0;
    for (size_t r = 0; r < d->nranks; r++) {
        const sp_mpi_rank *rk = &d->ranks[r];
        char ctx[512];
        snprintf(ctx, sizeof ctx, "%s: rank %zu: mpi", file, r);
        if (!rk->present) {
            if (rk->ncomms || rk->npaths || rk->p2p.n || rk->coll.n)
                return sp__error(SP_EFORMAT, "%s: records of a rank without tables", ctx);
            continue;
        }
        int rc;
        if ((rc = check_comms(ctx, rk, d->nranks)) || (rc = check_paths(ctx, rk, d->names.n)) ||
            (rc = check_records(ctx, rk, d->nranks, run->ranks[r].nthreads)))
            return rc;
        rows += rk->p2p.n + rk->coll.n;
    }
    /* What matching them costs the analysis (sp_waits.c: ~64 bytes a row). */
    return sp__read_charge_n("its MPI records (analysis)", rows, 64);
}

/* ---------------------------------------------------------------- reading */

/* A column read whole (at most n rows) into *out, as the given type. */
static int read_col(const char *file, hid_t g, const char *name, sp_schema_type type, hsize_t n,
                    void **out)
{
    sp_v2c c;
    int rc = sp_v2c_open(file, g, name, false, &c);
    if (rc == 0)
        rc = sp_v2c_read_all(file, &c, native(type), type == SP_ST_I32 ? 4 : 8, n, out);
    sp_v2c_close(&c);
    return rc;
}

/* Rows every column of a group has; a finished file must have one length. */
static int table_rows(const char *file, const char *ctx, hid_t g, const char *const *names,
                      size_t ncols, bool complete, hsize_t *rows)
{
    *rows = HSIZE_UNDEF;
    hsize_t longest = 0;
    for (size_t i = 0; i < ncols; i++) {
        sp_v2c c;
        int rc = sp_v2c_open(file, g, names[i], false, &c);
        if (rc)
            return rc;
        *rows = min2(*rows, c.n);
        longest = longest > c.n ? longest : c.n;
        sp_v2c_close(&c);
    }
    if (complete && longest != *rows)
        return sp__error(SP_EFORMAT, "%s: the columns of %s differ in length", ctx,
                         names[0]);
    return 0;
}

static int read_comms(const char *file, const char *ctx, hid_t mg, bool complete,
                      sp_mpi_rank *rk)
{
    hid_t g;
    int rc = sp__h5_open_group(file, mg, SP_NAMEM(MPI_COMMS), &g);
    if (rc)
        return rc;
    const char *cols[] = {SP_NAMEM(MPI_COMM_MEMBERS_END), SP_NAMEM(MPI_COMM_FLAGS)};
    hsize_t n = 0;
    sp_v2c m;
    m.dset = H5I_INVALID_HID;
    if ((rc = table_rows(file, ctx, g, cols, 2, complete, &n)) ||
        (rc = read_col(file, g, cols[0], SP_ST_U64, n, (void **)&rk->comm_end)) ||
        (rc = read_col(file, g, cols[1], SP_ST_I32, n, (void **)&rk->comm_flags)) ||
        (rc = sp_v2c_open(file, g, SP_NAMEM(MPI_COMM_MEMBERS), false, &m)))
        goto done;
    rk->ncomms = (size_t)n;
    uint64_t last = n ? rk->comm_end[n - 1] : 0;
    for (hsize_t i = 0; i < n; i++)
        if (rk->comm_end[i] > m.n || (i && rk->comm_end[i] < rk->comm_end[i - 1])) {
            rc = sp__error(SP_EFORMAT, "%s: communicator %llu ends at member %" PRIu64
                           " (%llu members)", ctx, (unsigned long long)i, rk->comm_end[i],
                           (unsigned long long)m.n);
            goto done;
        }
    rc = sp_v2c_read_all(file, &m, H5T_NATIVE_INT32, 4, last, (void **)&rk->comm_members);
done:
    sp_v2c_close(&m);
    H5Gclose(g);
    return rc;
}

/* Call paths; their region rows become names interned in d. */
static int read_paths(const char *file, const char *ctx, hid_t mg, bool complete,
                      const sp__mpi_read_ctx *rc_in, sp_mpi_data *d, sp_mpi_rank *rk)
{
    hid_t g;
    int rc = sp__h5_open_group(file, mg, SP_NAMEM(MPI_PATHS), &g);
    if (rc)
        return rc;
    const char *cols[] = {SP_NAMEM(MPI_PATH_PARENT), SP_NAMEM(MPI_PATH_REGION)};
    hsize_t n = 0;
    if ((rc = table_rows(file, ctx, g, cols, 2, complete, &n)) ||
        (rc = read_col(file, g, cols[0], SP_ST_I32, n, (void **)&rk->path_parent)) ||
        (rc = read_col(file, g, cols[1], SP_ST_I32, n, (void **)&rk->path_region)))
        goto done;
    rk->npaths = (size_t)n;
    for (hsize_t i = 0; i < n; i++) {
        int32_t row = rk->path_region[i];
        if (row < 0 || (size_t)row >= rc_in->nrows) {
            rc = sp__error(SP_EFORMAT, "%s: call path %llu names region row %" PRId32
                           " (%zu rows)", ctx, (unsigned long long)i, row, rc_in->nrows);
            goto done;
        }
        if ((rk->path_region[i] = sp_strtab_intern(&d->names, rc_in->row_names[row])) < 0) {
            rc = sp__error(SP_ENOMEM, "%s: out of memory", ctx);
            goto done;
        }
    }
done:
    H5Gclose(g);
    return rc;
}

/* Ticks to ns with the rank's calibration. */
static void to_ns(const sp_v2_clock_map *m, int64_t *t, size_t n)
{
    for (size_t i = 0; i < n; i++)
        t[i] = sp_v2_clock_to_ns(m, t[i]);
}

#define SP__NAME(name, type, ctype, unit, desc) #name,
#define SP__READ(name, type, ctype, unit, desc)                                \
    if (rc == 0)                                                               \
        rc = read_col(file, g, #name, SP_ST_##type, n, (void **)&t->name);
#define SP__TO_NS(name) to_ns(m, t->name, t->n);

/* read_TABLE(file, ctx, mpi group, what the rank's reader knows, table):
 * every column (the rows they all have), then its times in ns. */
#define SP__DEFINE_READ(table, type, group, COLUMNS, TIMES)                                         \
    static int read_##table(const char *file, const char *ctx, hid_t mg,                           \
                            const sp__mpi_read_ctx *in, type *t)                                   \
    {                                                                                              \
        static const char *const cols[] = {COLUMNS(SP__NAME)};                                     \
        hid_t g;                                                                                   \
        hsize_t n = 0;                                                                             \
        int rc = sp__h5_open_group(file, mg, SP_NAMEM(group), &g);                                 \
        if (rc)                                                                                    \
            return rc;                                                                             \
        rc = table_rows(file, ctx, g, cols, sizeof cols / sizeof *cols, in->complete, &n);         \
        COLUMNS(SP__READ)                                                                          \
        H5Gclose(g);                                                                               \
        sp_v2_clock_map mm, *m = &mm;                                                              \
        if (rc || (n && (rc = in->clock(in->clock_arg, m))))                                       \
            return rc;                                                                             \
        t->n = t->cap = (size_t)n;                                                                 \
        TIMES                                                                                      \
        return 0;                                                                                  \
    }

SP__DEFINE_READ(p2p, sp_mpi_p2p, MPI_P2P, SP_MPI_P2P_COLUMNS,
                SP__TO_NS(post_enter) SP__TO_NS(post_exit) SP__TO_NS(done_enter)
                    SP__TO_NS(done_exit))
SP__DEFINE_READ(coll, sp_mpi_coll, MPI_COLL, SP_MPI_COLL_COLUMNS,
                SP__TO_NS(enter) SP__TO_NS(exit))
#undef SP__DEFINE_READ
#undef SP__TO_NS
#undef SP__NAME
#undef SP__READ

static int read_counts(const char *file, hid_t mg, sp_mpi_rank *rk)
{
    int64_t v = 0;
    int rc = 0;
    if (H5Aexists(mg, SP_NAMEM(MPI_RECORDS_DROPPED)) > 0 &&
        (rc = sp__h5_read_int_attr(file, mg, SP_NAMEM(MPI_RECORDS_DROPPED), &v)) == 0)
        rk->records_dropped = v > 0 ? (uint64_t)v : 0;
    if (rc == 0 && H5Aexists(mg, SP_NAMEM(MPI_UNTRACKED)) > 0 &&
        (rc = sp__h5_read_int_attr(file, mg, SP_NAMEM(MPI_UNTRACKED), &v)) == 0)
        rk->untracked = v > 0 ? (uint64_t)v : 0;
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

int sp__h5_read_mpi_rank(const sp__mpi_read_ctx *in, hid_t rg, sp_run *run, size_t r)
{
    const char *file = in->file;
    if (!sp__h5_has(rg, SP_NAMEM(MPI)))
        return 0;
    if (!run->mpi && !(run->mpi = sp_mpi_data_new(run->nranks)))
        return sp__error(SP_ENOMEM, "%s: out of memory", file);
    sp_mpi_data *d = run->mpi;
    sp_mpi_rank *rk = &d->ranks[r];
    char ctx[512];
    snprintf(ctx, sizeof ctx, "%s: rank %zu: mpi", file, r);
    hid_t mg;
    int rc = sp__h5_open_group(file, rg, SP_NAMEM(MPI), &mg);
    if (rc)
        return rc;
    rk->present = 1;
    rk->clock_offset_ns = run->ranks[r].clock_offset_ns;
    rk->clock_offset_err_ns = run->ranks[r].clock_offset_err_ns;
    if ((rc = read_comms(file, ctx, mg, in->complete, rk)) ||
        (rc = read_paths(file, ctx, mg, in->complete, in, d, rk)) ||
        (rc = read_counts(file, mg, rk)) || (rc = read_p2p(file, ctx, mg, in, &rk->p2p)))
        goto done;
    rc = read_coll(file, ctx, mg, in, &rk->coll);
done:
    H5Gclose(mg);
    if (rc)
        sp_mpi_rank_clear(rk);
    return rc;
}
