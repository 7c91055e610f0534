/* SPDX-License-Identifier: MIT */
/*
 * summary_follow.c - `scope-profiler summary --follow FILE`: the summary of a
 * run while it records, redrawn every interval until the run completes.
 *
 * Each tick re-reads the whole file through the isolated reader (what every
 * verb uses): an in-progress file is a valid run (h5schema/SCHEMA.md) and a
 * re-read of a run of a few 100k calls takes a fraction of a second, so no
 * incremental reader is needed. On a terminal the screen is cleared and the
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
#include "sp_analysis.h"
#include "sp_h5.h"

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

static sp_run *read_quietly(const char *path)
{
    sp_run *run = sp_h5_isolation_enabled() ? sp_h5_read_isolated(path, NULL, NULL)
                                            : sp_h5_read(path, NULL);
    if (run && sp_run_analyze(run) != 0) {
        sp_run_free(run);
        run = NULL;
    }
    return run;
}

static uint64_t total_calls(const sp_run *run)
{
    uint64_t n = 0;
    for (size_t k = 0; k < run->nranks; k++)
        n += run->ranks[k].ncalls;
    return n;
}

/* A file that exists but cannot be read is retried this many times (it may
 * be caught while it is being created or replaced), then reported. */
#define READ_ATTEMPTS 10

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
    while (!stop_requested) {
        struct stat st;
        if (stat(path, &st) != 0) {
            if (errno != ENOENT) {
                sp__cli_error("cannot follow '%s': %s", path, strerror(errno));
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
        double t0 = now_s();
        sp_run *run = read_quietly(path);
        double read_s = now_s() - t0;
        if (stop_requested) { /* Ctrl-C also reaches the reading child */
            sp_run_free(run);
            break;
        }
        if (!run) {
            if (++failures >= READ_ATTEMPTS) {
                const char *why = sp_last_error();
                sp__cli_error("cannot read '%s': %s", path, *why ? why : "unknown error");
                return SP_CLI_EXIT_USAGE;
            }
            nap(interval);
            continue;
        }
        failures = 0;
        uint64_t calls = total_calls(run);
        bool complete = sp_kvlist_get(&run->meta, "file_state") == NULL;
        clock_text(when, sizeof when);
        if (tty || calls != last_calls || complete) {
            if (tty)
                clear_screen();
            else if (last_calls != UINT64_MAX)
                putchar('\n');
            printf("following %s: %s, %llu calls, updated %s (read in %.2f s)%s\n", path,
                   complete ? "run complete" : "in progress", (unsigned long long)calls, when,
                   read_s, complete || !tty ? "" : "; Ctrl-C to stop");
            if (sp_print_summary(run, path, stdout) != 0) {
                sp__cli_error("%s", sp_last_error());
                sp_run_free(run);
                return SP_CLI_EXIT_FAILURE;
            }
            if ((status = sp__cli_finish_output(SP_CLI_EXIT_OK)) != SP_CLI_EXIT_OK) {
                sp_run_free(run);
                return status;
            }
            last_calls = calls;
        }
        sp_run_free(run);
        if (complete)
            return SP_CLI_EXIT_OK;
        nap(interval);
    }
    fprintf(stderr, "%s: stopped following %s\n", SP_CLI_NAME, path);
    return sp__cli_finish_output(SP_CLI_EXIT_OK);
}
