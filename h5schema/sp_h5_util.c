/* SPDX-License-Identifier: MIT */
/* sp_h5_util.c - HDF5 error capture, type mapping, paths, groups, UTF-8 checks. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "sp_error.h"
#include "sp_h5_internal.h"

void sp__h5_quiet_begin(sp__h5_quiet *q)
{
    q->func = NULL;
    q->data = NULL;
    H5Eget_auto2(H5E_DEFAULT, &q->func, &q->data);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
}

void sp__h5_quiet_end(const sp__h5_quiet *q)
{
    H5Eclear2(H5E_DEFAULT);
    H5Eset_auto2(H5E_DEFAULT, q->func, q->data);
}

typedef struct reason {
    char inner[256]; /* where the error was detected: the specific cause */
    char outer[256]; /* the API-level failure */
} reason;

static void copy_line(char *dst, size_t len, const char *src)
{
    size_t j = 0;
    for (size_t i = 0; src && src[i] && j + 1 < len; i++)
        dst[j++] = (src[i] == '\n' || src[i] == '\r') ? ' ' : src[i];
    dst[j] = '\0';
}

static herr_t walk_cb(unsigned n, const H5E_error2_t *err, void *data)
{
    reason *r = data;
    /* Walking upward: entry 0 is the innermost, the last is the API call. */
    if (n == 0)
        copy_line(r->inner, sizeof r->inner, err->desc);
    copy_line(r->outer, sizeof r->outer, err->desc);
    return 0;
}

int sp__h5_error(int code, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);

    reason r = {{0}, {0}};
    H5Ewalk2(H5E_DEFAULT, H5E_WALK_UPWARD, walk_cb, &r);
    H5Eclear2(H5E_DEFAULT);
    if (!r.inner[0])
        return sp__error(code, "%s", msg);
    if (!r.outer[0] || strcmp(r.inner, r.outer) == 0)
        return sp__error(code, "%s (HDF5: %s)", msg, r.inner);
    return sp__error(code, "%s (HDF5: %s: %s)", msg, r.outer, r.inner);
}

static hid_t vlen_utf8(void)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    if (t < 0)
        return t;
    if (H5Tset_size(t, H5T_VARIABLE) < 0 || H5Tset_cset(t, H5T_CSET_UTF8) < 0 ||
        H5Tset_strpad(t, H5T_STR_NULLTERM) < 0) {
        H5Tclose(t);
        return H5I_INVALID_HID;
    }
    return t;
}

hid_t sp__h5_file_type(sp_schema_type t)
{
    switch (t) {
    case SP_ST_I32:
        return H5T_STD_I32LE;
    case SP_ST_I64:
        return H5T_STD_I64LE;
    case SP_ST_U64:
        return H5T_STD_U64LE;
    case SP_ST_F64:
        return H5T_IEEE_F64LE;
    case SP_ST_STR:
        return vlen_utf8();
    case SP_ST_U8:
        return H5T_STD_U8LE;
    case SP_ST_U32:
        return H5T_STD_U32LE;
    default:
        return H5I_INVALID_HID;
    }
}

hid_t sp__h5_mem_type(sp_schema_type t)
{
    switch (t) {
    case SP_ST_I32:
        return H5T_NATIVE_INT32;
    case SP_ST_I64:
        return H5T_NATIVE_INT64;
    case SP_ST_U64:
        return H5T_NATIVE_UINT64;
    case SP_ST_F64:
        return H5T_NATIVE_DOUBLE;
    case SP_ST_STR:
        return vlen_utf8();
    case SP_ST_U8:
        return H5T_NATIVE_UINT8;
    case SP_ST_U32:
        return H5T_NATIVE_UINT32;
    default:
        return H5I_INVALID_HID;
    }
}

void sp__h5_type_close(hid_t type)
{
    /* The integer types are predefined (never closed); the string types are
     * the copies made by vlen_utf8(). */
    if (type >= 0 && H5Tget_class(type) == H5T_STRING)
        H5Tclose(type);
}

hid_t sp__h5_group(hid_t loc, const char *name, bool meta)
{
    hid_t gcpl = H5Pcreate(H5P_GROUP_CREATE);
    if (gcpl < 0)
        return H5I_INVALID_HID;
    /* No modification times in object headers: the same run always gives
     * the same bytes (golden files, diffs). A metadata group keeps the
     * order its keys were set in (sp_kvlist is ordered) and its attributes
     * compact, in the object header, however many there are (up to HDF5's
     * 65535): libhdf5 1.10's object copy (h5copy, h5py's Group.copy)
     * crashes on variable-length string attributes in dense storage, where
     * HDF5 moves them past 8 (issue 22; measured with and without
     * creation order: the storage, not the order, is the cause). A long
     * value costs the header nothing: its bytes are in the global heap. */
    if (H5Pset_obj_track_times(gcpl, false) < 0 ||
        (meta &&
         (H5Pset_attr_creation_order(gcpl, H5P_CRT_ORDER_TRACKED | H5P_CRT_ORDER_INDEXED) < 0 ||
          H5Pset_attr_phase_change(gcpl, SP_H5_META_COMPACT_MAX, SP_H5_META_COMPACT_MAX) < 0))) {
        H5Pclose(gcpl);
        return H5I_INVALID_HID;
    }
    hid_t g = H5Gcreate2(loc, name, H5P_DEFAULT, gcpl, H5P_DEFAULT);
    H5Pclose(gcpl);
    return g;
}

const char *sp__h5_path(hid_t loc, const char *name, char *buf, size_t len)
{
    char base[256] = "";
    ssize_t n = loc >= 0 ? H5Iget_name(loc, base, sizeof base) : -1;
    if (n <= 0)
        snprintf(base, sizeof base, "?");
    if (!name)
        snprintf(buf, len, "%s", base);
    else if (strcmp(base, "/") == 0)
        snprintf(buf, len, "/%s", name);
    else
        snprintf(buf, len, "%s/%s", base, name);
    H5Eclear2(H5E_DEFAULT);
    return buf;
}

/* Length of the valid UTF-8 sequence at s (1..4), or 0 if s does not start
 * one (overlong, surrogate, > U+10FFFF, truncated, stray continuation). */
static size_t utf8_seq(const unsigned char *s)
{
    unsigned c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if ((c & 0xE0) == 0xC0) {
        len = 2;
        cp = c & 0x1F;
    } else if ((c & 0xF0) == 0xE0) {
        len = 3;
        cp = c & 0x0F;
    } else if ((c & 0xF8) == 0xF0) {
        len = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xC0) != 0x80)
            return 0; /* also stops at the terminating NUL */
        cp = (cp << 6) | (s[i] & 0x3F);
    }
    static const uint32_t min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        return 0;
    return len;
}

bool sp__utf8_valid(const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        size_t len = utf8_seq(s);
        if (!len)
            return false;
        s += len;
    }
    return true;
}

bool sp__utf8_sanitize(char *str)
{
    unsigned char *s = (unsigned char *)str;
    bool changed = false;
    while (*s) {
        size_t len = utf8_seq(s);
        if (!len) {
            *s = '?';
            changed = true;
            len = 1;
        }
        s += len;
    }
    return changed;
}
