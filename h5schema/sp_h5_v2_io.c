/* SPDX-License-Identifier: MIT */
/* sp_h5_v2_io.c - appendable columns, name tables, attributes and files of
 * the v2 writers (sp_h5_v2_io.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_h5_v2_io.h"

/* ---------------------------------------------------------------- compression */

#define SP_V2_FILTER_LZ4 32004 /* the HDF5 LZ4 filter (hdf5-filter-plugin) */

sp_v2_compress sp_v2_compress_resolve(sp_v2_compress c)
{
    static int lz4 = -1; /* whether the plugin loads: asked once */
    if (c != SP_V2_COMPRESS_AUTO && c != SP_V2_COMPRESS_LZ4)
        return c;
    int v = __atomic_load_n(&lz4, __ATOMIC_ACQUIRE);
    if (v < 0) {
        sp__h5_quiet q;
        sp__h5_quiet_begin(&q);
        v = H5Zfilter_avail(SP_V2_FILTER_LZ4) > 0;
        sp__h5_quiet_end(&q);
        __atomic_store_n(&lz4, v, __ATOMIC_RELEASE);
    }
    return v ? SP_V2_COMPRESS_LZ4 : SP_V2_COMPRESS_DEFLATE;
}

const char *sp_v2_compress_name(sp_v2_compress c)
{
    switch (c) {
    case SP_V2_COMPRESS_LZ4:
        return "shuffle+lz4";
    case SP_V2_COMPRESS_DEFLATE:
        return "shuffle+deflate";
    case SP_V2_COMPRESS_NONE:
        return "none";
    default:
        return "auto";
    }
}

/* ---------------------------------------------------------------- columns */

int sp_v2_col_create(hid_t loc, const char *name, sp_schema_type type, hsize_t chunk,
                     sp_v2_compress c, const char *path, sp_v2_col *out)
{
    int rc = 0;
    hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID;
    hsize_t dims[1] = {0}, maxd[1] = {H5S_UNLIMITED};
    char where[256];
    sp__h5_path(loc, name, where, sizeof where);
    out->dset = H5I_INVALID_HID;
    out->n = 0;
    out->type = type;
    c = sp_v2_compress_resolve(c);
    H5TRY(space = H5Screate_simple(1, dims, maxd), "cannot write '%s': dataspace of %s", path,
          where);
    H5TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), "cannot write '%s': %s", path, where);
    H5TRY(H5Pset_obj_track_times(dcpl, false), "cannot write '%s': %s", path, where);
    H5TRY(H5Pset_chunk(dcpl, 1, &chunk), "cannot write '%s': chunking %s", path, where);
    if (c == SP_V2_COMPRESS_LZ4 || c == SP_V2_COMPRESS_DEFLATE)
        H5TRY(H5Pset_shuffle(dcpl), "cannot write '%s': shuffle on %s", path, where);
    if (c == SP_V2_COMPRESS_LZ4) {
        unsigned cd[1] = {0}; /* the filter's default block size */
        H5TRY(H5Pset_filter(dcpl, SP_V2_FILTER_LZ4, H5Z_FLAG_MANDATORY, 1, cd),
              "cannot write '%s': LZ4 filter on %s", path, where);
    } else if (c == SP_V2_COMPRESS_DEFLATE) {
        H5TRY(H5Pset_deflate(dcpl, 1), "cannot write '%s': deflate on %s", path, where);
    }
    H5TRY(out->dset = H5Dcreate2(loc, name, sp__h5_file_type(type), space, H5P_DEFAULT, dcpl,
                                 H5P_DEFAULT),
          "cannot write '%s': cannot create %s", path, where);
done:
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

int sp_v2_col_fixed(hid_t loc, const char *name, sp_schema_type type, const void *data,
                    size_t n, const char *path)
{
    int rc = 0;
    hid_t space = H5I_INVALID_HID, dcpl = H5I_INVALID_HID, dset = H5I_INVALID_HID;
    hsize_t dims[1] = {n};
    char where[256];
    sp__h5_path(loc, name, where, sizeof where);
    H5TRY(space = H5Screate_simple(1, dims, NULL), "cannot write '%s': dataspace of %s", path,
          where);
    H5TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), "cannot write '%s': %s", path, where);
    H5TRY(H5Pset_obj_track_times(dcpl, false), "cannot write '%s': %s", path, where);
    H5TRY(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "cannot write '%s': %s", path, where);
    H5TRY(dset = H5Dcreate2(loc, name, sp__h5_file_type(type), space, H5P_DEFAULT, dcpl,
                            H5P_DEFAULT),
          "cannot write '%s': cannot create %s", path, where);
    if (n)
        H5TRY(H5Dwrite(dset, sp__h5_mem_type(type), H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
              "cannot write '%s': writing %s", path, where);
done:
    if (dset >= 0)
        H5Dclose(dset);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

int sp_v2_col_open(hid_t loc, const char *name, sp_schema_type type, const char *path,
                   sp_v2_col *out)
{
    int rc = 0;
    hid_t space = H5I_INVALID_HID;
    char where[256];
    sp__h5_path(loc, name, where, sizeof where);
    out->type = type;
    out->n = 0;
    H5TRY(out->dset = H5Dopen2(loc, name, H5P_DEFAULT), "cannot write '%s': cannot open %s",
          path, where);
    H5TRY(space = H5Dget_space(out->dset), "cannot write '%s': %s", path, where);
    H5TRY(H5Sget_simple_extent_dims(space, &out->n, NULL), "cannot write '%s': %s", path,
          where);
done:
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

int sp_v2_col_append(sp_v2_col *c, const void *data, size_t count, const char *path)
{
    if (count == 0)
        return 0;
    int rc = 0;
    hid_t fspace = H5I_INVALID_HID, mspace = H5I_INVALID_HID;
    hsize_t n1[1] = {c->n + count}, off[1] = {c->n}, cnt[1] = {count};
    /* The dataset's name first: naming it after a failure would clear
     * HDF5's error stack, and with it the reason (errno's words). */
    char where[256];
    sp__h5_path(c->dset, NULL, where, sizeof where);
    H5TRY(H5Dset_extent(c->dset, n1), "cannot write '%s': extending %s", path, where);
    H5TRY(fspace = H5Dget_space(c->dset), "cannot write '%s': %s", path, where);
    H5TRY(H5Sselect_hyperslab(fspace, H5S_SELECT_SET, off, NULL, cnt, NULL),
          "cannot write '%s': %s", path, where);
    H5TRY(mspace = H5Screate_simple(1, cnt, NULL), "cannot write '%s': dataspace", path);
    H5TRY(H5Dwrite(c->dset, sp__h5_mem_type(c->type), mspace, fspace, H5P_DEFAULT, data),
          "cannot write '%s': appending %zu elements to %s", path, count, where);
    int werr = sp_v2_object_write_error(c->dset);
    if (werr) {
        rc = sp__error(SP_EIO, "cannot write '%s': appending %zu elements to %s: %s", path,
                       count, where, strerror(werr));
        goto done;
    }
    c->n += count;
done:
    if (mspace >= 0)
        H5Sclose(mspace);
    if (fspace >= 0)
        H5Sclose(fspace);
    return rc;
}

void sp_v2_col_close(sp_v2_col *c)
{
    if (c->dset >= 0)
        H5Dclose(c->dset);
    c->dset = H5I_INVALID_HID;
}

/* ---------------------------------------------------------------- names */

int sp_v2_names_create(hid_t loc, sp_v2_compress c, const char *path, sp_v2_names *out)
{
    out->total = 0;
    out->end.dset = H5I_INVALID_HID;
    int rc = sp_v2_col_create(loc, SP_NAME2(V2_NAME_BYTES), SP_ST_U8, 4096, c, path,
                              &out->bytes);
    if (rc == 0)
        rc = sp_v2_col_create(loc, SP_NAME2(V2_NAME_END), SP_ST_U64, SP_V2_CHUNK_SMALL,
                              SP_V2_COMPRESS_NONE, path, &out->end);
    return rc;
}

int sp_v2_names_append(sp_v2_names *t, const char *const *names, size_t n, const char *path)
{
    if (n == 0)
        return 0;
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += strlen(names[i] ? names[i] : "");
    char *buf = malloc(bytes ? bytes : 1);
    uint64_t *end = malloc(n * sizeof *end);
    int rc = 0;
    if (!buf || !end) {
        rc = sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
        goto done;
    }
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(names[i] ? names[i] : "");
        memcpy(buf + pos, names[i] ? names[i] : "", len);
        pos += len;
        end[i] = t->total + pos;
    }
    if ((rc = sp_v2_col_append(&t->bytes, buf, bytes, path)) == 0 &&
        (rc = sp_v2_col_append(&t->end, end, n, path)) == 0)
        t->total += bytes;
done:
    free(buf);
    free(end);
    return rc;
}

int sp_v2_names_fixed(hid_t loc, const char *const *names, size_t n, const char *path)
{
    size_t bytes = 0;
    for (size_t i = 0; i < n; i++)
        bytes += strlen(names[i] ? names[i] : "");
    char *buf = malloc(bytes ? bytes : 1);
    uint64_t *end = malloc((n ? n : 1) * sizeof *end);
    int rc;
    if (!buf || !end) {
        rc = sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
        goto done;
    }
    size_t pos = 0;
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(names[i] ? names[i] : "");
        memcpy(buf + pos, names[i] ? names[i] : "", len);
        end[i] = pos += len;
    }
    if ((rc = sp_v2_col_fixed(loc, SP_NAME2(V2_NAME_BYTES), SP_ST_U8, buf, bytes, path)) == 0)
        rc = sp_v2_col_fixed(loc, SP_NAME2(V2_NAME_END), SP_ST_U64, end, n, path);
done:
    free(buf);
    free(end);
    return rc;
}

void sp_v2_names_close(sp_v2_names *t)
{
    sp_v2_col_close(&t->bytes);
    sp_v2_col_close(&t->end);
}

/* ---------------------------------------------------------------- groups, attributes */

int sp_v2_int_attr(hid_t loc, const char *name, sp_schema_type type, int64_t value,
                   const char *path)
{
    int rc = 0;
    hid_t space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
    char where[256]; /* named first: naming clears HDF5's error stack */
    sp__h5_path(loc, name, where, sizeof where);
    H5TRY(space = H5Screate(H5S_SCALAR), "cannot write '%s': dataspace", path);
    H5TRY(attr = H5Acreate2(loc, name, sp__h5_file_type(type), space, H5P_DEFAULT, H5P_DEFAULT),
          "cannot write '%s': cannot create attribute %s", path, where);
    H5TRY(H5Awrite(attr, H5T_NATIVE_INT64, &value), "cannot write '%s': attribute %s", path,
          where);
done:
    if (attr >= 0)
        H5Aclose(attr);
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

static int str_attr(hid_t loc, const char *name, const char *value, hid_t type, hid_t space,
                    const char *path)
{
    int rc = 0;
    hid_t attr = H5I_INVALID_HID;
    char where[256]; /* named first: naming clears HDF5's error stack */
    sp__h5_path(loc, name, where, sizeof where);
    H5TRY(attr = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT),
          "cannot write '%s': cannot create attribute %s", path, where);
    H5TRY(H5Awrite(attr, type, &value), "cannot write '%s': attribute %s", path, where);
done:
    if (attr >= 0)
        H5Aclose(attr);
    return rc;
}

int sp_v2_meta_group(hid_t loc, const char *name, const sp_kvlist *l, const char *path)
{
    int rc = 0;
    hid_t g = H5I_INVALID_HID, type = H5I_INVALID_HID, space = H5I_INVALID_HID;
    char where[256]; /* named first: naming clears HDF5's error stack */
    sp__h5_path(loc, name, where, sizeof where);
    H5TRY(g = sp__h5_group(loc, name, true), "cannot write '%s': cannot create group %s", path,
          where);
    H5TRY(type = sp__h5_file_type(SP_ST_STR), "cannot write '%s': string type", path);
    H5TRY(space = H5Screate(H5S_SCALAR), "cannot write '%s': dataspace", path);
    for (size_t i = 0; i < l->n && rc == 0; i++) {
        if (!l->items[i].key || !l->items[i].key[0])
            continue;
        char *k = sp_v2_text_escape(l->items[i].key);
        char *v = sp_v2_text_escape(l->items[i].value);
        if (!k || !v)
            rc = sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
        else if (!H5Aexists(g, k)) /* two keys equal once escaped: keep the first */
            rc = str_attr(g, k, v, type, space, path);
        free(k);
        free(v);
    }
done:
    if (space >= 0)
        H5Sclose(space);
    sp__h5_type_close(type);
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

/* ---------------------------------------------------------------- files */

int sp_v2_fapl(bool swmr, const char *path, hid_t *out)
{
    int rc = 0;
    hid_t fapl = H5I_INVALID_HID;
    H5TRY(fapl = H5Pcreate(H5P_FILE_ACCESS), "cannot write '%s'", path);
    H5TRY(H5Pset_driver(fapl, sp_v2_vfd(), NULL), "cannot write '%s': file driver", path);
    H5TRY(H5Pset_libver_bounds(fapl, swmr ? H5F_LIBVER_LATEST : H5F_LIBVER_V18,
                               H5F_LIBVER_LATEST),
          "cannot write '%s': file format bounds", path);
    *out = fapl;
    fapl = H5I_INVALID_HID;
done:
    if (fapl >= 0)
        H5Pclose(fapl);
    return rc;
}

int sp_v2_file_create(const char *name, hid_t fapl, const char *path, hid_t *out)
{
    /* open(2) first, for errno's words on a missing directory or a
     * permission problem; O_EXCL never follows a link and never reuses a
     * file someone placed there. */
    int fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
    if (fd < 0)
        return sp__error(SP_EIO, "cannot write '%s': cannot create '%s': %s", path, name,
                         strerror(errno));
    /* Room for what H5Fcreate writes at once: when libhdf5 1.10's create
     * itself fails on a full disk it keeps internal state it cannot free
     * (it prints "infinite loop closing library" at exit). A disk without
     * 64 KiB left is refused here, with errno's words; ENOSPC / EFBIG only:
     * a file system without fallocate is fine. */
    int e = posix_fallocate(fd, 0, 64 * 1024);
    close(fd);
    unlink(name);
    if (e == ENOSPC || e == EFBIG || e == EDQUOT)
        return sp__error(SP_EIO, "cannot write '%s': cannot create '%s': %s", path, name,
                         strerror(e));
    int rc = 0;
    hid_t fcpl = H5I_INVALID_HID;
    *out = H5I_INVALID_HID;
    H5TRY(fcpl = H5Pcreate(H5P_FILE_CREATE), "cannot write '%s'", path);
    H5TRY(H5Pset_obj_track_times(fcpl, false), "cannot write '%s'", path);
    *out = H5Fcreate(name, H5F_ACC_EXCL, fcpl, fapl);
    if (*out < 0) {
        rc = sp__h5_error(SP_EIO, "cannot write '%s': cannot create '%s'", path, name);
        /* Created, then failed (the name is ours: it did not exist a moment
         * ago and nobody can predict it). */
        struct stat st;
        if (lstat(name, &st) == 0 && S_ISREG(st.st_mode) && st.st_uid == geteuid())
            unlink(name);
    }
done:
    if (fcpl >= 0)
        H5Pclose(fcpl);
    return rc;
}

char *sp_v2_tmp_name(const char *path)
{
    uint64_t r = 0;
    if (getrandom(&r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        struct timespec ts; /* no entropy yet (early boot): still unlikely to guess */
        clock_gettime(CLOCK_MONOTONIC, &ts);
        r ^= (uint64_t)ts.tv_nsec * 0x9E3779B97F4A7C15ull ^ (uint64_t)getpid() << 32 ^
             (uint64_t)(uintptr_t)&r;
    }
    /* pid and host first: a later finalize of the same PATH removes the
     * temporary if its process died (sp_h5_v2_stale.c). */
    size_t n = strlen(path) + 64;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s.tmp.%ld-%08x.%016llx", path, (long)getpid(), sp_v2_host_hash(),
                 (unsigned long long)r);
    return s;
}

/* ---------------------------------------------------------------- closing */

/* "cannot write 'path': closing 'name'" (or "closing it"), with HDF5's
 * reason, or with errno's words when a write of the file failed (the
 * driver reports no failure to HDF5: sp_h5_vfd.c). */
static int close_error(const char *path, const char *name, int werr)
{
    char what[300];
    if (name)
        snprintf(what, sizeof what, "closing '%s'", name);
    else
        snprintf(what, sizeof what, "closing it");
    if (werr)
        return sp__error(SP_EIO, "cannot write '%s': %s: %s", path, what, strerror(werr));
    return sp__h5_error(SP_EIO, "cannot write '%s': %s", path, what);
}

int sp_v2_file_flush(hid_t file, const char *path, const char *name)
{
    if (file < 0)
        return 0;
    if (H5Fflush(file, H5F_SCOPE_LOCAL) < 0) {
        int rc = close_error(path, name, sp_v2_file_write_error(file));
        sp_v2_file_abandon(file);
        return rc;
    }
    int werr = sp_v2_file_write_error(file);
    return werr ? close_error(path, name, werr) : 0;
}

int sp_v2_file_close(hid_t file, const char *path, const char *name)
{
    if (file < 0)
        return 0;
    int rc = sp_v2_file_flush(file, path, name);
    sp_v2_vfd_closed_error(); /* forget an earlier file's */
    herr_t e = H5Fclose(file);
    int werr = sp_v2_vfd_closed_error(); /* a write of the close itself */
    if ((e < 0 || werr) && rc == 0)
        rc = close_error(path, name, werr);
    return rc;
}

void sp_v2_file_discard(hid_t file)
{
    if (file < 0)
        return;
    sp_v2_file_abandon(file);
    H5Fclose(file);
}
