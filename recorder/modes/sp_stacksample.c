/* SPDX-License-Identifier: MIT */
/*
 * sp_stacksample.c - call-stack sampling for `scope-profiler run` on a
 * program built without -finstrument-functions.
 *
 * Every thread gets a POSIX timer on its own CPU time (CLOCK_THREAD_CPUTIME_ID,
 * SIGEV_THREAD_ID, SIGPROF): CPU time, so that a sleeping thread is never
 * woken early by a signal (sleep() and nanosleep() return on EINTR). The
 * handler unwinds the interrupted context (libunwind, sp_unwind.c) and appends
 * the stack to the thread's log: mmap'ed 1 MiB chunks (mmap is a system call,
 * safe in a handler), each record holding the sample's CLOCK_MONOTONIC time
 * and only the frames that differ from the previous sample's stack.
 *
 * At finalize the stacks become calls (sp__stacks_collect): frames are
 * resolved to "<module>.<function>" (libdw; inlined functions are calls of
 * their own), system frames dropped unless kept (--all), and each contiguous
 * run of samples in which a function sits at the same position of the stack
 * becomes one call, its parent the call below it. Those regions are flagged
 * "sampled".
 *
 * Where a call starts and ends: between two samples the thread ran for about
 * one period of CPU time, may have waited for a CPU (preempted: an
 * oversubscribed node, a loaded machine), and may have been blocked (sleep,
 * I/O: no CPU time, so no samples). Each sample records the thread's
 * /proc/thread-self/schedstat (time on a CPU + time runnable in the run
 * queue), so the time the thread was running or runnable, a, is known for
 * every gap: the call of the earlier sample ends a/2 after it, the call of
 * the later one starts a/2 before it (meeting in the middle when nothing
 * blocked), and only blocked time is left to the caller they share (a
 * sleep() in main stays main's own time, preemption does not). Without
 * schedstat, a is one sampling period.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_modes.h"
#include "sp_symbolize.h"
#include "sp_unwind.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define MAX_FRAMES 128
#define MAX_PATH (4 * MAX_FRAMES) /* functions per stack, inlined ones included */
#define CHUNK_BYTES ((size_t)1 << 20)
#define TAG_STACKS 0x53544b53 /* "STKS" */

typedef struct chunk {
    struct chunk *next;
    size_t used; /* bytes of data[] used */
    unsigned char data[];
} chunk;

/* A record: header, then nnew frames (root-first). */
typedef struct rec {
    int64_t t_ns;
    int64_t active_ns; /* schedstat: on a CPU + runnable so far, -1 unknown */
    uint16_t keep;     /* frames shared with the previous record's stack */
    uint16_t nnew;
} rec;

struct sp__stack_thread {
    int on;
    timer_t timer;
    bool has_timer;
    int timer_errno; /* why the timer could not be armed, 0 when it was */
    /* The thread's CPU time while sampled (ms): read at its stop on the
     * thread itself, or through its clock at collect while it lives; the
     * warning at finalize tells a short thread from signals that never
     * came (blocked by the program). */
    clockid_t clock;
    bool has_clock;
    double cpu0_ms, cpu_ms; /* cpu_ms < 0 until the thread stops */
    chunk *first, *last;
    uintptr_t prev[MAX_FRAMES]; /* previous stack, root-first */
    int nprev;
    uint64_t samples, lost;
    int sched_fd; /* /proc/thread-self/schedstat, -1 when absent */
    char name[32];
};

static struct {
    int active;
    unsigned hz;
    bool keep_system;
} cfg;

/* A CPU-time clock's reading in ms, or -1. */
static double clock_ms(clockid_t c)
{
    struct timespec t;
    if (clock_gettime(c, &t) != 0)
        return -1;
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

bool sp__stacks_active(void)
{
    return __atomic_load_n(&cfg.active, __ATOMIC_RELAXED);
}

int sp__stacks_start(unsigned hz, bool keep_system)
{
    if (hz == 0 || hz > SP__MAX_LINE_HZ)
        return sp__error(SP_EINVAL, "stack sampling: %u samples per second out of range", hz);
    cfg.hz = hz;
    cfg.keep_system = keep_system;
    sp__unwind_init();
    int rc = sp__prof_signal_install();
    if (rc == 0)
        __atomic_store_n(&cfg.active, 1, __ATOMIC_RELEASE);
    return rc;
}

void sp__stacks_thread_start(void)
{
    if (!sp__stacks_active())
        return;
    sp__mthread *m = sp__mthread_get();
    if (!m || m->stack)
        return;
    sp__stack_thread *s = calloc(1, sizeof *s);
    if (!s)
        return;
    if (pthread_getname_np(pthread_self(), s->name, sizeof s->name) != 0)
        s->name[0] = '\0';
    /* Opened here, on the thread itself: the handler only preads it. */
    s->sched_fd = open("/proc/thread-self/schedstat", O_RDONLY | O_CLOEXEC);
    if (m->os_tid == getpid())
        strcpy(s->name, "main");
    struct sigevent sev;
    memset(&sev, 0, sizeof sev);
    sev.sigev_notify = SIGEV_THREAD_ID;
    sev.sigev_signo = SP__PROF_SIGNAL;
    sev.sigev_value.sival_int = TAG_STACKS;
    sev.sigev_notify_thread_id = (pid_t)m->os_tid;
    s->has_clock = pthread_getcpuclockid(pthread_self(), &s->clock) == 0;
    s->cpu0_ms = clock_ms(CLOCK_THREAD_CPUTIME_ID);
    s->cpu_ms = -1;
    m->stack = s;
    /* timer_create may fail for a while with EAGAIN (the kernel's timer
     * allocation under memory pressure): a few tries, then the failure is
     * kept for the warning at finalize, which would otherwise blame a
     * short program for the missing samples. */
    int rc = -1;
    for (int attempt = 0; attempt < 5; attempt++) {
        rc = timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &s->timer);
        if (rc == 0 || errno != EAGAIN)
            break;
        struct timespec pause = {0, 1000000L << attempt};
        nanosleep(&pause, NULL);
    }
    if (rc != 0) {
        s->timer_errno = errno ? errno : EINVAL;
        return;
    }
    s->has_timer = true;
    long ns = 1000000000L / (long)cfg.hz;
    struct itimerspec it;
    it.it_interval.tv_sec = ns / 1000000000L;
    it.it_interval.tv_nsec = ns % 1000000000L;
    it.it_value = it.it_interval;
    __atomic_store_n(&s->on, 1, __ATOMIC_RELEASE);
    if (timer_settime(s->timer, 0, &it, NULL) != 0) {
        s->timer_errno = errno ? errno : EINVAL;
        __atomic_store_n(&s->on, 0, __ATOMIC_RELEASE);
    }
}

static void thread_stop(sp__stack_thread *s)
{
    __atomic_store_n(&s->on, 0, __ATOMIC_RELEASE);
    if (s->has_timer) {
        timer_delete(s->timer);
        s->has_timer = false;
    }
}

void sp__stacks_thread_stop(void)
{
    sp__mthread *m = sp__mtls;
    if (!m || !m->stack)
        return;
    thread_stop(m->stack);
    double now = clock_ms(CLOCK_THREAD_CPUTIME_ID);
    if (now >= 0 && m->stack->cpu0_ms >= 0)
        m->stack->cpu_ms = now - m->stack->cpu0_ms;
    /* On the thread itself no handler can be reading it any more (they run
     * on this thread, and see `on` cleared): a program starting thousands
     * of threads keeps no descriptor per thread. */
    if (m->stack->sched_fd >= 0) {
        close(m->stack->sched_fd);
        m->stack->sched_fd = -1;
    }
}

/* ---- the handler's part (async-signal-safe: no malloc, no locks) ---- */

static unsigned char *reserve(sp__stack_thread *s, size_t bytes)
{
    chunk *c = s->last;
    if (!c || c->used + bytes > CHUNK_BYTES - sizeof(chunk)) {
        void *p =
            mmap(NULL, CHUNK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        chunk *n = p;
        n->next = NULL;
        n->used = 0;
        if (c)
            c->next = n;
        else
            s->first = n;
        s->last = c = n;
    }
    unsigned char *at = c->data + c->used;
    c->used += bytes;
    return at;
}

/* The thread's time on a CPU plus its time runnable in the run queue
 * (the first two fields of schedstat, ns), or -1. pread and the parsing are
 * async-signal-safe. */
static int64_t active_ns(const sp__stack_thread *s)
{
    char buf[96];
    ssize_t n = s->sched_fd >= 0 ? pread(s->sched_fd, buf, sizeof buf - 1, 0) : -1;
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    int64_t v[2] = {0, 0};
    const char *p = buf;
    for (int k = 0; k < 2; k++) {
        if (*p < '0' || *p > '9')
            return -1;
        while (*p >= '0' && *p <= '9')
            v[k] = 10 * v[k] + (*p++ - '0');
        while (*p == ' ')
            p++;
    }
    return v[0] + v[1];
}

void sp__stacks_on_signal(sp__mthread *m, void *uc)
{
    sp__stack_thread *s = m->stack;
    if (!s || !__atomic_load_n(&s->on, __ATOMIC_ACQUIRE))
        return;
    uintptr_t fr[MAX_FRAMES], root[MAX_FRAMES];
    int n = sp__unwind(uc, fr, MAX_FRAMES);
    for (int i = 0; i < n; i++)
        root[i] = fr[n - 1 - i];
    int keep = 0;
    while (keep < n && keep < s->nprev && root[keep] == s->prev[keep])
        keep++;
    size_t bytes = sizeof(rec) + (size_t)(n - keep) * sizeof(uintptr_t);
    unsigned char *at = reserve(s, bytes);
    if (!at) {
        s->lost++;
        return;
    }
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    rec r = {(int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec, active_ns(s), (uint16_t)keep,
             (uint16_t)(n - keep)};
    memcpy(at, &r, sizeof r);
    memcpy(at + sizeof r, root + keep, (size_t)(n - keep) * sizeof(uintptr_t));
    memcpy(s->prev + keep, root + keep, (size_t)(n - keep) * sizeof(uintptr_t));
    s->nprev = n;
    s->samples++;
}

/* ---- stop, reset ---- */

void sp__stacks_stop_all(void)
{
    if (!sp__stacks_active())
        return;
    for (sp__mthread *m = sp__mthreads_first(); m; m = m->next)
        if (m->stack)
            thread_stop(m->stack);
}

void sp__stacks_reset(sp__mthread *m)
{
    sp__stack_thread *s = m ? m->stack : NULL;
    if (!s)
        return;
    thread_stop(s);
    if (s->sched_fd >= 0) /* here, not in thread_stop: a late handler may still read it */
        close(s->sched_fd);
    for (chunk *c = s->first, *next; c; c = next) {
        next = c->next;
        munmap(c, CHUNK_BYTES);
    }
    free(s);
    m->stack = NULL;
}

/* ---- finalize: stacks to calls ---- */

typedef struct calls {
    int64_t *start, *end, *parent;
    int32_t *region, *thread;
    size_t n, cap;
} calls;

static int calls_push(calls *c, int32_t region, int32_t thread, int64_t start, int64_t parent)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 1024;
        int64_t *s = realloc(c->start, cap * sizeof *s);
        if (s)
            c->start = s;
        int64_t *e = realloc(c->end, cap * sizeof *e);
        if (e)
            c->end = e;
        int64_t *p = realloc(c->parent, cap * sizeof *p);
        if (p)
            c->parent = p;
        int32_t *r = realloc(c->region, cap * sizeof *r);
        if (r)
            c->region = r;
        int32_t *t = realloc(c->thread, cap * sizeof *t);
        if (t)
            c->thread = t;
        if (!s || !e || !p || !r || !t)
            return -1;
        c->cap = cap;
    }
    c->start[c->n] = start;
    c->end[c->n] = start;
    c->parent[c->n] = parent;
    c->region[c->n] = region;
    c->thread[c->n] = thread;
    c->n++;
    return 0;
}

typedef struct synth {
    sp_run *run;
    sp__symbolizer *sym;
    calls *out;
    int32_t thread;
    int64_t half; /* half a sampling period, ns */
    int64_t active_prev; /* the previous sample's schedstat time, -1 unknown */
    int32_t open_region[MAX_PATH];
    size_t open_call[MAX_PATH]; /* index into out */
    int nopen;
    int64_t t_prev;
} synth;

/* The regions of a raw stack (root-first), system frames dropped. Each
 * frame is its real function followed by the functions inlined into it at
 * that address (libdw), so an -O3 kernel inlined into main() is a call of
 * its own under main, as perf and HPCToolkit show it. */
static int path_of(synth *y, const uintptr_t *raw, int n, int32_t *path)
{
    int np = 0;
    for (int i = 0; i < n; i++) {
        /* Every frame but the innermost is a return address: look up the call. */
        const sp__sym *s = sp__symbolize(y->sym, raw[i] - (i < n - 1));
        if (!s)
            return -1;
        const sp__sym *levels[SP__SYM_MAX_LEVELS];
        int nl = 0;
        for (; s && nl < SP__SYM_MAX_LEVELS; s = s->caller)
            levels[nl++] = s;
        while (nl-- > 0 && np < MAX_PATH) { /* outermost first */
            s = levels[nl];
            if (s->self || (!cfg.keep_system && (s->system || strcmp(s->function, "_start") == 0)))
                continue; /* _start: the C runtime's entry, above main */
            char name[512];
            sp__sym_name(s, name, sizeof name);
            int32_t id = sp_run_intern_region(y->run, name);
            if (id < 0)
                return -1;
            path[np++] = id;
        }
    }
    return np;
}

static void close_above(synth *y, int keep, int64_t t)
{
    while (y->nopen > keep)
        y->out->end[y->open_call[--y->nopen]] = t;
}

static int sample(synth *y, int64_t t, int64_t active, const int32_t *path, int np)
{
    /* Half the time the thread ran or waited for a CPU since the previous
     * sample goes to each side (see the top of this file). */
    int64_t half = y->half;
    if (active >= 0 && y->active_prev >= 0 && active >= y->active_prev)
        half = (active - y->active_prev) / 2;
    int64_t e = y->t_prev + half, s = t - half;
    if (y->nopen && e > s) /* nothing blocked in between: meet in the middle */
        e = s = y->t_prev + (t - y->t_prev) / 2;
    y->active_prev = active;
    int c = 0;
    while (c < y->nopen && c < np && y->open_region[c] == path[c])
        c++;
    close_above(y, c, e);
    for (int i = c; i < np; i++) {
        int64_t parent = i ? (int64_t)y->open_call[i - 1] : -1;
        if (calls_push(y->out, path[i], y->thread, s, parent) != 0)
            return -1;
        y->open_region[i] = path[i];
        y->open_call[i] = y->out->n - 1;
    }
    y->nopen = np;
    y->t_prev = t;
    return 0;
}

static int synth_thread(synth *y, const sp__stack_thread *s)
{
    uintptr_t raw[MAX_FRAMES];
    int32_t path[MAX_PATH];
    int nraw = 0;
    for (const chunk *c = s->first; c; c = c->next) {
        for (size_t off = 0; off < c->used;) {
            rec r;
            memcpy(&r, c->data + off, sizeof r);
            off += sizeof r;
            if (r.keep > nraw || r.keep + r.nnew > MAX_FRAMES)
                return 0; /* cannot happen; never trust a log blindly */
            memcpy(raw + r.keep, c->data + off, r.nnew * sizeof(uintptr_t));
            off += r.nnew * sizeof(uintptr_t);
            nraw = r.keep + r.nnew;
            int np = path_of(y, raw, nraw, path);
            if (np < 0 || sample(y, r.t_ns, r.active_ns, path, np) != 0)
                return -1;
        }
    }
    close_above(y, 0, y->t_prev + y->half);
    return 0;
}

static int append_calls(sp_rank_data *rk, const calls *c)
{
    size_t n0 = rk->ncalls, n = n0 + c->n;
#define APPEND(col, src, type)                                                                     \
    do {                                                                                           \
        type *p_ = realloc(rk->col, (n ? n : 1) * sizeof *p_);                                     \
        if (!p_)                                                                                   \
            return -1;                                                                             \
        rk->col = p_;                                                                              \
        memcpy(p_ + n0, (src), c->n * sizeof *p_);                                                 \
    } while (0)
    APPEND(start_ns, c->start, int64_t);
    APPEND(end_ns, c->end, int64_t);
    APPEND(region, c->region, int32_t);
    APPEND(thread, c->thread, int32_t);
    APPEND(parent, c->parent, int64_t);
#undef APPEND
    for (size_t i = n0; i < n; i++)
        if (rk->parent[i] >= 0)
            rk->parent[i] += (int64_t)n0;
    rk->ncalls = n;
    return 0;
}

int sp__stacks_collect(sp_run *run, char *warn, size_t wsize)
{
    if (!sp__stacks_active())
        return 0;
    __atomic_store_n(&cfg.active, 0, __ATOMIC_RELEASE);
    calls out;
    memset(&out, 0, sizeof out);
    uint64_t samples = 0, lost = 0;
    size_t unarmed = 0; /* threads whose timer could not be armed */
    int unarmed_errno = 0;
    /* Threads with no sample in CPU time worth several: CPU-time timers fire
     * at the kernel's tick at best, and less often on a loaded machine (18
     * samples in 300 ms at load 9), so "several" is at least 100 ms. */
    size_t silent = 0;
    double silent_ms = 0;
    double period_ms = 1e3 / (double)cfg.hz;
    double silent_min_ms = 4 * period_ms > 100 ? 4 * period_ms : 100;
    size_t nregions0 = run->nregions;
    sp__symbolizer *sym = sp__symbolizer_new();
    int rc = sym ? 0 : -1;
    for (sp__mthread *m = sp__mthreads_first(); m && rc == 0; m = m->next) {
        sp__stack_thread *s = m->stack;
        if (!s)
            continue;
        samples += s->samples;
        lost += s->lost;
        if (s->timer_errno) {
            unarmed++;
            unarmed_errno = s->timer_errno;
        } else if (s->samples == 0) {
            /* A live thread (main, or one never stopped) through its clock;
             * the clock of a thread gone fails and says nothing. */
            double used = s->cpu_ms;
            if (used < 0 && s->has_clock && s->cpu0_ms >= 0) {
                double now = clock_ms(s->clock);
                used = now >= 0 ? now - s->cpu0_ms : -1;
            }
            if (used >= silent_min_ms) {
                silent++;
                silent_ms += used;
            }
        }
        if (!s->first)
            continue;
        synth y;
        memset(&y, 0, sizeof y);
        y.run = run;
        y.sym = sym;
        y.out = &out;
        y.half = 500000000LL / (int64_t)cfg.hz;
        y.active_prev = -1;
        y.thread = sp__run_thread_index(run, m->os_tid, s->name);
        rc = y.thread < 0 ? -1 : synth_thread(&y, s);
    }
    if (rc == 0 && out.n)
        rc = append_calls(&run->ranks[0], &out);
    if (rc == 0 && out.n)
        rc = sp_rank_sort_calls(&run->ranks[0]) ? -1 : 0;
    /* Regions that exist only through samples. */
    for (size_t i = nregions0; i < run->nregions && rc == 0; i++)
        rc = sp__run_flag_region(run, (int32_t)i, SP_REGION_FLAG_SAMPLED) ? -1 : 0;
    if (rc == 0 && run->ranks[0].dropped && run->nregions > nregions0) {
        uint64_t *d = realloc(run->ranks[0].dropped, run->nregions * sizeof *d);
        if (d) {
            memset(d + nregions0, 0, (run->nregions - nregions0) * sizeof *d);
            run->ranks[0].dropped = d;
        } else {
            rc = -1;
        }
    }
    char v[64];
    if (rc == 0) {
        snprintf(v, sizeof v, "%u", cfg.hz);
        rc = sp__mode_meta(run, "stack_sample_hz", v) ||
                     sp__mode_meta(run, "stack_sampler", "posix timer CLOCK_THREAD_CPUTIME_ID") ||
                     sp__mode_meta(run, "stack_unwinder", sp__unwind_init() ? "libunwind" : "none")
                 ? -1
                 : 0;
        snprintf(v, sizeof v, "%llu", (unsigned long long)samples);
        rc = rc || sp__mode_meta(run, "stack_samples", v) ? -1 : 0;
        snprintf(v, sizeof v, "%llu", (unsigned long long)lost);
        rc = rc || sp__mode_meta(run, "stack_samples_lost", v) ? -1 : 0;
        rc = rc || sp__mode_meta(run, "symbolizer",
                                 sp__symbolizer_has_dwarf(sym) ? "libdw" : "dladdr")
                 ? -1
                 : 0;
        snprintf(v, sizeof v, "%llu", (unsigned long long)sp__symbolizer_inlined(sym));
        rc = rc || sp__mode_meta(run, "stack_inlined_addresses", v) ? -1 : 0;
    }
    size_t n = strlen(warn);
    if (rc == 0 && unarmed)
        snprintf(warn + n, wsize - n,
                 "stack sampling: the CPU-time timer of %zu thread(s) could not be started "
                 "(%s): those threads have no samples",
                 unarmed, strerror(unarmed_errno));
    else if (rc == 0 && silent)
        snprintf(warn + n, wsize - n,
                 "stack sampling: %zu thread(s) got no samples although they used %.0f ms of "
                 "CPU time (%.3g ms per sample): the timer's signals did not arrive (blocked "
                 "or handled by the program?)",
                 silent, silent_ms, period_ms);
    else if (rc == 0 && samples == 0)
        snprintf(warn + n, wsize - n,
                 "stack sampling: no samples (the program used less CPU time than one "
                 "sampling period)");
    else if (rc == 0 && !sp__unwind_init())
        snprintf(warn + n, wsize - n,
                 "stack sampling: libunwind (libunwind.so.8) not found: only the "
                 "interrupted function of each sample is known");
    else if (rc == 0 && lost)
        snprintf(warn + n, wsize - n, "stack sampling: %llu sample(s) lost (out of memory)",
                 (unsigned long long)lost);
    if (rc == 0 && samples)
        sp__symbolizer_note(sym, warn, wsize);
    sp__symbolizer_free(sym);
    free(out.start);
    free(out.end);
    free(out.parent);
    free(out.region);
    free(out.thread);
    if (rc)
        return sp__error(SP_ENOMEM, "sp_finalize: out of memory turning stack samples into calls");
    return 0;
}
