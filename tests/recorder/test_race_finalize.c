/* SPDX-License-Identifier: MIT */
/*
 * test_race_finalize.c - threads that record while sp_finalize() runs, that
 * start while it runs, and that keep recording after it returned while the
 * next sp_setup() starts a new session (OpenMP pools and I/O threads do all
 * of this), and a setup that replaces an unfinalized session while they
 * record. Hundreds of rounds: every finalize returns 0 or SP_EUNBALANCED,
 * every run it hands back analyses (calls nest, end >= start), the file it
 * wrote reads back, and a quiet round afterwards counts exactly. Memory
 * errors show under ASan, races under TSan (scripts/test-tsan.sh).
 *   SP_RACE_ROUNDS=n overrides the number of rounds (default 300).
 */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <time.h>

#include "rec_util.h"
#include "sp_test.h"

#define NWORKERS 4

static sp_region *outer, *inner, *late;
static atomic_int stop_workers, stop_spawner;
static atomic_long spawned;

static void record_some(int n)
{
    for (int i = 0; i < n; i++) {
        sp_region_begin(outer);
        sp_region_begin(inner);
        sp_region_end(inner);
        sp_region_end(outer);
    }
}

/* A worker of the pool: records until told to stop. */
static void *worker(void *arg)
{
    (void)arg;
    /* Short bursts: races at every point of finalize, runs of a size that
     * keeps hundreds of rounds fast (sanitizers included). */
    const struct timespec pause = {0, 20000};
    while (!atomic_load(&stop_workers)) {
        record_some(16);
        nanosleep(&pause, NULL);
    }
    return NULL;
}

/* A short-lived thread (an I/O thread): records a little and exits. */
static void *short_lived(void *arg)
{
    (void)arg;
    sp_region_begin(late);
    record_some(8);
    sp_region_end(late);
    return NULL;
}

/* Creates short-lived threads while the main thread finalizes. */
static void *spawner(void *arg)
{
    (void)arg;
    while (!atomic_load(&stop_spawner)) {
        pthread_t t;
        if (pthread_create(&t, NULL, short_lived, NULL) == 0) {
            pthread_join(t, NULL);
            atomic_fetch_add(&spawned, 1);
        }
    }
    return NULL;
}

/* A run handed back by finalize: every call ends after it starts and its
 * parent (same thread) encloses it. */
static void check_run(const sp_run *run)
{
    const sp_rank_data *rk = &run->ranks[0];
    for (size_t i = 0; i < rk->ncalls; i++) {
        ASSERT(rk->end_ns[i] >= rk->start_ns[i]);
        ASSERT(rk->thread[i] >= 0 && (size_t)rk->thread[i] < rk->nthreads);
        int64_t p = rk->parent[i];
        if (p >= 0) {
            ASSERT((size_t)p < rk->ncalls && rk->thread[p] == rk->thread[i]);
            ASSERT(rk->start_ns[p] <= rk->start_ns[i] && rk->end_ns[i] <= rk->end_ns[p]);
        }
    }
}

static sp_options round_options(const char *dir, int round)
{
    static char path[4200];
    sp_options o;
    sp_options_init(&o);
    /* Alternate: streamed to a file, in memory only, small memory limit
     * under the drop policy (threads switch chunks and drop often). */
    switch (round % 3) {
    case 0:
        snprintf(path, sizeof path, "%s/race%d.h5", dir, round % 4);
        o.file_path = path;
        break;
    case 1:
        o.deactivate_file_output = true;
        break;
    default:
        snprintf(path, sizeof path, "%s/race-drop.h5", dir);
        o.file_path = path;
        o.memory_limit = (size_t)1 << 20; /* the least: 16 chunks */
        o.when_full = SP_FULL_DROP;
        break;
    }
    return o;
}

static void test_race_rounds(void)
{
    const char *dir = rec_tmpdir();
    int rounds = 300;
    const char *env = getenv("SP_RACE_ROUNDS");
    if (env && atoi(env) > 0)
        rounds = atoi(env);
    outer = sp_region_get("race_outer");
    inner = sp_region_get("race_inner");
    late = sp_region_get("race_late");
    ASSERT(outer && inner && late);

    pthread_t w[NWORKERS];
    bool workers_running = false;
    long files = 0, eunbalanced = 0, calls = 0, replaced = 0;
    for (int round = 0; round < rounds; round++) {
        sp_options o = round_options(dir, round);
        /* Even rounds: the previous round's workers still record while
         * this setup starts a new session. */
        int rc = sp_setup(&o);
        ASSERT_MSG(rc == 0, "round %d: setup returned %d: %s", round, rc, sp_last_error());
        if (!workers_running) {
            atomic_store(&stop_workers, 0);
            for (int i = 0; i < NWORKERS; i++)
                ASSERT_EQ_I(pthread_create(&w[i], NULL, worker, NULL), 0);
            workers_running = true;
        }
        atomic_store(&stop_spawner, 0);
        pthread_t sp;
        ASSERT_EQ_I(pthread_create(&sp, NULL, spawner, NULL), 0);
        for (int i = 0; i < round % 7; i++) {
            record_some(16);
            sched_yield();
        }
        if (round % 5 == 2) {
            /* A setup over the unfinalized session while the pool and the
             * spawner record: the old session is discarded under them. */
            rc = sp_setup(&o);
            ASSERT_MSG(rc == 0, "round %d: second setup returned %d: %s", round, rc,
                       sp_last_error());
            replaced++;
            record_some(8);
        }
        sp_run *run = NULL;
        rc = sp_finalize(false, &run);
        ASSERT_MSG(rc == 0 || rc == SP_EUNBALANCED, "round %d: finalize returned %d: %s", round,
                   rc, sp_last_error());
        eunbalanced += rc == SP_EUNBALANCED;
        ASSERT(run != NULL);
        if (run) {
            check_run(run);
            calls += (long)run->ranks[0].ncalls;
            sp_run_free(run);
        }
        if (!o.deactivate_file_output) {
            sp_run *back = sp_read_h5(o.file_path);
            ASSERT_MSG(back != NULL, "round %d: '%s' does not read back: %s", round, o.file_path,
                       sp_last_error());
            if (back) {
                check_run(back);
                sp_run_free(back);
                files++;
            }
        }
        /* Threads keep recording after finalize returned. */
        record_some(4);
        atomic_store(&stop_spawner, 1);
        pthread_join(sp, NULL);
        if (round % 2 == 1) { /* odd rounds: the pool ends with the round */
            atomic_store(&stop_workers, 1);
            for (int i = 0; i < NWORKERS; i++)
                pthread_join(w[i], NULL);
            workers_running = false;
        }
    }
    if (workers_running) {
        atomic_store(&stop_workers, 1);
        for (int i = 0; i < NWORKERS; i++)
            pthread_join(w[i], NULL);
    }
    printf("race: %d rounds, %ld files read back, %ld calls, %ld short-lived threads, "
           "%ld finalize(s) with open calls closed, %ld sessions replaced while recording\n",
           rounds, files, calls, atomic_load(&spawned), eunbalanced, replaced);

    /* After all that, a quiet session still counts exactly. */
    sp_options q = rec_mem_options();
    ASSERT_EQ_I(sp_setup(&q), 0);
    pthread_t t[NWORKERS];
    for (int i = 0; i < NWORKERS; i++)
        ASSERT_EQ_I(pthread_create(&t[i], NULL, short_lived, NULL), 0);
    for (int i = 0; i < NWORKERS; i++)
        pthread_join(t[i], NULL);
    sp_run *run = NULL;
    ASSERT_EQ_I(sp_finalize(false, &run), 0);
    ASSERT(run != NULL);
    if (run) {
        ASSERT_EQ_U(rec_count(run, "race_late"), NWORKERS);
        ASSERT_EQ_U(rec_count(run, "race_outer"), NWORKERS * 8);
        ASSERT_EQ_U(rec_count(run, "race_inner"), NWORKERS * 8);
        ASSERT_EQ_U(sp_region_dropped_calls(outer), 0);
        sp_run_free(run);
    }
}

int main(void)
{
    rec_clear_env();
    setvbuf(stdout, NULL, _IOLBF, 0);
    RUN(test_race_rounds);
    return sp_test_summary();
}
