/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_v2_cols.c - reading the 1-D integer columns of a v2 file
 * without trusting them: shape and class are checked, and no column is
 * read into more memory than its stored bytes can hold (compressed data
 * inflates at most ~1000-fold with deflate, ~255-fold with LZ4), so a small
 * file cannot make a reader allocate or inflate gigabytes.
 */
#include <inttypes.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_h5_read_v2.h"

#define INFLATE_MAX 1100u            /* bytes a stored byte may become */
#define INFLATE_SLACK ((hsize_t)1 << 20) /* small tables, unallocated chunks */

void sp_v2c_close(sp_v2c *c)
{
    if (c->dset >= 0)
        H5Dclose(c->dset);
    c->dset = H5I_INVALID_HID;
}

/* Columns are read in slices far larger than their chunks, each chunk
 * once: HDF5's per-dataset chunk cache (1 MiB each) only held memory, six
 * columns per rank (a run of 1,024 ranks: 100 MB). */
static hid_t g_dapl = H5I_INVALID_HID;
static pthread_once_t g_dapl_once = PTHREAD_ONCE_INIT;

static void make_dapl(void)
{
    hid_t p = H5Pcreate(H5P_DATASET_ACCESS);
    if (p >= 0 && H5Pset_chunk_cache(p, 0, 0, 1.0) < 0) {
        H5Pclose(p);
        p = H5I_INVALID_HID;
    }
    g_dapl = p;
}

static hid_t column_dapl(void)
{
    pthread_once(&g_dapl_once, make_dapl);
    return g_dapl >= 0 ? g_dapl : H5P_DEFAULT;
}

int sp_v2c_open(const char *file, hid_t loc, const char *name, bool optional, sp_v2c *c)
{
    hid_t space = H5I_INVALID_HID, type = H5I_INVALID_HID;
    int rc = 0;
    c->dset = H5I_INVALID_HID;
    c->n = 0;
    sp__h5_path(loc, name, c->where, sizeof c->where);
    const char *link;
    int kind = sp__h5_link_check(loc, name, &link);
    if (link)
        return sp__error(SP_EFORMAT, "%s: %s is %s: links in a run file are never followed",
                         file, c->where, link);
    if (kind <= 0)
        return optional ? 0 : sp__error(SP_EFORMAT, "%s: %s is missing", file, c->where);
    if ((c->dset = H5Dopen2(loc, name, column_dapl())) < 0)
        return sp__h5_error(SP_EFORMAT, "%s: %s is not a dataset", file, c->where);
    if ((space = H5Dget_space(c->dset)) < 0 || (type = H5Dget_type(c->dset)) < 0) {
        rc = sp__h5_error(SP_EFORMAT, "%s: cannot inspect %s", file, c->where);
        goto done;
    }
    hsize_t dims[H5S_MAX_RANK];
    int nd = H5Sget_simple_extent_ndims(space);
    if (nd != 1 || H5Sget_simple_extent_dims(space, dims, NULL) != 1 ||
        H5Tget_class(type) != H5T_INTEGER) {
        rc = sp__error(SP_EFORMAT, "%s: %s is not a 1-D integer column", file, c->where);
        goto done;
    }
    c->n = dims[0];
    /* The bytes HDF5 really stores for it bound what it may claim. Asking
     * walks the chunk index (for a run of 1,024 ranks of small columns:
     * 100 MB of B-tree nodes and a second); a claim within the slack
     * passes whatever is stored, so only larger ones ask. */
    size_t width = H5Tget_size(type);
    hsize_t stored = width && c->n <= INFLATE_SLACK / width ? 0 : H5Dget_storage_size(c->dset);
    if (width == 0 || c->n > (INFLATE_SLACK + stored * INFLATE_MAX) / width) {
        rc = sp__error(SP_EFORMAT,
                       "%s: %s claims %llu elements but stores only %llu bytes (damaged or "
                       "crafted file)",
                       file, c->where, (unsigned long long)c->n, (unsigned long long)stored);
        goto done;
    }
    rc = sp__h5_chunks_check(file, c->dset, c->where, c->n);
done:
    H5Eclear2(H5E_DEFAULT);
    if (type >= 0)
        H5Tclose(type);
    if (space >= 0)
        H5Sclose(space);
    if (rc)
        sp_v2c_close(c);
    return rc;
}

int sp_v2c_read(const char *file, const sp_v2c *c, hid_t mtype, hsize_t off, hsize_t count,
                void *buf)
{
    if (count == 0)
        return 0;
    if (off > c->n || count > c->n - off)
        return sp__error(SP_EFORMAT, "%s: %s: rows %llu..%llu beyond its %llu rows", file,
                         c->where, (unsigned long long)off, (unsigned long long)(off + count),
                         (unsigned long long)c->n);
    int rc = 0;
    hid_t fs = H5Dget_space(c->dset), ms = H5Screate_simple(1, &count, NULL);
    if (fs < 0 || ms < 0 || H5Sselect_hyperslab(fs, H5S_SELECT_SET, &off, NULL, &count, NULL) < 0 ||
        H5Dread(c->dset, mtype, ms, fs, H5P_DEFAULT, buf) < 0)
        rc = sp__h5_error(SP_EFORMAT, "%s: cannot read %s", file, c->where);
    if (ms >= 0)
        H5Sclose(ms);
    if (fs >= 0)
        H5Sclose(fs);
    return rc;
}

int sp_v2c_read_all(const char *file, const sp_v2c *c, hid_t mtype, size_t width, hsize_t n,
                    void **out)
{
    *out = NULL;
    if (n > c->n)
        n = c->n;
    int rc = sp__read_charge_n(c->where, n, width);
    if (rc)
        return rc;
    void *buf = malloc(n ? (size_t)n * width : 1);
    if (!buf)
        return sp__error(SP_ENOMEM, "%s: out of memory reading %s (%llu rows)", file, c->where,
                         (unsigned long long)n);
    rc = sp_v2c_read(file, c, mtype, 0, n, buf);
    if (rc) {
        free(buf);
        return rc;
    }
    *out = buf;
    return 0;
}

int sp_v2c_names(const char *file, hid_t loc, size_t max_rows, size_t *n, char ***out)
{
    sp_v2c bytes, end;
    uint8_t *b = NULL;
    uint64_t *e = NULL;
    char **names = NULL;
    *n = 0;
    *out = NULL;
    int rc = sp_v2c_open(file, loc, SP_NAME2(V2_NAME_BYTES), false, &bytes);
    if (rc)
        return rc;
    if ((rc = sp_v2c_open(file, loc, SP_NAME2(V2_NAME_END), false, &end)))
        goto done;
    hsize_t rows = end.n < max_rows ? end.n : max_rows;
    if ((rc = sp_v2c_read_all(file, &end, H5T_NATIVE_UINT64, 8, rows, (void **)&e)) ||
        (rc = sp_v2c_read_all(file, &bytes, H5T_NATIVE_UINT8, 1, bytes.n, (void **)&b)))
        goto done;
    if (!(names = calloc(rows ? (size_t)rows : 1, sizeof *names))) {
        rc = sp__error(SP_ENOMEM, "%s: out of memory reading %s", file, end.where);
        goto done;
    }
    uint64_t start = 0;
    for (hsize_t i = 0; i < rows; i++) {
        if (e[i] < start || e[i] > bytes.n) {
            rc = sp__error(SP_EFORMAT, "%s: %s: row %llu ends at byte %" PRIu64
                           " (previous end %" PRIu64 ", %llu bytes)", file, end.where,
                           (unsigned long long)i, e[i], start, (unsigned long long)bytes.n);
            goto done;
        }
        if (!(names[i] = sp_v2_bytes_to_text(b + start, (size_t)(e[i] - start)))) {
            rc = sp__error(SP_ENOMEM, "%s: out of memory reading %s", file, end.where);
            goto done;
        }
        start = e[i];
    }
    *n = (size_t)rows;
    *out = names;
    names = NULL;
done:
    if (names)
        sp__strings_free(names, (size_t)rows);
    free(b);
    free(e);
    sp_v2c_close(&bytes);
    sp_v2c_close(&end);
    return rc;
}
