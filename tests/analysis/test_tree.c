/* SPDX-License-Identifier: MIT */
/* The merged call tree: shape, order, times, merging, per-call depth/node. */
#include "run_builder.h"
#include "sp_error.h"
#include "sp_test.h"

#define TOL 1e-12

static const char *node_name(const sp_run *run, int32_t node)
{
    int32_t r = run->tree.nodes[node].region;
    return r < 0 ? "(root)" : run->region_names[r];
}

/* The child of node called name, or -1. */
static int32_t child(const sp_run *run, int32_t node, const char *name)
{
    for (int32_t c = run->tree.nodes[node].first_child; c >= 0; c = run->tree.nodes[c].next_sibling)
        if (strcmp(node_name(run, c), name) == 0)
            return c;
    return -1;
}

static int nchildren(const sp_run *run, int32_t node)
{
    int n = 0;
    for (int32_t c = run->tree.nodes[node].first_child; c >= 0; c = run->tree.nodes[c].next_sibling)
        n++;
    return n;
}

static void test_mock_solver_shape(void)
{
    sp_run *run = tb_mock_solver(1000);
    ASSERT(run);
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    const sp_tree_node *nd = run->tree.nodes;
    /* root -> main (+ 1 setup + 4 refine levels + solve, assemble, apply) */
    ASSERT_EQ_U(run->tree.nnodes, 1 + 1 + 1 + 4 + 3);
    ASSERT_EQ_I(nchildren(run, 0), 1);
    int32_t main_n = child(run, 0, "main");
    ASSERT(main_n > 0);
    ASSERT_EQ_I(nd[main_n].depth, 1);
    ASSERT_EQ_U(nd[main_n].calls, 1);
    ASSERT_NEAR(nd[main_n].incl_s, 0.020, TOL);
    ASSERT_NEAR(nd[main_n].own_s, 0.002, TOL);
    ASSERT_NEAR(nd[0].incl_s, 0.020, TOL); /* the root spans the top level */

    /* children sorted by inclusive time: solve (12 ms) before setup (6 ms) */
    int32_t first = nd[main_n].first_child;
    ASSERT_STREQ(node_name(run, first), "solve");
    ASSERT_STREQ(node_name(run, nd[first].next_sibling), "setup");
    ASSERT_EQ_I(nd[nd[first].next_sibling].next_sibling, -1);
    ASSERT_EQ_U(nd[first].calls, 3);
    ASSERT_NEAR(nd[first].incl_s, 0.012, TOL);
    ASSERT_STREQ(node_name(run, nd[first].first_child), "assemble_matrix");
    int32_t bc = child(run, first, "apply_bc");
    ASSERT(bc > 0);
    ASSERT_EQ_U(nd[bc].calls, 3);
    ASSERT_NEAR(nd[bc].incl_s, 0.003, TOL);
    ASSERT_EQ_I(nd[bc].depth, 3);

    /* setup -> refine_mesh -> refine_mesh -> refine_mesh -> refine_mesh */
    int32_t n = child(run, main_n, "setup");
    ASSERT_NEAR(nd[n].own_s, 0.002, TOL);
    for (int level = 0; level < 4; level++) {
        int32_t c = child(run, n, "refine_mesh");
        ASSERT_MSG(c > 0, "refine_mesh level %d", level);
        ASSERT_EQ_I(nchildren(run, n), 1);
        ASSERT_EQ_U(nd[c].calls, 1);
        ASSERT_NEAR(nd[c].incl_s, (4 - level) * 0.001, TOL);
        ASSERT_NEAR(nd[c].own_s, 0.001, TOL);
        ASSERT_EQ_I(nd[c].parent, n);
        ASSERT_EQ_I(nd[c].depth, 3 + level);
        n = c;
    }
    ASSERT_EQ_I(nd[n].first_child, -1);
    sp_run_free(run);
}

/* depth[] and tree_node[] agree with the parents and the tree. */
static void test_per_call_depth_and_node(void)
{
    sp_run *run = tb_mock_solver(0);
    ASSERT(run);
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    const sp_rank_data *rk = &run->ranks[0];
    ASSERT(rk->depth && rk->tree_node);
    int max_depth = 0;
    for (size_t i = 0; i < rk->ncalls; i++) {
        const sp_tree_node *nd = &run->tree.nodes[rk->tree_node[i]];
        ASSERT_EQ_I(nd->region, rk->region[i]);
        ASSERT_EQ_I(nd->depth, rk->depth[i] + 1);
        if (rk->parent[i] >= 0) {
            ASSERT_EQ_I(rk->depth[i], rk->depth[rk->parent[i]] + 1);
            ASSERT_EQ_I(nd->parent, rk->tree_node[rk->parent[i]]);
        } else {
            ASSERT_EQ_I(rk->depth[i], 0);
        }
        if (rk->depth[i] > max_depth)
            max_depth = rk->depth[i];
    }
    ASSERT_EQ_I(max_depth, 5); /* main, setup, refine_mesh x 4 */
    ASSERT_EQ_I(rk->depth[0], 0);
    sp_run_free(run);
}

/* Same paths on two ranks and two threads merge; other paths stay apart. */
static void test_merge_threads_and_ranks(void)
{
    tb_call c[] = {
        /* rank 0: thread 0 main -> work; thread 1 worker -> work */
        {0, 0, "main", 0, 10 * MS},
        {0, 0, "work", 1 * MS, 3 * MS},
        {0, 1, "worker", 0, 8 * MS},
        {0, 1, "work", 2 * MS, 7 * MS},
        /* rank 1: the same shape, other durations */
        {1, 0, "main", 0, 12 * MS},
        {1, 0, "work", 1 * MS, 5 * MS},
        {1, 1, "worker", 0, 9 * MS},
        {1, 1, "work", 1 * MS, 2 * MS},
    };
    sp_run *run = tb_build(c, 8, 2, 2);
    ASSERT(run);
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    const sp_tree_node *nd = run->tree.nodes;
    ASSERT_EQ_U(run->tree.nnodes, 5); /* root, main, main/work, worker, worker/work */
    int32_t m = child(run, 0, "main"), w = child(run, 0, "worker");
    ASSERT(m > 0 && w > 0);
    ASSERT_EQ_I(nd[0].first_child, m); /* 22 ms before 17 ms */
    ASSERT_EQ_U(nd[m].calls, 2);
    ASSERT_NEAR(nd[m].incl_s, 0.022, TOL);
    int32_t mw = child(run, m, "work"), ww = child(run, w, "work");
    ASSERT(mw > 0 && ww > 0 && mw != ww);
    ASSERT_EQ_U(nd[mw].calls, 2);
    ASSERT_NEAR(nd[mw].incl_s, 0.006, TOL);
    ASSERT_NEAR(nd[m].own_s, 0.016, TOL);
    ASSERT_EQ_U(nd[ww].calls, 2);
    ASSERT_NEAR(nd[ww].incl_s, 0.006, TOL);
    ASSERT_NEAR(nd[w].own_s, 0.011, TOL);
    /* the region statistics merge every path */
    const sp_run_region *work = &run->regions[sp_run_region_id(run, "work")];
    ASSERT_EQ_U(work->all.calls, 4);
    ASSERT_NEAR(work->all.total_s, 0.012, TOL);
    ASSERT_EQ_U(work->per_rank[1].calls, 2);
    ASSERT_NEAR(work->per_rank[1].max_s, 0.004, TOL);
    sp_run_free(run);
}

/* Ties in inclusive time are ordered by name, so output is deterministic. */
static void test_sibling_tie_order(void)
{
    tb_call c[] = {{0, 0, "top", 0, 10}, {0, 0, "zeta", 1, 3}, {0, 0, "alpha", 4, 6}};
    sp_run *run = tb_build(c, 3, 1, 1);
    ASSERT(run);
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    int32_t top = child(run, 0, "top");
    ASSERT_STREQ(node_name(run, run->tree.nodes[top].first_child), "alpha");
    sp_run_free(run);
}

/* A parent index that is not an earlier call is treated as top level; a
 * region id out of range is refused, not read out of bounds. */
static void test_malformed_input(void)
{
    tb_call c[] = {{0, 0, "a", 0, 10}, {0, 0, "b", 2, 5}};
    sp_run *run = tb_build(c, 2, 1, 1);
    ASSERT(run);
    run->ranks[0].parent[0] = 1; /* points forward */
    run->ranks[0].parent[1] = 7; /* out of range */
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    ASSERT_EQ_I(run->ranks[0].depth[0], 0);
    ASSERT_EQ_I(run->ranks[0].depth[1], 0);
    ASSERT_EQ_I(nchildren(run, 0), 2);
    sp_run_free(run);

    run = tb_build(c, 2, 1, 1);
    ASSERT(run);
    run->ranks[0].region[1] = 5;
    ASSERT_EQ_I(sp_run_analyze(run), SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "out of range");
    ASSERT_EQ_I(run->analyzed, 0);
    sp_run_free(run);
}

/* Analyzing twice is a no-op; an empty run analyzes to a lone root. */
static void test_idempotent_and_empty(void)
{
    sp_run *run = tb_mock_solver(0);
    ASSERT(run);
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    sp_tree_node *nodes = run->tree.nodes;
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    ASSERT(run->tree.nodes == nodes);
    sp_run_free(run);

    run = sp_run_new();
    ASSERT(run);
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    ASSERT_EQ_U(run->tree.nnodes, 1);
    ASSERT_EQ_I(run->tree.nodes[0].first_child, -1);
    sp_run_free(run);
}

/* Deep recursion (10,000 levels) builds without recursion in the analysis. */
static void test_deep_recursion(void)
{
    enum { N = 10000 };
    tb_call *c = malloc(N * sizeof *c);
    for (int i = 0; i < N; i++)
        c[i] = (tb_call){0, 0, "r", i, 2 * N - i};
    sp_run *run = tb_build(c, N, 1, 1);
    free(c);
    ASSERT(run);
    ASSERT_EQ_I(sp_run_analyze(run), 0);
    ASSERT_EQ_U(run->tree.nnodes, N + 1);
    ASSERT_EQ_I(run->ranks[0].depth[N - 1], N - 1);
    const sp_run_region *r = &run->regions[0];
    ASSERT_NEAR(r->all.own_s, 2.0 * N * 1e-9, 1e-15); /* the outermost call */
    sp_run_free(run);
}

int main(void)
{
    RUN(test_mock_solver_shape);
    RUN(test_per_call_depth_and_node);
    RUN(test_merge_threads_and_ranks);
    RUN(test_sibling_tie_order);
    RUN(test_malformed_input);
    RUN(test_idempotent_and_empty);
    RUN(test_deep_recursion);
    return sp_test_summary();
}
