/* SPDX-License-Identifier: MIT */
/* cli_progress.c - the progress line on stderr (see cli_progress.h). */
#include "cli_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SHOW_AFTER_S 1.0
#define EVERY_S 0.2

static double mono_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void put(const char *s, size_t n)
{
    /* Our own fixed text (never a name from a file), written past the
     * escaping stderr stream: it must move the cursor. */
    while (n) {
        ssize_t k = write(STDERR_FILENO, s, n);
        if (k <= 0)
            return;
        s += k;
        n -= (size_t)k;
    }
}

void sp__progress_init(sp__progress *p, const char *what, const char *unit, uint64_t total)
{
    memset(p, 0, sizeof *p);
    const char *env = getenv("SCOPE_PROFILER_PROGRESS");
    if (env && *env)
        p->enabled = strcmp(env, "0") != 0;
    else
        p->enabled = isatty(STDERR_FILENO) == 1;
    p->t0 = p->last = mono_s();
    p->what = what;
    p->unit = unit;
    p->total = total;
}

/* 1234567 -> "1.2 M" */
static void amount(uint64_t v, char *buf, size_t n)
{
    if (v >= 1000000000)
        snprintf(buf, n, "%.1f G", (double)v * 1e-9);
    else if (v >= 1000000)
        snprintf(buf, n, "%.1f M", (double)v * 1e-6);
    else if (v >= 1000)
        snprintf(buf, n, "%.1f k", (double)v * 1e-3);
    else
        snprintf(buf, n, "%llu", (unsigned long long)v);
}

void sp__progress_set(sp__progress *p, uint64_t done)
{
    p->done = done;
    if (!p->enabled)
        return;
    double now = mono_s();
    if (now - p->t0 < SHOW_AFTER_S || (p->shown && now - p->last < EVERY_S))
        return;
    p->last = now;
    char line[160], a[32], b[32];
    uint64_t d = p->total && done > p->total ? p->total : done;
    amount(d, a, sizeof a);
    amount(p->total, b, sizeof b);
    int n;
    if (p->total)
        n = snprintf(line, sizeof line, "\rscope-profiler: %s: %3.0f %% (%s of %s %s, %.0f s)\033[K",
                     p->what, 100.0 * (double)d / (double)p->total, a, b, p->unit, now - p->t0);
    else
        n = snprintf(line, sizeof line, "\rscope-profiler: %s: %s %s (%.0f s)\033[K", p->what, a,
                     p->unit, now - p->t0);
    if (n > 0)
        put(line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    p->shown = true;
}

void sp__progress_add(sp__progress *p, uint64_t n)
{
    sp__progress_set(p, p->done + n);
}

void sp__progress_end(sp__progress *p)
{
    if (p->shown)
        put("\r\033[K", 4);
    p->shown = false;
}

void sp__progress_pass(void *ud, uint64_t done, uint64_t total)
{
    sp__progress *p = ud;
    p->total = total;
    sp__progress_set(p, done);
    if (total && done >= total)
        sp__progress_end(p);
}

void sp__progress_erase_after(const sp__progress *p)
{
    if (p->enabled && mono_s() - p->t0 >= SHOW_AFTER_S)
        put("\r\033[K", 4);
}
