/* SPDX-License-Identifier: MIT */
/*
 * summary_follow.c - `scope-profiler summary --follow FILE`: the summary of a
 * run while it records, redrawn every interval until the run completes.
 *
 * The first look reads the whole file through the isolated reader (what
 * every verb uses): an in-progress file is a valid run (h5schema/SCHEMA.md).
 * From then on the file is followed in this process: each tick refreshes
 * the event source and replays only the blocks appended since the last one
 * (sp_agg_follow, analysis/sp_agg.h), so a refresh costs what was recorded
 * meanwhile, not the length of the run. When the finished run is renamed
 * over the recording (a new file), it is read once more, whole. On a
 * terminal the screen is cleared and the
 * summary redrawn; otherwise (a pipe, a log) a new summary is printed each
 * time the call count changes. The loop ends when the file says complete,
 * or on Ctrl-C / SIGTERM (exit status 0, the terminal left as it was).
 */
#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "sp_agg.h"
#include "sp_analysis.h"
#include "sp_h5.h"
#include "sp_run_read.h"

static volatile sig_atomic_t stop_requested;

static void on_stop(int sig)
{
    (void)sig;
    stop_requested = 1;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Sleep s seconds unless a stop is requested (the signal interrupts it). */
static void nap(double s)
{
    double end = now_s() + s;
    while (!stop_requested) {
        double left = end - now_s();
        if (left <= 0)
            break;
        struct timespec ts = {(time_t)left, (long)((left - (double)(time_t)left) * 1e9)};
        nanosleep(&ts, NULL); /* EINTR on a signal: the loop checks the flag */
    }
}

/* Our own fixed sequence, written past the escaping stdout filter
 * (cli_output.c), which passes no control sequence from a file. */
static void clear_screen(void)
{
    static const char seq[] = "\033[H\033[2J";
    fflush(stdout);
    ssize_t k = write(STDOUT_FILENO, seq, sizeof seq - 1);
    (void)k;
}

static void clock_text(char *buf, size_t n)
{
    time_t t = time(NULL);
    struct tm tm;
    localtime_r(&t, &tm);
    strftime(buf, n, "%H:%M:%S", &tm);
}

/* A whole read of the file (the isolated reader every verb uses): the
 * first look, and the finished run once it has replaced the recording. */
static sp_run *read_quietly(const char *path)
{
    sp_agg_opts o = {0};
    int status;
    return sp_run_read(path, &o, NULL, sp_h5_isolation_enabled(), &status);
}

/* The recording file, followed in this process: each refresh reads the
 * blocks appended since the last one (sp_agg_follow), never the run again. */
typedef struct follower {
    sp_event_source *src;
    sp_agg_follow *f;
    dev_t dev;
    ino_t ino;
} follower;

static void follower_close(follower *fl)
{
    sp_agg_follow_free(fl->f);
    sp_event_source_free(fl->src);
    memset(fl, 0, sizeof *fl);
}

static int follower_open(follower *fl, const char *path, const struct stat *st)
{
    int rc = 0;
    memset(fl, 0, sizeof *fl);
    fl->src = sp_run_source_open(path, &rc);
    if (!fl->src)
        return rc ? rc : SP_EIO;
    sp_agg_opts o = {0};
    if ((rc = sp_agg_follow_new(fl->src, &o, &fl->f)) != 0) {
        sp_event_source_free(fl->src);
        fl->src = NULL;
        return rc;
    }
    fl->dev = st->st_dev;
    fl->ino = st->st_ino;
    return 0;
}

/* Take in what was appended; the header run of the source then holds the
 * aggregates of everything so far. */
static int follower_update(follower *fl)
{
    bool grew = false;
    int rc = sp_event_source_refresh(fl->src, &grew);
    sp_agg *agg = NULL;
    if (rc == 0)
        rc = sp_agg_follow_update(fl->f, &agg);
    if (rc == 0 && (rc = sp_agg_attach(fl->src->run, agg)) != 0)
        sp_agg_free(agg);
    return rc;
}

/* A file that exists but cannot be read is retried this many times (it may
 * be caught while it is being created or replaced), then reported. */
#define READ_ATTEMPTS 10

/* Print one summary: on a terminal redrawn, else when the calls changed. */
static int show(const char *path, sp_run *run, bool complete, bool tty, double read_s,
                uint64_t *last_calls)
{
    uint64_t calls = sp_run_total_calls(run);
    if (!tty && calls == *last_calls && !complete)
        return SP_CLI_EXIT_OK;
    char when[16];
    clock_text(when, sizeof when);
    if (tty)
        clear_screen();
    else if (*last_calls != UINT64_MAX)
        putchar('\n');
    printf("following %s: %s, %llu calls, updated %s (read in %.3f s)%s\n", path,
           complete ? "run complete" : "in progress", (unsigned long long)calls, when, read_s,
           complete || !tty ? "" : "; Ctrl-C to stop");
    if (sp_print_summary(run, path, stdout) != 0) {
        sp__cli_error("%s", sp_last_error());
        return SP_CLI_EXIT_FAILURE;
    }
    *last_calls = calls;
    return sp__cli_finish_output(SP_CLI_EXIT_OK);
}

int sp__summary_follow(const char *path, double interval)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_stop; /* no SA_RESTART: the nap wakes up */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    const bool tty = isatty(STDOUT_FILENO);
    uint64_t last_calls = UINT64_MAX;
    int failures = 0;
    bool said_waiting = false;
    int status = SP_CLI_EXIT_OK;
    char when[16];
    follower fl = {0};
    while (!stop_requested) {
        struct stat st;
        if (stat(path, &st) != 0) {
            if (errno != ENOENT) {
                sp__cli_error("cannot follow '%s': %s", path, strerror(errno));
                follower_close(&fl);
                return SP_CLI_EXIT_USAGE;
            }
            if (tty) {
                clear_screen();
                clock_text(when, sizeof when);
                printf("waiting for %s to appear… (%s; Ctrl-C to stop)\n", path, when);
                fflush(stdout);
            } else if (!said_waiting) {
                fprintf(stderr, "%s: waiting for %s to appear…\n", SP_CLI_NAME, path);
            }
            said_waiting = true;
            nap(interval);
            continue;
        }
        /* The finished run is renamed over the recording: read it once. */
        if (fl.src && (st.st_dev != fl.dev || st.st_ino != fl.ino))
            follower_close(&fl);
        double t0 = now_s();
        sp_run *whole = NULL;
        int rc = 0;
        if (fl.src) {
            rc = follower_update(&fl);
        } else {
            whole = read_quietly(path);
            rc = whole ? 0 : SP_EIO;
        }
        double read_s = now_s() - t0;
        if (stop_requested) { /* Ctrl-C also reaches the reading child */
            sp_run_free(whole);
            break;
        }
        if (rc) {
            if (++failures >= READ_ATTEMPTS) {
                const char *why = sp_last_error();
                sp__cli_error("cannot read '%s': %s", path, *why ? why : "unknown error");
                sp_run_free(whole);
                follower_close(&fl);
                return SP_CLI_EXIT_USAGE;
            }
            sp_run_free(whole);
            follower_close(&fl);
            nap(interval);
            continue;
        }
        failures = 0;
        sp_run *run = whole ? whole : fl.src->run;
        bool complete = whole ? sp_kvlist_get(&whole->meta, "file_state") == NULL
                              : fl.src->complete;
        status = show(path, run, complete, tty, read_s, &last_calls);
        /* Still recording: follow it in this process from now on (the
         * whole read above showed the file reads safely). */
        if (status == SP_CLI_EXIT_OK && whole && !complete && follower_open(&fl, path, &st) == 0 &&
            follower_update(&fl) != 0)
            follower_close(&fl);
        sp_run_free(whole);
        if (status != SP_CLI_EXIT_OK || complete) {
            follower_close(&fl);
            return status;
        }
        nap(interval);
    }
    follower_close(&fl);
    fprintf(stderr, "%s: stopped following %s\n", SP_CLI_NAME, path);
    return sp__cli_finish_output(SP_CLI_EXIT_OK);
}
