/* SPDX-License-Identifier: MIT */
/*
 * sp_calltree.c - each call's depth and tree node, for runs that hold their
 * calls in memory (built by the recorder or by hand; the tree itself comes
 * from the aggregate pass, sp_agg_merge.c).
 *
 * A node is a call path: the sequence of region ids from the top level down
 * to the call. One pass over the calls (in model order a parent precedes
 * its children) finds each call's node as the child of its parent's node
 * with the call's region, through a hash map (parent node, region) -> node
 * of the run's tree: O(1) per call, no allocation per call.
 */
#include "sp_analysis.h"
#include "sp_analysis_internal.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_mem.h"
#include "sp_u64map.h"

static void free_calls_nodes(sp_run *run)
{
    for (size_t r = 0; r < run->nranks; r++) {
        free(run->ranks[r].depth);
        free(run->ranks[r].tree_node);
        run->ranks[r].depth = NULL;
        run->ranks[r].tree_node = NULL;
    }
}

static int walk_rank(const sp_u64map *map, sp_rank_data *rk)
{
    size_t n = rk->ncalls;
    free(rk->depth);
    free(rk->tree_node);
    rk->depth = sp_alloc_big(n * sizeof *rk->depth);
    rk->tree_node = sp_alloc_big(n * sizeof *rk->tree_node);
    if (!rk->depth || !rk->tree_node)
        return SP_ENOMEM;
    /* Consecutive calls often share (parent node, region), e.g. a loop
     * body: remember the last lookup to skip the hash. */
    int32_t last_parent = -1, last_region = -1, last_node = -1;
    for (size_t i = 0; i < n; i++) {
        int64_t p = sp__valid_parent(rk, i);
        int32_t pnode = p >= 0 ? rk->tree_node[p] : 0;
        int32_t node;
        if (pnode == last_parent && rk->region[i] == last_region) {
            node = last_node;
        } else {
            node = sp_u64map_get(map, sp_u64map_key(pnode, rk->region[i]));
            last_parent = pnode;
            last_region = rk->region[i];
            last_node = node;
        }
        /* Every path is in the tree: the pass saw these calls. A node
         * missing (calls changed after the analysis) becomes the root. */
        rk->depth[i] = p >= 0 ? rk->depth[p] + 1 : 0;
        rk->tree_node[i] = node >= 0 ? node : 0;
    }
    return 0;
}

int sp__calls_tree_nodes(sp_run *run)
{
    sp_u64map map;
    size_t cap = 64;
    while (cap < 2 * run->tree.nnodes + 2)
        cap *= 2;
    if (sp_u64map_init(&map, cap))
        return sp__error(SP_ENOMEM, "out of memory building the call tree");
    int rc = 0;
    for (size_t i = 1; i < run->tree.nnodes && rc == 0; i++)
        rc = sp_u64map_put(&map, sp_u64map_key(run->tree.nodes[i].parent,
                                                run->tree.nodes[i].region),
                           (int32_t)i);
    for (size_t r = 0; rc == 0 && r < run->nranks; r++)
        if (run->ranks[r].ncalls)
            rc = walk_rank(&map, &run->ranks[r]);
    sp_u64map_free(&map);
    if (rc) {
        free_calls_nodes(run);
        return sp__error(SP_ENOMEM, "out of memory building the call tree");
    }
    return 0;
}
