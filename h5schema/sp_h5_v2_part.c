/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_v2_part.c - a rank's part file while the program records: every
 * table of /rank<N> created empty, then appended to in HDF5 SWMR mode.
 *
 * Why SWMR: HDF5 may write metadata at any time while a file is open, so a
 * process killed in the middle of an ordinary append can leave the file's
 * structures inconsistent (measured: 6 of 40 kills of a writer that
 * rewrites compressed chunks left chunks that no longer inflate). In SWMR
 * mode HDF5 orders every write so that the file on disk is readable at any
 * instant (0 of 40). The price: the superblock says "open for writing"
 * until the writer closes, and plain readers refuse such a file after a
 * kill; SWMR readers (our reader; h5py with swmr=True) read it. The file
 * at PATH links to the part, so it always opens (SCHEMA.md).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_h5_v2_io.h"

struct sp_v2_part {
    char *path;         /* the part file, named in messages */
    hid_t file;
    sp_v2_col clock_ticks, clock_ns;
    sp_v2_names regions, threads_names;
    sp_v2_col thread_tid;
    sp_v2_col bthread, bevents, bbegins, bt0;
    sp_v2_col dt, region;
    sp_v2_col drop_region, drop_calls;
    sp_v2_col sched[SP_V2_SCHED_COLS];
};

char *sp_v2_part_path(const char *path, int32_t rank)
{
    size_t n = strlen(path) + 32;
    char *s = malloc(n);
    if (s)
        snprintf(s, n, "%s.%s%d.part", path, SP_NAME(RANK_GROUP), (int)rank);
    return s;
}

/* The columns of sched/, in the order of sp_v2_sched_rows. */
static const sp_schema_v2_id sched_ids[SP_V2_SCHED_COLS] = {
    SP_SN2_V2_SCHED_TID, SP_SN2_V2_SCHED_T, SP_SN2_V2_SCHED_CPU, SP_SN2_V2_SCHED_WAIT,
    SP_SN2_V2_SCHED_NIVCSW};

static void cols_close(sp_v2_part *p)
{
    for (int i = 0; i < SP_V2_SCHED_COLS; i++)
        sp_v2_col_close(&p->sched[i]);
    sp_v2_col *cols[] = {&p->clock_ticks, &p->clock_ns, &p->thread_tid, &p->bthread,
                         &p->bevents,     &p->bbegins,  &p->bt0,        &p->dt,
                         &p->region,      &p->drop_region, &p->drop_calls};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        sp_v2_col_close(cols[i]);
    sp_v2_names_close(&p->regions);
    sp_v2_names_close(&p->threads_names);
}

static void invalidate(sp_v2_part *p)
{
    sp_v2_col *cols[] = {&p->clock_ticks, &p->clock_ns, &p->thread_tid, &p->bthread,
                         &p->bevents,     &p->bbegins,  &p->bt0,        &p->dt,
                         &p->region,      &p->drop_region, &p->drop_calls,
                         &p->regions.bytes, &p->regions.end, &p->threads_names.bytes,
                         &p->threads_names.end};
    for (size_t i = 0; i < sizeof cols / sizeof *cols; i++)
        cols[i]->dset = H5I_INVALID_HID;
    for (int i = 0; i < SP_V2_SCHED_COLS; i++)
        p->sched[i].dset = H5I_INVALID_HID;
    p->file = H5I_INVALID_HID;
}

/* /rank<N> with every table empty. */
static int create_tables(sp_v2_part *p, const sp_v2_part_setup *s)
{
    int rc = 0;
    const char *path = p->path;
    hid_t rg = H5I_INVALID_HID, g = H5I_INVALID_HID;
    char name[64];
    snprintf(name, sizeof name, "%s%d", SP_NAME(RANK_GROUP), (int)s->rank);
    H5TRY(rg = sp_v2_group(p->file, name, false), "cannot write '%s': cannot create /%s", path,
          name);
    if ((rc = sp_v2_int_attr(rg, SP_NAME(RANK_RANK), SP_ST_I32, s->rank, path)) ||
        (rc = sp_v2_int_attr(rg, SP_NAME(RANK_CLOCK_OFFSET), SP_ST_I64, s->clock_offset_ns,
                             path)) ||
        (rc = sp_v2_int_attr(rg, SP_NAME(RANK_CLOCK_OFFSET_ERR), SP_ST_I64,
                             s->clock_offset_err_ns, path)))
        goto done;
    sp_kvlist none = {0, 0, NULL};
    if ((rc = sp_v2_meta_group(rg, SP_NAME(RANK_METADATA), s->rank_meta ? s->rank_meta : &none,
                               path)))
        goto done;
    sp_v2_compress c = s->compress;
#define TABLE(id) H5TRY(g = sp_v2_group(rg, SP_NAME2(id), false), "cannot write '%s'", path)
#define ENDTABLE() (H5Gclose(g), g = H5I_INVALID_HID)
    TABLE(V2_CLOCK);
    if ((rc = sp_v2_col_create(g, SP_NAME2(V2_CLOCK_TICKS), SP_ST_I64, SP_V2_CHUNK_SMALL,
                               SP_V2_COMPRESS_NONE, path, &p->clock_ticks)) ||
        (rc = sp_v2_col_create(g, SP_NAME2(V2_CLOCK_NS), SP_ST_I64, SP_V2_CHUNK_SMALL,
                               SP_V2_COMPRESS_NONE, path, &p->clock_ns)))
        goto done;
    ENDTABLE();
    TABLE(V2_REGIONS);
    if ((rc = sp_v2_names_create(g, SP_V2_COMPRESS_NONE, path, &p->regions)))
        goto done;
    ENDTABLE();
    H5TRY(g = sp_v2_group(rg, SP_NAME(THREADS), false), "cannot write '%s'", path);
    if ((rc = sp_v2_col_create(g, SP_NAME(THREAD_OS_TID), SP_ST_I64, SP_V2_CHUNK_SMALL,
                               SP_V2_COMPRESS_NONE, path, &p->thread_tid)) ||
        (rc = sp_v2_names_create(g, SP_V2_COMPRESS_NONE, path, &p->threads_names)))
        goto done;
    ENDTABLE();
    TABLE(V2_BLOCKS);
    if ((rc = sp_v2_col_create(g, SP_NAME2(V2_BLOCK_THREAD), SP_ST_I32, SP_V2_CHUNK_BLOCKS, c,
                               path, &p->bthread)) ||
        (rc = sp_v2_col_create(g, SP_NAME2(V2_BLOCK_EVENTS), SP_ST_U32, SP_V2_CHUNK_BLOCKS, c,
                               path, &p->bevents)) ||
        (rc = sp_v2_col_create(g, SP_NAME2(V2_BLOCK_BEGINS), SP_ST_U32, SP_V2_CHUNK_BLOCKS, c,
                               path, &p->bbegins)) ||
        (rc = sp_v2_col_create(g, SP_NAME2(V2_BLOCK_T0), SP_ST_I64, SP_V2_CHUNK_BLOCKS, c, path,
                               &p->bt0)))
        goto done;
    ENDTABLE();
    TABLE(V2_EVENTS);
    if ((rc = sp_v2_col_create(g, SP_NAME2(V2_EVENT_DT), SP_ST_U32, SP_V2_CHUNK_EVENTS, c, path,
                               &p->dt)) ||
        (rc = sp_v2_col_create(g, SP_NAME2(V2_EVENT_REGION), SP_ST_I32, SP_V2_CHUNK_EVENTS, c,
                               path, &p->region)))
        goto done;
    ENDTABLE();
    H5TRY(g = sp_v2_group(rg, SP_NAME(DROPPED), false), "cannot write '%s'", path);
    if ((rc = sp_v2_col_create(g, SP_NAME(DROPPED_REGION), SP_ST_I32, SP_V2_CHUNK_SMALL,
                               SP_V2_COMPRESS_NONE, path, &p->drop_region)) ||
        (rc = sp_v2_col_create(g, SP_NAME(DROPPED_CALLS), SP_ST_U64, SP_V2_CHUNK_SMALL,
                               SP_V2_COMPRESS_NONE, path, &p->drop_calls)))
        goto done;
    ENDTABLE();
    TABLE(V2_SCHED);
    for (int i = 0; i < SP_V2_SCHED_COLS && !rc; i++)
        rc = sp_v2_col_create(g, sp__schema_v2[sched_ids[i]].name, SP_ST_I64, SP_V2_CHUNK_SMALL,
                              SP_V2_COMPRESS_NONE, path, &p->sched[i]);
    if (rc)
        goto done;
    ENDTABLE();
#undef TABLE
#undef ENDTABLE
done:
    if (g >= 0)
        H5Gclose(g);
    if (rg >= 0)
        H5Gclose(rg);
    return rc;
}

int sp_v2_part_create(const char *part_path, const sp_v2_part_setup *s, sp_v2_part **out)
{
    *out = NULL;
    sp_v2_part *p = calloc(1, sizeof *p);
    if (!p || !(p->path = strdup(part_path))) {
        free(p);
        return sp__error(SP_ENOMEM, "cannot write '%s': out of memory", part_path);
    }
    invalidate(p);
    int rc = 0;
    hid_t fapl = H5I_INVALID_HID;
    sp__h5_quiet quiet;
    sp__h5_quiet_begin(&quiet);
    /* A part left by an earlier, killed run of the same file goes; unlink
     * removes a link itself, never its target. */
    if (unlink(part_path) != 0 && errno != ENOENT) {
        rc = sp__error(SP_EIO, "cannot write '%s': cannot remove the old '%s': %s", part_path,
                       part_path, strerror(errno));
        goto done;
    }
    if ((rc = sp_v2_fapl(true, part_path, &fapl)) ||
        (rc = sp_v2_file_create(part_path, fapl, part_path, &p->file)))
        goto done;
    if ((rc = sp_v2_int_attr(p->file, SP_NAME(ROOT_SCHEMA), SP_ST_I32, 2, part_path)) ||
        (rc = create_tables(p, s)))
        goto done;
    if ((rc = sp_v2_col_append(&p->clock_ticks, &s->p0_ticks, 1, part_path)) ||
        (rc = sp_v2_col_append(&p->clock_ns, &s->p0_ns, 1, part_path)))
        goto done;
    H5TRY(H5Fstart_swmr_write(p->file), "cannot write '%s': cannot start SWMR writing",
          part_path);
done:
    if (fapl >= 0)
        H5Pclose(fapl);
    sp__h5_quiet_end(&quiet);
    if (rc) {
        sp_v2_file_abandon(p->file); /* a full disk: nothing more to write */
        cols_close(p);
        if (p->file >= 0)
            H5Fclose(p->file);
        unlink(part_path);
        free(p->path);
        free(p);
        return rc;
    }
    *out = p;
    return 0;
}

int sp_v2_part_append(sp_v2_part *p, const sp_v2_batch_rows *rows, const sp_v2_events *ev)
{
    int rc = 0;
    const char *path = p->path;
    sp__h5_quiet quiet;
    sp__h5_quiet_begin(&quiet);
    if (rows && rows->nregions &&
        (rc = sp_v2_names_append(&p->regions, rows->region_names, rows->nregions, path)))
        goto done;
    if (rows && rows->nthreads &&
        ((rc = sp_v2_col_append(&p->thread_tid, rows->thread_tids, rows->nthreads, path)) ||
         (rc = sp_v2_names_append(&p->threads_names, rows->thread_names, rows->nthreads,
                                  path))))
        goto done;
    if (rows && rows->ndropped &&
        ((rc = sp_v2_col_append(&p->drop_region, rows->dropped_region, rows->ndropped,
                                path)) ||
         (rc = sp_v2_col_append(&p->drop_calls, rows->dropped_calls, rows->ndropped, path))))
        goto done;
    /* Events before the blocks that announce them: a reader that sees a
     * block always finds its events. */
    if (ev && ev->n &&
        ((rc = sp_v2_col_append(&p->dt, ev->dt, ev->n, path)) ||
         (rc = sp_v2_col_append(&p->region, ev->region, ev->n, path))))
        goto done;
    if (ev && ev->nblocks &&
        ((rc = sp_v2_col_append(&p->bthread, ev->bthread, ev->nblocks, path)) ||
         (rc = sp_v2_col_append(&p->bevents, ev->bevents, ev->nblocks, path)) ||
         (rc = sp_v2_col_append(&p->bbegins, ev->bbegins, ev->nblocks, path)) ||
         (rc = sp_v2_col_append(&p->bt0, ev->bt0, ev->nblocks, path))))
        goto done;
done:
    sp__h5_quiet_end(&quiet);
    return rc;
}

int sp_v2_part_append_sched(sp_v2_part *p, const sp_v2_sched_rows *rows)
{
    if (!rows || !rows->n)
        return 0;
    const int64_t *cols[SP_V2_SCHED_COLS] = {rows->tid, rows->t_ns, rows->cpu_ns, rows->wait_ns,
                                             rows->nivcsw};
    int rc = 0;
    sp__h5_quiet quiet;
    sp__h5_quiet_begin(&quiet);
    for (int i = 0; i < SP_V2_SCHED_COLS && !rc; i++)
        rc = sp_v2_col_append(&p->sched[i], cols[i], rows->n, p->path);
    sp__h5_quiet_end(&quiet);
    return rc;
}

int sp_v2_part_flush(sp_v2_part *p, int64_t ticks, int64_t ns)
{
    int rc = 0;
    sp__h5_quiet quiet;
    sp__h5_quiet_begin(&quiet);
    if ((rc = sp_v2_col_append(&p->clock_ticks, &ticks, 1, p->path)) ||
        (rc = sp_v2_col_append(&p->clock_ns, &ns, 1, p->path)))
        goto done;
    H5TRY(H5Fflush(p->file, H5F_SCOPE_LOCAL), "cannot write '%s': flushing", p->path);
done:
    sp__h5_quiet_end(&quiet);
    return rc;
}

uint64_t sp_v2_part_events(const sp_v2_part *p) { return p ? p->dt.n : 0; }

int sp_v2_part_close(sp_v2_part *p)
{
    if (!p)
        return 0;
    int rc = 0;
    sp__h5_quiet quiet;
    sp__h5_quiet_begin(&quiet);
    /* Flush first: after a write error (a full disk) the file is abandoned
     * before its datasets' closes try to write again (sp_h5_v2_io.h). */
    rc = sp_v2_file_flush(p->file, p->path, NULL);
    cols_close(p);
    if (p->file >= 0 && H5Fclose(p->file) < 0 && rc == 0)
        rc = sp__h5_error(SP_EIO, "cannot write '%s': closing it", p->path);
    sp__h5_quiet_end(&quiet);
    free(p->path);
    free(p);
    return rc;
}
