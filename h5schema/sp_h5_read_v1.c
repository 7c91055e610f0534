/* SPDX-License-Identifier: MIT */
/* sp_h5_read_v1.c - read the layout this build writes (schema version 1). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_h5_internal.h"

/* Rank groups are looked up by name, so a count beyond what the file can
 * hold is refused before allocating for it. */
static int read_num_ranks(const char *file, hid_t fid, size_t *out)
{
    int64_t n;
    int rc = sp__h5_read_int_attr(file, fid, SP_NAME(ROOT_NUM_RANKS), &n);
    if (rc < 0)
        return rc;
    H5G_info_t info;
    if (H5Gget_info(fid, &info) < 0)
        return sp__h5_error(SP_EFORMAT, "%s: cannot list /", file);
    if (n < 0 || (uint64_t)n > info.nlinks)
        return sp__error(SP_EFORMAT, "%s: %s is %" PRId64 " but / holds only %llu objects",
                         file, SP_NAME(ROOT_NUM_RANKS), n, (unsigned long long)info.nlinks);
    *out = (size_t)n;
    return 0;
}

static int read_region_names(const char *file, hid_t fid, sp_run *run)
{
    size_t n;
    char **names;
    int rc = sp__h5_read_strings(file, fid, SP_NAME(REGION_NAMES), &n, &names);
    if (rc < 0)
        return rc;
    run->region_names = names;
    run->nregions = n;
    if (n > INT32_MAX)
        return sp__error(SP_EFORMAT, "%s: /%s has too many rows (%zu)", file,
                         SP_NAME(REGION_NAMES), n);
    int32_t dup;
    if ((rc = sp_run_index_regions(run, &dup)) < 0)
        return rc;
    if (dup >= 0)
        return sp__error(SP_EFORMAT, "%s: /%s: name '%s' appears twice (row %" PRId32 ")",
                         file, SP_NAME(REGION_NAMES), names[dup], dup);
    return 0;
}

static int read_meta_group(const char *file, hid_t loc, const char *name, sp_kvlist *l)
{
    hid_t g;
    int rc = sp__h5_open_group(file, loc, name, &g);
    if (rc < 0)
        return rc;
    rc = sp__h5_read_meta(file, g, l);
    H5Gclose(g);
    return rc;
}

static int read_threads(const char *file, hid_t rank_group, sp_rank_data *rk)
{
    int rc;
    hid_t g = H5I_INVALID_HID;
    size_t n_tid = 0, n_name = 0;
    int64_t *tid = NULL;
    char **name = NULL;
    if ((rc = sp__h5_open_group(file, rank_group, SP_NAME(THREADS), &g)) < 0 ||
        (rc = sp__h5_read_ints(file, g, SP_NAME(THREAD_OS_TID), 8, &n_tid, (void **)&tid)) < 0 ||
        (rc = sp__h5_read_strings(file, g, SP_NAME(THREAD_NAME), &n_name, &name)) < 0)
        goto done;
    char where[256];
    if (n_tid != n_name || n_tid > INT32_MAX) {
        rc = sp__error(SP_EFORMAT, "%s: %s: columns have different lengths (%s %zu, %s %zu)",
                       file, sp__h5_path(g, NULL, where, sizeof where),
                       SP_NAME(THREAD_OS_TID), n_tid, SP_NAME(THREAD_NAME), n_name);
        goto done;
    }
    if (n_tid && !(rk->threads = calloc(n_tid, sizeof *rk->threads))) {
        rc = sp__error(SP_ENOMEM, "%s: out of memory reading threads", file);
        goto done;
    }
    rk->nthreads = n_tid;
    for (size_t t = 0; t < n_tid; t++) {
        rk->threads[t].os_tid = tid[t];
        if (name[t][0]) { /* "" = unnamed = NULL in the model */
            rk->threads[t].name = name[t];
            name[t] = NULL;
        }
    }
done:
    if (g >= 0)
        H5Gclose(g);
    free(tid);
    sp__strings_free(name, n_name);
    return rc;
}

static int read_calls(const char *file, hid_t rank_group, sp_rank_data *rk)
{
    /* Assigned to the rank at once, so sp_run_free() frees them on error. */
    const sp__h5_int_column cols[] = {
        {SP_SN_CALL_START, 8, (void **)&rk->start_ns},
        {SP_SN_CALL_END, 8, (void **)&rk->end_ns},
        {SP_SN_CALL_REGION, 4, (void **)&rk->region},
        {SP_SN_CALL_THREAD, 4, (void **)&rk->thread},
        {SP_SN_CALL_PARENT, 8, (void **)&rk->parent},
    };
    return sp__h5_read_int_table(file, rank_group, SP_SN_CALLS, cols, 5, &rk->ncalls);
}

static int read_dropped(const char *file, hid_t rank_group, sp_rank_data *rk,
                        size_t nregions)
{
    int32_t *region = NULL;
    int64_t *calls = NULL;
    size_t n_region = 0;
    const sp__h5_int_column cols[] = {
        {SP_SN_DROPPED_REGION, 4, (void **)&region},
        {SP_SN_DROPPED_CALLS, 8, (void **)&calls},
    };
    int rc = sp__h5_read_int_table(file, rank_group, SP_SN_DROPPED, cols, 2, &n_region);
    if (rc < 0)
        goto done;
    char where[256];
    sp__h5_path(rank_group, SP_NAME(DROPPED), where, sizeof where);
    if (n_region && !(rk->dropped = calloc(nregions ? nregions : 1, sizeof *rk->dropped))) {
        rc = sp__error(SP_ENOMEM, "%s: out of memory reading %s", file, where);
        goto done;
    }
    for (size_t i = 0; i < n_region; i++) {
        /* Sums stay below 2^62 (sp__run_check_read): no wrap-around here. */
        if (region[i] < 0 || (size_t)region[i] >= nregions || calls[i] < 0 ||
            (uint64_t)calls[i] > ((uint64_t)1 << 62) - rk->dropped[region[i]]) {
            rc = sp__error(SP_EFORMAT, "%s: %s: row %zu (region %" PRId32 ", %" PRId64
                           " calls) is out of range (%zu regions), or the calls add up past 2^62",
                           file, where, i, region[i], calls[i], nregions);
            goto done;
        }
        rk->dropped[region[i]] += (uint64_t)calls[i];
    }
done:
    free(region);
    free(calls);
    return rc;
}

/* Optional: line samples of the recording modes. */
static int read_lines(const char *file, hid_t rank_group, sp_rank_data *rk)
{
    static const sp_schema_id ids[] = {SP_SN_LINE_REGION, SP_SN_LINE_FILE,
                                       SP_SN_LINE_LINENO, SP_SN_LINE_FUNCTION,
                                       SP_SN_LINE_SAMPLES, SP_SN_LINE_TIME};
    int rc;
    hid_t g = H5I_INVALID_HID;
    size_t n[6] = {0};
    if (!sp__h5_has(rank_group, SP_NAME(LINES)))
        return 0;
    /* Assigned to the rank at once, so sp_run_free() frees them on error;
     * nlines is set last, and string arrays are freed here until then. */
    if ((rc = sp__h5_open_group(file, rank_group, SP_NAME(LINES), &g)) < 0 ||
        (rc = sp__h5_read_ints(file, g, SP_NAME(LINE_REGION), 4, &n[0], (void **)&rk->line_region)) < 0 ||
        (rc = sp__h5_read_strings(file, g, SP_NAME(LINE_FILE), &n[1], &rk->line_file)) < 0 ||
        (rc = sp__h5_read_ints(file, g, SP_NAME(LINE_LINENO), 4, &n[2], (void **)&rk->line_lineno)) < 0 ||
        (rc = sp__h5_read_strings(file, g, SP_NAME(LINE_FUNCTION), &n[3], &rk->line_function)) < 0 ||
        (rc = sp__h5_read_ints(file, g, SP_NAME(LINE_SAMPLES), 8, &n[4], (void **)&rk->line_samples)) < 0 ||
        (rc = sp__h5_read_ints(file, g, SP_NAME(LINE_TIME), 8, &n[5], (void **)&rk->line_time_ns)) < 0 ||
        (rc = sp__h5_lengths_differ(file, g, n, ids, 6)) < 0)
        goto done;
    for (size_t i = 0; i < n[0]; i++)
        if ((int64_t)rk->line_samples[i] < 0) { /* read as int64: negatives clipped in */
            rc = sp__error(SP_EFORMAT, "%s: line row %zu of rank %" PRId32
                           " has a negative sample count", file, i, rk->rank);
            goto done;
        }
    rk->nlines = n[0];
done:
    if (rc < 0) { /* the model frees per-row strings only for nlines rows */
        sp__strings_free(rk->line_file, n[1]);
        sp__strings_free(rk->line_function, n[3]);
        rk->line_file = rk->line_function = NULL;
    }
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

/* Optional: counter values of the recording modes. */
static int read_counters(const char *file, hid_t rank_group, sp_rank_data *rk)
{
    static const sp_schema_id ids[] = {SP_SN_COUNTER_REGION, SP_SN_COUNTER_THREAD,
                                       SP_SN_COUNTER_CPU,    SP_SN_COUNTER_SOURCE,
                                       SP_SN_COUNTER_NAME,   SP_SN_COUNTER_VALUE,
                                       SP_SN_COUNTER_CALLS};
    int rc;
    hid_t g = H5I_INVALID_HID;
    size_t n[7] = {0};
    if (!sp__h5_has(rank_group, SP_NAME(COUNTERS)))
        return 0;
    if ((rc = sp__h5_open_group(file, rank_group, SP_NAME(COUNTERS), &g)) < 0 ||
        (rc = sp__h5_read_ints(file, g, SP_NAME(COUNTER_REGION), 4, &n[0], (void **)&rk->counter_region)) < 0 ||
        (rc = sp__h5_read_ints(file, g, SP_NAME(COUNTER_THREAD), 4, &n[1], (void **)&rk->counter_thread)) < 0 ||
        (rc = sp__h5_read_ints(file, g, SP_NAME(COUNTER_CPU), 4, &n[2], (void **)&rk->counter_cpu)) < 0 ||
        (rc = sp__h5_read_ints(file, g, SP_NAME(COUNTER_SOURCE), 4, &n[3], (void **)&rk->counter_source)) < 0 ||
        (rc = sp__h5_read_strings(file, g, SP_NAME(COUNTER_NAME), &n[4], &rk->counter_name)) < 0 ||
        (rc = sp__h5_read_f64(file, g, SP_NAME(COUNTER_VALUE), &n[5], &rk->counter_value)) < 0 ||
        (rc = sp__h5_read_ints(file, g, SP_NAME(COUNTER_CALLS), 8, &n[6], (void **)&rk->counter_calls)) < 0 ||
        (rc = sp__h5_lengths_differ(file, g, n, ids, 7)) < 0)
        goto done;
    rk->ncounters = n[0];
done:
    if (rc < 0) {
        sp__strings_free(rk->counter_name, n[4]);
        rk->counter_name = NULL;
    }
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

static int read_region_flags(const char *file, hid_t fid, sp_run *run)
{
    size_t n;
    if (!sp__h5_has(fid, SP_NAME(REGION_FLAGS)))
        return 0;
    int rc = sp__h5_read_ints(file, fid, SP_NAME(REGION_FLAGS), 4, &n,
                              (void **)&run->region_flags);
    if (rc < 0)
        return rc;
    if (n > run->nregions)
        return sp__error(SP_EFORMAT, "%s: /%s has %zu rows for %zu regions", file,
                         SP_NAME(REGION_FLAGS), n, run->nregions);
    run->nregion_flags = n;
    return 0;
}

static int read_rank(const char *file, hid_t fid, sp_run *run, size_t r)
{
    int rc;
    hid_t g = H5I_INVALID_HID;
    sp_rank_data *rk = &run->ranks[r];
    char name[64];
    int64_t v;
    snprintf(name, sizeof name, "%s%zu", SP_NAME(RANK_GROUP), r);
    if ((rc = sp__h5_open_group(file, fid, name, &g)) < 0 ||
        (rc = sp__h5_read_int_attr(file, g, SP_NAME(RANK_RANK), &v)) < 0)
        goto done;
    if (v != (int64_t)r) {
        rc = sp__error(SP_EFORMAT, "%s: /%s: attribute '%s' is %" PRId64, file, name,
                       SP_NAME(RANK_RANK), v);
        goto done;
    }
    if ((rc = sp__h5_read_int_attr(file, g, SP_NAME(RANK_CLOCK_OFFSET),
                                   &rk->clock_offset_ns)) < 0 ||
        (rc = sp__h5_read_int_attr(file, g, SP_NAME(RANK_CLOCK_OFFSET_ERR),
                                   &rk->clock_offset_err_ns)) < 0 ||
        (rc = read_meta_group(file, g, SP_NAME(RANK_METADATA), &rk->meta)) < 0 ||
        (rc = read_threads(file, g, rk)) < 0 || (rc = read_calls(file, g, rk)) < 0 ||
        (rc = read_dropped(file, g, rk, run->nregions)) < 0 ||
        (rc = read_lines(file, g, rk)) < 0 || (rc = read_counters(file, g, rk)) < 0)
        goto done;
    char ctx[512];
    snprintf(ctx, sizeof ctx, "%s: /%s", file, name);
    if ((rc = sp__rank_check_modes(rk, run->nregions, SP_EFORMAT, ctx)) < 0)
        goto done;
    rc = sp__h5_finish_rank(file, rk, run->nregions, false);
done:
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

int sp__h5_read_v1(const char *file, hid_t fid, sp_run *run)
{
    int rc;
    size_t nranks = 0;
    if ((rc = read_region_names(file, fid, run)) < 0 ||
        (rc = read_num_ranks(file, fid, &nranks)) < 0 ||
        (rc = read_region_flags(file, fid, run)) < 0 ||
        (rc = read_meta_group(file, fid, SP_NAME(METADATA), &run->meta)) < 0 ||
        (rc = sp__read_charge_ranks(nranks, run->nregions)) < 0 ||
        (rc = sp_run_set_ranks(run, nranks)) < 0)
        return rc;
    for (size_t r = 0; r < nranks; r++)
        if ((rc = read_rank(file, fid, run, r)) < 0)
            return rc;
    return 0;
}
