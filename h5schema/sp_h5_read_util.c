/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_util.c - reading datasets and attributes without trusting the
 * file: every shape, type and size is checked before memory is allocated or
 * data is used, and every failure becomes one line in sp_last_error().
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

/* ------------------------------------------------------------ read budget */

/* The read in progress on this thread (sp_h5_read() sets it); NULL outside a
 * read, and then nothing is charged and only the file-size checks that need
 * no budget apply. */
static _Thread_local sp__read_budget *current_budget;

int sp_h5_parse_size(const char *s, uint64_t *out)
{
    if (!s || !*s)
        return SP_EINVAL;
    if (strcmp(s, "unlimited") == 0 || strcmp(s, "none") == 0) {
        *out = UINT64_MAX;
        return 0;
    }
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || errno || !(v > 0))
        return SP_EINVAL;
    double unit = 1;
    if (*end) {
        switch (*end == 'k' ? 'K' : *end) {
        case 'K': unit = 1024.0; break;
        case 'M': unit = 1024.0 * 1024; break;
        case 'G': unit = 1024.0 * 1024 * 1024; break;
        case 'T': unit = 1024.0 * 1024 * 1024 * 1024; break;
        default: return SP_EINVAL;
        }
        end++;
        if (*end == 'i')
            end++;
        if (*end == 'B')
            end++;
        if (*end)
            return SP_EINVAL;
    }
    v *= unit;
    if (v < 1024 * 1024) /* a read needs some room; refuse nonsense like "5" */
        return SP_EINVAL;
    *out = v >= 1.8e19 ? UINT64_MAX : (uint64_t)v;
    return 0;
}

uint64_t sp_h5_read_limit(void)
{
    uint64_t v;
    const char *env = getenv(SP_READ_LIMIT_ENV);
    if (env && sp_h5_parse_size(env, &v) == 0)
        return v;
    return SP_READ_LIMIT_DEFAULT;
}

void sp__h5_size_str(uint64_t bytes, char *buf, size_t len)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = 0;
    while (v >= 1024 && u < 6)
        v /= 1024, u++;
    if (u == 0)
        snprintf(buf, len, "%" PRIu64 " bytes", bytes);
    else
        snprintf(buf, len, "%.1f %s", v, units[u]);
}

int sp__read_budget_begin(sp__read_budget *b, const char *file, int fd)
{
    struct stat st;
    memset(b, 0, sizeof *b);
    b->file = file;
    b->limit = SP_READ_LIMIT_DEFAULT;
    const char *env = getenv(SP_READ_LIMIT_ENV);
    if (env && *env && sp_h5_parse_size(env, &b->limit) != 0)
        return sp__error(SP_EINVAL,
                         "invalid %s '%s' (a size such as 512M, 8G or unlimited, at least 1M)",
                         SP_READ_LIMIT_ENV, env);
    if (fd >= 0 && fstat(fd, &st) != 0)
        return sp__error(SP_EIO, "cannot read '%s': %s", file, strerror(errno));
    b->file_size = fd >= 0 ? (uint64_t)st.st_size : UINT64_MAX;
    b->prev = current_budget;
    current_budget = b;
    return 0;
}

void sp__read_budget_end(sp__read_budget *b)
{
    if (current_budget == b)
        current_budget = b->prev;
}

sp__read_budget *sp__read_budget_current(void)
{
    return current_budget;
}

int sp__read_charge(const char *what, uint64_t bytes)
{
    sp__read_budget *b = current_budget;
    if (!b)
        return 0;
    if (bytes <= b->limit && b->used <= b->limit - bytes) {
        b->used += bytes;
        return 0;
    }
    char need[32], lim[32];
    sp__h5_size_str(bytes, need, sizeof need);
    sp__h5_size_str(b->limit, lim, sizeof lim);
    return sp__error(SP_ENOMEM,
                     "%s: %s needs %s more, over the read limit of %s (raise it with %s=SIZE, "
                     "or scope-profiler --read-limit SIZE)",
                     b->file, what, need, lim, SP_READ_LIMIT_ENV);
}

/* n * size, or UINT64_MAX when it overflows. */
static uint64_t mul_sat(uint64_t n, uint64_t size)
{
    return size && n > UINT64_MAX / size ? UINT64_MAX : n * size;
}

int sp__read_charge_n(const char *what, uint64_t n, uint64_t size)
{
    return sp__read_charge(what, mul_sat(n, size));
}

/* Links inside a run file are never followed: only a hard link counts as
 * "there" (a soft or external link could lead anywhere, an external one to
 * a FIFO or device HDF5 would block on). The one exception, a v2 run's
 * link to its rank's part, is checked by sp_h5_read_v2_link.c. */
const char *sp__h5_link_refused(hid_t loc, const char *name)
{
    H5L_info_t li;
    htri_t e = H5Lexists(loc, name, H5P_DEFAULT);
    const char *why = NULL;
    if (e > 0 && H5Lget_info(loc, name, &li, H5P_DEFAULT) >= 0 && li.type != H5L_TYPE_HARD)
        why = li.type == H5L_TYPE_SOFT       ? "a soft link"
            : li.type == H5L_TYPE_EXTERNAL ? "an external link"
                                           : "a user-defined link";
    H5Eclear2(H5E_DEFAULT);
    return why;
}

bool sp__h5_has(hid_t loc, const char *name)
{
    H5L_info_t li;
    htri_t e = H5Lexists(loc, name, H5P_DEFAULT);
    bool hard = e > 0 && H5Lget_info(loc, name, &li, H5P_DEFAULT) >= 0 &&
                li.type == H5L_TYPE_HARD;
    H5Eclear2(H5E_DEFAULT);
    return hard;
}

int sp__h5_open_group(const char *file, hid_t loc, const char *name, hid_t *out)
{
    char where[256];
    sp__h5_path(loc, name, where, sizeof where);
    *out = H5I_INVALID_HID;
    const char *link = sp__h5_link_refused(loc, name);
    if (link)
        return sp__error(SP_EFORMAT, "%s: %s is %s: links in a run file are never followed",
                         file, where, link);
    if (!sp__h5_has(loc, name))
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

/* An open dataset whose shape and type were checked. */
typedef struct column {
    hid_t dset, ftype;
    int ndims;
    size_t dims[2];
    size_t n; /* elements */
    char where[256];
} column;

static void column_close(column *c)
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
    uint64_t need = mul_sat(n, elem_size);
    hsize_t have = H5Dget_storage_size(dset);
    int nfilters = H5Pget_nfilters(dcpl);
    const sp__read_budget *b = current_budget;
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
static int column_open(const char *file, hid_t loc, const char *name, int max_rank,
                       H5T_class_t cls, column *c)
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
        column_close(c);
    return rc;
}

/* Read a numeric column of class cls into a new array of mtype. */
static int read_numbers(const char *file, hid_t loc, const char *name, H5T_class_t cls,
                        hid_t mtype, size_t width, int max_rank, column *c, void **out)
{
    int rc;
    *out = NULL;
    if ((rc = column_open(file, loc, name, max_rank, cls, c)) < 0)
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
    column_close(c);
    return rc;
}

static int read_ints(const char *file, hid_t loc, const char *name, int width,
                     int max_rank, column *c, void **out)
{
    return read_numbers(file, loc, name, H5T_INTEGER,
                        width == 4 ? H5T_NATIVE_INT32 : H5T_NATIVE_INT64, (size_t)width,
                        max_rank, c, out);
}

int sp__h5_read_f64(const char *file, hid_t loc, const char *name, size_t *n,
                    double **out)
{
    column c;
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
    column c;
    int rc = read_ints(file, loc, name, width, 1, &c, out);
    *n = rc < 0 ? 0 : c.n;
    return rc;
}

int sp__h5_read_ints_2d(const char *file, hid_t loc, const char *name, int *ndims,
                        size_t dims[2], int64_t **out)
{
    column c;
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
    column c;
    /* Any class: only the shape is wanted; column_open checks the storage. */
    hid_t d = sp__h5_has(loc, name) ? H5Dopen2(loc, name, H5P_DEFAULT) : H5I_INVALID_HID;
    hid_t t = d >= 0 ? H5Dget_type(d) : H5I_INVALID_HID;
    H5T_class_t cls = t >= 0 ? H5Tget_class(t) : H5T_NO_CLASS;
    if (t >= 0)
        H5Tclose(t);
    if (d >= 0)
        H5Dclose(d);
    H5Eclear2(H5E_DEFAULT);
    int rc = column_open(file, loc, name, 2, cls == H5T_NO_CLASS ? H5T_INTEGER : cls, &c);
    if (rc < 0)
        return rc;
    *ndims = c.ndims;
    dims[0] = c.dims[0];
    dims[1] = c.dims[1];
    column_close(&c);
    return 0;
}

int sp__read_charge_ranks(size_t nranks, size_t nregions)
{
    sp__read_budget *b = current_budget;
    int rc = sp__read_charge_n("its ranks x regions (statistics)", nranks,
                               sizeof(sp_rank_data) + (uint64_t)nregions * SP__H5_RANK_REGION_BYTES);
    if (rc == 0 && b)
        b->ranks_charged = true;
    return rc;
}

void sp__strings_free(char **s, size_t n)
{
    if (!s)
        return;
    for (size_t i = 0; i < n; i++)
        free(s[i]);
    free(s);
}

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
        sp__utf8_sanitize(d);
    }
    return d;
}

/*
 * Read n strings of file type ftype through one of two callbacks (dataset or
 * attribute) into new malloc'ed, sanitized strings. Variable-length strings
 * are reclaimed; fixed-length ones are cut at their padding. Datasets are
 * read in blocks, and every block's strings are charged to the read budget
 * before the next is read: the lengths of variable-length strings are only
 * known once read, and a small file can make many of its elements point at
 * one large string.
 */
typedef herr_t (*read_fn)(hid_t obj, hid_t mtype, hid_t dxpl, hsize_t first, hsize_t count,
                          void *buf);

#define STRING_BLOCK 4096

static herr_t dset_read(hid_t obj, hid_t mtype, hid_t dxpl, hsize_t first, hsize_t count,
                        void *buf)
{
    hid_t fspace = H5Dget_space(obj), mspace = H5Screate_simple(1, &count, NULL);
    herr_t e = -1;
    if (fspace >= 0 && mspace >= 0 &&
        H5Sselect_hyperslab(fspace, H5S_SELECT_SET, &first, NULL, &count, NULL) >= 0)
        e = H5Dread(obj, mtype, mspace, fspace, dxpl, buf);
    if (mspace >= 0)
        H5Sclose(mspace);
    if (fspace >= 0)
        H5Sclose(fspace);
    return e;
}

static herr_t attr_read(hid_t obj, hid_t mtype, hid_t dxpl, hsize_t first, hsize_t count,
                        void *buf)
{
    (void)dxpl; /* attributes are read whole, with HDF5's own allocator */
    (void)first;
    (void)count;
    return H5Aread(obj, mtype, buf);
}

/* HDF5 allocates each variable-length string of a dataset read through this:
 * a string's length comes from the file (a crafted one claims gigabytes per
 * element), so each allocation is charged to the read budget first and
 * refused beyond it, which fails the read cleanly. */
typedef struct vlen_ctx {
    const char *where;
    bool refused;
} vlen_ctx;

static void *vlen_alloc(size_t size, void *info)
{
    vlen_ctx *v = info;
    if (sp__read_charge(v->where, size) < 0) {
        v->refused = true;
        return NULL;
    }
    return malloc(size);
}

static void vlen_free(void *p, void *info)
{
    (void)info;
    free(p);
}

static int read_string_values(const char *file, hid_t obj, hid_t ftype, size_t n, read_fn rd,
                              const char *where, char ***out)
{
    int rc = 0;
    bool over_budget = false; /* the budget's message is already set */
    hid_t mtype = H5I_INVALID_HID, mspace = H5I_INVALID_HID, dxpl = H5P_DEFAULT;
    char **res = NULL;
    char *raw = NULL;
    *out = NULL;
    htri_t var = H5Tis_variable_str(ftype);
    size_t size = H5Tget_size(ftype);
    H5T_cset_t cset = H5Tget_cset(ftype);
    if (var < 0 || size == 0 || (mtype = H5Tcopy(H5T_C_S1)) < 0 || cset < 0 ||
        H5Tset_cset(mtype, cset) < 0 || H5Tset_size(mtype, var ? H5T_VARIABLE : size) < 0) {
        rc = SP_EFORMAT;
        goto done;
    }
    if (!var && H5Tset_strpad(mtype, H5Tget_strpad(ftype)) < 0) {
        rc = SP_EFORMAT;
        goto done;
    }
    /* The pointers, and for fixed-length strings their full size. */
    if ((rc = sp__read_charge_n(where, n, sizeof(char *) + (var ? 0 : size))) < 0) {
        over_budget = true;
        goto done;
    }
    if (!(res = calloc(n ? n : 1, sizeof *res))) {
        rc = SP_ENOMEM;
        goto done;
    }
    if (n == 0)
        goto done;
    bool whole = rd == attr_read;
    size_t block = whole ? n : (n < STRING_BLOCK ? n : STRING_BLOCK);
    hsize_t hblock = block;
    if ((mspace = H5Screate_simple(1, &hblock, NULL)) < 0 ||
        !(raw = calloc(block, var ? sizeof(char *) : size))) {
        rc = mspace < 0 ? SP_EFORMAT : SP_ENOMEM;
        goto done;
    }
    bool space_pad = !var && H5Tget_strpad(ftype) == H5T_STR_SPACEPAD;
    vlen_ctx vctx = {where, false};
    if (var && !whole &&
        ((dxpl = H5Pcreate(H5P_DATASET_XFER)) < 0 ||
         H5Pset_vlen_mem_manager(dxpl, vlen_alloc, &vctx, vlen_free, NULL) < 0)) {
        rc = SP_EFORMAT;
        goto done;
    }
    for (size_t first = 0; first < n && rc == 0; first += block) {
        size_t count = n - first < block ? n - first : block;
        if (rd(obj, mtype, dxpl, first, count, raw) < 0) {
            rc = vctx.refused ? SP_ENOMEM : SP_EFORMAT;
            over_budget = vctx.refused;
            break;
        }
        uint64_t bytes = 0;
        for (size_t i = 0; i < count && rc == 0; i++) {
            const char *s;
            size_t len;
            if (var) {
                s = ((char **)raw)[i];
                len = s ? strlen(s) : 0;
                bytes += len + 1;
            } else {
                s = raw + i * size;
                len = strnlen(s, size);
                while (space_pad && len > 0 && s[len - 1] == ' ')
                    len--;
            }
            if (!(res[first + i] = dup_n(s ? s : "", len)))
                rc = SP_ENOMEM;
        }
        if (var) {
            /* mspace covers `block` elements; the unread tail holds NULLs. */
            H5Dvlen_reclaim(mtype, mspace, dxpl, raw);
            memset(raw, 0, block * sizeof(char *));
        }
        /* Attributes: charged once read (HDF5 allocates them itself). */
        if (rc == 0 && var && whole && (rc = sp__read_charge(where, bytes)) < 0)
            over_budget = true;
    }
done:
    free(raw);
    if (dxpl != H5P_DEFAULT && dxpl >= 0)
        H5Pclose(dxpl);
    if (mspace >= 0)
        H5Sclose(mspace);
    if (mtype >= 0)
        H5Tclose(mtype);
    if (rc == SP_ENOMEM && !over_budget)
        rc = sp__error(rc, "%s: out of memory reading %s", file, where);
    else if (rc < 0 && rc != SP_ENOMEM)
        rc = sp__h5_error(rc, "%s: cannot read %s", file, where);
    if (rc < 0) {
        sp__strings_free(res, n);
        res = NULL;
    }
    *out = res;
    return rc;
}

int sp__h5_read_strings(const char *file, hid_t loc, const char *name, size_t *n,
                        char ***out)
{
    column c;
    int rc;
    *out = NULL;
    *n = 0;
    if ((rc = column_open(file, loc, name, 1, H5T_STRING, &c)) < 0)
        return rc;
    rc = read_string_values(file, c.dset, c.ftype, c.n, dset_read, c.where, out);
    if (rc == 0)
        *n = c.n;
    column_close(&c);
    return rc;
}

int sp__h5_read_int_attr(const char *file, hid_t loc, const char *name, int64_t *out)
{
    int rc = 0;
    hid_t attr = H5I_INVALID_HID, type = H5I_INVALID_HID, space = H5I_INVALID_HID;
    char where[256];
    sp__h5_path(loc, NULL, where, sizeof where);
    htri_t e = H5Aexists(loc, name);
    if (e <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return sp__error(SP_EFORMAT, "%s: attribute '%s' of %s is missing", file, name,
                         where);
    }
    if ((attr = H5Aopen(loc, name, H5P_DEFAULT)) < 0 || (type = H5Aget_type(attr)) < 0 ||
        (space = H5Aget_space(attr)) < 0) {
        rc = sp__h5_error(SP_EFORMAT, "%s: cannot open attribute '%s' of %s", file, name,
                          where);
        goto done;
    }
    if (H5Tget_class(type) != H5T_INTEGER || H5Sget_simple_extent_npoints(space) != 1) {
        rc = sp__error(SP_EFORMAT, "%s: attribute '%s' of %s is not one integer", file,
                       name, where);
        goto done;
    }
    if (H5Aread(attr, H5T_NATIVE_INT64, out) < 0)
        rc = sp__h5_error(SP_EFORMAT, "%s: cannot read attribute '%s' of %s", file, name,
                          where);
done:
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    if (attr >= 0)
        H5Aclose(attr);
    return rc;
}

/* ---------------------------------------------------------------- metadata */

/* A growing string; on out of memory it stops growing and sets oom. */
typedef struct strbuf {
    char *s;
    size_t len, cap;
    bool oom;
} strbuf;

static void sb_add(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_add(strbuf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0)
        return;
    if (b->len + (size_t)k + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        while (b->len + (size_t)k + 1 > cap)
            cap *= 2;
        char *s = realloc(b->s, cap);
        if (!s) {
            b->oom = true;
            return;
        }
        b->s = s;
        b->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(b->s + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    b->len += (size_t)k;
}

/* Shortest "%.*g" that reads back as the same double (Python's repr). */
static void sb_double(strbuf *b, double v)
{
    char tmp[40];
    for (int prec = 1; prec <= 17; prec++) {
        snprintf(tmp, sizeof tmp, "%.*g", prec, v);
        if (strtod(tmp, NULL) == v || prec == 17)
            break;
    }
    sb_add(b, "%s", tmp);
}

/* Lists of more elements are not metadata we show; skip them. */
#define MAX_META_ELEMENTS 100000

/* The value of attr as a string in *out, or *out = NULL when its type is not
 * one metadata can hold. Returns 0, SP_ENOMEM or SP_EFORMAT (with the message
 * set when it is a string attribute, or the read budget, that failed). */
static int attr_to_string(const char *file, const char *where, hid_t attr, char **out)
{
    int rc = 0;
    hid_t type = H5I_INVALID_HID, space = H5I_INVALID_HID, mtype = H5I_INVALID_HID;
    void *buf = NULL;
    char **strs = NULL;
    strbuf b = {0};
    hssize_t np = 0;
    *out = NULL;
    if ((type = H5Aget_type(attr)) < 0 || (space = H5Aget_space(attr)) < 0) {
        rc = sp__h5_error(SP_EFORMAT, "%s: cannot read %s", file, where);
        goto done;
    }
    np = H5Sget_simple_extent_npoints(space);
    if (np <= 0 || np > MAX_META_ELEMENTS)
        goto done;
    size_t n = (size_t)np;
    if ((rc = sp__read_charge_n(where, n, 16)) < 0) /* the values, as numbers and text */
        goto done;
    switch (H5Tget_class(type)) {
    case H5T_INTEGER: {
        bool is_unsigned = H5Tget_sign(type) == H5T_SGN_NONE;
        if (!(buf = malloc(n * 8))) {
            rc = sp__error(SP_ENOMEM, "%s: out of memory reading %s", file, where);
            goto done;
        }
        if (H5Aread(attr, is_unsigned ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64, buf) < 0) {
            rc = sp__h5_error(SP_EFORMAT, "%s: cannot read %s", file, where);
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            if (is_unsigned)
                sb_add(&b, "%s%" PRIu64, i ? ", " : "", ((uint64_t *)buf)[i]);
            else
                sb_add(&b, "%s%" PRId64, i ? ", " : "", ((int64_t *)buf)[i]);
        }
        break;
    }
    case H5T_FLOAT:
        if (!(buf = malloc(n * sizeof(double)))) {
            rc = sp__error(SP_ENOMEM, "%s: out of memory reading %s", file, where);
            goto done;
        }
        if (H5Aread(attr, H5T_NATIVE_DOUBLE, buf) < 0) {
            rc = sp__h5_error(SP_EFORMAT, "%s: cannot read %s", file, where);
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            sb_add(&b, "%s", i ? ", " : "");
            sb_double(&b, ((double *)buf)[i]);
        }
        break;
    case H5T_STRING:
        if ((rc = read_string_values(file, attr, type, n, attr_read, where, &strs)) < 0)
            goto done;
        for (size_t i = 0; i < n; i++)
            sb_add(&b, "%s%s", i ? ", " : "", strs[i]);
        break;
    case H5T_ENUM: { /* h5py stores bools as an enum FALSE/TRUE */
        if ((mtype = H5Tget_native_type(type, H5T_DIR_ASCEND)) < 0) {
            rc = sp__h5_error(SP_EFORMAT, "%s: cannot read %s", file, where);
            goto done;
        }
        size_t sz = H5Tget_size(mtype);
        if (!sz || !(buf = malloc(n * sz))) {
            rc = sz ? sp__error(SP_ENOMEM, "%s: out of memory reading %s", file, where)
                    : sp__error(SP_EFORMAT, "%s: %s has an empty enum type", file, where);
            goto done;
        }
        if (H5Aread(attr, mtype, buf) < 0) {
            rc = sp__h5_error(SP_EFORMAT, "%s: cannot read %s", file, where);
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            char name[128];
            if (H5Tenum_nameof(mtype, (char *)buf + i * sz, name, sizeof name) < 0)
                snprintf(name, sizeof name, "?");
            sb_add(&b, "%s%s", i ? ", " : "", name);
        }
        break;
    }
    default:
        goto done; /* compound, reference, ...: not metadata we understand */
    }
    if (b.oom) {
        rc = sp__error(SP_ENOMEM, "%s: out of memory reading %s", file, where);
        goto done;
    }
    if (b.len && (rc = sp__read_charge(where, b.len)) < 0)
        goto done;
    if (!b.s)
        sb_add(&b, "%s", "");
    if (b.s)
        sp__utf8_sanitize(b.s);
    *out = b.s;
    b.s = NULL;
    if (!*out)
        rc = sp__error(SP_ENOMEM, "%s: out of memory reading %s", file, where);
done:
    H5Eclear2(H5E_DEFAULT);
    free(b.s);
    free(buf);
    sp__strings_free(strs, strs ? (size_t)np : 0);
    if (mtype >= 0)
        H5Tclose(mtype);
    if (space >= 0)
        H5Sclose(space);
    if (type >= 0)
        H5Tclose(type);
    return rc;
}

typedef struct meta_ctx {
    const char *file;
    char where[256];
    sp_kvlist *l;
    int rc;
} meta_ctx;

/* Append key/value (taking both) to l. Attribute names are unique within an
 * object, so no search is needed, unless sanitizing the key changed it (two
 * raw names may then meet as one): O(1) per attribute, not O(n), which a
 * file with 100,000 attributes would turn into seconds. */
static int meta_append(sp_kvlist *l, char *key, char *value, bool key_changed)
{
    if (key_changed && sp_kvlist_get(l, key)) {
        free(key);
        free(value);
        return 0; /* first one wins, as sp_kvlist_get() would show */
    }
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        sp_kv *items = realloc(l->items, cap * sizeof *items);
        if (!items) {
            free(key);
            free(value);
            return SP_ENOMEM;
        }
        l->items = items;
        l->cap = cap;
    }
    l->items[l->n].key = key;
    l->items[l->n].value = value;
    l->n++;
    return 0;
}

static herr_t meta_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    meta_ctx *m = data;
    char *value = NULL;
    char what[320];
    snprintf(what, sizeof what, "attribute '%s' of %s", name, m->where);
    hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    if (attr < 0) {
        m->rc = sp__h5_error(SP_EFORMAT, "%s: cannot open %s", m->file, what);
        return -1;
    }
    /* The entry itself: key, pointers, list slot. */
    int rc = sp__read_charge(what, strlen(name) + 1 + sizeof(sp_kv) * 2);
    if (rc == 0)
        rc = attr_to_string(m->file, what, attr, &value);
    H5Aclose(attr);
    bool key_ok = true;
    if (rc == 0 && value) {
        size_t len = strlen(name);
        char *key = malloc(len + 1);
        if (key) {
            memcpy(key, name, len + 1);
            rc = meta_append(m->l, key, value, sp__utf8_sanitize(key));
        } else {
            free(value);
            rc = SP_ENOMEM;
        }
        key_ok = key != NULL && rc == 0;
        value = NULL;
    }
    free(value);
    if (rc == SP_ENOMEM && !key_ok) /* every other failure has set its message */
        rc = sp__error(rc, "%s: out of memory reading %s", m->file, what);
    m->rc = rc;
    return rc < 0 ? -1 : 0;
}

int sp__h5_read_meta(const char *file, hid_t obj, sp_kvlist *l)
{
    meta_ctx m = {.file = file, .l = l, .rc = 0};
    sp__h5_path(obj, NULL, m.where, sizeof m.where);
    /* Creation order when the file tracks it (ours does), else by name. */
    unsigned flags = 0;
    hid_t ocpl = H5Gget_create_plist(obj);
    if (ocpl >= 0) {
        H5Pget_attr_creation_order(ocpl, &flags);
        H5Pclose(ocpl);
    }
    H5_index_t idx = (flags & H5P_CRT_ORDER_TRACKED) ? H5_INDEX_CRT_ORDER : H5_INDEX_NAME;
    hsize_t pos = 0;
    herr_t e = H5Aiterate2(obj, idx, H5_ITER_INC, &pos, meta_cb, &m);
    if (e < 0 && m.rc == 0 && idx == H5_INDEX_CRT_ORDER) {
        /* Tracked but not indexed: fall back to name order. */
        sp_kvlist_free(l);
        pos = 0;
        e = H5Aiterate2(obj, H5_INDEX_NAME, H5_ITER_INC, &pos, meta_cb, &m);
    }
    if (m.rc < 0)
        return m.rc;
    if (e < 0)
        return sp__h5_error(SP_EFORMAT, "%s: cannot list the attributes of %s", file,
                            m.where);
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

/* ------------------------------------------------------ visited objects */

/* An object's identity in its file: 16 bytes (file number and address in
 * HDF5 1.10, the object token from 1.12 on). */
static int object_key(hid_t obj, unsigned char key[16])
{
    memset(key, 0, 16);
#if H5_VERSION_GE(1, 12, 0)
    H5O_info2_t info;
    if (H5Oget_info3(obj, &info, H5O_INFO_BASIC) < 0)
        return -1;
    memcpy(key, &info.token, sizeof info.token < 16 ? sizeof info.token : 16);
#else
    H5O_info_t info;
    if (H5Oget_info2(obj, &info, H5O_INFO_BASIC) < 0)
        return -1;
    uint64_t fileno = (uint64_t)info.fileno, addr = (uint64_t)info.addr;
    memcpy(key, &fileno, 8);
    memcpy(key + 8, &addr, 8);
#endif
    return 0;
}

static size_t key_hash(const unsigned char key[16])
{
    uint64_t a, b;
    memcpy(&a, key, 8);
    memcpy(&b, key + 8, 8);
    uint64_t h = (a * 0x9E3779B97F4A7C15ull) ^ (b + 0x632BE59BD9B4E019ull);
    h ^= h >> 29;
    h *= 0xBF58476D1CE4E5B9ull;
    return (size_t)(h ^ (h >> 32));
}

int sp__h5_visit(const char *file, sp__h5_visited *v, hid_t obj, bool *seen)
{
    unsigned char key[16];
    *seen = false;
    if (object_key(obj, key) < 0)
        return sp__h5_error(SP_EFORMAT, "%s: cannot identify an object", file);
    if (2 * (v->n + 1) > v->cap) { /* grow: keep at most half full */
        size_t cap = v->cap ? 2 * v->cap : 64;
        int rc = sp__read_charge_n("the objects visited", cap, 17);
        if (rc < 0)
            return rc;
        unsigned char(*keys)[16] = calloc(cap, sizeof *keys);
        bool *used = calloc(cap, sizeof *used);
        if (!keys || !used) {
            free(keys);
            free(used);
            return sp__error(SP_ENOMEM, "%s: out of memory", file);
        }
        for (size_t i = 0; i < v->cap; i++) {
            if (!v->used[i])
                continue;
            size_t j = key_hash(v->keys[i]) & (cap - 1);
            while (used[j])
                j = (j + 1) & (cap - 1);
            memcpy(keys[j], v->keys[i], 16);
            used[j] = true;
        }
        free(v->keys);
        free(v->used);
        v->keys = keys;
        v->used = used;
        v->cap = cap;
    }
    size_t j = key_hash(key) & (v->cap - 1);
    for (; v->used[j]; j = (j + 1) & (v->cap - 1))
        if (memcmp(v->keys[j], key, 16) == 0) {
            *seen = true;
            return 0;
        }
    memcpy(v->keys[j], key, 16);
    v->used[j] = true;
    v->n++;
    return 0;
}

void sp__h5_visited_free(sp__h5_visited *v)
{
    free(v->keys);
    free(v->used);
    memset(v, 0, sizeof *v);
}
