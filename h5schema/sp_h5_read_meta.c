/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_meta.c - a group's attributes as metadata (key -> text): every
 * type HDF5 and h5py write turned into one string, bounded and escaped.
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
        if ((rc = sp__h5_attr_strings(file, attr, type, n, where, &strs)) < 0)
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
