/* SPDX-License-Identifier: MIT */
/* A downstream program traced with the installed instrumentation helper:
 * work() and leaf() (this file) are traced inside the recursive region;
 * inline_helper() (traced_helper.h) is defined in a header, so the
 * documented flags leave it out. */
#include <scope_profiler.h>
#include <stdio.h>

#include "traced_helper.h"

static volatile double sink;

__attribute__((noinline)) static void leaf(int i) { sink += inline_helper(i); }

__attribute__((noinline)) static void work(void)
{
    for (int i = 0; i < 3; i++)
        leaf(i);
}

int main(int argc, char **argv)
{
    sp_options o;
    sp_options_init(&o);
    o.file_path = argc > 1 ? argv[1] : "traced.h5";
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "traced: %s\n", sp_last_error());
        return 1;
    }
    SP_SCOPE_RECURSIVE("entry") { work(); }
    return sp_finalize(true, NULL) != 0;
}
