/* SPDX-License-Identifier: MIT */
/*
 * A run read in shares (sp_agg_opts.part/nparts, what the MPI processes of
 * `mpirun -n N scope-profiler summary` each read) and merged
 * (sp_agg_merge_ranks, after a trip over the wire as MPI sends them) is the
 * run read whole: the merged aggregates encode to the same bytes as the
 * whole pass's (every region's figures and histograms, trees, cells,
 * lanes, spans, level-of-detail indexes, duration series, and the
 * comparisons' segments per region and per path), and the
 * attached run has the same tree. For 1 to 9 shares of a v2 file of 7
 * ranks of very different sizes (one without calls; 9 shares leave some
 * empty), with and without a rank selection. Each selected rank is read by
 * exactly one share, shares are consecutive ranks, and a rank read twice
 * does not merge.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "run_builder.h"
#include "sp_agg.h"
#include "sp_h5.h"
#include "sp_h5_v2.h"
#include "sp_run_read.h"
#include "sp_test.h"

#define NRANKS 7

/* main > step x n > (work > leaf x 3, rec > rec > leaf) on two threads,
 * n growing steeply with the rank; rank 4 records nothing. */
static sp_run *make_run(void)
{
    size_t cap = 1 << 16, n = 0;
    tb_call *c = calloc(cap, sizeof *c);
    for (int r = 0; r < NRANKS; r++) {
        if (r == 4)
            continue;
        int steps = 2 + r * r * 6;
        for (int th = 0; th < 2; th++) {
            int64_t t = 1000 + 17 * r + th;
            int64_t m0 = t;
            size_t main_at = n++;
            for (int s = 0; s < steps; s++) {
                int64_t s0 = t += 5;
                size_t step_at = n++;
                int64_t w0 = t += 2;
                size_t work_at = n++;
                for (int k = 0; k < 3; k++) {
                    c[n++] = (tb_call){r, th, "leaf", t + 1, t + 4 + (s * 7 + k) % 50};
                    t += 60;
                }
                c[work_at] = (tb_call){r, th, "work", w0, t += 3};
                int64_t r0 = t += 2;
                c[n++] = (tb_call){r, th, "rec", r0, r0 + 40 + s % 9};
                c[n++] = (tb_call){r, th, "rec", r0 + 5, r0 + 30};
                c[n++] = (tb_call){r, th, "leaf", r0 + 10, r0 + 20 + s % 5};
                t = r0 + 50 + s % 9;
                c[step_at] = (tb_call){r, th, "step", s0, t += 4};
            }
            c[main_at] = (tb_call){r, th, "main", m0, t += 10};
        }
    }
    sp_run *run = tb_build(c, n, NRANKS, 2);
    free(c);
    return run;
}

static uint8_t *encode(const sp_agg *a, size_t *len)
{
    uint8_t *b = NULL;
    return sp_agg_encode(a, &b, len) == 0 ? b : NULL;
}

/* The tree as text: (region, parent, calls) of every node. */
static void tree_text(const sp_run *run, char *out, size_t size)
{
    size_t k = 0;
    for (size_t i = 0; i < run->tree.nnodes && k < size; i++) {
        const sp_tree_node *nd = &run->tree.nodes[i];
        k += (size_t)snprintf(out + k, size - k, "%d/%d/%llu/%d;", nd->region, nd->parent,
                              (unsigned long long)nd->calls, nd->first_child);
    }
}

/* The pass kept segments (SP_AGG_SEGMENTS) worth comparing: some region
 * and some path of a rank has time in more than one segment. */
static bool segments_spread(const sp_agg *a)
{
    bool region = false, path = false;
    for (size_t r = 0; r < a->nranks; r++) {
        const sp_agg_rank *o = &a->ranks[r];
        for (size_t i = 0; i < o->nregions; i++) {
            int k = 0;
            for (int s = 0; s < SP_AGG_NSEGS; s++)
                k += o->regions[i].segs.time_ns[0][s] > 0;
            region |= k > 1;
        }
        for (size_t i = 0; i < o->nnode_hists; i++) {
            int k = 0;
            for (int s = 0; s < SP_AGG_NSEGS; s++)
                k += o->node_hists[i].segs.time_ns[1][s] > 0;
            path |= k > 1;
        }
    }
    return region && path;
}

static void check_shares(const char *path, const bool *sel, unsigned nparts)
{
    unsigned flags =
        SP_AGG_SERIES | SP_AGG_LANES | SP_AGG_LOD | SP_AGG_NODE_HIST | SP_AGG_SEGMENTS;
    int st;
    sp_event_source *whole_src = sp_run_source_open(path, &st);
    ASSERT_MSG(whole_src, "%s", sp_last_error());
    sp_agg_opts o = {.flags = flags, .ranks = sel, .series_bins = 64, .threads = 2};
    ASSERT(sp_run_aggregate(whole_src, &o) == 0);
    size_t wlen;
    uint8_t *want = encode(whole_src->run->agg, &wlen);
    ASSERT(want);
    ASSERT(segments_spread(whole_src->run->agg));

    /* Share 0 in this process's run, the others over the wire, as rank 0
     * of the MPI helper does. */
    sp_event_source *src = sp_run_source_open(path, &st);
    ASSERT(src);
    o.part = 0;
    o.nparts = nparts;
    ASSERT(sp_run_aggregate(src, &o) == 0);
    int owner[NRANKS];
    for (size_t r = 0; r < NRANKS; r++)
        owner[r] = src->run->agg->ranks[r].read ? 0 : -1;
    for (unsigned p = 1; p < nparts; p++) {
        sp_event_source *ps = sp_run_source_open(path, &st);
        ASSERT(ps);
        o.part = p;
        sp_agg *a = NULL;
        ASSERT(sp_agg_run(ps, &o, &a) == 0);
        for (size_t r = 0; r < NRANKS; r++) {
            if (!a->ranks[r].read)
                continue;
            ASSERT_MSG(owner[r] < 0, "rank %zu in shares %d and %u", r, owner[r], p);
            owner[r] = (int)p;
        }
        size_t len;
        uint8_t *b = encode(a, &len);
        ASSERT(b);
        sp_agg_free(a);
        ASSERT(sp_agg_decode(b, len, src->run, &a) == 0);
        free(b);
        ASSERT_MSG(sp_agg_merge_ranks(src->run->agg, a) == 0, "%s", sp_last_error());
        sp_agg_free(a);
        sp_event_source_free(ps);
    }
    int last = 0;
    for (size_t r = 0; r < NRANKS; r++) {
        bool selected = !sel || sel[r];
        ASSERT_MSG(selected == (owner[r] >= 0), "rank %zu: share %d", r, owner[r]);
        if (owner[r] >= 0) {
            ASSERT_MSG(owner[r] >= last, "rank %zu (share %d) after share %d", r, owner[r], last);
            last = owner[r];
        }
    }
    ASSERT(sp_run_attach_read(src->run, src->run->agg) == 0);
    size_t glen;
    uint8_t *got = encode(src->run->agg, &glen);
    ASSERT(got);
    ASSERT_MSG(glen == wlen && memcmp(got, want, wlen) == 0,
               "%u shares: merged aggregates differ from the whole (%zu and %zu bytes)", nparts,
               glen, wlen);
    static char ta[1 << 16], tb[1 << 16];
    tree_text(whole_src->run, ta, sizeof ta);
    tree_text(src->run, tb, sizeof tb);
    ASSERT_MSG(strcmp(ta, tb) == 0, "%u shares: trees differ", nparts);
    for (size_t g = 0; g < src->run->nregions; g++) {
        ASSERT(src->run->regions[g].all.calls == whole_src->run->regions[g].all.calls);
        ASSERT(src->run->regions[g].all.std_s == whole_src->run->regions[g].all.std_s);
        ASSERT(src->run->regions[g].all.p95_s == whole_src->run->regions[g].all.p95_s);
    }

    /* A rank read twice: refused, nothing moved. */
    if (nparts == 1) {
        sp_agg *again = NULL;
        ASSERT(sp_agg_decode(want, wlen, src->run, &again) == 0);
        ASSERT(sp_agg_merge_ranks(src->run->agg, again) == SP_EINVAL);
        sp_agg_free(again);
    }
    free(got);
    free(want);
    sp_event_source_free(src);
    sp_event_source_free(whole_src);
}

static void test_shares_merge_to_whole(void)
{
    sp_run *run = make_run();
    ASSERT(run);
    char path[] = "/tmp/sp_test_agg_shares_XXXXXX.h5";
    int fd = mkstemps(path, 3);
    ASSERT(fd >= 0);
    close(fd);
    ASSERT_MSG(sp_h5_write_v2(run, path) == 0, "%s", sp_last_error());
    sp_run_free(run);
    bool sel[NRANKS] = {false, true, true, false, true, true, true};
    for (unsigned n = 1; n <= 9 && !sp_test_current_failed; n++) {
        check_shares(path, NULL, n);
        if (!sp_test_current_failed)
            check_shares(path, sel, n);
    }
    /* A share past the last is an error, not an empty read. */
    int st;
    sp_event_source *src = sp_run_source_open(path, &st);
    ASSERT(src);
    sp_agg *a = NULL;
    sp_agg_opts bad = {.part = 3, .nparts = 3};
    ASSERT(sp_agg_run(src, &bad, &a) == SP_EINVAL && !a);
    sp_event_source_free(src);
    unlink(path);
}

int main(void)
{
    RUN(test_shares_merge_to_whole);
    return sp_test_summary();
}
