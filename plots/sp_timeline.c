/* SPDX-License-Identifier: MIT */
/* sp_timeline.c - the timeline's lanes: from a run's aggregates (their
 * per-thread lanes and level-of-detail indexes), or, for a run that has its
 * calls and no aggregates, from a pass over them in memory. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_source_mem.h"
#include "sp_timeline_private.h"

static size_t count_lanes(const sp_agg *a)
{
    size_t n = 0;
    for (size_t r = 0; r < a->nranks; r++)
        n += a->ranks[r].nlanes;
    return n;
}

/* One lane per aggregate lane, in rank then thread order (as the pass keeps
 * them). */
static int lanes_from(sp_timeline *tl, const sp_agg *a)
{
    size_t n = count_lanes(a);
    if (n == 0 || !a->has_span)
        return 0;
    tl->lanes = calloc(n, sizeof *tl->lanes);
    if (!tl->lanes)
        return SP_ENOMEM;
    tl->origin = a->first_ns;
    tl->duration = a->last_ns > a->first_ns ? a->last_ns - a->first_ns : 0;
    for (size_t r = 0; r < a->nranks; r++) {
        const sp_agg_rank *rk = &a->ranks[r];
        for (size_t k = 0; k < rk->nlanes; k++) {
            const sp_agg_lane *al = &rk->lanes[k];
            if (!al->calls || !al->has_span)
                continue;
            sp__tl_lane *ln = &tl->lanes[tl->nlanes++];
            ln->rank = (int32_t)r;
            ln->thread = al->thread;
            ln->depths = al->max_depth > 0 && al->max_depth < (uint32_t)INT32_MAX
                             ? (int32_t)al->max_depth
                             : 1;
            ln->ncalls = al->calls;
            ln->first = al->first_ns - tl->origin;
            ln->last = al->last_ns - tl->origin;
            ln->lod = al->lod;
            ln->depth_before = tl->total_depths;
            tl->total_depths += (size_t)ln->depths;
        }
    }
    return 0;
}

/* A run with calls and no aggregates: the pass in memory over a copy of its
 * header, and every lane a window of all its calls. */
static int lanes_from_calls(sp_timeline *tl)
{
    sp_run *hdr = sp_run_copy_header(tl->run);
    if (!hdr)
        return SP_ENOMEM;
    sp_event_source *src = sp_source_mem_new(tl->run, hdr);
    if (!src) {
        sp_run_free(hdr);
        return SP_ENOMEM;
    }
    sp_agg_opts o = {.flags = SP_AGG_LANES, .threads = 1};
    int rc = sp_agg_run(src, &o, &tl->own_agg);
    if (rc == 0) {
        tl->agg = tl->own_agg;
        rc = lanes_from(tl, tl->agg);
    }
    /* One block index for every lane: without it each window would index
     * its rank's whole block table again (2^18 threads: 2^18 x 2^18). */
    sp_block_index *ix = NULL;
    if (rc == 0 && tl->nlanes && !(ix = sp_block_index_new(src)))
        rc = SP_ENOMEM;
    for (size_t l = 0; rc == 0 && l < tl->nlanes; l++) {
        sp__tl_lane *ln = &tl->lanes[l];
        sp_window *w = NULL;
        rc = sp_window_load_ix(src, ix, tl->agg, (size_t)ln->rank, ln->thread,
                               ln->first + tl->origin, ln->last + tl->origin, 0, &w);
        if (rc == 0 && !(ln->calls = sp_timeline_calls_new(tl, w)))
            rc = SP_ENOMEM;
    }
    sp_block_index_free(ix);
    sp_event_source_free(src);
    return rc;
}

static bool has_calls(const sp_run *run)
{
    for (size_t r = 0; r < run->nranks; r++)
        if (run->ranks[r].ncalls)
            return true;
    return false;
}

sp_timeline *sp_timeline_new(const sp_run *run)
{
    if (!run)
        return sp__error_null(SP_EINVAL, "sp_timeline_new: no run");
    sp_timeline *tl = calloc(1, sizeof *tl);
    if (!tl)
        return sp__error_null(SP_ENOMEM, "out of memory preparing the timeline");
    tl->run = run;
    /* The run's own colour map is built at the first draw without one
     * (sp_timeline_draw.c): callers that pass theirs (the viewer, report,
     * plot) never pay for it (a sort of 10^6 names). */
    int rc = 0;
    if (run->agg && (run->agg->flags & SP_AGG_LANES)) {
        tl->agg = run->agg;
        rc = lanes_from(tl, tl->agg);
    } else if (has_calls(run)) {
        rc = lanes_from_calls(tl);
    }
    /* else: zero lanes, the empty state */
    if (rc) {
        sp_timeline_free(tl);
        if (rc == SP_ENOMEM)
            return sp__error_null(SP_ENOMEM, "out of memory preparing the timeline");
        return NULL; /* message already set */
    }
    return tl;
}

void sp_timeline_free(sp_timeline *tl)
{
    if (!tl)
        return;
    for (size_t l = 0; l < tl->nlanes; l++)
        sp_timeline_calls_free(tl->lanes[l].calls);
    for (int k = 0; k < SP__TL_NSLOTS; k++)
        free(tl->slots[k].v);
    free(tl->labels);
    free(tl->column);
    if (tl->ov_image)
        cairo_surface_destroy(tl->ov_image);
    free(tl->lanes);
    sp_agg_free(tl->own_agg);
    sp_color_map_free(tl->colors);
    free(tl->slot_of);
    free(tl->shown);
    free(tl);
}

const sp_run *sp_timeline_run(const sp_timeline *tl)
{
    return tl ? tl->run : NULL;
}

const sp_agg *sp_timeline_agg(const sp_timeline *tl)
{
    return tl ? tl->agg : NULL;
}

int64_t sp_timeline_duration_ns(const sp_timeline *tl)
{
    return tl ? tl->duration : 0;
}

int64_t sp_timeline_origin_ns(const sp_timeline *tl)
{
    return tl ? tl->origin : 0;
}

size_t sp_timeline_lane_count(const sp_timeline *tl)
{
    return tl ? tl->nlanes : 0;
}

int sp_timeline_lane_info_get(const sp_timeline *tl, size_t lane, sp_timeline_lane_info *out)
{
    if (!tl || !out || lane >= tl->nlanes)
        return sp__error(SP_EINVAL, "no timeline lane %zu", lane);
    const sp__tl_lane *ln = &tl->lanes[lane];
    const sp_rank_data *rk = &tl->run->ranks[ln->rank];
    out->rank = ln->rank;
    out->thread = ln->thread;
    out->thread_name = ln->thread >= 0 && (size_t)ln->thread < rk->nthreads
                           ? rk->threads[ln->thread].name
                           : NULL;
    out->depths = ln->depths;
    out->ncalls = ln->ncalls;
    out->first_ns = ln->first;
    out->last_ns = ln->last;
    out->has_index = ln->lod != NULL;
    out->index_bin_ns = ln->lod && ln->lod->nlevels ? ln->lod->levels[0].bin_ns : 0;
    return 0;
}

int64_t sp_timeline_find_lane(const sp_timeline *tl, int32_t rank, int32_t thread)
{
    if (!tl)
        return -1;
    size_t lo = 0, hi = tl->nlanes;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        const sp__tl_lane *ln = &tl->lanes[mid];
        if (ln->rank < rank || (ln->rank == rank && ln->thread < thread))
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < tl->nlanes && tl->lanes[lo].rank == rank && tl->lanes[lo].thread == thread)
        return (int64_t)lo;
    return -1;
}

int sp_timeline_set_calls(sp_timeline *tl, size_t lane, sp_timeline_calls *c)
{
    if (!tl || lane >= tl->nlanes || (c && c->lane != lane) || (c && c->origin != tl->origin)) {
        sp_timeline_calls_free(c);
        return sp__error(SP_EINVAL, "sp_timeline_set_calls: the calls of another lane");
    }
    sp_timeline_calls_free(tl->lanes[lane].calls);
    tl->lanes[lane].calls = c;
    return 0;
}

const sp_window *sp_timeline_lane_window(const sp_timeline *tl, size_t lane)
{
    if (!tl || lane >= tl->nlanes || !tl->lanes[lane].calls)
        return NULL;
    return tl->lanes[lane].calls->w;
}

bool sp_timeline_lane_covered(const sp_timeline *tl, size_t lane, int64_t t0_ns, int64_t t1_ns)
{
    if (!tl || lane >= tl->nlanes)
        return false;
    const sp__tl_lane *ln = &tl->lanes[lane];
    return sp__tl_calls_cover(ln->calls, ln->first, ln->last, t0_ns, t1_ns);
}

void sp_timeline_view_init(sp_timeline_view *view, const sp_timeline *tl)
{
    if (!view)
        return;
    memset(view, 0, sizeof *view);
    view->t0_ns = 0;
    view->t1_ns = tl ? tl->duration : 0;
    view->lanes = SP_TIMELINE_LANES_AUTO;
    view->highlight_region = -1;
    view->selected = (sp_timeline_call_ref){-1, -1, -1, 0, 0};
    view->show_lane_labels = true;
    view->show_axis = true;
    view->show_legend = true;
    view->note_hidden_lanes = true;
}

sp__tl_source sp__tl_lane_source(const sp__tl_lane *ln, double t0, double t1)
{
    if (ln->calls && sp__tl_calls_cover(ln->calls, ln->first, ln->last, (int64_t)floor(t0),
                                        (int64_t)ceil(t1)))
        return SP__TL_FROM_WINDOW;
    if (ln->lod)
        return SP__TL_FROM_INDEX;
    if (ln->calls)
        return SP__TL_FROM_PART;
    return SP__TL_FROM_NONE;
}
