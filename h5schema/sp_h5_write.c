/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_write.c - write an sp_run in the layout of sp_schema.h (SCHEMA.md).
 *
 * The file is written under "<path>.tmp.<pid>-<host>.<random>", created
 * exclusively, and renamed into place, so path only ever holds a complete
 * file. HDF5 style throughout: handles start at H5I_INVALID_HID and every
 * function leaves through one `done:` label that closes what it opened.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_h5_internal.h"
#include "sp_region_index.h"
#include "sp_h5_v2_io.h"

/* Chunk numeric columns from 4M elements (32 MiB of int64) in chunks of about
 * 1M elements; below that a column is contiguous. See SCHEMA.md, "Why
 * columnar, and why these storage settings", for the measurements. */
#define SP_H5_CHUNK_MIN ((size_t)4 << 20)
#define SP_H5_CHUNK_TARGET ((size_t)1 << 20)

void sp__h5_write_options_default(sp__h5_write_options *o)
{
    o->chunk_min = SP_H5_CHUNK_MIN;
    o->chunk_target = SP_H5_CHUNK_TARGET;
    o->deflate = 0;
    o->fsync = true;
}

/* State shared by the functions of one write. */
typedef struct writer {
    const char *path; /* the target, named in every message */
    const sp__h5_write_options *o;
    bool calls_later; /* MPI writers: allocate the call columns, write them later */
} writer;

/* ---------------------------------------------------------------- checks */

static int check_text(const char *s, const char *path, const char *what, size_t i)
{
    if (!s)
        return sp__error(SP_EINVAL, "cannot write '%s': %s %zu is NULL", path, what, i);
    if (!sp__utf8_valid(s))
        return sp__error(SP_EINVAL, "cannot write '%s': %s %zu is not valid UTF-8",
                         path, what, i);
    return 0;
}

static int check_meta(const sp_kvlist *l, const char *path, const char *what)
{
    int rc;
    for (size_t i = 0; i < l->n; i++) {
        if ((rc = check_text(l->items[i].key, path, what, i)) < 0 ||
            (rc = check_text(l->items[i].value, path, what, i)) < 0)
            return rc;
        if (!l->items[i].key[0])
            return sp__error(SP_EINVAL, "cannot write '%s': %s %zu has an empty key",
                             path, what, i);
    }
    return 0;
}

static int check_rank(const sp_run *run, size_t r, const char *path)
{
    const sp_rank_data *rk = &run->ranks[r];
    char ctx[512];
    int rc;
    snprintf(ctx, sizeof ctx, "cannot write '%s': rank %zu", path, r);
    if (rk->rank != (int32_t)r)
        return sp__error(SP_EINVAL, "%s: has rank number %" PRId32, ctx, rk->rank);
    if (rk->nthreads > INT32_MAX || (rk->nthreads && !rk->threads))
        return sp__error(SP_EINVAL, "%s: bad thread table", ctx);
    for (size_t t = 0; t < rk->nthreads; t++)
        if (rk->threads[t].name && !sp__utf8_valid(rk->threads[t].name))
            return sp__error(SP_EINVAL, "%s: thread %zu name is not valid UTF-8", ctx, t);
    if ((rc = check_meta(&rk->meta, path, "rank metadata entry")) < 0)
        return rc;
    if ((rc = sp__rank_check_columns(rk, run->nregions, SP_EINVAL, ctx)) < 0 ||
        (rc = sp__rank_check_modes(rk, run->nregions, SP_EINVAL, ctx)) < 0)
        return rc;
    size_t bad;
    if (!sp__rank_in_model_order(rk, &bad))
        return sp__error(SP_EINVAL,
                         "%s: calls not in model order (thread, start, longer "
                         "first) at call %zu",
                         ctx, bad);
    return sp__rank_check_parents(rk, SP_EINVAL, ctx);
}

/* Everything that would make a file our reader refuses, found before any
 * file is created. */
static int check_run(const sp_run *run, const char *path)
{
    int rc;
    if (run->nranks && !run->ranks)
        return sp__error(SP_EINVAL, "cannot write '%s': %zu ranks but no rank data",
                         path, run->nranks);
    if (run->nregions > INT32_MAX || (run->nregions && !run->region_names))
        return sp__error(SP_EINVAL, "cannot write '%s': bad region table", path);
    for (size_t i = 0; i < run->nregions; i++)
        if ((rc = check_text(run->region_names[i], path, "region name", i)) < 0)
            return rc;
    int32_t dup;
    if ((rc = sp_region_names_first_duplicate(run->region_names, run->nregions, &dup)) < 0)
        return rc;
    if (dup >= 0)
        return sp__error(SP_EINVAL, "cannot write '%s': region name '%s' appears twice",
                         path, run->region_names[dup]);
    if ((rc = check_meta(&run->meta, path, "metadata entry")) < 0)
        return rc;
    if (run->nregion_flags > run->nregions || (run->nregion_flags && !run->region_flags))
        return sp__error(SP_EINVAL, "cannot write '%s': %zu region flags for %zu regions",
                         path, run->nregion_flags, run->nregions);
    for (size_t r = 0; r < run->nranks; r++)
        if ((rc = check_rank(run, r, path)) < 0)
            return rc;
    return 0;
}

/* ---------------------------------------------------------------- pieces */

static int write_str_attr(const writer *w, hid_t loc, const char *name,
                          const char *value)
{
    int rc = 0;
    hid_t type = H5I_INVALID_HID, space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
    char where[256]; /* named first: naming clears HDF5's error stack */
    sp__h5_path(loc, name, where, sizeof where);
    H5TRY(type = sp__h5_file_type(SP_ST_STR), "cannot write '%s': string type", w->path);
    H5TRY(space = H5Screate(H5S_SCALAR), "cannot write '%s': dataspace", w->path);
    H5TRY(attr = H5Acreate2(loc, name, type, space, H5P_DEFAULT, H5P_DEFAULT),
          "cannot write '%s': cannot create attribute %s", w->path, where);
    H5TRY(H5Awrite(attr, type, &value), "cannot write '%s': attribute %s", w->path, where);
done:
    if (attr >= 0)
        H5Aclose(attr);
    if (space >= 0)
        H5Sclose(space);
    sp__h5_type_close(type);
    return rc;
}

int sp__h5_write_int_attr(const char *path, hid_t loc, sp_schema_id id, int64_t value)
{
    int rc = 0;
    hid_t space = H5I_INVALID_HID, attr = H5I_INVALID_HID;
    const sp_schema_entry *e = &sp__schema[id];
    char where[256]; /* named first: naming clears HDF5's error stack */
    sp__h5_path(loc, e->name, where, sizeof where);
    H5TRY(space = H5Screate(H5S_SCALAR), "cannot write '%s': dataspace", path);
    H5TRY(attr = H5Acreate2(loc, e->name, sp__h5_file_type(e->type), space,
                            H5P_DEFAULT, H5P_DEFAULT),
          "cannot write '%s': cannot create attribute %s", path, where);
    /* Convert from int64 in memory: HDF5 narrows to the file type. */
    H5TRY(H5Awrite(attr, H5T_NATIVE_INT64, &value), "cannot write '%s': attribute %s",
          path, where);
done:
    if (attr >= 0)
        H5Aclose(attr);
    if (space >= 0)
        H5Sclose(space);
    return rc;
}

static int write_meta_group(const writer *w, hid_t loc, const char *name,
                            const sp_kvlist *l)
{
    int rc = 0;
    hid_t g = H5I_INVALID_HID;
    char where[256]; /* named first: naming clears HDF5's error stack */
    sp__h5_path(loc, name, where, sizeof where);
    H5TRY(g = sp__h5_group(loc, name, true), "cannot write '%s': cannot create group %s",
          w->path, where);
    for (size_t i = 0; i < l->n; i++)
        if ((rc = write_str_attr(w, g, l->items[i].key, l->items[i].value)) < 0)
            goto done;
done:
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

/* Chunk length for a column of n elements, or 0 for contiguous storage.
 * k chunks of ceil(n / k) elements: HDF5 stores edge chunks at full size,
 * so this keeps the padding under k elements. */
static hsize_t chunk_len(const sp__h5_write_options *o, size_t n)
{
    if (!o->chunk_min || n < o->chunk_min || !o->chunk_target)
        return 0;
    size_t k = (n + o->chunk_target - 1) / o->chunk_target;
    return (hsize_t)((n + k - 1) / k);
}

/* A 1-D dataset of table entry id, exactly n elements, from data. */
static int write_column(const writer *w, hid_t loc, sp_schema_id id, size_t n,
                        const void *data)
{
    int rc = 0;
    const sp_schema_entry *e = &sp__schema[id];
    hid_t ftype = H5I_INVALID_HID, mtype = H5I_INVALID_HID, space = H5I_INVALID_HID,
          dcpl = H5I_INVALID_HID, dset = H5I_INVALID_HID;
    hsize_t dims[1] = {n};
    char where[256];
    sp__h5_path(loc, e->name, where, sizeof where);
    H5TRY(ftype = sp__h5_file_type(e->type), "cannot write '%s': type of %s", w->path, where);
    H5TRY(mtype = sp__h5_mem_type(e->type), "cannot write '%s': type of %s", w->path, where);
    H5TRY(space = H5Screate_simple(1, dims, NULL), "cannot write '%s': dataspace of %s",
          w->path, where);
    H5TRY(dcpl = H5Pcreate(H5P_DATASET_CREATE), "cannot write '%s': %s", w->path, where);
    H5TRY(H5Pset_obj_track_times(dcpl, false), "cannot write '%s': %s", w->path, where);
    /* Never write fill values: every element is written once below (HDF5
     * refuses this for variable-length strings). */
    if (e->type != SP_ST_STR)
        H5TRY(H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER), "cannot write '%s': %s",
              w->path, where);
    hsize_t chunk[1] = {e->type == SP_ST_STR ? 0 : chunk_len(w->o, n)};
    if (chunk[0]) {
        H5TRY(H5Pset_chunk(dcpl, 1, chunk), "cannot write '%s': chunking %s", w->path,
              where);
        if (w->o->deflate > 0) {
            H5TRY(H5Pset_shuffle(dcpl), "cannot write '%s': shuffle on %s", w->path, where);
            H5TRY(H5Pset_deflate(dcpl, (unsigned)w->o->deflate),
                  "cannot write '%s': deflate on %s", w->path, where);
        }
    }
    /* data NULL (only for the call columns of the MPI writers): allocate
     * the space now and write nothing; the owning rank writes it later
     * through MPI-IO, where an independent write cannot allocate. */
    if (!data && n > 0 && !w->calls_later) {
        rc = sp__error(SP_EINVAL, "cannot write '%s': %s has %zu elements but no data", w->path,
                       where, n);
        goto done;
    }
    if (!data && n > 0)
        H5TRY(H5Pset_alloc_time(dcpl, H5D_ALLOC_TIME_EARLY), "cannot write '%s': %s",
              w->path, where);
    H5TRY(dset = H5Dcreate2(loc, e->name, ftype, space, H5P_DEFAULT, dcpl, H5P_DEFAULT),
          "cannot write '%s': cannot create dataset %s", w->path, where);
    if (n > 0 && data)
        H5TRY(H5Dwrite(dset, mtype, H5S_ALL, H5S_ALL, H5P_DEFAULT, data),
              "cannot write '%s': writing %s (%zu elements)", w->path, where, n);
done:
    if (dset >= 0)
        H5Dclose(dset);
    if (dcpl >= 0)
        H5Pclose(dcpl);
    if (space >= 0)
        H5Sclose(space);
    sp__h5_type_close(mtype);
    sp__h5_type_close(ftype);
    return rc;
}

/* A table: a group `group_id` under loc, ready for write_column(). */
static int open_table(const writer *w, hid_t loc, sp_schema_id group_id, hid_t *out)
{
    char where[256];
    *out = sp__h5_group(loc, sp__schema[group_id].name, false);
    if (*out < 0)
        return sp__h5_error(SP_EIO, "cannot write '%s': cannot create group %s", w->path,
                            sp__h5_path(loc, sp__schema[group_id].name, where, sizeof where));
    return 0;
}

static int write_threads(const writer *w, hid_t rank_group, const sp_rank_data *rk)
{
    int rc = 0;
    hid_t g = H5I_INVALID_HID;
    size_t n = rk->nthreads;
    int64_t *tid = malloc((n ? n : 1) * sizeof *tid);
    const char **name = malloc((n ? n : 1) * sizeof *name);
    if (!tid || !name) {
        rc = sp__error(SP_ENOMEM, "cannot write '%s': out of memory", w->path);
        goto done;
    }
    for (size_t t = 0; t < n; t++) {
        tid[t] = rk->threads[t].os_tid;
        name[t] = rk->threads[t].name ? rk->threads[t].name : ""; /* "" = unnamed */
    }
    if ((rc = open_table(w, rank_group, SP_SN_THREADS, &g)) < 0 ||
        (rc = write_column(w, g, SP_SN_THREAD_OS_TID, n, tid)) < 0 ||
        (rc = write_column(w, g, SP_SN_THREAD_NAME, n, name)) < 0)
        goto done;
done:
    if (g >= 0)
        H5Gclose(g);
    free(tid);
    free(name);
    return rc;
}

static int write_calls(const writer *w, hid_t rank_group, const sp_rank_data *rk)
{
    int rc = 0;
    hid_t g = H5I_INVALID_HID;
    size_t n = rk->ncalls;
    bool d = !w->calls_later; /* else only allocated (MPI writers) */
    if ((rc = open_table(w, rank_group, SP_SN_CALLS, &g)) < 0 ||
        (rc = write_column(w, g, SP_SN_CALL_START, n, d ? rk->start_ns : NULL)) < 0 ||
        (rc = write_column(w, g, SP_SN_CALL_END, n, d ? rk->end_ns : NULL)) < 0 ||
        (rc = write_column(w, g, SP_SN_CALL_REGION, n, d ? rk->region : NULL)) < 0 ||
        (rc = write_column(w, g, SP_SN_CALL_THREAD, n, d ? rk->thread : NULL)) < 0 ||
        (rc = write_column(w, g, SP_SN_CALL_PARENT, n, d ? rk->parent : NULL)) < 0)
        goto done;
done:
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

/* Sparse: only regions that lost calls get a row. */
static int write_dropped(const writer *w, hid_t rank_group, const sp_rank_data *rk,
                         size_t nregions)
{
    int rc = 0;
    hid_t g = H5I_INVALID_HID;
    size_t n = 0;
    for (size_t r = 0; rk->dropped && r < nregions; r++)
        n += rk->dropped[r] > 0;
    int32_t *region = malloc((n ? n : 1) * sizeof *region);
    uint64_t *calls = malloc((n ? n : 1) * sizeof *calls);
    if (!region || !calls) {
        rc = sp__error(SP_ENOMEM, "cannot write '%s': out of memory", w->path);
        goto done;
    }
    n = 0;
    for (size_t r = 0; rk->dropped && r < nregions; r++) {
        if (rk->dropped[r] > 0) {
            region[n] = (int32_t)r;
            calls[n++] = rk->dropped[r];
        }
    }
    if ((rc = open_table(w, rank_group, SP_SN_DROPPED, &g)) < 0 ||
        (rc = write_column(w, g, SP_SN_DROPPED_REGION, n, region)) < 0 ||
        (rc = write_column(w, g, SP_SN_DROPPED_CALLS, n, calls)) < 0)
        goto done;
done:
    if (g >= 0)
        H5Gclose(g);
    free(region);
    free(calls);
    return rc;
}

/* A copy of n strings with NULL as "" (the string columns' "unknown"). */
static const char **strings_or_empty(char *const *in, size_t n)
{
    const char **out = malloc((n ? n : 1) * sizeof *out);
    for (size_t i = 0; out && i < n; i++)
        out[i] = in[i] ? in[i] : "";
    return out;
}

/* Optional table: written only when the rank has line samples. */
static int write_lines(const writer *w, hid_t rank_group, const sp_rank_data *rk)
{
    int rc = 0;
    hid_t g = H5I_INVALID_HID;
    size_t n = rk->nlines;
    if (n == 0)
        return 0;
    const char **file = strings_or_empty(rk->line_file, n);
    const char **func = strings_or_empty(rk->line_function, n);
    if (!file || !func) {
        rc = sp__error(SP_ENOMEM, "cannot write '%s': out of memory", w->path);
        goto done;
    }
    if ((rc = open_table(w, rank_group, SP_SN_LINES, &g)) < 0 ||
        (rc = write_column(w, g, SP_SN_LINE_REGION, n, rk->line_region)) < 0 ||
        (rc = write_column(w, g, SP_SN_LINE_FILE, n, file)) < 0 ||
        (rc = write_column(w, g, SP_SN_LINE_LINENO, n, rk->line_lineno)) < 0 ||
        (rc = write_column(w, g, SP_SN_LINE_FUNCTION, n, func)) < 0 ||
        (rc = write_column(w, g, SP_SN_LINE_SAMPLES, n, rk->line_samples)) < 0 ||
        (rc = write_column(w, g, SP_SN_LINE_TIME, n, rk->line_time_ns)) < 0)
        goto done;
done:
    if (g >= 0)
        H5Gclose(g);
    free(file);
    free(func);
    return rc;
}

/* Optional table: written only when the rank has counter values. */
static int write_counters(const writer *w, hid_t rank_group, const sp_rank_data *rk)
{
    int rc = 0;
    hid_t g = H5I_INVALID_HID;
    size_t n = rk->ncounters;
    if (n == 0)
        return 0;
    const char **name = strings_or_empty(rk->counter_name, n);
    if (!name) {
        rc = sp__error(SP_ENOMEM, "cannot write '%s': out of memory", w->path);
        goto done;
    }
    if ((rc = open_table(w, rank_group, SP_SN_COUNTERS, &g)) < 0 ||
        (rc = write_column(w, g, SP_SN_COUNTER_REGION, n, rk->counter_region)) < 0 ||
        (rc = write_column(w, g, SP_SN_COUNTER_THREAD, n, rk->counter_thread)) < 0 ||
        (rc = write_column(w, g, SP_SN_COUNTER_CPU, n, rk->counter_cpu)) < 0 ||
        (rc = write_column(w, g, SP_SN_COUNTER_SOURCE, n, rk->counter_source)) < 0 ||
        (rc = write_column(w, g, SP_SN_COUNTER_NAME, n, name)) < 0 ||
        (rc = write_column(w, g, SP_SN_COUNTER_VALUE, n, rk->counter_value)) < 0 ||
        (rc = write_column(w, g, SP_SN_COUNTER_CALLS, n, rk->counter_calls)) < 0)
        goto done;
done:
    if (g >= 0)
        H5Gclose(g);
    free(name);
    return rc;
}

static int write_rank(const writer *w, hid_t file, const sp_run *run, size_t r)
{
    int rc = 0;
    const sp_rank_data *rk = &run->ranks[r];
    hid_t g = H5I_INVALID_HID;
    char name[64];
    snprintf(name, sizeof name, "%s%zu", SP_NAME(RANK_GROUP), r);
    H5TRY(g = sp__h5_group(file, name, false), "cannot write '%s': cannot create group /%s",
          w->path, name);
    if ((rc = sp__h5_write_int_attr(w->path, g, SP_SN_RANK_RANK, rk->rank)) < 0 ||
        (rc = sp__h5_write_int_attr(w->path, g, SP_SN_RANK_CLOCK_OFFSET,
                                    rk->clock_offset_ns)) < 0 ||
        (rc = sp__h5_write_int_attr(w->path, g, SP_SN_RANK_CLOCK_OFFSET_ERR,
                                    rk->clock_offset_err_ns)) < 0 ||
        (rc = write_meta_group(w, g, SP_NAME(RANK_METADATA), &rk->meta)) < 0 ||
        (rc = write_threads(w, g, rk)) < 0 || (rc = write_calls(w, g, rk)) < 0 ||
        (rc = write_dropped(w, g, rk, run->nregions)) < 0 ||
        (rc = write_lines(w, g, rk)) < 0 || (rc = write_counters(w, g, rk)) < 0)
        goto done;
done:
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

/* Everything but the rank groups. */
static int write_root(const writer *w, hid_t file, const sp_run *run)
{
    int rc;
    if ((rc = sp__h5_write_int_attr(w->path, file, SP_SN_ROOT_SCHEMA, SP_SCHEMA_V1)) < 0 ||
        (rc = sp__h5_write_int_attr(w->path, file, SP_SN_ROOT_NUM_RANKS,
                                    (int64_t)run->nranks)) < 0 ||
        (rc = write_meta_group(w, file, SP_NAME(METADATA), &run->meta)) < 0 ||
        (rc = write_column(w, file, SP_SN_REGION_NAMES, run->nregions,
                           run->region_names)) < 0)
        return rc;
    if (run->nregion_flags && (rc = write_column(w, file, SP_SN_REGION_FLAGS,
                                                 run->nregion_flags, run->region_flags)) < 0)
        return rc;
    return 0;
}

static int write_file(const writer *w, hid_t file, const sp_run *run)
{
    int rc;
    if ((rc = write_root(w, file, run)) < 0)
        return rc;
    for (size_t r = 0; r < run->nranks; r++)
        if ((rc = write_rank(w, file, run, r)) < 0)
            return rc;
    return 0;
}

/* ---------------------------------------------------------------- entry */

int sp__h5_file_access(const char *path, hid_t *out)
{
    int rc = 0;
    hid_t fapl = H5I_INVALID_HID;
    H5TRY(fapl = H5Pcreate(H5P_FILE_ACCESS), "cannot write '%s'", path);
    /* Our driver: a file whose write failed is closed safely (sp_h5_vfd.c). */
    H5TRY(H5Pset_driver(fapl, sp_v2_vfd(), NULL), "cannot write '%s': file driver", path);
    /* The 1.8 file format: readable by every HDF5 since 1.8 (h5py too), and
     * it stores many attributes densely instead of failing past 64 KiB of
     * metadata in one object header. */
    H5TRY(H5Pset_libver_bounds(fapl, H5F_LIBVER_V18, H5F_LIBVER_V18),
          "cannot write '%s': file format bounds", path);
    *out = fapl;
    fapl = H5I_INVALID_HID;
done:
    if (fapl >= 0)
        H5Pclose(fapl);
    return rc;
}

static int sync_file(const char *tmp, const char *path)
{
    int fd = open(tmp, O_RDONLY | O_CLOEXEC);
    if (fd < 0 || fsync(fd) != 0) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return sp__error(SP_EIO, "cannot write '%s': cannot sync '%s': %s", path, tmp,
                         strerror(e));
    }
    close(fd);
    return 0;
}

int sp__h5_write_opts(const sp_run *run, const char *path, const sp__h5_write_options *o)
{
    int rc = 0;
    hid_t fapl = H5I_INVALID_HID, file = H5I_INVALID_HID;
    char *tmp = NULL;
    bool tmp_exists = false;
    sp__h5_quiet quiet;
    if (!run || !path || !*path || !o)
        return sp__error(SP_EINVAL, "sp_h5_write: run and path are required");
    if ((rc = check_run(run, path)) < 0)
        return rc;
    /* The recorder's unpredictable temporary name (pid, host, 64 random
     * bits): nobody can plant a link at it in advance. */
    if (!(tmp = sp_v2_tmp_name(path)))
        return sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
    writer w = {.path = path, .o = o};
    sp__h5_quiet_begin(&quiet);

    /* Created exclusively, never through a link, after checking the disk
     * has room for it (sp_v2_file_create). */
    if ((rc = sp__h5_file_access(path, &fapl)) < 0 ||
        (rc = sp_v2_file_create(tmp, fapl, path, &file)) < 0)
        goto done;
    tmp_exists = true;
    if ((rc = write_file(&w, file, run)) < 0)
        goto done;
    rc = sp_v2_file_close(file, path, tmp); /* also after a write error */
    file = H5I_INVALID_HID;
    if (rc)
        goto done;
    if (o->fsync && (rc = sync_file(tmp, path)) < 0)
        goto done;
    if (rename(tmp, path) != 0) {
        rc = sp__error(SP_EIO, "cannot write '%s': cannot rename '%s' into place: %s",
                       path, tmp, strerror(errno));
        goto done;
    }
    tmp_exists = false;
done:
    sp_v2_file_discard(file); /* an error: nothing more goes to disk */
    if (fapl >= 0)
        H5Pclose(fapl);
    sp__h5_quiet_end(&quiet);
    if (tmp_exists)
        unlink(tmp); /* never leave a partial file behind */
    free(tmp);
    return rc;
}

int sp_h5_write(const sp_run *run, const char *path)
{
    sp__h5_write_options o;
    sp__h5_write_options_default(&o);
    return sp__h5_write_opts(run, path, &o);
}

/* ---------------------------------------------------------------- pieces for MPI */

/* The MPI writers (sp_h5_write_mpi*.c) write the same objects one rank
 * group at a time; these entry points keep a single definition of them. */

int sp__h5_write_check(const sp_run *run, const char *path) { return check_run(run, path); }

int sp__h5_write_root(hid_t file, const sp_run *run, const char *path,
                      const sp__h5_write_options *o)
{
    writer w = {.path = path, .o = o};
    return write_root(&w, file, run);
}

int sp__h5_write_rank(hid_t file, const sp_run *run, size_t r, const char *path,
                      const sp__h5_write_options *o, bool call_data)
{
    writer w = {.path = path, .o = o, .calls_later = !call_data};
    return write_rank(&w, file, run, r);
}

int sp__h5_write_mode_tables(hid_t rank_group, const sp_rank_data *rk, const char *path)
{
    sp__h5_write_options o;
    sp__h5_write_options_default(&o);
    writer w = {.path = path, .o = &o};
    int rc = write_lines(&w, rank_group, rk);
    return rc ? rc : write_counters(&w, rank_group, rk);
}
