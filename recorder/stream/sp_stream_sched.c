/* SPDX-License-Identifier: MIT */
/*
 * sp_stream_sched.c - how much each recording thread waited for a CPU.
 *
 * Linux accounts, per thread, the time it ran on a CPU and the time it was
 * runnable but waiting for one (/proc/self/task/<tid>/schedstat, fields 1
 * and 2, in ns), and its involuntary context switches (.../status,
 * nonvoluntary_ctxt_switches). The writer thread reads them - the recording
 * threads never do, so the hot path pays nothing - and appends one row per
 * thread to the part's sched/ table (SCHEMA.md "CPU scheduling of the
 * threads"):
 *   - when a session starts, for the thread that calls sp_setup;
 *   - at the first poll that sees a thread recording in the session;
 *   - at every flush and at the end of the session, for every thread.
 * The counts are cumulative since each thread started: a thread's first
 * row is its baseline and readers take differences. A thread that exited
 * has no /proc entry any more: its last row is the last flush before.
 *
 * State guarded by sp__cons.lock, as the consumer's.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_stream_consume.h"

static struct {
    int64_t *seen; /* os tids sampled in this session, sorted */
    size_t nseen, cap_seen;
    int64_t *col[SP_V2_SCHED_COLS]; /* rows not yet in the part */
    size_t n, cap;
} sch;

void sp__sched_reset(void)
{
    free(sch.seen);
    for (int i = 0; i < SP_V2_SCHED_COLS; i++)
        free(sch.col[i]);
    memset(&sch, 0, sizeof sch);
}

/* The file at path into buf (NUL-terminated); its length, or -1. */
static ssize_t read_small(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    size_t n = 0;
    ssize_t k;
    while (n + 1 < size && (k = read(fd, buf + n, size - 1 - n)) > 0)
        n += (size_t)k;
    close(fd);
    buf[n] = '\0';
    return (ssize_t)n;
}

/* One thread's counters; false when the thread is gone (or /proc has
 * neither file): no row then. */
static bool read_counters(int64_t tid, int64_t *cpu, int64_t *wait, int64_t *nivcsw)
{
    char path[64], buf[4096];
    bool any = false;
    *cpu = *wait = *nivcsw = -1;
    snprintf(path, sizeof path, "/proc/self/task/%lld/schedstat", (long long)tid);
    if (read_small(path, buf, sizeof buf) > 0) {
        char *end;
        long long run = strtoll(buf, &end, 10), w = strtoll(end, &end, 10);
        if (end != buf && run >= 0 && w >= 0) {
            *cpu = run;
            *wait = w;
            any = true;
        }
    }
    snprintf(path, sizeof path, "/proc/self/task/%lld/status", (long long)tid);
    static const char key[] = "nonvoluntary_ctxt_switches:";
    const char *p = read_small(path, buf, sizeof buf) > 0 ? strstr(buf, key) : NULL;
    if (p) {
        long long v = strtoll(p + sizeof key - 1, NULL, 10);
        *nivcsw = v >= 0 ? v : -1;
        any = true;
    }
    return any;
}

static bool grow_rows(void)
{
    size_t cap = sch.cap ? 2 * sch.cap : 64;
    for (int i = 0; i < SP_V2_SCHED_COLS; i++) {
        int64_t *p = realloc(sch.col[i], cap * sizeof *p);
        if (!p)
            return false;
        sch.col[i] = p;
    }
    sch.cap = cap;
    return true;
}

static void sample(int64_t tid)
{
    int64_t cpu, wait, nivcsw;
    int64_t t = sp__mono_ns();
    if (!read_counters(tid, &cpu, &wait, &nivcsw) || (sch.n == sch.cap && !grow_rows()))
        return; /* gone, or no memory: a missing sample only coarsens the series */
    int64_t row[SP_V2_SCHED_COLS] = {tid, t, cpu, wait, nivcsw};
    for (int i = 0; i < SP_V2_SCHED_COLS; i++)
        sch.col[i][sch.n] = row[i];
    sch.n++;
}

/* Mark tid sampled; false when it already was (or no memory). */
static bool first_sight(int64_t tid)
{
    size_t lo = 0, hi = sch.nseen;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (sch.seen[mid] < tid)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo < sch.nseen && sch.seen[lo] == tid)
        return false;
    if (sch.nseen == sch.cap_seen) {
        size_t cap = sch.cap_seen ? 2 * sch.cap_seen : 16;
        int64_t *p = realloc(sch.seen, cap * sizeof *p);
        if (!p)
            return false;
        sch.seen = p;
        sch.cap_seen = cap;
    }
    memmove(sch.seen + lo + 1, sch.seen + lo, (sch.nseen - lo) * sizeof *sch.seen);
    sch.seen[lo] = tid;
    sch.nseen++;
    return true;
}

static bool sampling(void) { return sp__cons.active && !sp__cons.memory && sp__cons.part; }

void sp__sched_sample_self(void)
{
    int64_t tid = gettid();
    if (sampling() && first_sight(tid))
        sample(tid);
}

void sp__sched_poll(bool all)
{
    if (!sampling())
        return;
    for (sp__tstate *ts = sp__threads_first(); ts; ts = __atomic_load_n(&ts->next, __ATOMIC_ACQUIRE)) {
        if (__atomic_load_n(&ts->gen, __ATOMIC_ACQUIRE) != sp__cons.gen ||
            __atomic_load_n(&ts->exited, __ATOMIC_ACQUIRE))
            continue;
        if (first_sight(ts->os_tid) || all)
            sample(ts->os_tid);
    }
}

void sp__sched_write(void)
{
    if (!sch.n || !sampling() || sp__cons.err)
        return;
    sp_v2_sched_rows rows = {sch.n, sch.col[0], sch.col[1], sch.col[2], sch.col[3], sch.col[4]};
    int rc = sp_v2_part_append_sched(sp__cons.part, &rows);
    if (rc && !sp__cons.err) {
        sp__cons.err = rc;
        snprintf(sp__cons.errmsg, sizeof sp__cons.errmsg, "%s", sp_last_error());
    }
    sch.n = 0;
}
