/* SPDX-License-Identifier: MIT */
/*
 * test_h5_golden.c - the golden files read back with exactly the values
 * written into them: data/golden/v1/small.h5 (made once by make_golden.c),
 * and data/golden/v2/small.h5 and killed.h5 (+ its part; make_golden_v2.c).
 * Every later version of the reader must keep passing this test: the values
 * below are the specification of those files, not something to update.
 */
#include "h5test_util.h"
#include "sp_h5.h"
#include "sp_test.h"

#define GOLDEN_V1 SP_TEST_DATA_DIR "/golden/v1/small.h5"
#define GOLDEN_V2 SP_TEST_DATA_DIR "/golden/v2/small.h5"
#define GOLDEN_V2_KILLED SP_TEST_DATA_DIR "/golden/v2/killed.h5"

static sp_run *run;

static void test_golden_v1_reads(void)
{
    int st = 1;
    run = sp_h5_read(GOLDEN_V1, &st);
    ASSERT_MSG(run, "%s", sp_last_error());
    ASSERT_EQ_I(st, 0);
    ASSERT_EQ_I(run->schema_version, 1);
    ASSERT_STREQ(run->layout, "scope-profiler");
    ASSERT_STREQ(run->source_path, GOLDEN_V1);
}

static void test_golden_v1_regions_and_metadata(void)
{
    ASSERT(run);
    static const char *const regions[] = {
        "main", "solve", "io/write data.v2 \xE2\x9C\x93", "assemble", "halo exchange",
    };
    ASSERT_EQ_U(run->nregions, 5);
    for (size_t i = 0; i < 5; i++)
        ASSERT_STREQ(run->region_names[i], regions[i]);
    static const char *const meta[][2] = {
        {"timestamp", "2026-01-01T12:00:00.000000+00:00"},
        {"hostname", "golden-host"},
        {"user", "golden"},
        {"command_line", "./solver --steps 2"},
        {"working_directory", "/home/golden/run"},
        {"scope_profiler_version", "0.1.0"},
        {"compiler", "GCC 12.2.0"},
        {"platform", "Linux-6.1.0-x86_64"},
        {"cpu_model", "Golden CPU @ 2.00GHz"},
        {"total_cores", "8"},
        {"clock_source", "tsc"},
        {"clock_calibration", "2000000000"},
        {"mpi_size", "2"},
        {"num_threads", "3"},
        {"omp_num_threads", "2"},
        {"SLURM_JOB_ID", "123456"},
        {"problem_size", "128"},
        {"note", "caf\xC3\xA9 \xE2\x9C\x93"},
    };
    ASSERT_EQ_U(run->meta.n, sizeof meta / sizeof meta[0]);
    for (size_t i = 0; i < run->meta.n; i++) { /* same order as written */
        ASSERT_STREQ(run->meta.items[i].key, meta[i][0]);
        ASSERT_STREQ(run->meta.items[i].value, meta[i][1]);
    }
}

static void test_golden_v1_rank0(void)
{
    ASSERT(run && run->nranks == 2);
    const sp_rank_data *rk = &run->ranks[0];
    ASSERT_EQ_I(rk->rank, 0);
    ASSERT_EQ_I(rk->clock_offset_ns, 0);
    ASSERT_EQ_I(rk->clock_offset_err_ns, 0);
    ASSERT_EQ_U(rk->meta.n, 1);
    ASSERT_STREQ(sp_kvlist_get(&rk->meta, "hostname"), "golden-host");
    ASSERT_EQ_U(rk->nthreads, 2);
    ASSERT_EQ_I(rk->threads[0].os_tid, 4100);
    ASSERT_STREQ(rk->threads[0].name, "main");
    ASSERT_EQ_I(rk->threads[1].os_tid, 4101);
    ASSERT_STREQ(rk->threads[1].name, "worker");
    static const int64_t start[] = {1000, 2000, 3000, 14000, 61000, 5000};
    static const int64_t end[] = {100000, 60000, 13000, 24000, 91000, 45000};
    static const int32_t region[] = {0, 1, 3, 3, 2, 2};
    static const int32_t thread[] = {0, 0, 0, 0, 0, 1};
    static const int64_t parent[] = {-1, 0, 1, 1, 0, -1};
    ASSERT_EQ_U(rk->ncalls, 6);
    for (size_t i = 0; i < 6; i++) {
        ASSERT_EQ_I(rk->start_ns[i], start[i]);
        ASSERT_EQ_I(rk->end_ns[i], end[i]);
        ASSERT_EQ_I(rk->region[i], region[i]);
        ASSERT_EQ_I(rk->thread[i], thread[i]);
        ASSERT_EQ_I(rk->parent[i], parent[i]);
    }
    ASSERT(rk->dropped);
    static const uint64_t dropped[] = {0, 0, 0, 0, 1};
    for (size_t r = 0; r < 5; r++)
        ASSERT_EQ_U(rk->dropped[r], dropped[r]);
}

static void test_golden_v1_rank1(void)
{
    ASSERT(run && run->nranks == 2);
    const sp_rank_data *rk = &run->ranks[1];
    ASSERT_EQ_I(rk->rank, 1);
    ASSERT_EQ_I(rk->clock_offset_ns, -2500);
    ASSERT_EQ_I(rk->clock_offset_err_ns, 40);
    ASSERT_STREQ(sp_kvlist_get(&rk->meta, "hostname"), "golden-host-2");
    ASSERT_EQ_U(rk->nthreads, 1);
    ASSERT_EQ_I(rk->threads[0].os_tid, 4200);
    ASSERT_STREQ(rk->threads[0].name, "main");
    ASSERT_EQ_U(rk->ncalls, 2);
    ASSERT_EQ_I(rk->start_ns[0], 1500);
    ASSERT_EQ_I(rk->end_ns[0], 99000);
    ASSERT_EQ_I(rk->region[0], 0);
    ASSERT_EQ_I(rk->parent[0], -1);
    ASSERT_EQ_I(rk->start_ns[1], 2500);
    ASSERT_EQ_I(rk->end_ns[1], 70000);
    ASSERT_EQ_I(rk->region[1], 1);
    ASSERT_EQ_I(rk->parent[1], 0);
    ASSERT(rk->dropped == NULL); /* no drops on rank 1 */
}

static void test_golden_v1_rewrites_identically(void)
{
    /* Reading and writing again gives the same run (the writer's and the
     * reader's notions of the layout agree). */
    ASSERT(run);
    const char *dir = h5t_tmpdir("golden");
    char path[4096];
    h5t_join(path, sizeof path, dir, "again.h5");
    ASSERT_MSG(sp_h5_write(run, path) == 0, "%s", sp_last_error());
    int st;
    sp_run *again = sp_h5_read(path, &st);
    ASSERT_MSG(again, "%s", sp_last_error());
    const char *diff = h5t_runs_differ(run, again);
    ASSERT_MSG(!diff, "%s", diff);
    sp_run_free(again);
}


static void check_calls(const sp_rank_data *rk, size_t n, const int64_t *start, const int64_t *end,
                        const int32_t *region, const int32_t *thread, const int64_t *parent)
{
    ASSERT_EQ_U(rk->ncalls, n);
    for (size_t i = 0; i < n && i < rk->ncalls; i++) {
        ASSERT_EQ_I(rk->start_ns[i], start[i]);
        ASSERT_EQ_I(rk->end_ns[i], end[i]);
        ASSERT_EQ_I(rk->region[i], region[i]);
        ASSERT_EQ_I(rk->thread[i], thread[i]);
        ASSERT_EQ_I(rk->parent[i], parent[i]);
    }
}

static void test_golden_v2(void)
{
    int st = 1;
    sp_run *r = sp_h5_read(GOLDEN_V2, &st);
    ASSERT_MSG(r, "%s", sp_last_error());
    if (!r)
        return;
    ASSERT_EQ_I(r->schema_version, 2);
    ASSERT_STREQ(r->layout, "scope-profiler");
    static const char *const meta[][2] = {
        {"timestamp", "2026-01-01T12:00:00.000000+00:00"}, {"hostname", "golden-host"},
        {"clock_source", "tsc"}, {"mpi_size", "2"}, {"num_threads", "3"},
        {"note", "caf\xC3\xA9 \xE2\x9C\x93"},
    };
    ASSERT_EQ_U(r->meta.n, 6);
    for (size_t i = 0; i < r->meta.n && i < 6; i++) {
        ASSERT_STREQ(r->meta.items[i].key, meta[i][0]);
        ASSERT_STREQ(r->meta.items[i].value, meta[i][1]);
    }
    /* One table for the run, built from the ranks' own tables by name; a
     * Latin-1 name of rank 1 shows its byte as \xe9. */
    static const char *const regions[] = {"main", "solve", "io/write data.v2 \xE2\x9C\x93",
                                          "assemble", "halo exchange", "caf\\xe9"};
    ASSERT_EQ_U(r->nregions, 6);
    for (size_t i = 0; i < r->nregions && i < 6; i++)
        ASSERT_STREQ(r->region_names[i], regions[i]);
    ASSERT(r->nregion_flags >= 4 && r->region_flags[3] == 1 && r->region_flags[0] == 0);
    ASSERT_EQ_U(r->nranks, 2);
    const sp_rank_data *r0 = &r->ranks[0], *r1 = &r->ranks[1];
    ASSERT_STREQ(sp_kvlist_get(&r0->meta, "hostname"), "golden-host");
    ASSERT_EQ_U(r0->nthreads, 2);
    ASSERT_EQ_I(r0->threads[1].os_tid, 4101);
    ASSERT_STREQ(r0->threads[1].name, "w\\xf6rker"); /* Latin-1 bytes kept, shown escaped */
    /* The clock: 2 ticks per ns; times come back as the ns written. */
    static const int64_t s0[] = {1000, 2000, 3000, 14000, 61000, 5000};
    static const int64_t e0[] = {100000, 60000, 13000, 24000, 91000, 45000};
    static const int32_t g0[] = {0, 1, 3, 3, 2, 2}, t0[] = {0, 0, 0, 0, 0, 1};
    static const int64_t p0[] = {-1, 0, 1, 1, 0, -1};
    check_calls(r0, 6, s0, e0, g0, t0, p0);
    ASSERT(r0->dropped && r0->dropped[4] == 1 && r0->dropped[5] == 0);
    ASSERT_EQ_U(r0->nlines, 1);
    ASSERT_EQ_I(r0->line_region[0], 3);
    ASSERT_STREQ(r0->line_file[0], "/home/golden/src/assemble.c");
    ASSERT_EQ_I(r0->line_lineno[0], 42);
    ASSERT_EQ_U(r0->line_samples[0], 7);
    ASSERT_EQ_U(r0->ncounters, 1);
    ASSERT_EQ_I(r0->counter_region[0], 1);
    ASSERT_STREQ(r0->counter_name[0], "page-faults");
    ASSERT(r0->counter_value[0] == 12.0);
    ASSERT_EQ_I(r1->clock_offset_ns, -2500);
    ASSERT_EQ_I(r1->clock_offset_err_ns, 40);
    static const int64_t s1[] = {1500, 2500}, e1[] = {99000, 70000}, p1[] = {-1, 0};
    static const int32_t g1[] = {0, 5}, t1[] = {0, 0};
    check_calls(r1, 2, s1, e1, g1, t1, p1);
    sp_run_free(r);
}

static void test_golden_v2_killed(void)
{
    /* What a 2-rank job killed while recording left: the main file, rank 0's
     * part still marked open for writing (SWMR), rank 1's part missing. */
    int st = 1;
    sp_run *r = sp_h5_read(GOLDEN_V2_KILLED, &st);
    ASSERT_MSG(r, "%s", sp_last_error());
    if (!r)
        return;
    ASSERT_EQ_I(r->schema_version, 2);
    ASSERT_STREQ(sp_kvlist_get(&r->meta, "hostname"), "golden-host");
    ASSERT_STREQ(sp_kvlist_get(&r->meta, "incomplete_ranks"), "1");
    ASSERT(strstr(sp_kvlist_get(&r->meta, "file_state"), "1 call(s) still open"));
    ASSERT_EQ_U(r->nranks, 2);
    ASSERT_EQ_U(r->nregions, 2);
    ASSERT_STREQ(r->region_names[0], "main");
    ASSERT_STREQ(r->region_names[1], "solve");
    /* Flushed: main (open: it ends at the thread's last event) > solve. The
     * call begun after the last flush is not there. */
    static const int64_t s[] = {1500, 2500}, e[] = {4500, 4500}, p[] = {-1, 0};
    static const int32_t g[] = {0, 1}, t[] = {0, 0};
    check_calls(&r->ranks[0], 2, s, e, g, t, p);
    ASSERT_EQ_U(r->ranks[1].ncalls, 0);
    sp_run_free(r);
}

int main(void)
{
    RUN(test_golden_v1_reads);
    RUN(test_golden_v2);
    RUN(test_golden_v2_killed);
    RUN(test_golden_v1_regions_and_metadata);
    RUN(test_golden_v1_rank0);
    RUN(test_golden_v1_rank1);
    RUN(test_golden_v1_rewrites_identically);
    sp_run_free(run);
    h5t_cleanup(sp_test_failed_count);
    return sp_test_summary();
}
