/* SPDX-License-Identifier: MIT */
/*
 * recursive_example.c - the seed chapter's recursive profiling example in C.
 *
 *   recursive_example [FILE]     (default: recursive.h5)
 *
 * Built with -finstrument-functions (see scope_profiler_instrument() in
 * cmake/ScopeProfilerInstrument.cmake): the region "entry" traces the
 * functions it calls, each becoming a region "<module>.<function>", so the
 * summary shows entry -> recursive_example.middle -> recursive_example.leaf
 * (2x) with their (own) rows.
 */
#include <stdio.h>
#include <time.h>

#include <scope_profiler.h>

/* Not traced, like the library call time.sleep() in the seed. */
static __attribute__((no_instrument_function)) void sleep_ms(long ms)
{
    struct timespec ts = {0, ms * 1000000L};
    while (nanosleep(&ts, &ts) != 0)
        ; /* interrupted: sleep the rest */
}

/* noinline keeps the example's shape at -O2 (inlined functions are traced
 * too, but this makes the call structure obvious in a debugger as well). */
static __attribute__((noinline)) void leaf(void)
{
    sleep_ms(1);
}

static __attribute__((noinline)) void middle(void)
{
    for (int i = 0; i < 2; i++)
        leaf();
}

/* SP_FUNCTION_RECURSIVE(): the region "entry" traces what entry() calls. */
static __attribute__((noinline)) void entry(void)
{
    SP_SCOPE_RECURSIVE("entry")
    {
        middle();
    }
}

int main(int argc, char **argv)
{
    sp_options o;
    sp_options_init(&o);
    o.file_path = argc > 1 ? argv[1] : "recursive.h5";
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "recursive_example: %s\n", sp_last_error());
        return 1;
    }
    entry();
    if (sp_finalize(true, NULL) != 0) {
        fprintf(stderr, "recursive_example: %s\n", sp_last_error());
        return 1;
    }
    return 0;
}
