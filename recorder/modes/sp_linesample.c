/* SPDX-License-Identifier: MIT */
/*
 * sp_linesample.c - line-level sampling (use_line_profiler).
 *
 * While a region is open on a thread (its first open region starts the
 * sampler, its last close stops it), the thread is interrupted about line_hz
 * times per second of CPU time by SIGPROF, from either
 *
 *   perf:  a perf_event software cpu-clock counter of the thread, sampling
 *          PERF_SAMPLE_IP | PERF_SAMPLE_TID into a small mmap ring buffer,
 *          with a signal per sample (F_SETSIG SIGPROF, owner = the thread);
 *          the handler drains the ring (allowed where
 *          /proc/sys/kernel/perf_event_paranoid <= 2, or for root);
 *   timer: a POSIX timer on CLOCK_THREAD_CPUTIME_ID delivering SIGPROF to the
 *          thread (SIGEV_THREAD_ID).
 *
 * Switching a sampler on and off costs system calls (a perf ioctl is several
 * microseconds in a VM), so only a thread's first region switches it on; it
 * is switched off lazily, by the first sample that finds no region open on
 * the thread (from the handler: ioctl and timer_settime are system calls).
 * A loop of short regions thus pays nothing per call, and idle time costs at
 * most one sample.
 *
 * The handler runs on the sampled thread, so the region the sample belongs to
 * is simply the thread's innermost open region (its own small stack, kept by
 * sp__lines_begin/end). It adds the
 * sample's instruction pointer and a few return addresses (libunwind; to
 * attribute a sample inside libm or libc to the user's line that called it)
 * to a fixed-size per-thread table keyed by (region, addresses): no
 * allocation, no locks, bounded memory. At finalize every entry is resolved
 * to file:line:function with libdw (sp_symbolize.c) and summed per region.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_modes.h"
#include "sp_symbolize.h"
#include "sp_unwind.h"

#ifndef sigev_notify_thread_id
#define sigev_notify_thread_id _sigev_un._tid
#endif

#define LINE_FRAMES 4        /* IP + return addresses kept per sample */
#define TABLE_SLOTS 8192u    /* per thread; 3/4 may be used */
#define RING_PAGES 8         /* data pages of the perf ring (power of 2) */
#define TAG_LINES 0x4c494e45 /* sigev value of the line timer ("LINE") */

typedef struct lent {
    uint64_t count; /* 0 = empty */
    uint32_t region;
    uint32_t nframes;
    uintptr_t frames[LINE_FRAMES];
} lent;

#define LINE_STACK 64 /* innermost open regions remembered per thread */

struct sp__lines_thread {
    int depth;   /* regions open on the thread */
    uint32_t stack[LINE_STACK]; /* their registry ids, by depth (the deepest
                                   LINE_STACK - 1 share the last slot) */
    int on;      /* sampler running (the handler records only then) */
    int backend; /* SP__LINES_PERF or SP__LINES_TIMER */
    int fd;
    void *ring;
    size_t ring_bytes;
    timer_t timer;
    bool has_timer;
    lent *table;
    uint32_t used;
    uint64_t samples, lost_full, lost_ring, outside;
    int64_t cpu_t0, cpu_ns; /* CPU time while sampling: the effective period */
};

static int64_t thread_cpu_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static long page_size;

/* ---- setup ---- */

static int perf_open_thread(unsigned hz)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_SOFTWARE;
    a.config = PERF_COUNT_SW_CPU_CLOCK;
    a.sample_period = 1000000000ull / hz; /* cpu-clock counts ns */
    a.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID;
    a.disabled = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.wakeup_events = 1; /* a signal per sample: the handler sees the region */
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
}

static int read_paranoid(void)
{
    FILE *f = fopen("/proc/sys/kernel/perf_event_paranoid", "r");
    int v = 2;
    if (f) {
        if (fscanf(f, "%d", &v) != 1)
            v = 2;
        fclose(f);
    }
    return v;
}

int sp__lines_prepare(sp__mode_plan *plan)
{
    page_size = sysconf(_SC_PAGESIZE);
    const char *force = getenv("SCOPE_PROFILER_LINE_SAMPLER");
    if (force && *force && strcmp(force, "perf") != 0 && strcmp(force, "timer") != 0)
        return sp__error(SP_EINVAL, "SCOPE_PROFILER_LINE_SAMPLER='%s': expected perf or timer",
                         force);
    int backend = SP__LINES_TIMER;
    if (!force || !*force || strcmp(force, "perf") == 0) {
        /* Above 2 (Debian's 3), unprivileged processes may not use perf. */
        int paranoid = read_paranoid();
        int fd = paranoid <= 2 || geteuid() == 0 ? perf_open_thread(plan->line_hz) : -1;
        if (fd >= 0) {
            close(fd);
            backend = SP__LINES_PERF;
        } else if (force && *force) {
            return sp__error(SP_ENOTSUP,
                             "SCOPE_PROFILER_LINE_SAMPLER=perf: perf_event_open failed (%s; "
                             "perf_event_paranoid=%d)",
                             fd < 0 ? strerror(errno) : "not allowed", paranoid);
        }
    }
    plan->line_backend = backend;
    sp__unwind_init();
    return sp__prof_signal_install();
}

static sp__lines_thread *thread_init(sp__mthread *m)
{
    sp__lines_thread *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->fd = -1;
    l->table = calloc(TABLE_SLOTS, sizeof *l->table);
    if (!l->table) {
        free(l);
        return NULL;
    }
    l->backend = sp__mode_cur.line_backend;
    if (l->backend == SP__LINES_PERF) {
        l->fd = perf_open_thread(sp__mode_cur.line_hz);
        l->ring_bytes = (size_t)(1 + RING_PAGES) * (size_t)page_size;
        l->ring = l->fd >= 0
                      ? mmap(NULL, l->ring_bytes, PROT_READ | PROT_WRITE, MAP_SHARED, l->fd, 0)
                      : MAP_FAILED;
        struct f_owner_ex owner = {F_OWNER_TID, (pid_t)m->os_tid};
        if (l->ring == MAP_FAILED || fcntl(l->fd, F_SETOWN_EX, &owner) != 0 ||
            fcntl(l->fd, F_SETSIG, SP__PROF_SIGNAL) != 0 ||
            fcntl(l->fd, F_SETFL, O_ASYNC | O_NONBLOCK) != 0) {
            /* This thread cannot use perf: fall back to the timer. */
            if (l->ring != MAP_FAILED && l->ring)
                munmap(l->ring, l->ring_bytes);
            if (l->fd >= 0)
                close(l->fd);
            l->ring = NULL;
            l->fd = -1;
            l->backend = SP__LINES_TIMER;
        }
    }
    if (l->backend == SP__LINES_TIMER) {
        struct sigevent sev;
        memset(&sev, 0, sizeof sev);
        sev.sigev_notify = SIGEV_THREAD_ID;
        sev.sigev_signo = SP__PROF_SIGNAL;
        sev.sigev_value.sival_int = TAG_LINES;
        sev.sigev_notify_thread_id = (pid_t)m->os_tid;
        l->has_timer = timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &l->timer) == 0;
    }
    m->lines = l;
    return l;
}

/* on/off for the calling thread (its CPU clock is read); stop_all and
 * thread_exit use disarm() from other threads' or exit context. */
static void disarm(sp__lines_thread *l);

static void arm(sp__lines_thread *l, bool on)
{
    if (!on) {
        l->cpu_ns += thread_cpu_ns() - l->cpu_t0;
        disarm(l);
        return;
    }
    l->cpu_t0 = thread_cpu_ns();
    __atomic_store_n(&l->on, 1, __ATOMIC_RELAXED);
    if (l->backend == SP__LINES_PERF) {
        ioctl(l->fd, PERF_EVENT_IOC_ENABLE, 0);
    } else if (l->has_timer) {
        long ns = 1000000000L / (long)sp__mode_cur.line_hz;
        struct itimerspec it;
        it.it_interval.tv_sec = ns / 1000000000L;
        it.it_interval.tv_nsec = ns % 1000000000L;
        it.it_value = it.it_interval;
        timer_settime(l->timer, 0, &it, NULL);
    }
}

static void disarm(sp__lines_thread *l)
{
    __atomic_store_n(&l->on, 0, __ATOMIC_RELAXED);
    if (l->backend == SP__LINES_PERF) {
        ioctl(l->fd, PERF_EVENT_IOC_DISABLE, 0);
    } else if (l->has_timer) {
        struct itimerspec it;
        memset(&it, 0, sizeof it);
        timer_settime(l->timer, 0, &it, NULL);
    }
}

/* ---- the hot path ---- */

static __attribute__((noinline, cold)) sp__lines_thread *lines_slow(void)
{
    sp__mthread *m = sp__mthread_get();
    if (!m)
        return NULL;
    return m->lines ? m->lines : thread_init(m);
}

void sp__lines_begin(sp_region *r)
{
    sp__mthread *m = sp__mtls;
    sp__lines_thread *l;
    if (__builtin_expect(m && m->gen == sp__mode_gen && m->lines, 1))
        l = m->lines;
    else if (!(l = lines_slow()))
        return;
    /* The handler reads depth on this same thread: a plain store is enough,
     * the compiler barrier keeps it before the arming below. */
    int d = l->depth;
    l->stack[d < LINE_STACK ? d : LINE_STACK - 1] = r->id;
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    __atomic_store_n(&l->depth, d + 1, __ATOMIC_RELAXED);
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (!__atomic_load_n(&l->on, __ATOMIC_RELAXED))
        arm(l, true);
}

void sp__lines_end(sp_region *r)
{
    (void)r; /* regions nest: the innermost one ends */
    sp__mthread *m = sp__mtls;
    if (!m || m->gen != sp__mode_gen || !m->lines)
        return;
    sp__lines_thread *l = m->lines;
    if (l->depth > 0) /* switched off by the next sample outside (lazily) */
        __atomic_store_n(&l->depth, l->depth - 1, __ATOMIC_RELAXED);
}

/* From the handler: a sample found no region open on the thread. */
static void off_from_handler(sp__lines_thread *l)
{
    l->outside++;
    l->cpu_ns += thread_cpu_ns() - l->cpu_t0; /* clock_gettime: async-signal-safe */
    disarm(l);
}

/* ---- the signal handler's part (async-signal-safe) ---- */

static void table_add(sp__lines_thread *l, uint32_t region, const uintptr_t *fr, uint32_t n)
{
    uint64_t h = region * UINT64_C(0x9E3779B97F4A7C15);
    for (uint32_t i = 0; i < n; i++)
        h = (h ^ fr[i]) * UINT64_C(0x100000001B3);
    for (uint32_t j = (uint32_t)(h >> 20) & (TABLE_SLOTS - 1);; j = (j + 1) & (TABLE_SLOTS - 1)) {
        lent *e = &l->table[j];
        if (e->count == 0) {
            if (4 * (l->used + 1) > 3 * TABLE_SLOTS) {
                l->lost_full++;
                return;
            }
            e->region = region;
            e->nframes = n;
            memcpy(e->frames, fr, n * sizeof *fr);
            e->count = 1;
            l->used++;
            return;
        }
        if (e->region == region && e->nframes == n && memcmp(e->frames, fr, n * sizeof *fr) == 0) {
            e->count++;
            return;
        }
    }
}

/* The innermost open call of the interrupted thread names the region; with
 * none open the sampler is switched off. */
static bool current_region(sp__lines_thread *l, uint32_t *region)
{
    int d = __atomic_load_n(&l->depth, __ATOMIC_RELAXED);
    if (d == 0) {
        if (__atomic_load_n(&l->on, __ATOMIC_RELAXED))
            off_from_handler(l);
        return false;
    }
    *region = l->stack[d - 1 < LINE_STACK ? d - 1 : LINE_STACK - 1];
    return true;
}

static void on_timer_sample(sp__lines_thread *l, void *uc)
{
    uint32_t region;
    if (!current_region(l, &region))
        return;
    uintptr_t fr[LINE_FRAMES];
    int n = sp__unwind(uc, fr, LINE_FRAMES);
    if (n > 0) {
        l->samples++;
        table_add(l, region, fr, (uint32_t)n);
    }
}

/* Copy len bytes at offset off of the ring's data area (it wraps). */
static void ring_copy(const sp__lines_thread *l, uint64_t off, void *dst, size_t len)
{
    const char *data = (const char *)l->ring + page_size;
    size_t size = (size_t)RING_PAGES * (size_t)page_size;
    size_t at = (size_t)(off % size);
    size_t first = len < size - at ? len : size - at;
    memcpy(dst, data + at, first);
    memcpy((char *)dst + first, data, len - first);
}

static void on_perf_samples(sp__lines_thread *l, void *uc)
{
    struct perf_event_mmap_page *pg = l->ring;
    uint64_t head = __atomic_load_n(&pg->data_head, __ATOMIC_ACQUIRE);
    uint64_t tail = pg->data_tail;
    uintptr_t ucip = sp__ucontext_ip(uc);
    while (tail < head) {
        struct perf_event_header h;
        ring_copy(l, tail, &h, sizeof h);
        if (h.size < sizeof h)
            break;
        if (h.type == PERF_RECORD_SAMPLE) {
            uint64_t ip = 0;
            ring_copy(l, tail + sizeof h, &ip, sizeof ip);
            uint32_t region;
            if (current_region(l, &region)) {
                uintptr_t fr[LINE_FRAMES];
                int n = 1;
                fr[0] = (uintptr_t)ip;
                /* The callers are known when the signal interrupted the
                 * sampled instruction itself (the usual case). */
                if (ip == ucip && (n = sp__unwind(uc, fr, LINE_FRAMES)) < 1) {
                    fr[0] = (uintptr_t)ip;
                    n = 1;
                }
                l->samples++;
                table_add(l, region, fr, (uint32_t)n);
            }
        } else if (h.type == PERF_RECORD_LOST) {
            uint64_t lost[2] = {0, 0}; /* id, lost */
            ring_copy(l, tail + sizeof h, lost, sizeof lost);
            l->lost_ring += lost[1];
        }
        tail += h.size;
    }
    __atomic_store_n(&pg->data_tail, tail, __ATOMIC_RELEASE);
}

static void on_prof_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    int saved = errno;
    sp__mthread *m = sp__mtls;
    if (!m)
        goto out;
    if (si->si_code == SI_TIMER && si->si_value.sival_int != TAG_LINES) {
        sp__stacks_on_signal(m, uc);
        goto out;
    }
    sp__lines_thread *l = m->lines;
    if (!l || !__atomic_load_n(&l->on, __ATOMIC_RELAXED))
        goto out;
    if (l->backend == SP__LINES_PERF && si->si_code != SI_TIMER)
        on_perf_samples(l, uc);
    else if (si->si_code == SI_TIMER)
        on_timer_sample(l, uc);
out:
    errno = saved;
}

int sp__prof_signal_install(void)
{
    static int installed;
    pthread_mutex_lock(&sp__lock);
    int rc = 0;
    if (!installed) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_sigaction = on_prof_signal;
        sa.sa_flags = SA_SIGINFO | SA_RESTART;
        sigemptyset(&sa.sa_mask);
        if (sigaction(SP__PROF_SIGNAL, &sa, NULL) == 0)
            installed = 1;
        else
            rc = sp__error(SP_ENOTSUP, "cannot install the SIGPROF handler: %s", strerror(errno));
    }
    pthread_mutex_unlock(&sp__lock);
    return rc;
}

/* ---- stopping ---- */

void sp__lines_thread_exit(sp__mthread *m)
{
    sp__lines_thread *l = m->lines;
    if (!l)
        return;
    if (l->on)
        arm(l, false);  /* the exiting thread itself: its CPU clock still reads */
    if (l->has_timer) { /* its target thread is gone */
        timer_delete(l->timer);
        l->has_timer = false;
    }
}

void sp__lines_stop_all(void)
{
    for (sp__mthread *m = sp__mthreads_first(); m; m = m->next)
        if (m->lines && m->lines->on) {
            if (m->os_tid == gettid())
                arm(m->lines, false); /* this thread: its CPU time still reads */
            else
                disarm(m->lines); /* another: the CPU time since arming is lost */
        }
}

void sp__lines_reset(sp__mthread *m)
{
    sp__lines_thread *l = m->lines;
    if (!l)
        return;
    if (l->has_timer)
        timer_delete(l->timer);
    if (l->ring)
        munmap(l->ring, l->ring_bytes);
    if (l->fd >= 0)
        close(l->fd);
    free(l->table);
    free(l);
    m->lines = NULL;
}

/* ---- finalize: samples to (region, file, line, function) rows ---- */

typedef struct row {
    int32_t region;
    const char *file, *function;
    int line;
    uint64_t samples;
    double time_ns;
} row;

typedef struct rows {
    row *v;
    size_t n, cap;
} rows;

static int rows_add(rows *rs, int32_t region, const sp__sym *s, uint64_t count, double period)
{
    const char *file = s->file ? s->file : "";
    int line = s->file ? s->line : 0;
    for (size_t i = 0; i < rs->n; i++) { /* few distinct lines: linear is fine */
        row *r = &rs->v[i];
        if (r->region == region && r->line == line && strcmp(r->file, file) == 0 &&
            strcmp(r->function, s->function) == 0) {
            r->samples += count;
            r->time_ns += (double)count * period;
            return 0;
        }
    }
    if (rs->n == rs->cap) {
        size_t cap = rs->cap ? 2 * rs->cap : 64;
        row *v = realloc(rs->v, cap * sizeof *v);
        if (!v)
            return SP_ENOMEM;
        rs->v = v;
        rs->cap = cap;
    }
    rs->v[rs->n++] = (row){region, file, s->function, line, count, (double)count * period};
    return 0;
}

/* The function a sample is charged to: the innermost one in user code (not
 * the system's libraries or headers, not scope-profiler), else the
 * interrupted one. Inlined functions count as functions: a sample in a
 * kernel inlined into main() is the kernel's line, and one in a std::vector
 * operator[] inlined into it is the kernel's line that calls it. Return
 * addresses point after the call: look up the call itself. */
static const sp__sym *attribute(sp__symbolizer *sym, const lent *e)
{
    const sp__sym *first = NULL;
    for (uint32_t i = 0; i < e->nframes; i++) {
        const sp__sym *s = sp__symbolize(sym, e->frames[i] - (i > 0));
        if (!s)
            return NULL;
        if (!first)
            first = s;
        for (; s; s = s->caller)
            if (!s->system && !s->self)
                return s;
    }
    return first;
}

static int row_order(const void *pa, const void *pb)
{
    const row *a = pa, *b = pb;
    if (a->region != b->region)
        return a->region < b->region ? -1 : 1;
    int c = strcmp(a->file, b->file);
    if (c)
        return c;
    if (a->line != b->line)
        return a->line < b->line ? -1 : 1;
    return strcmp(a->function, b->function);
}

static int store_rows(sp_rank_data *rk, const rows *rs)
{
    for (size_t i = 0; i < rs->n; i++) {
        const row *r = &rs->v[i];
        int rc = sp__rank_add_line(rk, r->region, r->file, r->line, r->function, r->samples,
                                   (int64_t)(r->time_ns + 0.5));
        if (rc)
            return rc;
    }
    return 0;
}

int sp__lines_collect(sp_run *run, char *warn, size_t wsize)
{
    if (!(sp__mode_cur.flags & SP__MODE_LINES))
        return 0;
    uint64_t samples = 0, lost = 0, outside = 0;
    int64_t cpu_ns = 0;
    int backend_used = 0;
    rows rs = {NULL, 0, 0};
    sp__symbolizer *sym = NULL;
    int32_t *run_id = NULL;
    uint32_t nreg = sp__registry_count();
    int rc = SP_ENOMEM;
    if (!(sym = sp__symbolizer_new()) || !(run_id = sp__run_ids_by_registry(run)))
        goto done;
    for (sp__mthread *m = sp__mthreads_first(); m; m = m->next) {
        sp__lines_thread *l = m->lines;
        if (!l)
            continue;
        backend_used |= l->backend;
        samples += l->samples;
        cpu_ns += l->cpu_ns;
        /* The estimated time of a sample: the thread's CPU time while sampled
         * over its samples (POSIX CPU timers tick at the kernel's HZ at most,
         * so the requested rate is not always the real one). */
        uint64_t taken = l->samples + l->outside;
        double period =
            taken && l->cpu_ns > 0 ? (double)l->cpu_ns / (double)taken : 1e9 / sp__mode_cur.line_hz;
        lost += l->lost_full + l->lost_ring;
        outside += l->outside;
        for (uint32_t j = 0; j < TABLE_SLOTS; j++) {
            const lent *e = &l->table[j];
            if (!e->count || e->region >= nreg || run_id[e->region] < 0)
                continue;
            const sp__sym *s = attribute(sym, e);
            if (!s || rows_add(&rs, run_id[e->region], s, e->count, period) != 0)
                goto done;
        }
    }
    if (rs.n > 1)
        qsort(rs.v, rs.n, sizeof *rs.v, row_order);
    if (store_rows(&run->ranks[0], &rs) != 0)
        goto done;
    char v[128];
    const char *backend =
        backend_used == (SP__LINES_PERF | SP__LINES_TIMER) ? "perf_event cpu-clock + posix timer"
        : backend_used == SP__LINES_TIMER                  ? "posix timer CLOCK_THREAD_CPUTIME_ID"
        : sp__mode_cur.line_backend == SP__LINES_TIMER     ? "posix timer CLOCK_THREAD_CPUTIME_ID"
                                                           : "perf_event cpu-clock";
    rc = SP_ENOMEM;
    if (sp__mode_meta(run, "line_sampler", backend))
        goto done;
    snprintf(v, sizeof v, "%u", sp__mode_cur.line_hz);
    if (sp__mode_meta(run, "line_sample_hz", v))
        goto done;
    if (samples && cpu_ns > 0) {
        snprintf(v, sizeof v, "%.1f", (double)samples / ((double)cpu_ns * 1e-9));
        if (sp__mode_meta(run, "line_sample_hz_effective", v))
            goto done;
    }
    snprintf(v, sizeof v, "%llu", (unsigned long long)samples);
    if (sp__mode_meta(run, "line_samples", v))
        goto done;
    snprintf(v, sizeof v, "%llu", (unsigned long long)lost);
    if (sp__mode_meta(run, "line_samples_lost", v))
        goto done;
    if (sp__mode_meta(run, "line_unwinder", sp__unwind_init() ? "libunwind" : "none"))
        goto done;
    if (sp__mode_meta(run, "symbolizer", sp__symbolizer_has_dwarf(sym) ? "libdw" : "dladdr"))
        goto done;
    size_t n = strlen(warn);
    if (lost)
        snprintf(warn + n, wsize - n, "line sampling: %llu sample(s) lost (%llu kept)",
                 (unsigned long long)lost, (unsigned long long)samples);
    else if (samples == 0)
        snprintf(warn + n, wsize - n,
                 "line sampling: no samples (regions used less CPU time than one sampling "
                 "period, %.3g ms; raise SCOPE_PROFILER_LINE_HZ)",
                 1000.0 / sp__mode_cur.line_hz);
    if (samples)
        sp__symbolizer_note(sym, warn, wsize);
    rc = 0;
done:
    free(rs.v);
    free(run_id);
    sp__symbolizer_free(sym);
    if (rc)
        return sp__error(rc, "sp_finalize: out of memory resolving line samples");
    return 0;
}
