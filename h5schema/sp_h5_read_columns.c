/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_columns.c - groups and numeric datasets read without trusting the
 * file: links are never followed, every shape, type and size is checked
 * before memory is allocated or data is used, and every failure becomes
 * one line in sp_last_error().
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sp_error.h"
#include "sp_h5_internal.h"

/* Largest element count we allocate for, whatever a file claims. */
#define MAX_ELEMENTS ((hsize_t)1 << 40)

/* Links inside a run file are never followed: only a hard link counts as
 * "there" (a soft or external link could lead anywhere, an external one to
 * a FIFO or device HDF5 would block on). The one exception, a v2 run's
 * link to its rank's part, is checked by sp_h5_read_v2_link.c. */
int sp__h5_link_check(hid_t loc, const char *name, const char **why)
{
    H5L_info_t li;
    *why = NULL;
    int kind = 0;
    /* One lookup: a name that is not there fails it (the error is
     * cleared below); asking H5Lexists first walked the group twice, for
     * every object of every rank. */
    sp__h5_quiet quiet;
    sp__h5_quiet_begin(&quiet);
    herr_t got = H5Lget_info(loc, name, &li, H5P_DEFAULT);
    sp__h5_quiet_end(&quiet);
    if (got >= 0) {
        kind = li.type == H5L_TYPE_HARD ? 1 : -1;
        if (kind < 0)
            *why = li.type == H5L_TYPE_SOFT       ? "a soft link"
                 : li.type == H5L_TYPE_EXTERNAL ? "an external link"
                                                : "a user-defined link";
    }
    H5Eclear2(H5E_DEFAULT);
    return kind;
}

const char *sp__h5_link_refused(hid_t loc, const char *name)
{
    const char *why;
    sp__h5_link_check(loc, name, &why);
    return why;
}

bool sp__h5_has(hid_t loc, const char *name)
{
    const char *why;
    return sp__h5_link_check(loc, name, &why) > 0;
}

int sp__h5_open_group(const char *file, hid_t loc, const char *name, hid_t *out)
{
    char where[256];
    sp__h5_path(loc, name, where, sizeof where);
    *out = H5I_INVALID_HID;
    const char *link;
    int kind = sp__h5_link_check(loc, name, &link);
    if (link)
        return sp__error(SP_EFORMAT, "%s: %s is %s: links in a run file are never followed",
                         file, where, link);
    if (kind <= 0)
        return sp__error(SP_EFORMAT, "%s: group %s is missing", file, where);
    *out = H5Gopen2(loc, name, H5P_DEFAULT);
    if (*out < 0)
        return sp__h5_error(SP_EFORMAT, "%s: %s is not a group", file, where);
    return 0;
}

static const char *class_name(H5T_class_t c)
{
    switch (c) {
    case H5T_INTEGER:
        return "integer";
    case H5T_FLOAT:
        return "floating-point";
    case H5T_STRING:
        return "string";
    case H5T_COMPOUND:
        return "compound";
    case H5T_ENUM:
        return "enum";
    default:
        return "other";
    }
}

void sp__h5_column_close(sp__h5_column *c)
{
    if (c->ftype >= 0)
        H5Tclose(c->ftype);
    if (c->dset >= 0)
        H5Dclose(c->dset);
    c->ftype = c->dset = H5I_INVALID_HID;
}

int sp__h5_dataset_check(const char *file, hid_t dset, const char *where, uint64_t n,
                         size_t elem_size)
{
    int rc = 0;
    hid_t dcpl = H5Dget_create_plist(dset);
    if (dcpl < 0)
        return sp__h5_error(SP_EFORMAT, "%s: cannot inspect %s", file, where);
    uint64_t need = sp__mul_sat(n, elem_size);
    hsize_t have = H5Dget_storage_size(dset);
    int nfilters = H5Pget_nfilters(dcpl);
    const sp__read_budget *b = sp__read_budget_current();
    char need_s[32], have_s[32];
    sp__h5_size_str(need, need_s, sizeof need_s);
    sp__h5_size_str(have, have_s, sizeof have_s);
    if (H5Pget_external_count(dcpl) != 0) { /* data in other files: never follow */
        rc = sp__error(SP_EFORMAT, "%s: %s uses external storage", file, where);
    } else if (nfilters < 0) {
        rc = sp__h5_error(SP_EFORMAT, "%s: cannot inspect %s", file, where);
    } else if (b && have > b->file_size) {
        /* Storage beyond the end of the file was never written. */
        char size_s[32];
        sp__h5_size_str(b->file_size, size_s, sizeof size_s);
        rc = sp__error(SP_EFORMAT, "%s: %s claims %s of storage in a file of %s (damaged)",
                       file, where, have_s, size_s);
    } else if (nfilters == 0 && have < need) {
        /* Without filters, the bytes stored bound the real size: a dataset
         * that claims more was never written (or the file is damaged), and is
         * refused before we allocate for it. */
        rc = sp__error(SP_EFORMAT,
                       "%s: %s stores %s, %s needed for %" PRIu64 " elements "
                       "(not written, or damaged)",
                       file, where, have_s, need_s, n);
    } else if (nfilters > 0 && need > SP__H5_INFLATE_FLOOR &&
               need / SP__H5_INFLATE_MAX_RATIO > have) {
        /* Compressed: no column of a profile compresses better than deflate
         * can (about 1032:1); more is a decompression bomb or chunks that were
         * never written (read as fill values). Refused before inflating. */
        rc = sp__error(SP_EFORMAT,
                       "%s: %s claims %" PRIu64 " elements (%s) compressed into %s, more than "
                       "%d:1: damaged, never written, or a decompression bomb",
                       file, where, n, need_s, have_s, SP__H5_INFLATE_MAX_RATIO);
    }
    H5Pclose(dcpl);
    H5Eclear2(H5E_DEFAULT);
    return rc ? rc : sp__h5_chunks_check(file, dset, where, n);
}

int sp__h5_chunks_check(const char *file, hid_t dset, const char *where, uint64_t n)
{
#if H5_VERSION_GE(1, 10, 8)
    /* n elements fill at most n chunks, so a dataset within the chunk limit
     * cannot pass it; and a chunk dimension of 0 is refused by libhdf5
     * itself when the dataset is opened (H5O__layout_decode: "chunk
     * dimension must be positive", checked on 1.10.8). Asking for the
     * creation properties copies them: a tenth of the time to open a run
     * of 1,024 ranks of small tables. */
    if (n <= SP__H5_MAX_CHUNKS)
        return 0;
#endif
    hid_t dcpl = H5Dget_create_plist(dset), space = H5Dget_space(dset);
    int rc = 0;
    if (dcpl < 0 || space < 0) {
        rc = sp__h5_error(SP_EFORMAT, "%s: cannot inspect %s", file, where);
        goto done;
    }
    if (H5Pget_layout(dcpl) != H5D_CHUNKED)
        goto done;
    hsize_t dims[H5S_MAX_RANK], chunk[H5S_MAX_RANK];
    int nd = H5Sget_simple_extent_dims(space, dims, NULL);
    if (nd < 0 || H5Pget_chunk(dcpl, nd, chunk) != nd) {
        rc = sp__h5_error(SP_EFORMAT, "%s: cannot inspect the chunks of %s", file, where);
        goto done;
    }
    uint64_t chunks = 1;
    for (int d = 0; d < nd && chunks; d++) {
        if (chunk[d] == 0) {
            rc = sp__error(SP_EFORMAT, "%s: %s has a chunk dimension of 0 (damaged)", file,
                           where);
            goto done;
        }
        uint64_t k = dims[d] / chunk[d] + (dims[d] % chunk[d] != 0);
        chunks = k && chunks > UINT64_MAX / k ? UINT64_MAX : chunks * k;
    }
    if (chunks > SP__H5_MAX_CHUNKS && chunks > n / SP__H5_MIN_CHUNK_ELEMENTS)
        rc = sp__error(SP_EFORMAT,
                       "%s: %s is stored in %" PRIu64 " chunks for %" PRIu64
                       " elements, over the limit of %d chunks (or one per %d elements): "
                       "libhdf5 would need minutes and gigabytes to read it; a damaged or "
                       "crafted file",
                       file, where, chunks, n, SP__H5_MAX_CHUNKS, SP__H5_MIN_CHUNK_ELEMENTS);
done:
    if (space >= 0)
        H5Sclose(space);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    H5Eclear2(H5E_DEFAULT);
    return rc;
}

/* Open loc/name as a dataset of class cls with 1..max_rank dimensions and
 * check that its storage can hold what it claims. */
int sp__h5_column_open(const char *file, hid_t loc, const char *name, int max_rank,
                       H5T_class_t cls, sp__h5_column *c)
{
    int rc = 0;
    hid_t space = H5I_INVALID_HID;
    memset(c, 0, sizeof *c);
    c->dset = c->ftype = H5I_INVALID_HID;
    sp__h5_path(loc, name, c->where, sizeof c->where);
    const char *link = sp__h5_link_refused(loc, name);
    if (link)
        return sp__error(SP_EFORMAT, "%s: %s is %s: links in a run file are never followed",
                         file, c->where, link);
    if (!sp__h5_has(loc, name))
        return sp__error(SP_EFORMAT, "%s: dataset %s is missing", file, c->where);
    if ((c->dset = H5Dopen2(loc, name, H5P_DEFAULT)) < 0) {
        rc = sp__h5_error(SP_EFORMAT, "%s: %s is not a dataset", file, c->where);
        goto done;
    }
    if ((c->ftype = H5Dget_type(c->dset)) < 0 || (space = H5Dget_space(c->dset)) < 0) {
        rc = sp__h5_error(SP_EFORMAT, "%s: cannot inspect %s", file, c->where);
        goto done;
    }
    H5T_class_t got = H5Tget_class(c->ftype);
    if (got != cls) {
        rc = sp__error(SP_EFORMAT, "%s: %s has %s elements, expected %s", file, c->where,
                       class_name(got), class_name(cls));
        goto done;
    }
    c->ndims = H5Sget_simple_extent_ndims(space);
    if (H5Sget_simple_extent_type(space) != H5S_SIMPLE || c->ndims < 1 ||
        c->ndims > max_rank) {
        rc = sp__error(SP_EFORMAT, "%s: %s has %d dimensions, expected %s", file, c->where,
                       c->ndims < 0 ? 0 : c->ndims, max_rank == 1 ? "1" : "1 or 2");
        goto done;
    }
    hsize_t d[2] = {1, 1};
    H5Sget_simple_extent_dims(space, d, NULL);
    if (d[0] > MAX_ELEMENTS || d[1] > MAX_ELEMENTS || (d[1] && d[0] > MAX_ELEMENTS / d[1])) {
        rc = sp__error(SP_EFORMAT, "%s: %s claims an absurd size", file, c->where);
        goto done;
    }
    c->dims[0] = (size_t)d[0];
    c->dims[1] = (size_t)d[1];
    c->n = c->dims[0] * c->dims[1];
    rc = sp__h5_dataset_check(file, c->dset, c->where, (uint64_t)c->n, H5Tget_size(c->ftype));
done:
    if (space >= 0)
        H5Sclose(space);
    H5Eclear2(H5E_DEFAULT);
    if (rc < 0)
        sp__h5_column_close(c);
    return rc;
}

/* Read a numeric column of class cls into a new array of mtype. */
static int read_numbers(const char *file, hid_t loc, const char *name, H5T_class_t cls,
                        hid_t mtype, size_t width, int max_rank, sp__h5_column *c, void **out)
{
    int rc;
    *out = NULL;
    if ((rc = sp__h5_column_open(file, loc, name, max_rank, cls, c)) < 0)
        return rc;
    if ((rc = sp__read_charge_n(c->where, c->n, width)) < 0)
        goto done;
    void *buf = malloc((c->n ? c->n : 1) * width);
    if (!buf) {
        rc = sp__error(SP_ENOMEM, "%s: out of memory reading %s (%zu elements)", file,
                       c->where, c->n);
        goto done;
    }
    /* HDF5 converts any integer (or float) file type; out-of-range values
     * are clipped and then caught by the range checks of the callers. */
    if (c->n && H5Dread(c->dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf) < 0) {
        free(buf);
        rc = sp__h5_error(SP_EFORMAT, "%s: cannot read %s", file, c->where);
        goto done;
    }
    *out = buf;
done:
    sp__h5_column_close(c);
    return rc;
}

static int read_ints(const char *file, hid_t loc, const char *name, int width,
                     int max_rank, sp__h5_column *c, void **out)
{
    return read_numbers(file, loc, name, H5T_INTEGER,
                        width == 4 ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64, (size_t)width,
                        max_rank, c, out);
}

int sp__h5_read_f64(const char *file, hid_t loc, const char *name, size_t *n,
                    double **out)
{
    sp__h5_column c;
    void *buf;
    int rc = read_numbers(file, loc, name, H5T_FLOAT, H5T_NATIVE_DOUBLE, sizeof(double), 1,
                          &c, &buf);
    *out = buf;
    *n = rc < 0 ? 0 : c.n;
    return rc;
}

int sp__h5_read_ints(const char *file, hid_t loc, const char *name, int width,
                     size_t *n, void **out)
{
    sp__h5_column c;
    int rc = read_ints(file, loc, name, width, 1, &c, out);
    *n = rc < 0 ? 0 : c.n;
    return rc;
}

int sp__h5_read_ints_2d(const char *file, hid_t loc, const char *name, int *ndims,
                        size_t dims[2], int64_t **out)
{
    sp__h5_column c;
    void *buf;
    int rc = read_ints(file, loc, name, 8, 2, &c, &buf);
    *out = buf;
    *ndims = rc < 0 ? 0 : c.ndims;
    dims[0] = rc < 0 ? 0 : c.dims[0];
    dims[1] = rc < 0 ? 0 : c.dims[1];
    return rc;
}

int sp__h5_dims(const char *file, hid_t loc, const char *name, int *ndims, size_t dims[2])
{
    sp__h5_column c;
    /* Any class: only the shape is wanted; sp__h5_column_open checks the storage. */
    hid_t d = sp__h5_has(loc, name) ? H5Dopen2(loc, name, H5P_DEFAULT) : H5I_INVALID_HID;
    hid_t t = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID;
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    if (t >= 0)
        H5Tclose(t);
    if (d >= 0)
        H5Dclose(d);
    H5Eclear2(H5E_DEFAULT);
    int rc = sp__h5_column_open(file, loc, name, 2, cls == H5T_NO_CLASS ? H5T_INTEGER : cls, &c);
    if (rc < 0)
        return rc;
    *ndims = c.ndims;
    dims[0] = c.dims[0];
    dims[1] = c.dims[1];
    sp__h5_column_close(&c);
    return 0;
}

int sp__h5_lengths_differ(const char *file, hid_t g, const size_t *n, const sp_schema_id *ids,
                          int ncols)
{
    char where[256], list[512] = "";
    size_t len = 0;
    bool differ = false;
    for (int i = 0; i < ncols; i++) {
        differ |= n[i] != n[0];
        len += (size_t)snprintf(list + len, len < sizeof list ? sizeof list - len : 0,
                                "%s%s %zu", i ? ", " : "", sp__schema[ids[i]].name, n[i]);
    }
    if (!differ)
        return 0;
    return sp__error(SP_EFORMAT, "%s: %s: columns have different lengths (%s)", file,
                     sp__h5_path(g, NULL, where, sizeof where), list);
}

int sp__h5_read_int_table(const char *file, hid_t loc, sp_schema_id group,
                          const sp__h5_int_column *cols, int ncols, size_t *n)
{
    int rc;
    hid_t g = H5I_INVALID_HID;
    size_t len[SP__H5_TABLE_MAX] = {0};
    sp_schema_id ids[SP__H5_TABLE_MAX];
    if (ncols < 1 || ncols > SP__H5_TABLE_MAX)
        return sp__error(SP_EINVAL, "%s: table of %d columns", file, ncols);
    if ((rc = sp__h5_open_group(file, loc, sp__schema[group].name, &g)) < 0)
        return rc;
    for (int i = 0; i < ncols; i++) {
        ids[i] = cols[i].id;
        if ((rc = sp__h5_read_ints(file, g, sp__schema[cols[i].id].name, cols[i].width, &len[i],
                                   cols[i].out)) < 0)
            goto done;
    }
    if ((rc = sp__h5_lengths_differ(file, g, len, ids, ncols)) < 0)
        goto done;
    *n = len[0];
done:
    H5Gclose(g);
    return rc;
}
