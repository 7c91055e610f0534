/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_util.c - reading datasets and attributes without trusting the
 * file: every shape, type and size is checked before memory is allocated or
 * data is used, and every failure becomes one line in sp_last_error().
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_h5_internal.h"

/* Largest element count we allocate for, whatever a file claims. */
#define MAX_ELEMENTS ((hsize_t)1 << 40)

bool sp__h5_has(hid_t loc, const char *name)
{
    htri_t e = H5Lexists(loc, name, H5P_DEFAULT);
    H5Eclear2(H5E_DEFAULT);
    return e > 0;
}

int sp__h5_open_group(const char *file, hid_t loc, const char *name, hid_t *out)
{
    char where[256];
    sp__h5_path(loc, name, where, sizeof where);
    *out = H5I_INVALID_HID;
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

/* Open loc/name as a dataset of class cls with 1..max_rank dimensions and
 * check that its storage can hold what it claims. */
static int column_open(const char *file, hid_t loc, const char *name, int max_rank,
                       H5T_class_t cls, column *c)
{
    int rc = 0;
    hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    memset(c, 0, sizeof *c);
    c->dset = c->ftype = H5I_INVALID_HID;
    sp__h5_path(loc, name, c->where, sizeof c->where);
    if (!sp__h5_has(loc, name))
        return sp__error(SP_EFORMAT, "%s: dataset %s is missing", file, c->where);
    if ((c->dset = H5Dopen2(loc, name, H5P_DEFAULT)) < 0) {
        rc = sp__h5_error(SP_EFORMAT, "%s: %s is not a dataset", file, c->where);
        goto done;
    }
    if ((c->ftype = H5Dget_type(c->dset)) < 0 || (space = H5Dget_space(c->dset)) < 0 ||
        (dcpl = H5Dget_create_plist(c->dset)) < 0) {
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
    if (d[0] > MAX_ELEMENTS || d[1] > MAX_ELEMENTS || d[0] * d[1] > MAX_ELEMENTS) {
        rc = sp__error(SP_EFORMAT, "%s: %s claims an absurd size", file, c->where);
        goto done;
    }
    c->dims[0] = (size_t)d[0];
    c->dims[1] = (size_t)d[1];
    c->n = c->dims[0] * c->dims[1];
    if (H5Pget_external_count(dcpl) != 0) { /* data in other files: never follow */
        rc = sp__error(SP_EFORMAT, "%s: %s uses external storage", file, c->where);
        goto done;
    }
    /* Without filters, the bytes stored bound the real size: a dataset that
     * claims more was never written (or the file is damaged), and is refused
     * before we allocate for it. */
    if (H5Pget_nfilters(dcpl) == 0) {
        hsize_t need = (hsize_t)c->n * H5Tget_size(c->ftype);
        hsize_t have = H5Dget_storage_size(c->dset);
        if (have < need) {
            rc = sp__error(SP_EFORMAT,
                           "%s: %s stores %llu bytes, %llu needed for %zu elements "
                           "(not written, or damaged)",
                           file, c->where, (unsigned long long)have,
                           (unsigned long long)need, c->n);
            goto done;
        }
    }
done:
    if (dcpl >= 0)
        H5Pclose(dcpl);
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
 * are reclaimed; fixed-length ones are cut at their padding.
 */
typedef herr_t (*read_fn)(hid_t obj, hid_t mtype, void *buf);

static herr_t dset_read(hid_t obj, hid_t mtype, void *buf)
{
    return H5Dread(obj, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, buf);
}

static herr_t attr_read(hid_t obj, hid_t mtype, void *buf)
{
    return H5Aread(obj, mtype, buf);
}

static int read_string_values(hid_t obj, hid_t ftype, hid_t space, size_t n, read_fn rd,
                              char ***out)
{
    int rc = 0;
    hid_t mtype = H5I_INVALID_HID;
    char **res = calloc(n ? n : 1, sizeof *res);
    char *raw = NULL;
    if (!res)
        return SP_ENOMEM;
    htri_t var = H5Tis_variable_str(ftype);
    size_t size = H5Tget_size(ftype);
    H5T_cset_t cset = H5Tget_cset(ftype);
    if (var < 0 || (mtype = H5Tcopy(H5T_C_S1)) < 0 || cset < 0 ||
        H5Tset_cset(mtype, cset) < 0 ||
        H5Tset_size(mtype, var ? H5T_VARIABLE : size) < 0) {
        rc = SP_EFORMAT;
        goto done;
    }
    if (!var && H5Tset_strpad(mtype, H5Tget_strpad(ftype)) < 0) {
        rc = SP_EFORMAT;
        goto done;
    }
    if (n == 0)
        goto done;
    raw = calloc(n, var ? sizeof(char *) : size);
    if (!raw) {
        rc = SP_ENOMEM;
        goto done;
    }
    if (rd(obj, mtype, raw) < 0) {
        rc = SP_EFORMAT;
        goto done;
    }
    bool space_pad = !var && H5Tget_strpad(ftype) == H5T_STR_SPACEPAD;
    for (size_t i = 0; i < n && rc == 0; i++) {
        const char *s;
        size_t len;
        if (var) {
            s = ((char **)raw)[i];
            len = s ? strlen(s) : 0;
        } else {
            s = raw + i * size;
            len = strnlen(s, size);
            while (space_pad && len > 0 && s[len - 1] == ' ')
                len--;
        }
        if (!(res[i] = dup_n(s ? s : "", len)))
            rc = SP_ENOMEM;
    }
    if (var)
        H5Dvlen_reclaim(mtype, space, H5P_DEFAULT, raw);
done:
    free(raw);
    if (mtype >= 0)
        H5Tclose(mtype);
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
    hid_t space = H5I_INVALID_HID;
    int rc;
    *out = NULL;
    *n = 0;
    if ((rc = column_open(file, loc, name, 1, H5T_STRING, &c)) < 0)
        return rc;
    if ((space = H5Dget_space(c.dset)) < 0) {
        rc = sp__h5_error(SP_EFORMAT, "%s: cannot inspect %s", file, c.where);
        goto done;
    }
    rc = read_string_values(c.dset, c.ftype, space, c.n, dset_read, out);
    if (rc == SP_ENOMEM)
        rc = sp__error(rc, "%s: out of memory reading %s", file, c.where);
    else if (rc < 0)
        rc = sp__h5_error(rc, "%s: cannot read %s", file, c.where);
    else
        *n = c.n;
done:
    if (space >= 0)
        H5Sclose(space);
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
 * one metadata can hold. Returns 0, SP_ENOMEM or SP_EFORMAT. */
static int attr_to_string(hid_t attr, char **out)
{
    int rc = 0;
    hid_t type = H5I_INVALID_HID, space = H5I_INVALID_HID, mtype = H5I_INVALID_HID;
    void *buf = NULL;
    char **strs = NULL;
    strbuf b = {0};
    hssize_t np = 0;
    *out = NULL;
    if ((type = H5Aget_type(attr)) < 0 || (space = H5Aget_space(attr)) < 0) {
        rc = SP_EFORMAT;
        goto done;
    }
    np = H5Sget_simple_extent_npoints(space);
    if (np <= 0 || np > MAX_META_ELEMENTS)
        goto done;
    size_t n = (size_t)np;
    switch (H5Tget_class(type)) {
    case H5T_INTEGER: {
        bool is_unsigned = H5Tget_sign(type) == H5T_SGN_NONE;
        if (!(buf = malloc(n * 8))) {
            rc = SP_ENOMEM;
            goto done;
        }
        if (H5Aread(attr, is_unsigned ? H5T_NATIVE_UINT64 : H5T_NATIVE_INT64, buf) < 0) {
            rc = SP_EFORMAT;
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
            rc = SP_ENOMEM;
            goto done;
        }
        if (H5Aread(attr, H5T_NATIVE_DOUBLE, buf) < 0) {
            rc = SP_EFORMAT;
            goto done;
        }
        for (size_t i = 0; i < n; i++) {
            sb_add(&b, "%s", i ? ", " : "");
            sb_double(&b, ((double *)buf)[i]);
        }
        break;
    case H5T_STRING:
        if ((rc = read_string_values(attr, type, space, n, attr_read, &strs)) < 0)
            goto done;
        for (size_t i = 0; i < n; i++)
            sb_add(&b, "%s%s", i ? ", " : "", strs[i]);
        break;
    case H5T_ENUM: { /* h5py stores bools as an enum FALSE/TRUE */
        if ((mtype = H5Tget_native_type(type, H5T_DIR_ASCEND)) < 0) {
            rc = SP_EFORMAT;
            goto done;
        }
        size_t sz = H5Tget_size(mtype);
        if (!sz || !(buf = malloc(n * sz))) {
            rc = sz ? SP_ENOMEM : SP_EFORMAT;
            goto done;
        }
        if (H5Aread(attr, mtype, buf) < 0) {
            rc = SP_EFORMAT;
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
        rc = SP_ENOMEM;
        goto done;
    }
    if (!b.s)
        sb_add(&b, "%s", "");
    if (b.s)
        sp__utf8_sanitize(b.s);
    *out = b.s;
    b.s = NULL;
    if (!*out)
        rc = SP_ENOMEM;
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

static herr_t meta_cb(hid_t loc, const char *name, const H5A_info_t *info, void *data)
{
    (void)info;
    meta_ctx *m = data;
    char *value = NULL, *key = NULL;
    hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    if (attr < 0) {
        m->rc = sp__h5_error(SP_EFORMAT, "%s: cannot open attribute '%s' of %s", m->file,
                             name, m->where);
        return -1;
    }
    int rc = attr_to_string(attr, &value);
    H5Aclose(attr);
    if (rc == 0 && value) {
        key = dup_n(name, strlen(name));
        rc = key ? sp_kvlist_set(m->l, key, value) : SP_ENOMEM;
    }
    free(key);
    free(value);
    if (rc == SP_ENOMEM)
        m->rc = sp__error(rc, "%s: out of memory reading the attributes of %s", m->file,
                          m->where);
    else if (rc < 0)
        m->rc = sp__error(rc, "%s: cannot read attribute '%s' of %s", m->file, name,
                          m->where);
    return m->rc < 0 ? -1 : 0;
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
