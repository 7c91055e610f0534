/* SPDX-License-Identifier: MIT */
/* A downstream program using only the installed header and library. */
#include <scope_profiler.h>
#include <stdio.h>

int main(int argc, char **argv)
{
    sp_options o;
    sp_options_init(&o);
    o.file_path = argc > 1 ? argv[1] : "consumer.h5";
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "consumer: %s\n", sp_last_error());
        return 1;
    }
    for (int i = 0; i < 5; i++)
        SP_SCOPE("consumer_loop") {}
    sp_run *run = NULL;
    if (sp_finalize(false, &run) != 0) {
        fprintf(stderr, "consumer: %s\n", sp_last_error());
        return 1;
    }
    const sp_run_region *r = sp_run_find(run, "consumer_loop");
    unsigned long long calls = r ? (unsigned long long)sp_run_region_num_calls(r) : 0;
    sp_run_free(run);
    printf("consumer_loop calls: %llu\n", calls);
    return calls == 5 ? 0 : 1;
}
