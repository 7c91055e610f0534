/* SPDX-License-Identifier: MIT */
/*
 * check_killed.c - the file a killed kill_record left holds what it must:
 * it reads (our reader, no recovery step), it says it did not finish, every
 * rank has at least the calls of "work" that had ended 1.5 s into the run
 * (the checkpoints kill_record printed), and the calls nest.
 *
 *     check_killed FILE NRANKS CHECKPOINT_0 [CHECKPOINT_1 ...]
 *
 * Prints "check_killed: ok" and exits 0, or prints FAIL lines and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_h5.h"
#include "sp_model.h"

static int bad;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            printf("FAIL: " __VA_ARGS__);                                      \
            printf("\n");                                                      \
            bad = 1;                                                           \
        }                                                                      \
    } while (0)

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: check_killed FILE NRANKS CHECKPOINT...\n");
        return 2;
    }
    int nranks = atoi(argv[2]);
    int st = 0;
    sp_run *run = sp_h5_read(argv[1], &st);
    if (!run) {
        printf("FAIL: %s\n", sp_last_error());
        return 1;
    }
    CHECK(run->schema_version == 2, "schema version %d", run->schema_version);
    CHECK(sp_kvlist_get(&run->meta, "file_state") != NULL, "no file_state: not a killed run?");
    CHECK(sp_kvlist_get(&run->meta, "hostname") != NULL, "the metadata is missing");
    CHECK((int)run->nranks == nranks, "%zu ranks, want %d", run->nranks, nranks);
    int32_t work = sp_run_region_id(run, "work"), inner = sp_run_region_id(run, "inner");
    CHECK(work >= 0 && inner >= 0, "regions work/inner missing");
    for (int r = 0; r < nranks && r < (int)run->nranks && 3 + r < argc; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        long want = atol(argv[3 + r]), got = 0, nested = 0;
        for (size_t i = 0; i < rk->ncalls; i++) {
            got += rk->region[i] == work;
            if (rk->region[i] == inner && rk->parent[i] >= 0 && rk->region[rk->parent[i]] == work)
                nested++;
            CHECK(rk->end_ns[i] >= rk->start_ns[i], "rank %d call %zu ends before it starts", r, i);
        }
        printf("rank %d: %ld calls of work in the file, %ld ended by 1.5 s; %zu calls\n", r, got,
               want, rk->ncalls);
        CHECK(want > 0, "rank %d: the checkpoint says no work was done", r);
        CHECK(got >= want, "rank %d: %ld calls of work, %ld had ended 1 s before the kill", r, got,
              want);
        CHECK(nested >= got - 3, "rank %d: inner not nested in work", r);
    }
    sp_run_free(run);
    printf("check_killed: %s\n", bad ? "FAILED" : "ok");
    return bad;
}
