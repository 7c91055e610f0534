/* SPDX-License-Identifier: MIT */
/*
 * test_setup_threads.c - sp_setup() and sp_finalize() called by several
 * threads at once (issue 22, P7: two setups at once were a heap
 * use-after-free of the file path under ASan and a dozen races under
 * TSan), while other threads record. Each round 4 threads start sessions
 * at the same instant (same file, or a file each, or in memory), then 4
 * threads finalize at once: exactly one finalize finds the session, the
 * others return SP_ESTATE; its file reads back. Rounds where setups and
 * finalizes of two threads interleave freely follow. Memory errors show
 * under ASan, races under TSan (scripts/test-tsan.sh).
 *   SP_SETUP_ROUNDS=n overrides the number of rounds (default 30).
 */
#include <pthread.h>
#include <stdatomic.h>

#include "rec_util.h"
#include "sp_test.h"

#define NTHREADS 4

static pthread_barrier_t barrier;
static sp_region *work;
static const char *dir;
static atomic_int round_no, stop_recorder;
static atomic_int setup_ok, finalize_ok, finalize_estate, other;

/* Round r, thread i: a file shared by all, a file each, or memory only. */
static sp_options options_for(int r, int i, char *path, size_t size)
{
    sp_options o;
    sp_options_init(&o);
    switch (r % 3) {
    case 0:
        snprintf(path, size, "%s/shared.h5", dir);
        o.file_path = path;
        break;
    case 1:
        snprintf(path, size, "%s/own%d.h5", dir, i);
        o.file_path = path;
        break;
    default:
        o.deactivate_file_output = true;
        break;
    }
    return o;
}

static void *setup_thread(void *arg)
{
    int i = (int)(long)arg;
    char path[4200];
    sp_options o = options_for(atomic_load(&round_no), i, path, sizeof path);
    pthread_barrier_wait(&barrier);
    int rc = sp_setup(&o);
    if (rc == 0)
        atomic_fetch_add(&setup_ok, 1);
    else
        atomic_fetch_add(&other, 1);
    for (int k = 0; k < 50; k++) {
        sp_region_begin(work);
        sp_region_end(work);
    }
    return NULL;
}

static void *finalize_thread(void *arg)
{
    (void)arg;
    pthread_barrier_wait(&barrier);
    sp_run *run = NULL;
    int rc = sp_finalize(false, &run);
    if (rc == 0 || rc == SP_EUNBALANCED)
        atomic_fetch_add(&finalize_ok, 1);
    else if (rc == SP_ESTATE)
        atomic_fetch_add(&finalize_estate, 1);
    else
        atomic_fetch_add(&other, 1);
    sp_run_free(run);
    return NULL;
}

/* Records all along: setups and finalizes race a recording thread too. */
static void *recorder(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_recorder)) {
        sp_region_begin(work);
        sp_region_end(work);
    }
    return NULL;
}

/* A thread that sets up then finalizes, over and over (free interleaving). */
static void *cycle_thread(void *arg)
{
    int i = (int)(long)arg;
    char path[4200];
    for (int r = 0; r < 8; r++) {
        sp_options o = options_for(r + i, i, path, sizeof path);
        if (sp_setup(&o) != 0)
            atomic_fetch_add(&other, 1);
        sp_region_begin(work);
        sp_region_end(work);
        int rc = sp_finalize(false, NULL);
        if (rc != 0 && rc != SP_EUNBALANCED && rc != SP_ESTATE)
            atomic_fetch_add(&other, 1);
    }
    return NULL;
}

static void run_threads(void *(*fn)(void *))
{
    pthread_t t[NTHREADS];
    for (long i = 0; i < NTHREADS; i++)
        pthread_create(&t[i], NULL, fn, (void *)i);
    for (int i = 0; i < NTHREADS; i++)
        pthread_join(t[i], NULL);
}

static void test_setup_from_threads(void)
{
    dir = rec_tmpdir();
    work = sp_region_get("setup_race_work");
    int rounds = 30;
    const char *env = getenv("SP_SETUP_ROUNDS");
    if (env && atoi(env) > 0)
        rounds = atoi(env);
    pthread_barrier_init(&barrier, NULL, NTHREADS);
    pthread_t rec;
    ASSERT_EQ_I(pthread_create(&rec, NULL, recorder, NULL), 0);
    for (int r = 0; r < rounds; r++) {
        atomic_store(&round_no, r);
        atomic_store(&setup_ok, 0);
        atomic_store(&finalize_ok, 0);
        atomic_store(&finalize_estate, 0);
        run_threads(setup_thread);
        ASSERT_MSG(atomic_load(&setup_ok) == NTHREADS, "round %d: %d of %d setups succeeded: %s",
                   r, atomic_load(&setup_ok), NTHREADS, sp_last_error());
        run_threads(finalize_thread);
        ASSERT_MSG(atomic_load(&finalize_ok) == 1 && atomic_load(&finalize_estate) == NTHREADS - 1,
                   "round %d: %d finalizes found the session, %d did not", r,
                   atomic_load(&finalize_ok), atomic_load(&finalize_estate));
        if (r % 3 == 0) { /* the one session left wrote the shared file */
            char path[4200];
            snprintf(path, sizeof path, "%s/shared.h5", dir);
            sp_run *back = sp_read_h5(path);
            ASSERT_MSG(back != NULL, "round %d: %s does not read: %s", r, path, sp_last_error());
            sp_run_free(back);
        }
    }
    for (int r = 0; r < rounds / 10 + 1; r++)
        run_threads(cycle_thread);
    atomic_store(&stop_recorder, 1);
    pthread_join(rec, NULL);
    pthread_barrier_destroy(&barrier);
    ASSERT_EQ_I(atomic_load(&other), 0);

    /* Afterwards a quiet session counts exactly. */
    sp_options q = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&q), 0);
    for (int k = 0; k < 10; k++) {
        sp_region_begin(work);
        sp_region_end(work);
    }
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT(run != NULL);
    if (run) {
        ASSERT_EQ_U(rec_count(run, "setup_race_work"), 10);
        sp_run_free(run);
    }
    printf("setup threads: %d rounds of %d setups then %d finalizes at once, %d rounds of free "
           "interleaving\n",
           rounds, NTHREADS, NTHREADS, rounds / 10 + 1);
}

int main(void)
{
    rec_clear_env();
    setvbuf(stdout, NULL, _IOLBF, 0);
    RUN(test_setup_from_threads);
    return sp_test_summary();
}
