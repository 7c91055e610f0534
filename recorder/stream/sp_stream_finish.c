/* SPDX-License-Identifier: MIT */
/*
 * sp_stream_finish.c - the end of a streaming session, after the writer
 * stopped: the session as a run without calls (the "skeleton" the modes add
 * their tables to), the calls it holds in memory, and the finished file
 * built from the streamed part.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_stream_consume.h"

int sp__stream_skeleton(sp_run **out)
{
    *out = NULL;
    sp_run *run = sp_run_new();
    if (!run || sp_run_set_ranks(run, 1) != 0)
        goto oom;
    sp__consumer *c = &sp__cons;
    run->region_names = calloc(c->nrows ? c->nrows : 1, sizeof *run->region_names);
    if (!run->region_names)
        goto oom;
    for (uint32_t i = 0; i < c->nrows; i++) {
        if (!(run->region_names[i] = strdup(c->row_name[i])))
            goto oom;
        run->nregions++;
    }
    sp_rank_data *rk = &run->ranks[0];
    rk->threads = calloc(c->nthreads ? c->nthreads : 1, sizeof *rk->threads);
    rk->dropped = calloc(c->nrows ? c->nrows : 1, sizeof *rk->dropped);
    if (!rk->threads || !rk->dropped)
        goto oom;
    for (uint32_t t = 0; t < c->nthreads; t++) {
        const sp__tstate *ts = c->thread_row[t];
        rk->threads[t].os_tid = ts->os_tid;
        if (ts->name[0] && !(rk->threads[t].name = strdup(ts->name)))
            goto oom;
        rk->nthreads++;
    }
    for (uint32_t i = 0; i < c->nrows; i++)
        rk->dropped[i] = c->row_dropped[i];
    *out = run;
    return 0;
oom:
    sp_run_free(run);
    return sp__error(SP_ENOMEM, "sp_finalize: out of memory gathering the session");
}

int sp__stream_clock_map(const sp__clock_calib *calib, sp_v2_clock_map *m)
{
    int64_t ticks[2] = {calib->p0.ticks, calib->p1.ticks};
    int64_t ns[2] = {calib->p0.ns, calib->p1.ns};
    if (sp_v2_clock_map_make(ticks, ns, 2, m) != 0) {
        m->t0 = calib->p0.ticks; /* no usable second point: 1 tick per ns */
        m->ns0 = calib->p0.ns;
        m->ratio = 1.0;
    }
    return 0;
}

int sp__stream_move_calls(sp_run *skel, const sp_v2_clock_map *m, sp_v2_events *into)
{
    sp_rank_data *rk = &skel->ranks[0];
    if (rk->ncalls == 0)
        return 0;
    sp_v2_events_close_block(into);
    int rc = sp_v2_events_from_calls(rk, 0, m, into);
    sp_v2_events_close_block(into);
    if (rc)
        return rc;
    sp_rank_free_calls(rk);
    return 0;
}

int sp__stream_replay_into(sp_run *skel, const sp_v2_clock_map *m, const sp_v2_events *ev)
{
    sp_rank_data *rk = &skel->ranks[0];
    int32_t *map = malloc((skel->nregions ? skel->nregions : 1) * sizeof *map);
    if (!map)
        return sp__error(SP_ENOMEM, "sp_finalize: out of memory");
    for (size_t i = 0; i < skel->nregions; i++)
        map[i] = (int32_t)i;
    int rc = sp_v2_replay_all("sp_finalize", rk, rk->nthreads, map, skel->nregions, m, ev, NULL);
    free(map);
    return rc;
}

int sp__stream_write_file(const sp_run *skel, const char *path, const char *part_path,
                          const sp_v2_events *extra, const sp__clock_calib *calib)
{
    sp_v2_remove_stale_tmps(path); /* left by an earlier run killed here */
    char *tmp = sp_v2_tmp_name(path);
    if (!tmp)
        return sp__error(SP_ENOMEM, "cannot write '%s': out of memory", path);
    int64_t ticks[2] = {calib->p0.ticks, calib->p1.ticks};
    int64_t ns[2] = {calib->p0.ns, calib->p1.ns};
    sp_v2_rank_source src = {.run = skel, .r = 0, .part_path = part_path, .extra = extra,
                             .clock_ticks = ticks, .clock_ns = ns, .nclock = 2,
                             .compress = sp__stream_compress()};
    int rc = sp_v2_final_root(tmp, path, 1, &skel->meta);
    if (rc == 0 && (rc = sp_v2_final_rank(tmp, path, &src)) != 0)
        unlink(tmp);
    if (rc == 0)
        rc = sp_v2_final_publish(tmp, path);
    if (rc == 0 && part_path)
        unlink(part_path); /* its events are in the finished file now */
    free(tmp);
    return rc;
}
