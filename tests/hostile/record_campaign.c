/* SPDX-License-Identifier: MIT */
/*
 * record_campaign.c - the runs of issue 22's campaign that the library
 * records itself (so they go through the writer and the v2 reader, not a
 * crafted layout):
 *
 *   record_campaign recursion N FILE   one function recursing N deep (real
 *                                      recursion, on a thread with a big stack)
 *   record_campaign regions N FILE     N regions of different names, one call
 *                                      each, under one top-level region
 *
 * With N = 10^6 each once took `report` to a stack overflow or `inspect`
 * to 41 s; tests/hostile/CMakeLists.txt puts the files through every verb
 * and viewer page.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scope_profiler.h"

static sp_region *recurse_region;

static void recurse(long depth)
{
    sp_region_begin(recurse_region);
    if (depth > 1)
        recurse(depth - 1);
    sp_region_end(recurse_region);
}

static void *recursion_thread(void *arg)
{
    recurse(*(long *)arg);
    return NULL;
}

static int record_recursion(long n)
{
    recurse_region = sp_region_get("recurse");
    pthread_attr_t attr;
    pthread_t t;
    /* ~100 bytes a frame (several times that under sanitizers): 10^6 frames
     * need far more than the default 8 MiB; the pages are touched only as
     * deep as the recursion goes. */
    size_t stack = (size_t)n * 1024 + ((size_t)1 << 20);
    if (pthread_attr_init(&attr) || pthread_attr_setstacksize(&attr, stack) ||
        pthread_create(&t, &attr, recursion_thread, &n) || pthread_join(t, NULL)) {
        fprintf(stderr, "record_campaign: cannot start a thread with a %zu-byte stack\n", stack);
        return 1;
    }
    pthread_attr_destroy(&attr);
    return 0;
}

static int record_regions(long n)
{
    sp_region *top = sp_region_get("main");
    char name[64];
    sp_region_begin(top);
    for (long i = 0; i < n; i++) {
        snprintf(name, sizeof name, "region_%07ld", i);
        sp_region *r = sp_region_get(name);
        sp_region_begin(r);
        sp_region_end(r);
    }
    sp_region_end(top);
    return 0;
}

int main(int argc, char **argv)
{
    long n = argc == 4 ? strtol(argv[2], NULL, 10) : 0;
    if (n <= 0 || (strcmp(argv[1], "recursion") != 0 && strcmp(argv[1], "regions") != 0)) {
        fprintf(stderr, "usage: record_campaign recursion|regions N FILE\n");
        return 2;
    }
    sp_options o;
    sp_options_init(&o);
    o.file_path = argv[3];
    if (sp_setup(&o) != 0) {
        fprintf(stderr, "record_campaign: sp_setup: %s\n", sp_last_error());
        return 1;
    }
    int rc = strcmp(argv[1], "recursion") == 0 ? record_recursion(n) : record_regions(n);
    if (sp_finalize(false, NULL) != 0) {
        fprintf(stderr, "record_campaign: sp_finalize: %s\n", sp_last_error());
        return 1;
    }
    return rc;
}
