/* SPDX-License-Identifier: MIT */
/*
 * test_lines_add.c - sp_lines_add(): line timings measured by a language
 * binding's line tracer land in the rank's line table, beside the line
 * sampler's rows, and in the file (the Python module stores its
 * use_line_profiler table this way).
 */
#include <string.h>

#include "modes_util.h"
#include "sp_h5.h"
#include "sp_test.h"

/* The row of (region, file, line) in rank 0, or -1. */
static long find_row(const sp_run *run, const char *region, const char *file, int line)
{
    int32_t id = sp_run_region_id(run, region);
    const sp_rank_data *rk = &run->ranks[0];
    for (size_t i = 0; i < rk->nlines; i++)
        if (rk->line_region[i] == id && rk->line_lineno[i] == line &&
            strcmp(rk->line_file[i], file) == 0)
            return (long)i;
    return -1;
}

static void test_refused(void)
{
    modes_clear_env();
    sp_region *r = sp_region_get("refused");
    ASSERT_EQ_I(sp_lines_add(r, "a.py", 1, "f", 1, 10), SP_ESTATE); /* no session */
    ASSERT_CONTAINS(sp_last_error(), "no session");
    sp_options o = modes_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(sp_lines_add(NULL, "a.py", 1, "f", 1, 10), SP_EINVAL);
    ASSERT_EQ_I(sp_lines_add(r, NULL, 1, "f", 1, 10), SP_EINVAL);
    ASSERT_EQ_I(sp_lines_add(r, "a.py", -1, "f", 1, 10), SP_EINVAL);
    ASSERT_EQ_I(sp_lines_add(r, "a.py", 1, "f", 1, -10), SP_EINVAL);
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);
}

/* Rows add up by key; a region without calls has nothing to refer to; the
 * file holds the rows and the line_tracer key. */
static void test_rows_in_file(void)
{
    modes_clear_env();
    char path[512];
    modes_tmp_path(path, sizeof path, "lines_add.h5");
    sp_options o = modes_mem_options();
    o.deactivate_file_output = false;
    o.file_path = path;
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *step = sp_region_get("step"), *idle = sp_region_get("never_called");
    for (int i = 0; i < 3; i++) {
        sp_region_begin(step);
        sp_region_end(step);
    }
    ASSERT_EQ_I(sp_lines_add(step, "solver.py", 12, "Solver.step", 100, 5000), 0);
    ASSERT_EQ_I(sp_lines_add(step, "solver.py", 12, "Solver.step", 50, 2500), 0); /* adds up */
    ASSERT_EQ_I(sp_lines_add(step, "solver.py", 13, "Solver.step", 150, 900), 0);
    ASSERT_EQ_I(sp_lines_add(idle, "solver.py", 40, "idle", 1, 1), 0);
    ASSERT_EQ_I(sp_metadata_set("line_tracer", "test tracer"), 0);
    sp_run *mem = NULL;
    ASSERT_EQ_I(sp_finalize(false, &mem), 0);
    ASSERT(mem);
    ASSERT_EQ_U(mem->ranks[0].nlines, 2);
    long a = find_row(mem, "step", "solver.py", 12), b = find_row(mem, "step", "solver.py", 13);
    ASSERT(a >= 0 && b >= 0);
    ASSERT_EQ_U(mem->ranks[0].line_samples[a], 150);
    ASSERT_EQ_I(mem->ranks[0].line_time_ns[a], 7500);
    ASSERT_STREQ(mem->ranks[0].line_function[b], "Solver.step");
    sp_run *file = sp_read_h5(path);
    ASSERT_MSG(file, "%s", sp_last_error());
    ASSERT_EQ_U(file->ranks[0].nlines, 2);
    a = find_row(file, "step", "solver.py", 12);
    ASSERT(a >= 0);
    ASSERT_EQ_U(file->ranks[0].line_samples[a], 150);
    ASSERT_EQ_I(file->ranks[0].line_time_ns[a], 7500);
    ASSERT_STREQ(sp_run_metadata(file, "line_tracer"), "test tracer");
    sp_run_free(file);
    sp_run_free(mem);
    modes_rm(path);
    /* A new session starts with none of them. */
    o = modes_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region_begin(step);
    sp_region_end(step);
    ASSERT_EQ_I(sp_finalize(false, &mem), 0);
    ASSERT_EQ_U(mem->ranks[0].nlines, 0);
    sp_run_free(mem);
}

/* With the line sampler on too: its rows, then the added ones (the table's
 * columns grow through one helper, whatever the sampler's row count). */
static void test_beside_the_sampler(void)
{
    modes_clear_env();
    sp_options o = modes_mem_options();
    o.use_line_profiler = true;
    o.line_hz = 2000;
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *busy = sp_region_get("busy");
    sp_region_begin(busy);
    volatile double s = 0;
    for (long i = 0; i < 60000000; i++)
        s += (double)i * 1e-9;
    sp_region_end(busy);
    for (int k = 0; k < 5; k++)
        ASSERT_EQ_I(sp_lines_add(busy, "extra.py", 100 + k, "extra", (uint64_t)k + 1, 10), 0);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    size_t sampled = 0;
    for (size_t i = 0; i < run->ranks[0].nlines; i++)
        sampled += strcmp(run->ranks[0].line_file[i], "extra.py") != 0;
    fprintf(stderr, "  %zu sampled rows + 5 added\n", sampled);
    ASSERT_EQ_U(run->ranks[0].nlines, sampled + 5);
    for (int k = 0; k < 5; k++) {
        long r = find_row(run, "busy", "extra.py", 100 + k);
        ASSERT(r >= 0);
        ASSERT_EQ_U(run->ranks[0].line_samples[r], (uint64_t)k + 1);
    }
    sp_run_free(run);
}

int main(void)
{
    RUN(test_refused);
    RUN(test_rows_in_file);
    RUN(test_beside_the_sampler);
    return sp_test_summary();
}
