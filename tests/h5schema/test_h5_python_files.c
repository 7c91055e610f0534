/* SPDX-License-Identifier: MIT */
/*
 * test_h5_python_files.c - files of the Python scope-profiler package: the
 * two real 0.2.1 files in data/python-0.2.1/ (per-region layout), and small
 * columnar and nested per-region files written with h5py by
 * make_py_files.py (values checked here are the ones that script writes).
 */
#include <stdlib.h>

#include "h5test_util.h"
#include "sp_h5.h"
#include "sp_test.h"

#define README_EXAMPLE SP_TEST_DATA_DIR "/python-0.2.1/py_readme_example.h5"
#define MPI4 SP_TEST_DATA_DIR "/python-0.2.1/py_mpi4_imbalance.h5"

static char pydir[4096];

/* Calls of region `name` on rank rk. */
static size_t count_calls(const sp_run *run, const sp_rank_data *rk, const char *name)
{
    int32_t id = sp_run_region_id(run, name);
    size_t n = 0;
    for (size_t i = 0; id >= 0 && i < rk->ncalls; i++)
        n += rk->region[i] == id;
    return n;
}

/* Name of the parent region of call i, or "-" for a top-level call. */
static const char *parent_name(const sp_run *run, const sp_rank_data *rk, size_t i)
{
    return rk->parent[i] < 0 ? "-" : run->region_names[rk->region[rk->parent[i]]];
}

/* Every call of region `name` has its parent in region `parent` (or one of
 * two allowed parents). */
static int parents_are(const sp_run *run, const sp_rank_data *rk, const char *name,
                       const char *parent, const char *or_parent)
{
    int32_t id = sp_run_region_id(run, name);
    for (size_t i = 0; i < rk->ncalls; i++) {
        if (rk->region[i] != id)
            continue;
        const char *p = parent_name(run, rk, i);
        if (strcmp(p, parent) != 0 && (!or_parent || strcmp(p, or_parent) != 0))
            return 0;
    }
    return 1;
}

static void test_readme_example(void)
{
    int st = 1;
    sp_run *run = sp_h5_read(README_EXAMPLE, &st);
    ASSERT_MSG(run, "%s", sp_last_error());
    ASSERT_STREQ(run->layout, "python-per-region");
    ASSERT_EQ_I(run->schema_version, 1);
    ASSERT_EQ_U(run->nranks, 1);
    const sp_rank_data *rk = &run->ranks[0];
    static const struct { const char *name; size_t calls; } want[] = {
        {"main", 1}, {"setup", 1}, {"refine_mesh", 4},
        {"solve", 3}, {"assemble_matrix", 3}, {"apply_bc", 3},
    };
    ASSERT_EQ_U(run->nregions, 6);
    size_t total = 0;
    for (size_t i = 0; i < 6; i++) {
        ASSERT_EQ_U(count_calls(run, rk, want[i].name), want[i].calls);
        total += want[i].calls;
    }
    ASSERT_EQ_U(rk->ncalls, total);
    /* One thread, unknown tid; nesting inferred from time containment. */
    ASSERT_EQ_U(rk->nthreads, 1);
    ASSERT_EQ_I(rk->threads[0].os_tid, -1);
    ASSERT(parents_are(run, rk, "main", "-", NULL));
    ASSERT(parents_are(run, rk, "setup", "main", NULL));
    ASSERT(parents_are(run, rk, "solve", "main", NULL));
    ASSERT(parents_are(run, rk, "assemble_matrix", "solve", NULL));
    ASSERT(parents_are(run, rk, "apply_bc", "solve", NULL));
    ASSERT(parents_are(run, rk, "refine_mesh", "setup", "refine_mesh")); /* recursive */
    ASSERT(rk->dropped == NULL);
    /* Integer metadata becomes decimal strings. */
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "hostname"), "vm");
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "mpi_size"), "1");
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "omp_num_threads"), "2");
    ASSERT(sp_kvlist_get(&run->meta, "timestamp") != NULL);
    sp_run_free(run);
}

static void test_mpi4_imbalance(void)
{
    int st = 1;
    sp_run *run = sp_h5_read(MPI4, &st);
    ASSERT_MSG(run, "%s", sp_last_error());
    ASSERT_STREQ(run->layout, "python-per-region");
    ASSERT_EQ_U(run->nranks, 4);
    ASSERT_EQ_U(run->nregions, 3);
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "mpi_size"), "4");
    int64_t compute_ns[4] = {0};
    for (size_t r = 0; r < 4; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        ASSERT_EQ_I(rk->rank, (int)r);
        ASSERT_EQ_U(rk->ncalls, 15);
        ASSERT_EQ_U(count_calls(run, rk, "timestep"), 5);
        ASSERT_EQ_U(count_calls(run, rk, "compute"), 5);
        ASSERT_EQ_U(count_calls(run, rk, "exchange"), 5);
        ASSERT(parents_are(run, rk, "timestep", "-", NULL));
        ASSERT(parents_are(run, rk, "compute", "timestep", NULL));
        ASSERT(parents_are(run, rk, "exchange", "timestep", NULL));
        int32_t compute = sp_run_region_id(run, "compute");
        for (size_t i = 0; i < rk->ncalls; i++)
            if (rk->region[i] == compute)
                compute_ns[r] += rk->end_ns[i] - rk->start_ns[i];
    }
    /* compute sleeps 2 ms x (rank + 1): each rank slower than the last. */
    for (size_t r = 1; r < 4; r++)
        ASSERT_MSG(compute_ns[r] > compute_ns[r - 1], "rank %zu compute %lld <= rank %zu",
                   r, (long long)compute_ns[r], r - 1);
    ASSERT(compute_ns[0] >= 5 * 2000000LL);
    sp_run_free(run);
}

static const char *py_file(const char *name)
{
    static char path[4096];
    return h5t_join(path, sizeof path, pydir, name);
}

static void test_columnar(void)
{
    int st = 1;
    sp_run *run = sp_h5_read(py_file("columnar.h5"), &st);
    ASSERT_MSG(run, "%s", sp_last_error());
    ASSERT_STREQ(run->layout, "python-columnar");
    ASSERT_EQ_I(run->schema_version, 1);
    ASSERT_EQ_U(run->nregions, 4);
    ASSERT_STREQ(run->region_names[2], "io/write data.v2 \xE2\x9C\x93");
    ASSERT_STREQ(run->region_names[3], "unused");
    ASSERT_EQ_U(run->nranks, 2);

    /* Rank 0: threads by first appearance (111 then 222); calls in model
     * order with parents remapped from event rows to call indices. */
    const sp_rank_data *r0 = &run->ranks[0];
    ASSERT_EQ_U(r0->nthreads, 2);
    ASSERT_EQ_I(r0->threads[0].os_tid, 111);
    ASSERT_EQ_I(r0->threads[1].os_tid, 222);
    ASSERT(r0->threads[0].name == NULL);
    static const int64_t start0[] = {0, 100, 600, 920, 50};
    static const int64_t end0[] = {1000, 500, 900, 990, 80};
    static const int32_t region0[] = {0, 1, 1, 2, 2};
    static const int32_t thread0[] = {0, 0, 0, 0, 1};
    static const int64_t parent0[] = {-1, 0, 0, 0, -1};
    ASSERT_EQ_U(r0->ncalls, 5);
    for (size_t i = 0; i < 5; i++) {
        ASSERT_EQ_I(r0->start_ns[i], start0[i]);
        ASSERT_EQ_I(r0->end_ns[i], end0[i]);
        ASSERT_EQ_I(r0->region[i], region0[i]);
        ASSERT_EQ_I(r0->thread[i], thread0[i]);
        ASSERT_EQ_I(r0->parent[i], parent0[i]);
    }
    const sp_rank_data *r1 = &run->ranks[1];
    ASSERT_EQ_U(r1->nthreads, 1);
    ASSERT_EQ_I(r1->threads[0].os_tid, 333);
    ASSERT_EQ_U(r1->ncalls, 2);
    ASSERT_EQ_I(r1->start_ns[0], 10);
    ASSERT_EQ_I(r1->region[1], 1);
    ASSERT_EQ_I(r1->parent[1], 0);

    /* Metadata of every h5py type, as strings. */
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "hostname"), "py-host");
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "mpi_size"), "2");
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "ratio"), "0.1");
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "flag"), "TRUE");
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "modules"), "numpy, h5py");
    sp_run_free(run);
}

static void test_per_region_nested_names(void)
{
    int st = 1;
    sp_run *run = sp_h5_read(py_file("per_region_nested.h5"), &st);
    ASSERT_MSG(run, "%s", sp_last_error());
    /* The newer package's schema attribute does not make it our layout. */
    ASSERT_STREQ(run->layout, "python-per-region");
    ASSERT_EQ_U(run->nranks, 3); /* rank1 wrote no group: an empty rank */
    ASSERT_EQ_U(run->nregions, 3);
    const sp_rank_data *r0 = &run->ranks[0];
    ASSERT_EQ_U(r0->ncalls, 4);
    ASSERT_EQ_U(count_calls(run, r0, "io/write data.v2 \xE2\x9C\x93"), 2);
    ASSERT_EQ_U(count_calls(run, r0, "io"), 1);
    ASSERT(parents_are(run, r0, "io/write data.v2 \xE2\x9C\x93", "io", NULL));
    ASSERT(parents_are(run, r0, "io", "main", NULL));
    ASSERT_EQ_U(run->ranks[1].ncalls, 0);
    ASSERT_EQ_U(run->ranks[2].ncalls, 1);
    ASSERT_EQ_I(run->ranks[2].end_ns[0], 50);
    sp_run_free(run);
}

static void expect_bad(const char *name, const char *needle)
{
    int st = 0;
    sp_run *run = sp_h5_read(py_file(name), &st);
    if (getenv("H5T_VERBOSE"))
        fprintf(stderr, "  [%s] %s\n", name, sp_last_error());
    ASSERT_MSG(!run, "%s was accepted", name);
    ASSERT_MSG(st == SP_EFORMAT, "%s: status %d: %s", name, st, sp_last_error());
    ASSERT_CONTAINS(sp_last_error(), needle);
    ASSERT(!strchr(sp_last_error(), '\n'));
}

static void test_columnar_refuses_bad_files(void)
{
    expect_bad("columnar_overlap.h5", "is also claimed by rank 0");
    expect_bad("columnar_gap.h5", "row 4 belongs to no entry of /index");
    expect_bad("columnar_outside.h5", "lie outside the 7 events");
    expect_bad("columnar_parent_rank.h5", "is a call of rank 0, not of rank 1");
    expect_bad("columnar_parent_range.h5", "parent_ids[6] = 70 is out of range");
    expect_bad("columnar_not_enclosing.h5", "not enclosed by its parent");
    expect_bad("columnar_shape.h5", "must both have shape (ranks, 4 regions)");
    expect_bad("columnar_dup_names.h5", "name 'main' appears twice");
}

int main(void)
{
    snprintf(pydir, sizeof pydir, "%s", h5t_tmpdir("py"));
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "'%s' '%s/make_py_files.py' '%s'", SP_PYTHON3,
             SP_H5_TEST_SOURCE_DIR, pydir);
    if (system(cmd) != 0) {
        fprintf(stderr, "FAIL: %s\n", cmd);
        return 1;
    }
    RUN(test_readme_example);
    RUN(test_mpi4_imbalance);
    RUN(test_columnar);
    RUN(test_per_region_nested_names);
    RUN(test_columnar_refuses_bad_files);
    h5t_cleanup(sp_test_failed_count);
    return sp_test_summary();
}
