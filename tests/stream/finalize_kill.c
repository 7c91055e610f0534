/* SPDX-License-Identifier: MIT */
/*
 * finalize_kill.c - for run_finalize_kill.sh (issue 13, stale temporaries):
 *   finalize_kill record PATH      records ~1.5 million calls into PATH,
 *                                  prints "finalizing", finalizes, "done"
 *   finalize_kill tmpname PATH PID a temporary name of PATH as process PID
 *                                  of this host would make it
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_profiler.h"
#include "sp_h5_v2.h"

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "tmpname") == 0) {
        printf("%s.tmp.%ld-%08x.%016llx\n", argv[2], atol(argv[3]), sp_v2_host_hash(),
               0x0123456789abcdefull);
        return 0;
    }
    if (argc != 3 || strcmp(argv[1], "record") != 0) {
        fprintf(stderr, "usage: %s record PATH | tmpname PATH PID\n", argv[0]);
        return 2;
    }
    sp_options o;
    sp_options_init(&o);
    o.file_path = argv[2];
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "sp_setup: %s\n", sp_last_error());
        return 1;
    }
    sp_region *a = sp_region_get("outer"), *b = sp_region_get("inner");
    for (int i = 0; i < 500000; i++) {
        sp_region_begin(a);
        sp_region_begin(b);
        sp_region_end(b);
        sp_region_end(a);
    }
    printf("finalizing\n");
    fflush(stdout);
    int rc = sp_finalize(false, NULL);
    printf("done %d\n", rc);
    return rc != 0;
}
