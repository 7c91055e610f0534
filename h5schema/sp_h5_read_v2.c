/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_read_v2.c - read a schema v2 file: the root, /metadata, and every
 * rank group, whether it is a group of a finished file or an external link
 * into the part of a run that is being recorded (or was killed): followed
 * only to the rank's own part (sp_h5_read_v2_link.c). Parts are opened for
 * SWMR reading, which HDF5 allows both while their writer runs and after it
 * died; a part that is missing leaves its rank empty and is named in the
 * metadata key `incomplete_ranks`.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_h5_read_v2.h"

static int read_num_ranks(const char *file, hid_t fid, size_t *out)
{
    int64_t n;
    int rc = sp__h5_read_int_attr(file, fid, SP_NAME(ROOT_NUM_RANKS), &n);
    if (rc)
        return rc;
    H5G_info_t info;
    if (H5Gget_info(fid, &info) < 0)
        return sp__h5_error(SP_EFORMAT, "%s: cannot list /", file);
    if (n < 0 || (uint64_t)n > info.nlinks)
        return sp__error(SP_EFORMAT, "%s: %s is %" PRId64 " but / holds only %llu objects", file,
                         SP_NAME(ROOT_NUM_RANKS), n, (unsigned long long)info.nlinks);
    *out = (size_t)n;
    return 0;
}

static bool read_complete(hid_t fid)
{
    if (H5Aexists(fid, SP_NAME2(V2_ROOT_COMPLETE)) <= 0) {
        H5Eclear2(H5E_DEFAULT);
        return true;
    }
    int64_t v = 1;
    sp__h5_read_int_attr("", fid, SP_NAME2(V2_ROOT_COMPLETE), &v);
    H5Eclear2(H5E_DEFAULT);
    return v != 0;
}

/* Every rank's dropped column sized for the final region table (ranks
 * read later may have added regions). */
static int size_dropped(sp_run *run, const size_t *len)
{
    for (size_t r = 0; r < run->nranks; r++) {
        sp_rank_data *rk = &run->ranks[r];
        if (!rk->dropped || len[r] >= run->nregions)
            continue;
        uint64_t *d = realloc(rk->dropped, run->nregions * sizeof *d);
        if (!d)
            return SP_ENOMEM;
        memset(d + len[r], 0, (run->nregions - len[r]) * sizeof *d);
        rk->dropped = d;
    }
    return 0;
}

/* Metadata a reader adds for a run that did not finish. */
static int note_state(sp_v2_read *st)
{
    char v[512];
    if (st->complete)
        return 0;
    sp_h5_file_state_text(st->open_calls, st->torn_blocks, v, sizeof v);
    if (sp_kvlist_set(&st->run->meta, "file_state", v) != 0)
        return SP_ENOMEM;
    if (st->missing[0] && sp_kvlist_set(&st->run->meta, "incomplete_ranks", st->missing) != 0)
        return SP_ENOMEM;
    return 0;
}

void sp_h5_file_state_text(uint64_t open_calls, uint64_t torn_blocks, char *buf, size_t len)
{
    snprintf(buf, len,
             "recording in progress or ended without finalize (killed); %" PRIu64
             " call(s) still open were cut at their thread's last event",
             open_calls);
    if (torn_blocks) {
        size_t l = strlen(buf);
        snprintf(buf + l, len - l,
                 "; the last write failed (a full disk?): %" PRIu64 " block(s) of events "
                 "after it were damaged and left out",
                 torn_blocks);
    }
}

int sp_v2_read_begin(sp_v2_read *st, const char *file, hid_t fid, sp_run *run)
{
    memset(st, 0, sizeof *st);
    st->file = file;
    st->run = run;
    st->complete = read_complete(fid);
    size_t nranks = 0;
    hid_t meta = H5I_INVALID_HID;
    int rc = read_num_ranks(file, fid, &nranks);
    if (rc)
        return rc;
    if ((rc = sp__h5_open_group(file, fid, SP_NAME(METADATA), &meta)) ||
        (rc = sp__h5_read_meta(file, meta, &run->meta)))
        goto done;
    if (sp_run_set_ranks(run, nranks) != 0 ||
        !(st->dropped_len = calloc(nranks ? nranks : 1, sizeof *st->dropped_len)))
        rc = sp__error(SP_ENOMEM, "%s: out of memory", file);
done:
    if (meta >= 0)
        H5Gclose(meta);
    return rc;
}

void sp_v2_note_missing(sp_v2_read *st, size_t r)
{
    size_t len = strlen(st->missing);
    snprintf(st->missing + len, sizeof st->missing - len, "%s%zu", len ? ", " : "", r);
}

int sp_v2_read_end(sp_v2_read *st)
{
    if (size_dropped(st->run, st->dropped_len) || note_state(st))
        return sp__error(SP_ENOMEM, "%s: out of memory", st->file);
    return 0;
}

void sp_v2_read_free(sp_v2_read *st)
{
    free(st->dropped_len);
    st->dropped_len = NULL;
}

int sp__h5_read_v2(const char *file, hid_t fid, sp_run *run)
{
    sp_v2_read st;
    int rc = sp_v2_read_begin(&st, file, fid, run);
    for (size_t r = 0; rc == 0 && r < run->nranks; r++) {
        sp_v2_rank_loc loc;
        bool missing;
        if ((rc = sp_v2_open_rank(&st, fid, r, &loc, &missing)))
            break;
        if (missing) {
            sp_v2_note_missing(&st, r);
            continue;
        }
        rc = sp_v2_read_rank(&st, loc.group, r);
        sp_v2_close_rank(&loc);
    }
    if (rc == 0)
        rc = sp_v2_read_end(&st);
    sp_v2_read_free(&st);
    return rc;
}
