/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_v2_final.c - the finished v2 file: built under an exclusive
 * temporary name (root first, then one rank group at a time, each rank
 * copying the event tables its part streamed and adding its final tables),
 * synced and renamed over PATH. Also sp_h5_write_v2() for runs in memory.
 *
 * Copying the streamed tables (H5Ocopy) moves their compressed chunks as
 * they are: finalize never decompresses, re-sorts or recompresses a call.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_h5_v2_io.h"

int sp_v2_final_root(const char *tmp, const char *path, size_t nranks, const sp_kvlist *meta)
{
    int rc = 0;
    hid_t fapl = H5I_INVALID_HID, file = H5I_INVALID_HID;
    sp__h5_quiet quiet;
    sp__h5_quiet_begin(&quiet);
    bool created = false;
    if ((rc = sp_v2_fapl(false, path, &fapl)) || (rc = sp_v2_file_create(tmp, fapl, path, &file)))
        goto done;
    created = true;
    if ((rc = sp_v2_int_attr(file, SP_NAME(ROOT_SCHEMA), SP_ST_I32, 2, path)) ||
        (rc = sp_v2_int_attr(file, SP_NAME(ROOT_NUM_RANKS), SP_ST_I64, (int64_t)nranks, path)) ||
        (rc = sp_v2_int_attr(file, SP_NAME2(V2_ROOT_COMPLETE), SP_ST_I32, 1, path)) ||
        (rc = sp_v2_meta_group(file, SP_NAME(METADATA), meta, path)))
        goto done;
    rc = sp_v2_file_close(file, path, tmp); /* also after a write error */
    file = H5I_INVALID_HID;
    if (rc)
        goto done;
    created = false;
done:
    sp_v2_file_discard(file); /* an error: nothing more goes to disk */
    if (fapl >= 0)
        H5Pclose(fapl);
    sp__h5_quiet_end(&quiet);
    if (created)
        unlink(tmp);
    return rc;
}

/* ---------------------------------------------------------------- a rank */

static int write_attrs(hid_t rg, const sp_rank_data *rk, const sp_v2_mpi_clock *mc,
                       const char *path)
{
    int rc;
    if ((rc = sp_v2_int_attr(rg, SP_NAME(RANK_RANK), SP_ST_I32, rk->rank, path)) ||
        (rc = sp_v2_int_attr(rg, SP_NAME(RANK_CLOCK_OFFSET), SP_ST_I64, rk->clock_offset_ns,
                             path)) ||
        (rc = sp_v2_int_attr(rg, SP_NAME(RANK_CLOCK_OFFSET_ERR), SP_ST_I64,
                             rk->clock_offset_err_ns, path)))
        return rc;
    if (mc && mc->setup_err_ns >= 0 &&
        ((rc = sp_v2_int_attr(rg, SP_NAME(RANK_CLOCK_SETUP), SP_ST_I64, mc->setup_ns, path)) ||
         (rc = sp_v2_int_attr(rg, SP_NAME(RANK_CLOCK_SETUP_ERR), SP_ST_I64, mc->setup_err_ns,
                              path))))
        return rc;
    if (mc && mc->finalize_err_ns >= 0 &&
        ((rc = sp_v2_int_attr(rg, SP_NAME(RANK_CLOCK_FINALIZE), SP_ST_I64, mc->finalize_ns,
                              path)) ||
         (rc = sp_v2_int_attr(rg, SP_NAME(RANK_CLOCK_FINALIZE_ERR), SP_ST_I64,
                              mc->finalize_err_ns, path))))
        return rc;
    return 0;
}

static int write_clock(hid_t rg, const sp_v2_rank_source *src, const char *path)
{
    int rc = 0;
    hid_t g = H5I_INVALID_HID;
    H5TRY(g = sp_v2_group(rg, SP_NAME2(V2_CLOCK), false), "cannot write '%s'", path);
    if ((rc = sp_v2_col_fixed(g, SP_NAME2(V2_CLOCK_TICKS), SP_ST_I64, src->clock_ticks,
                              src->nclock, path)) == 0)
        rc = sp_v2_col_fixed(g, SP_NAME2(V2_CLOCK_NS), SP_ST_I64, src->clock_ns, src->nclock,
                             path);
done:
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

static int write_regions(hid_t rg, const sp_run *run, const char *path)
{
    int rc = 0;
    hid_t g = H5I_INVALID_HID;
    int32_t *f = NULL;
    H5TRY(g = sp_v2_group(rg, SP_NAME2(V2_REGIONS), false), "cannot write '%s'", path);
    if ((rc = sp_v2_names_fixed(g, (const char *const *)run->region_names, run->nregions, path)))
        goto done;
    if (run->nregion_flags && run->region_flags) {
        if (!(f = calloc(run->nregions ? run->nregions : 1, sizeof *f))) {
            rc = sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
            goto done;
        }
        for (size_t i = 0; i < run->nregion_flags && i < run->nregions; i++)
            f[i] = run->region_flags[i];
        rc = sp_v2_col_fixed(g, SP_NAME2(V2_REGION_FLAGS), SP_ST_I32, f, run->nregions, path);
    }
done:
    free(f);
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

static int write_threads(hid_t rg, const sp_rank_data *rk, const char *path)
{
    int rc = 0;
    hid_t g = H5I_INVALID_HID;
    size_t n = rk->nthreads;
    int64_t *tids = malloc((n ? n : 1) * sizeof *tids);
    const char **nm = malloc((n ? n : 1) * sizeof *nm);
    if (!tids || !nm) {
        rc = sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
        goto done;
    }
    for (size_t t = 0; t < n; t++) {
        tids[t] = rk->threads[t].os_tid;
        nm[t] = rk->threads[t].name ? rk->threads[t].name : "";
    }
    H5TRY(g = sp_v2_group(rg, SP_NAME(THREADS), false), "cannot write '%s'", path);
    if ((rc = sp_v2_col_fixed(g, SP_NAME(THREAD_OS_TID), SP_ST_I64, tids, n, path)) == 0)
        rc = sp_v2_names_fixed(g, nm, n, path);
done:
    free(tids);
    free(nm);
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

static int write_dropped(hid_t rg, const sp_rank_data *rk, size_t nregions, const char *path)
{
    int rc = 0;
    hid_t g = H5I_INVALID_HID;
    int32_t *r = malloc((nregions ? nregions : 1) * sizeof *r);
    uint64_t *c = malloc((nregions ? nregions : 1) * sizeof *c);
    size_t n = 0;
    if (!r || !c) {
        rc = sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
        goto done;
    }
    for (size_t i = 0; rk->dropped && i < nregions; i++)
        if (rk->dropped[i]) {
            r[n] = (int32_t)i;
            c[n++] = rk->dropped[i];
        }
    H5TRY(g = sp_v2_group(rg, SP_NAME(DROPPED), false), "cannot write '%s'", path);
    if ((rc = sp_v2_col_fixed(g, SP_NAME(DROPPED_REGION), SP_ST_I32, r, n, path)) == 0)
        rc = sp_v2_col_fixed(g, SP_NAME(DROPPED_CALLS), SP_ST_U64, c, n, path);
done:
    free(r);
    free(c);
    if (g >= 0)
        H5Gclose(g);
    return rc;
}

/* The event tables: the part's copied (chunks as they are), then extra. */
static int write_events(hid_t rg, const sp_v2_rank_source *src, const char *path)
{
    int rc = 0;
    hid_t part = H5I_INVALID_HID, g = H5I_INVALID_HID;
    sp_v2_col c[6];
    for (int i = 0; i < 6; i++)
        c[i].dset = H5I_INVALID_HID;
    static const sp_schema_v2_id ev_ids[2] = {SP_SN2_V2_EVENT_DT, SP_SN2_V2_EVENT_REGION};
    static const sp_schema_v2_id bl_ids[4] = {SP_SN2_V2_BLOCK_THREAD, SP_SN2_V2_BLOCK_EVENTS,
                                              SP_SN2_V2_BLOCK_BEGINS, SP_SN2_V2_BLOCK_T0};
    char from[128];
    if (src->part_path) {
        H5TRY(part = H5Fopen(src->part_path, H5F_ACC_RDONLY, H5P_DEFAULT),
              "cannot write '%s': cannot open the part '%s'", path, src->part_path);
        const char *groups[2] = {SP_NAME2(V2_EVENTS), SP_NAME2(V2_BLOCKS)};
        for (int i = 0; i < 2; i++) {
            snprintf(from, sizeof from, "/%s%d/%s", SP_NAME(RANK_GROUP),
                     (int)src->run->ranks[src->r].rank, groups[i]);
            H5TRY(H5Ocopy(part, from, rg, groups[i], H5P_DEFAULT, H5P_DEFAULT),
                  "cannot write '%s': copying %s from '%s'", path, from, src->part_path);
        }
        H5TRY(g = H5Gopen2(rg, SP_NAME2(V2_EVENTS), H5P_DEFAULT), "cannot write '%s'", path);
        for (int i = 0; i < 2 && rc == 0; i++)
            rc = sp_v2_col_open(g, sp__schema_v2[ev_ids[i]].name, sp__schema_v2[ev_ids[i]].type,
                                path, &c[i]);
        H5Gclose(g);
        H5TRY(g = H5Gopen2(rg, SP_NAME2(V2_BLOCKS), H5P_DEFAULT), "cannot write '%s'", path);
        for (int i = 0; i < 4 && rc == 0; i++)
            rc = sp_v2_col_open(g, sp__schema_v2[bl_ids[i]].name, sp__schema_v2[bl_ids[i]].type,
                                path, &c[2 + i]);
    } else {
        /* Chunks no larger than the data: a small run stays a small file. */
        sp_v2_compress z = sp_v2_compress_resolve(src->compress);
        size_t ne = src->extra ? src->extra->n : 0, nb = src->extra ? src->extra->nblocks : 0;
        hsize_t ce = ne < SP_V2_CHUNK_EVENTS ? (ne ? ne : 1) : SP_V2_CHUNK_EVENTS;
        hsize_t cb = nb < SP_V2_CHUNK_BLOCKS ? (nb ? nb : 1) : SP_V2_CHUNK_BLOCKS;
        H5TRY(g = sp_v2_group(rg, SP_NAME2(V2_EVENTS), false), "cannot write '%s'", path);
        for (int i = 0; i < 2 && rc == 0; i++)
            rc = sp_v2_col_create(g, sp__schema_v2[ev_ids[i]].name,
                                  sp__schema_v2[ev_ids[i]].type, ce, z, path, &c[i]);
        H5Gclose(g);
        H5TRY(g = sp_v2_group(rg, SP_NAME2(V2_BLOCKS), false), "cannot write '%s'", path);
        for (int i = 0; i < 4 && rc == 0; i++)
            rc = sp_v2_col_create(g, sp__schema_v2[bl_ids[i]].name,
                                  sp__schema_v2[bl_ids[i]].type, cb, z, path, &c[2 + i]);
    }
    if (rc)
        goto done;
    const sp_v2_events *e = src->extra;
    if (e && e->n &&
        ((rc = sp_v2_col_append(&c[0], e->dt, e->n, path)) ||
         (rc = sp_v2_col_append(&c[1], e->region, e->n, path)) ||
         (rc = sp_v2_col_append(&c[2], e->bthread, e->nblocks, path)) ||
         (rc = sp_v2_col_append(&c[3], e->bevents, e->nblocks, path)) ||
         (rc = sp_v2_col_append(&c[4], e->bbegins, e->nblocks, path)) ||
         (rc = sp_v2_col_append(&c[5], e->bt0, e->nblocks, path))))
        goto done;
done:
    for (int i = 0; i < 6; i++)
        sp_v2_col_close(&c[i]);
    if (g >= 0)
        H5Gclose(g);
    if (part >= 0)
        H5Fclose(part);
    return rc;
}

/* The threads' scheduling samples: the part's table copied as it is, or
 * the run's (a run in memory; nothing when it has none). */
static int write_sched(hid_t rg, const sp_v2_rank_source *src, const char *path)
{
    int rc = 0;
    hid_t part = H5I_INVALID_HID, g = H5I_INVALID_HID;
    const sp_rank_data *rk = &src->run->ranks[src->r];
    int64_t *v = NULL;
    if (src->part_path) {
        char from[128];
        snprintf(from, sizeof from, "/%s%d/%s", SP_NAME(RANK_GROUP), (int)rk->rank,
                 SP_NAME2(V2_SCHED));
        H5TRY(part = H5Fopen(src->part_path, H5F_ACC_RDONLY, H5P_DEFAULT),
              "cannot write '%s': cannot open the part '%s'", path, src->part_path);
        if (!sp__h5_has(part, from))
            goto done; /* not measured */
        H5TRY(H5Ocopy(part, from, rg, SP_NAME2(V2_SCHED), H5P_DEFAULT, H5P_DEFAULT),
              "cannot write '%s': copying %s from '%s'", path, from, src->part_path);
        goto done;
    }
    size_t n = rk->nsched;
    if (!n)
        goto done;
    if (!(v = malloc(n * SP_V2_SCHED_COLS * sizeof *v))) {
        rc = sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
        goto done;
    }
    for (size_t i = 0; i < n; i++) {
        const sp_sched_sample *x = &rk->sched[i];
        v[i] = x->thread >= 0 && (size_t)x->thread < rk->nthreads ? rk->threads[x->thread].os_tid
                                                                   : -1;
        v[n + i] = x->t_ns;
        v[2 * n + i] = x->cpu_ns;
        v[3 * n + i] = x->wait_ns;
        v[4 * n + i] = x->nivcsw;
    }
    static const sp_schema_v2_id ids[SP_V2_SCHED_COLS] = {
        SP_SN2_V2_SCHED_TID, SP_SN2_V2_SCHED_T, SP_SN2_V2_SCHED_CPU, SP_SN2_V2_SCHED_WAIT,
        SP_SN2_V2_SCHED_NIVCSW};
    H5TRY(g = sp_v2_group(rg, SP_NAME2(V2_SCHED), false), "cannot write '%s'", path);
    for (int i = 0; i < SP_V2_SCHED_COLS && !rc; i++)
        rc = sp_v2_col_fixed(g, sp__schema_v2[ids[i]].name, SP_ST_I64, v + (size_t)i * n, n, path);
done:
    free(v);
    if (g >= 0)
        H5Gclose(g);
    if (part >= 0)
        H5Fclose(part);
    return rc;
}

/* Line and counter tables with every string made UTF-8 (escaped). */
static int write_mode_tables(hid_t rg, const sp_rank_data *rk, const char *path)
{
    if (!rk->nlines && !rk->ncounters)
        return 0;
    sp_rank_data esc = *rk;
    size_t nl = rk->nlines, nc = rk->ncounters;
    char **file = calloc(nl ? nl : 1, sizeof *file), **fn = calloc(nl ? nl : 1, sizeof *fn);
    char **name = calloc(nc ? nc : 1, sizeof *name);
    int rc = 0;
    if (!file || !fn || !name)
        rc = SP_ENOMEM;
    for (size_t i = 0; rc == 0 && i < nl; i++)
        if (!(file[i] = sp_v2_text_escape(rk->line_file[i])) ||
            !(fn[i] = sp_v2_text_escape(rk->line_function[i])))
            rc = SP_ENOMEM;
    for (size_t i = 0; rc == 0 && i < nc; i++)
        if (!(name[i] = sp_v2_text_escape(rk->counter_name[i])))
            rc = SP_ENOMEM;
    if (rc) {
        rc = sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
    } else {
        esc.line_file = file;
        esc.line_function = fn;
        esc.counter_name = name;
        rc = sp__h5_write_mode_tables(rg, &esc, path);
    }
    for (size_t i = 0; file && fn && i < nl; i++) {
        free(file[i]);
        free(fn[i]);
    }
    for (size_t i = 0; name && i < nc; i++)
        free(name[i]);
    free(file);
    free(fn);
    free(name);
    return rc;
}

int sp_v2_final_rank(const char *tmp, const char *path, const sp_v2_rank_source *src)
{
    int rc = 0;
    hid_t fapl = H5I_INVALID_HID, file = H5I_INVALID_HID, rg = H5I_INVALID_HID;
    const sp_run *run = src->run;
    const sp_rank_data *rk = &run->ranks[src->r];
    char name[64];
    snprintf(name, sizeof name, "%s%d", SP_NAME(RANK_GROUP), (int)rk->rank);
    sp__h5_quiet quiet;
    sp__h5_quiet_begin(&quiet);
    if ((rc = sp_v2_fapl(false, path, &fapl)))
        goto done;
    H5TRY(file = H5Fopen(tmp, H5F_ACC_RDWR, fapl), "cannot write '%s': cannot open '%s'", path,
          tmp);
    H5TRY(rg = sp_v2_group(file, name, false), "cannot write '%s': cannot create /%s", path,
          name);
    if ((rc = write_attrs(rg, rk, src->mpi_clock, path)) ||
        (rc = sp_v2_meta_group(rg, SP_NAME(RANK_METADATA), &rk->meta, path)) ||
        (rc = write_clock(rg, src, path)) || (rc = write_regions(rg, run, path)) ||
        (rc = write_threads(rg, rk, path)) || (rc = write_events(rg, src, path)) ||
        (rc = write_dropped(rg, rk, run->nregions, path)) || (rc = write_sched(rg, src, path)) ||
        (rc = write_mode_tables(rg, rk, path)))
        goto done;
    H5Gclose(rg);
    rg = H5I_INVALID_HID;
    rc = sp_v2_file_close(file, path, tmp); /* also after a write error */
    file = H5I_INVALID_HID;
    if (rc)
        goto done;
done:
    if (rg >= 0)
        H5Gclose(rg);
    sp_v2_file_discard(file); /* an error: nothing more goes to disk */
    if (fapl >= 0)
        H5Pclose(fapl);
    sp__h5_quiet_end(&quiet);
    return rc;
}

int sp_v2_final_publish(const char *tmp, const char *path)
{
    int fd = open(tmp, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    int rc = 0;
    if (fd < 0 || fsync(fd) != 0)
        rc = sp__error(SP_EIO, "cannot write '%s': cannot sync '%s': %s", path, tmp,
                       strerror(errno));
    if (fd >= 0)
        close(fd);
    if (rc == 0 && rename(tmp, path) != 0)
        rc = sp__error(SP_EIO, "cannot write '%s': cannot rename '%s' into place: %s", path, tmp,
                       strerror(errno));
    if (rc)
        unlink(tmp);
    return rc;
}

/* ---------------------------------------------------------------- runs in memory */

/* What the v1 writer checks, without its UTF-8 rule (v2 stores names as
 * bytes): columns in range, model order, parents that nest. */
static int check_run(const sp_run *run, const char *path)
{
    int rc;
    if ((run->nranks && !run->ranks) || (run->nregions && !run->region_names))
        return sp__error(SP_EINVAL, "cannot write '%s': bad rank or region table", path);
    for (size_t i = 0; i < run->nregions; i++)
        if (!run->region_names[i])
            return sp__error(SP_EINVAL, "cannot write '%s': region name %zu is NULL", path, i);
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        char ctx[512];
        snprintf(ctx, sizeof ctx, "cannot write '%s': rank %zu", path, r);
        size_t first_bad;
        if (rk->rank != (int32_t)r || (rk->nthreads && !rk->threads))
            return sp__error(SP_EINVAL, "%s: bad rank number or thread table", ctx);
        if ((rc = sp__rank_check_columns(rk, run->nregions, SP_EINVAL, ctx)) ||
            (rc = sp__rank_check_modes(rk, run->nregions, SP_EINVAL, ctx)))
            return rc;
        if (!sp__rank_in_model_order(rk, &first_bad))
            return sp__error(SP_EINVAL, "%s: calls not in model order at call %zu", ctx,
                             first_bad);
        if ((rc = sp__rank_check_parents(rk, SP_EINVAL, ctx)))
            return rc;
    }
    return 0;
}

int sp_h5_write_v2(const sp_run *run, const char *path)
{
    if (!run || !path || !*path)
        return sp__error(SP_EINVAL, "sp_h5_write_v2: run and path are required");
    int rc = check_run(run, path);
    if (rc)
        return rc;
    char *tmp = sp_v2_tmp_name(path);
    if (!tmp)
        return sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
    if ((rc = sp_v2_final_root(tmp, path, run->nranks, &run->meta))) {
        free(tmp);
        return rc;
    }
    static const int64_t zero = 0;
    const sp_v2_clock_map identity = {0, 0, 1.0}; /* the run's times are ns */
    sp_v2_events ev;
    memset(&ev, 0, sizeof ev);
    for (size_t r = 0; r < run->nranks && rc == 0; r++) {
        sp_v2_events_clear(&ev);
        if ((rc = sp_v2_events_from_calls(&run->ranks[r], 0, &identity, &ev))) {
            char why[512];
            snprintf(why, sizeof why, "%s", sp_last_error());
            sp__error(rc, "cannot write '%s': rank %zu: %s", path, r, why);
            break;
        }
        sp_v2_rank_source src = {.run = run, .r = r, .extra = &ev, .clock_ticks = &zero,
                                 .clock_ns = &zero, .nclock = 1,
                                 .compress = SP_V2_COMPRESS_DEFLATE};
        rc = sp_v2_final_rank(tmp, path, &src);
    }
    sp_v2_events_free(&ev);
    if (rc == 0)
        rc = sp_v2_final_publish(tmp, path);
    else
        unlink(tmp);
    free(tmp);
    return rc;
}
