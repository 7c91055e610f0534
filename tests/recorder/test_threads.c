/* SPDX-License-Identifier: MIT */
/* test_threads.c - 8 threads x 100,000 calls each, all present in the run and
 * in the file; thread names and ids; states of exited threads; 64 threads
 * starting at once under a small writer soft limit. */
#include <pthread.h>
#include <signal.h>

#include "rec_util.h"
#include "sp_recorder.h"
#include "sp_test.h"

#define NTHREADS 8
#define NCALLS 100000

static sp_region *work_region, *inner_region;

static void *worker(void *arg)
{
    char name[16];
    snprintf(name, sizeof name, "worker%d", (int)(intptr_t)arg);
    pthread_setname_np(pthread_self(), name);
    for (int i = 0; i < NCALLS; i++) {
        sp_region_begin(work_region);
        if (i % 10 == 0) {
            sp_region_begin(inner_region);
            sp_region_end(inner_region);
        }
        sp_region_end(work_region);
    }
    return NULL;
}

static int run_threads(void)
{
    pthread_t t[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        if (pthread_create(&t[i], NULL, worker, (void *)(intptr_t)i) != 0)
            return -1;
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
    return 0;
}

static void check_run(const sp_run *run, size_t inner_per_thread)
{
    const sp_rank_data *rk = &run->ranks[0];
    ASSERT_EQ_U(rk->nthreads, NTHREADS);
    ASSERT_EQ_U(rk->ncalls, NTHREADS * (NCALLS + inner_per_thread));
    int32_t wid = sp_run_region_id(run, "thread_work");
    int32_t iid = sp_run_region_id(run, "thread_inner");
    ASSERT(wid >= 0 && iid >= 0);
    size_t per_thread[NTHREADS] = {0};
    for (size_t i = 0; i < rk->ncalls; i++) {
        ASSERT(rk->thread[i] >= 0 && rk->thread[i] < NTHREADS);
        if (rk->region[i] == wid) {
            per_thread[rk->thread[i]]++;
            ASSERT_EQ_I(rk->parent[i], -1);
        } else {
            int64_t p = rk->parent[i];
            ASSERT(p >= 0 && rk->region[p] == wid && rk->thread[p] == rk->thread[i]);
        }
        ASSERT(rk->end_ns[i] >= rk->start_ns[i]);
    }
    for (int t = 0; t < NTHREADS; t++)
        ASSERT_EQ_U(per_thread[t], NCALLS);
}

static void test_threads_in_memory(void)
{
    rec_clear_env();
    sp_options o = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&o), 0);
    work_region = sp_region_get("thread_work");
    inner_region = sp_region_get("thread_inner");
    ASSERT_EQ_I(run_threads(), 0);
    ASSERT_EQ_U(sp_region_num_calls(work_region), NTHREADS * NCALLS);
    ASSERT_EQ_U(sp_region_num_calls(inner_region), NTHREADS * NCALLS / 10);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    check_run(run, NCALLS / 10);
    const sp_rank_data *rk = &run->ranks[0];
    int seen[NTHREADS] = {0};
    for (size_t t = 0; t < rk->nthreads; t++) {
        int k = -1;
        ASSERT(rk->threads[t].name && sscanf(rk->threads[t].name, "worker%d", &k) == 1);
        ASSERT(k >= 0 && k < NTHREADS && !seen[k]);
        seen[k] = 1;
        ASSERT(rk->threads[t].os_tid > 0 && rk->threads[t].os_tid != getpid());
    }
    ASSERT_STREQ(sp_kvlist_get(&run->meta, "num_threads"), "8");
    sp_run_free(run);
}

static void test_threads_file(void)
{
    rec_clear_env();
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/threads.h5", dir);
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    ASSERT_EQ_I(sp_setup(&o), 0);
    ASSERT_EQ_I(run_threads(), 0);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    check_run(run, NCALLS / 10);
    sp_run_free(run);
    sp_run *back = sp_read_h5(path);
    ASSERT_MSG(back != NULL, "%s", sp_last_error());
    check_run(back, NCALLS / 10);
    sp_run_free(back);
    unlink(path);
    rmdir(dir);
}

/* The writer's soft limit on chunks in use (its pace over a quarter of the
 * flush interval, at least the threads it has seen + 8) must never stop
 * threads for good: 64 threads that start at once all hold a chunk and
 * need another before any of theirs is full, so the writer could free
 * none. The limit is held at 4 here, as a very slow writer would set it
 * (before the fix, such threads waited for each other forever). */
#define MANY 64
#define MANY_CALLS 20000
static pthread_barrier_t many_start;

static void *many_worker(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&many_start);
    for (int i = 0; i < MANY_CALLS; i++) {
        sp_region_begin(work_region);
        sp_region_end(work_region);
    }
    return NULL;
}

static void test_many_threads_small_soft_limit(void)
{
    rec_clear_env();
    const char *dir = rec_tmpdir();
    char path[4200];
    snprintf(path, sizeof path, "%s/many.h5", dir);
    sp_options o = rec_file_options(path);
    o.flush_interval = 0.01; /* the least allowed */
    sp__test_soft_limit_cap(4);
    ASSERT_EQ_I(sp_setup(&o), 0);
    work_region = sp_region_get("many_work");
    rec_record_calls(work_region, 2000000);
    alarm(300); /* a stall fails the test instead of hanging it */
    pthread_barrier_init(&many_start, NULL, MANY);
    pthread_t t[MANY];
    for (int i = 0; i < MANY; i++)
        ASSERT_EQ_I(pthread_create(&t[i], NULL, many_worker, NULL), 0);
    for (int i = 0; i < MANY; i++)
        pthread_join(t[i], NULL);
    pthread_barrier_destroy(&many_start);
    alarm(0);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    sp__test_soft_limit_cap(0);
    ASSERT(run != NULL);
    if (run) {
        ASSERT_EQ_U(rec_count(run, "many_work"), 2000000 + (size_t)MANY * MANY_CALLS);
        ASSERT_EQ_U(run->ranks[0].nthreads, MANY + 1);
    }
    sp_run_free(run);
    unlink(path);
    rmdir(dir);
}

int main(void)
{
    RUN(test_threads_in_memory);
    RUN(test_threads_file);
    RUN(test_many_threads_small_soft_limit);
    return sp_test_summary();
}
