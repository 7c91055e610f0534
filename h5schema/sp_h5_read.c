/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read.c - open a file, refuse what is not ours or too new, pick the
 * layout reader (ours, or the Python package's two layouts) and make every
 * rank trustworthy before handing the run out.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_h5_internal.h"

int sp__h5_finish_rank(const char *file, sp_rank_data *rk, size_t nregions,
                       bool infer_parents)
{
    char ctx[512];
    int rc;
    snprintf(ctx, sizeof ctx, "%s: rank %" PRId32 " calls", file, rk->rank);
    if ((rc = sp__rank_check_columns(rk, nregions, SP_EFORMAT, ctx)) < 0)
        return rc;
    if (!sp__rank_in_model_order(rk, NULL) && (rc = sp_rank_sort_calls(rk)) < 0)
        return rc;
    if (infer_parents)
        sp_rank_infer_parents(rk);
    return sp__rank_check_parents(rk, SP_EFORMAT, ctx);
}

/* Refuse early, with errno's words, what HDF5 would only call "unable to
 * open file", and never block: a FIFO or a device named as a run is refused
 * without reading it. Returns the open file (O_RDONLY) in *fd. */
static int check_path(const char *path, int *fd)
{
    struct stat st;
    *fd = -1;
    int f = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    if (f < 0)
        return sp__error(errno == ENOENT || errno == ENOTDIR ? SP_ENOENT : SP_EIO,
                         "cannot read '%s': %s", path, strerror(errno));
    if (fstat(f, &st) != 0) {
        int e = errno;
        close(f);
        return sp__error(SP_EIO, "cannot read '%s': %s", path, strerror(e));
    }
    if (!S_ISREG(st.st_mode)) {
        close(f);
        return sp__error(SP_EFORMAT, "cannot read '%s': it is %s, not a file", path,
                         S_ISDIR(st.st_mode)    ? "a directory"
                         : S_ISFIFO(st.st_mode) ? "a FIFO"
                         : S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode) ? "a device"
                                                                        : "a special file");
    }
    if (st.st_size == 0) {
        close(f);
        return sp__error(SP_EFORMAT, "'%s' is empty, not an HDF5 file", path);
    }
    *fd = f;
    return 0;
}

/* The name HDF5 opens: the very file checked above, through /proc (so a
 * rename or symlink swap after the check changes nothing), or path itself
 * without /proc. */
static const char *h5_name(const char *path, int fd, char *buf, size_t len)
{
    snprintf(buf, len, "/proc/self/fd/%d", fd);
    struct stat a, b;
    if (stat(buf, &a) == 0 && fstat(fd, &b) == 0 && a.st_ino == b.st_ino &&
        a.st_dev == b.st_dev)
        return buf;
    return path;
}

/* The schema version on the root (0 when absent) and the layout. */
static int detect(const char *path, hid_t file, int64_t *version, const char **layout)
{
    const char *vname = SP_NAME(ROOT_SCHEMA);
    char rank0[64];
    int rc;
    snprintf(rank0, sizeof rank0, "%s0", SP_NAME(PY_RANK_GROUP));
    htri_t has_version = H5Aexists(file, vname);
    htri_t has_num_ranks = H5Aexists(file, SP_NAME(ROOT_NUM_RANKS));
    H5Eclear2(H5E_DEFAULT);
    *version = 0;
    if (has_version > 0) {
        if ((rc = sp__h5_read_int_attr(path, file, vname, version)) < 0)
            return rc;
        if (*version < 1)
            return sp__error(SP_EFORMAT, "'%s': %s is %" PRId64 "; versions start at 1",
                             path, vname, *version);
        if (*version > SP_SCHEMA_VERSION)
            return sp__error(SP_EVERSION,
                             "'%s' was written with schema version %" PRId64
                             "; this build reads up to version %d (upgrade "
                             "scope-profiler to read it)",
                             path, *version, SP_SCHEMA_VERSION);
    }
    if (has_num_ranks > 0) {
        if (has_version <= 0)
            return sp__error(SP_EFORMAT, "'%s': has '%s' but no '%s' attribute on /", path,
                             SP_NAME(ROOT_NUM_RANKS), vname);
        *layout = SP_LAYOUT_NATIVE;
    } else if (sp__h5_has(file, SP_NAME(PY_EVENTS)) && sp__h5_has(file, SP_NAME(PY_INDEX))) {
        *layout = SP_LAYOUT_PY_COLUMNAR;
    } else if (sp__h5_has(file, SP_NAME(PY_METADATA)) || sp__h5_has(file, rank0)) {
        *layout = SP_LAYOUT_PY_REGIONS;
    } else {
        return sp__error(SP_EFORMAT,
                         "'%s' is an HDF5 file but not a scope-profiler file (no '%s' "
                         "attribute, no Python scope-profiler groups)",
                         path, vname);
    }
    return 0;
}

/* A metadata cache that holds a large object header's attribute index
 * (tens of thousands of attributes): HDF5's default (2 MiB) re-reads the
 * same B-tree and heap blocks for every attribute. */
static herr_t set_cache(hid_t fapl)
{
    H5AC_cache_config_t c;
    c.version = H5AC__CURR_CACHE_CONFIG_VERSION;
    if (H5Pget_mdc_config(fapl, &c) < 0)
        return -1;
    c.set_initial_size = 1;
    c.initial_size = 16 << 20;
    if (c.max_size < (size_t)(64 << 20))
        c.max_size = 64 << 20;
    return H5Pset_mdc_config(fapl, &c);
}

static char *dup_str(const char *s)
{
    char *d = malloc(strlen(s) + 1);
    if (d)
        strcpy(d, s);
    return d;
}

int sp__h5_open_begin(const char *path, sp__h5_opened *o)
{
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->fapl = o->file = H5I_INVALID_HID;
    int rc;
    if (!path || !*path)
        return sp__error(SP_EINVAL, "no file name given");
    if ((rc = check_path(path, &o->fd)) < 0)
        return rc;
    if ((rc = sp__read_budget_begin(&o->budget, path, o->fd)) < 0) {
        close(o->fd);
        o->fd = -1;
        return rc;
    }
    o->in_budget = true;
    const char *h5name = h5_name(path, o->fd, o->name_buf, sizeof o->name_buf);
    sp__h5_quiet_begin(&o->quiet);
    o->quieted = true;
    htri_t is_hdf5 = H5Fis_hdf5(h5name);
    if (is_hdf5 == 0)
        return sp__error(SP_EFORMAT, "'%s' is not an HDF5 file", path);
    if (is_hdf5 < 0)
        return sp__h5_error(SP_EFORMAT, "'%s' cannot be read as HDF5", path);
    /* Strong close: closing the file closes anything an error path missed. */
    if ((o->fapl = H5Pcreate(H5P_FILE_ACCESS)) < 0 ||
        H5Pset_fclose_degree(o->fapl, H5F_CLOSE_STRONG) < 0 || set_cache(o->fapl) < 0)
        return sp__h5_error(SP_EIO, "cannot read '%s'", path);
    if ((o->file = H5Fopen(h5name, H5F_ACC_RDONLY, o->fapl)) < 0)
        return sp__h5_error(SP_EFORMAT, "'%s' is a damaged or truncated HDF5 file", path);
    return detect(path, o->file, &o->version, &o->layout);
}

void sp__h5_open_release(sp__h5_opened *o)
{
    if (o->quieted)
        sp__h5_quiet_end(&o->quiet);
    if (o->in_budget)
        sp__read_budget_end(&o->budget);
    o->quieted = o->in_budget = false;
}

void sp__h5_open_end(sp__h5_opened *o)
{
    if (o->file >= 0)
        H5Fclose(o->file);
    if (o->fapl >= 0)
        H5Pclose(o->fapl);
    sp__h5_open_release(o);
    if (o->fd >= 0)
        close(o->fd);
    o->file = o->fapl = H5I_INVALID_HID;
    o->fd = -1;
}

int sp__h5_finish_read(const char *path, const sp__h5_opened *o, sp_run *run)
{
    /* Files of the Python package without the attribute are version 1. */
    run->schema_version = o->version ? (int)o->version : 1;
    run->layout = dup_str(o->layout);
    run->source_path = dup_str(path);
    if (!run->layout || !run->source_path)
        return sp__error(SP_ENOMEM, "out of memory reading '%s'", path);
    return 0;
}

sp_run *sp_h5_read(const char *path, int *status)
{
    sp_run *run = NULL;
    sp__h5_opened o;
    int rc = sp__h5_open_begin(path, &o);
    if (rc < 0)
        goto done;
    if (!(run = sp_run_new())) {
        rc = SP_ENOMEM;
        goto done;
    }
    if (strcmp(o.layout, SP_LAYOUT_NATIVE) == 0)
        rc = o.version >= 2 ? sp__h5_read_v2(path, o.file, run)
                            : sp__h5_read_v1(path, o.file, run);
    else if (strcmp(o.layout, SP_LAYOUT_PY_COLUMNAR) == 0)
        rc = sp__h5_read_py_columnar(path, o.file, run);
    else
        rc = sp__h5_read_py_regions(path, o.file, run);
    if (rc < 0)
        goto done;
    /* One place for what no layout reader may let through: times and sums
     * that overflow, impossible nesting, more ranks than the file holds. */
    if ((rc = sp__run_check_read(path, run)) < 0)
        goto done;
    rc = sp__h5_finish_read(path, &o, run);
done:
    sp__h5_open_end(&o);
    if (rc < 0) {
        sp_run_free(run);
        run = NULL;
    }
    if (status)
        *status = rc;
    return run;
}
