/* SPDX-License-Identifier: MIT */
/*
 * mock_solver.c - a small instrumented program: the README's main job.
 *
 * main calls setup once (which works ~2 ms and calls a self-recursive
 * refine_mesh four levels deep, ~1 ms each), then solve three times; each
 * solve calls assemble_matrix (~3 ms) and apply_bc (~1 ms). The work is real
 * arithmetic, not sleeping, so a sampling profiler would see it too.
 *
 *   mock_solver [OUTPUT.h5]     (default: profiling_data.h5)
 */
#include <stdio.h>
#include <stdlib.h>

#include <scope_profiler.h>

#include "mock_work.h" /* work_ms */

static void refine_mesh(int level)
{
    SP_FUNCTION();
    work_ms(1.0);
    if (level > 1)
        refine_mesh(level - 1);
}

static void setup(void)
{
    SP_FUNCTION();
    work_ms(2.0);
    refine_mesh(4);
}

static void assemble_matrix(void)
{
    SP_FUNCTION();
    work_ms(3.0);
}

static void apply_bc(void)
{
    SP_FUNCTION();
    work_ms(1.0);
}

static void solve(void)
{
    SP_FUNCTION();
    assemble_matrix();
    apply_bc();
}

int main(int argc, char **argv)
{
    sp_options opts;
    sp_options_init(&opts);
    if (argc > 1)
        opts.file_path = argv[1];
    if (sp_setup(&opts) != 0) {
        fprintf(stderr, "mock_solver: %s\n", sp_last_error());
        return 1;
    }
    sp_metadata_set("problem_size", "128");
    sp_metadata_set("solver", "mock");

    SP_SCOPE("main")
    {
        setup();
        for (int step = 0; step < 3; step++)
            solve();
    }

    int rc = sp_finalize(true, NULL);
    if (rc != 0) {
        fprintf(stderr, "mock_solver: %s\n", sp_last_error());
        return 1;
    }
    return 0;
}
