/* SPDX-License-Identifier: MIT */
/*
 * Following a run that records (sp_agg_follow): a child process records
 * nested calls with a short flush interval and tells, through a pipe, how
 * many "work" calls it had ended at each moment; the parent refreshes the
 * streaming source and updates the follower a few times while it records:
 * every update holds at least the calls that had ended a flush interval (and
 * a margin) before, counts only grow, and once the run is finished and read
 * again from scratch, a last update over the same part agrees with it.
 */
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "scope_profiler.h"
#include "sp_agg.h"
#include "sp_run_read.h"
#include "sp_test.h"

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The child: record for `secs`, writing (time, work calls ended) lines. */
static void record(const char *path, double secs, int fd)
{
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    o.flush_interval = 0.1;
    if (sp_setup(&o) != 0)
        _exit(3);
    double t0 = now();
    unsigned long long ended = 0;
    volatile double x = 0;
    SP_SCOPE("main") {
        while (now() - t0 < secs) {
            SP_SCOPE("step") {
                for (int i = 0; i < 100; i++) {
                    SP_SCOPE("work") {
                        for (int k = 0; k < 200; k++)
                            x += k * 1e-9;
                    }
                    ended++;
                }
            }
            char line[64];
            int n = snprintf(line, sizeof line, "%.6f %llu\n", now(), ended);
            if (write(fd, line, (size_t)n) < 0)
                _exit(4);
        }
    }
    _exit(sp_finalize(false, NULL) == 0 ? 0 : 5);
}

static uint64_t work_calls(const sp_run *run, const sp_agg *a)
{
    int32_t g = sp_run_region_id(run, "work");
    uint64_t n = 0;
    for (size_t r = 0; g >= 0 && r < a->nranks; r++) {
        const sp_agg_region *x = sp_agg_rank_region(&a->ranks[r], g);
        n += x ? x->calls : 0;
    }
    return n;
}

static void test_follow_a_recording_run(void)
{
    char path[] = "/tmp/sp_test_follow_XXXXXX.h5";
    int tfd = mkstemps(path, 3);
    ASSERT(tfd >= 0);
    close(tfd);
    unlink(path);
    int pfd[2];
    ASSERT(pipe(pfd) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        close(pfd[0]);
        record(path, 3.0, pfd[1]);
    }
    close(pfd[1]);
    FILE *progress = fdopen(pfd[0], "r");
    /* (time, ended) pairs as they come */
    double ts[20000];
    unsigned long long counts[20000];
    size_t np = 0;
    sp_event_source *src = NULL;
    sp_agg_follow *f = NULL;
    uint64_t last = 0;
    int updates = 0;
    char line[128];
    /* The last count is kept apart: a fast machine writes more lines than
     * the arrays hold (only the first ones are needed for the bounds). */
    unsigned long long final_count = 0;
    size_t nlines = 0;
    while (fgets(line, sizeof line, progress)) {
        double t;
        unsigned long long c;
        if (sscanf(line, "%lf %llu", &t, &c) != 2)
            continue;
        final_count = c;
        nlines++;
        if (np < 20000) {
            ts[np] = t;
            counts[np] = c;
            np++;
        }
        if (nlines % 400 != 399)
            continue;
        double when = now();
        int st;
        if (!src) {
            src = sp_run_source_open(path, &st);
            if (!src)
                continue; /* not created yet */
            sp_agg_opts o = {.flags = SP_AGG_LANES};
            ASSERT_EQ_I(sp_agg_follow_new(src, &o, &f), 0);
        } else {
            bool grew;
            ASSERT_MSG(sp_event_source_refresh(src, &grew) == 0, "%s", sp_last_error());
        }
        sp_agg *a = NULL;
        ASSERT_MSG(sp_agg_follow_update(f, &a) == 0, "%s", sp_last_error());
        uint64_t n = work_calls(src->run, a);
        /* every call ended a flush interval + 0.5 s before is there */
        unsigned long long must = 0;
        for (size_t i = 0; i < np; i++)
            if (ts[i] < when - 0.6)
                must = counts[i];
        ASSERT_MSG(n >= must, "update %d: %llu work calls, %llu had ended 0.6 s before", updates,
                   (unsigned long long)n, must);
        ASSERT(n >= last);
        last = n;
        updates++;
        sp_agg_free(a);
    }
    fclose(progress);
    int ws;
    waitpid(pid, &ws, 0);
    ASSERT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
    ASSERT_MSG(updates >= 3, "only %d updates", updates);
    /* The finished file read from scratch holds every call. */
    int st;
    sp_run *run = sp_run_read(path, NULL, NULL, false, &st);
    ASSERT_MSG(run, "%s", sp_last_error());
    ASSERT_EQ_U(work_calls(run, run->agg), final_count);
    ASSERT(work_calls(run, run->agg) >= last);
    sp_run_free(run);
    sp_agg_follow_free(f);
    sp_event_source_free(src);
    unlink(path);
}

int main(void)
{
    RUN(test_follow_a_recording_run);
    return sp_test_summary();
}
