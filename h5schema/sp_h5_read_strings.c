/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_strings.c - string datasets and attributes, and integer attributes,
 * read without trusting the file: sanitized, charged to the read budget as
 * they arrive.
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
    sp__h5_column c;
    int rc;
    *out = NULL;
    *n = 0;
    if ((rc = sp__h5_column_open(file, loc, name, 1, H5T_STRING, &c)) < 0)
        return rc;
    rc = read_string_values(file, c.dset, c.ftype, c.n, dset_read, c.where, out);
    if (rc == 0)
        *n = c.n;
    sp__h5_column_close(&c);
    return rc;
}

int sp__h5_read_int_attr(const char *file, hid_t loc, const char *name, int64_t *out)
{
    int rc = 0;
    hid_t attr = H5I_INVALID_HID, type = H5I_INVALID_HID, space = H5I_INVALID_HID;
    char where[256];
    sp__h5_path(loc, NULL, where, sizeof where);
    /* Opened at once (every rank has three of these): only a failure asks
     * whether it is there, for the message. */
    if ((attr = H5Aopen(loc, name, H5P_DEFAULT)) < 0 && H5Aexists(loc, name) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return sp__error(SP_EFORMAT, "%s: attribute '%s' of %s is missing", file, name,
                         where);
    }
    if (attr < 0 || (type = H5Aget_type(attr)) < 0 ||
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

int sp__h5_attr_strings(const char *file, hid_t attr, hid_t ftype, size_t n, const char *where,
                        char ***out)
{
    return read_string_values(file, attr, ftype, n, attr_read, where, out);
}
