/* SPDX-License-Identifier: MIT */
/*
 * test_region_index.c - region names by hash (common/sp_region_index.c and
 * the run's index in sp_model.c): interning, lookups, renames and removals
 * (backward-shift deletion in crowded clusters), duplicates, and names
 * edited behind the index's back.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_model.h"
#include "sp_region_index.h"
#include "sp_test.h"

#define MANY 200000

static void test_intern_and_find_many(void)
{
    sp_run *run = sp_run_new();
    ASSERT(run);
    char name[32];
    for (int i = 0; i < MANY; i++) {
        snprintf(name, sizeof name, "region %d", i);
        ASSERT_EQ_I(sp_run_intern_region(run, name), i);
    }
    ASSERT_EQ_U(run->nregions, MANY);
    for (int i = MANY; i-- > 0;) { /* again: the same ids, nothing added */
        snprintf(name, sizeof name, "region %d", i);
        ASSERT_EQ_I(sp_run_intern_region(run, name), i);
        ASSERT_EQ_I(sp_run_region_id(run, name), i);
    }
    ASSERT_EQ_U(run->nregions, MANY);
    ASSERT_EQ_I(sp_run_region_id(run, "region -1"), -1);
    ASSERT_EQ_I(sp_run_region_id(run, ""), -1);
    ASSERT_STREQ(run->region_names[12345], "region 12345");
    sp_run_free(run);
}

/* Names a reader put in the array itself: the first lookup indexes them;
 * names appended afterwards are picked up; a replaced array is noticed. */
static void test_names_set_directly(void)
{
    sp_run *run = sp_run_new();
    run->region_names = calloc(8, sizeof *run->region_names);
    run->region_names[0] = strdup("main");
    run->region_names[1] = strdup("solve");
    run->nregions = 2;
    ASSERT_EQ_I(sp_run_region_id(run, "solve"), 1);
    run->region_names[2] = strdup("io"); /* appended by hand */
    run->nregions = 3;
    ASSERT_EQ_I(sp_run_region_id(run, "io"), 2);
    ASSERT_EQ_I(sp_run_intern_region(run, "halo"), 3); /* grows the array */
    ASSERT_EQ_I(sp_run_region_id(run, "main"), 0);
    /* Edited in place: stale until told. */
    free(run->region_names[0]);
    run->region_names[0] = strdup("start");
    sp_run_regions_changed(run);
    ASSERT_EQ_I(sp_run_region_id(run, "start"), 0);
    ASSERT_EQ_I(sp_run_region_id(run, "main"), -1);
    /* Shrunk (a merge replaced the table): rebuilt by itself. */
    run->nregions = 2;
    free(run->region_names[2]);
    free(run->region_names[3]);
    ASSERT_EQ_I(sp_run_region_id(run, "io"), -1);
    ASSERT_EQ_I(sp_run_region_id(run, "solve"), 1);
    sp_run_free(run);
}

static void test_rename(void)
{
    sp_run *run = sp_run_new();
    char name[32];
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, "0x%x", i);
        ASSERT_EQ_I(sp_run_intern_region(run, name), i);
    }
    for (int i = 0; i < 1000; i += 2) {
        snprintf(name, sizeof name, "fn_%d", i);
        ASSERT_EQ_I(sp_run_rename_region(run, i, name), 0);
    }
    for (int i = 0; i < 1000; i++) {
        snprintf(name, sizeof name, i % 2 ? "0x%x" : "fn_%d", i);
        ASSERT_EQ_I(sp_run_region_id(run, name), i);
        if (i % 2 == 0) {
            snprintf(name, sizeof name, "0x%x", i);
            ASSERT_EQ_I(sp_run_region_id(run, name), -1);
        }
    }
    ASSERT_EQ_I(sp_run_rename_region(run, 1, "fn_0"), SP_EINVAL); /* taken */
    ASSERT_CONTAINS(sp_last_error(), "is region 0");
    ASSERT_EQ_I(sp_run_rename_region(run, 1000, "x"), SP_EINVAL);
    ASSERT_EQ_I(sp_run_rename_region(run, 0, "fn_0"), 0); /* its own name */
    sp_run_free(run);
}

/* Removal in a table with long probe clusters: every other name stays
 * findable (the backward shift must not strand an entry). */
static void test_remove_keeps_clusters(void)
{
    enum { N = 5000 };
    char **names = calloc(N, sizeof *names);
    char buf[32];
    for (int i = 0; i < N; i++) {
        snprintf(buf, sizeof buf, "n%d", i);
        names[i] = strdup(buf);
    }
    int32_t dup = 7;
    sp_region_index *ix = sp_region_index_new(names, N, &dup);
    ASSERT(ix);
    ASSERT_EQ_I(dup, -1);
    for (int i = 0; i < N; i += 3)
        sp_region_index_remove(ix, names, i);
    for (int i = 0; i < N; i++)
        ASSERT_EQ_I(sp_region_index_find(ix, names, names[i]), i % 3 ? i : -1);
    for (int i = 0; i < N; i += 3)
        ASSERT_EQ_I(sp_region_index_put(ix, names, i), -1);
    for (int i = 0; i < N; i++)
        ASSERT_EQ_I(sp_region_index_find(ix, names, names[i]), i);
    sp_region_index_free(ix);
    for (int i = 0; i < N; i++)
        free(names[i]);
    free(names);
}

static void test_duplicates(void)
{
    char *names[] = {"a", "b", "c", "b", "a"};
    int32_t dup = 0;
    ASSERT_EQ_I(sp_region_names_first_duplicate(names, 5, &dup), 0);
    ASSERT_EQ_I(dup, 3);
    ASSERT_EQ_I(sp_region_names_first_duplicate(names, 3, &dup), 0);
    ASSERT_EQ_I(dup, -1);
    ASSERT_EQ_I(sp_region_names_first_duplicate(names, 0, &dup), 0);
    ASSERT_EQ_I(dup, -1);
}

int main(void)
{
    RUN(test_intern_and_find_many);
    RUN(test_names_set_directly);
    RUN(test_rename);
    RUN(test_remove_keeps_clusters);
    RUN(test_duplicates);
    return sp_test_summary();
}
