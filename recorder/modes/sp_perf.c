/* SPDX-License-Identifier: MIT */
/*
 * sp_perf.c - software / hardware counters per region without LIKWID
 * (sp_options.perf_events, SCOPE_PROFILER_PERF_EVENTS).
 *
 * Each recording thread opens one perf_event group (the listed events,
 * counting the thread only) with PERF_FORMAT_GROUP, so one read() returns
 * every counter. begin reads the group onto a small per-thread stack, end
 * reads it again and adds the difference to the thread's sums for the region:
 * two read() system calls per call are the cost of this mode. Sums are
 * inclusive (a region's value contains its children's).
 *
 * At setup each event is opened once on its own; events the machine cannot
 * count (cycles and instructions in a VM without a PMU) are dropped with a
 * warning, and an event whose kernel part is not allowed (perf_event_paranoid)
 * is retried counting user space only.
 */
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_modes.h"

#define PERF_STACK 256 /* nested calls whose start readings are kept */

typedef struct known_event {
    const char *name;
    uint32_t type;
    uint64_t config;
} known_event;

static const known_event known[] = {
    {"task-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_TASK_CLOCK},
    {"cpu-clock", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_CLOCK},
    {"page-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS},
    {"minor-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MIN},
    {"major-faults", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_PAGE_FAULTS_MAJ},
    {"context-switches", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CONTEXT_SWITCHES},
    {"cpu-migrations", PERF_TYPE_SOFTWARE, PERF_COUNT_SW_CPU_MIGRATIONS},
    {"cycles", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CPU_CYCLES},
    {"instructions", PERF_TYPE_HARDWARE, PERF_COUNT_HW_INSTRUCTIONS},
    {"cache-references", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_REFERENCES},
    {"cache-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_CACHE_MISSES},
    {"branches", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_INSTRUCTIONS},
    {"branch-misses", PERF_TYPE_HARDWARE, PERF_COUNT_HW_BRANCH_MISSES},
};
#define NKNOWN (sizeof known / sizeof *known)

typedef struct acc {
    uint64_t calls;
    uint64_t v[SP__MAX_PERF_EVENTS];
} acc;

struct sp__perf_thread {
    int fd[SP__MAX_PERF_EVENTS]; /* fd[0] leads the group; -1 when unopened */
    int nfd;
    uint32_t depth; /* open calls (readings kept for the first PERF_STACK) */
    struct {
        uint32_t id;
        uint64_t v[SP__MAX_PERF_EVENTS];
    } stack[PERF_STACK];
    acc *acc; /* indexed by registry id */
    uint32_t nacc;
    uint64_t failed_reads;
};

static int open_event(uint32_t type, uint64_t config, bool user_only, int group)
{
    struct perf_event_attr a;
    memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = type;
    a.config = config;
    /* The leader starts disabled and the whole group is enabled at once
     * below: siblings added to a running group would only count from the
     * thread's next context switch on. */
    a.disabled = group < 0;
    a.exclude_hv = 1;
    a.exclude_kernel = user_only;
    a.read_format = PERF_FORMAT_GROUP;
    return (int)syscall(SYS_perf_event_open, &a, 0, -1, group, PERF_FLAG_FD_CLOEXEC);
}

static void add_item(char *buf, size_t size, const char *item)
{
    size_t n = strlen(buf);
    snprintf(buf + n, size - n, "%s%s", n ? ", " : "", item);
}

int sp__perf_prepare(const char *list, sp__mode_plan *p)
{
    char copy[256];
    snprintf(copy, sizeof copy, "%s", list);
    char *save = NULL;
    for (char *tok = strtok_r(copy, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
        const known_event *k = NULL;
        for (size_t i = 0; i < NKNOWN; i++)
            if (strcasecmp(tok, known[i].name) == 0)
                k = &known[i];
        if (!k) {
            char names[512] = "";
            for (size_t i = 0; i < NKNOWN; i++)
                add_item(names, sizeof names, known[i].name);
            return sp__error(SP_EINVAL, "perf_events: unknown event '%s' (known: %s)", tok, names);
        }
        bool dup = false;
        for (int i = 0; i < p->nperf; i++)
            dup |= strcmp(p->perf_name[i], k->name) == 0;
        if (dup)
            continue;
        if (p->nperf == SP__MAX_PERF_EVENTS)
            return sp__error(SP_EINVAL, "perf_events: at most %d events", SP__MAX_PERF_EVENTS);
        /* Try once alone on this thread: the machine decides what counts. */
        bool user_only = false;
        int fd = open_event(k->type, k->config, false, -1);
        if (fd < 0 && (errno == EACCES || errno == EPERM)) {
            user_only = true;
            fd = open_event(k->type, k->config, true, -1);
        }
        if (fd < 0) {
            char item[96];
            snprintf(item, sizeof item, "%s (%s)", k->name, strerror(errno));
            add_item(p->perf_dropped, sizeof p->perf_dropped, item);
            continue;
        }
        close(fd);
        int i = p->nperf++;
        p->perf_type[i] = k->type;
        p->perf_config[i] = k->config;
        p->perf_user_only[i] = user_only;
        snprintf(p->perf_name[i], sizeof p->perf_name[i], "%s", k->name);
    }
    if (p->perf_dropped[0]) {
        size_t n = strlen(p->warnings);
        snprintf(p->warnings + n, sizeof p->warnings - n,
                 "%sperf_events: not counted on this machine: %s", n ? "\n" : "", p->perf_dropped);
    }
    return 0;
}

/* ---- per thread ---- */

static sp__perf_thread *thread_init(sp__mthread *m)
{
    sp__perf_thread *t = calloc(1, sizeof *t);
    if (!t)
        return NULL;
    for (int i = 0; i < SP__MAX_PERF_EVENTS; i++)
        t->fd[i] = -1;
    for (int i = 0; i < sp__mode_cur.nperf; i++) {
        t->fd[i] = open_event(sp__mode_cur.perf_type[i], sp__mode_cur.perf_config[i],
                              sp__mode_cur.perf_user_only[i], i ? t->fd[0] : -1);
        if (t->fd[i] < 0)
            break; /* the group cannot be complete: count nothing on this thread */
        t->nfd++;
    }
    if (t->nfd > 0)
        ioctl(t->fd[0], PERF_EVENT_IOC_ENABLE, PERF_IOC_FLAG_GROUP);
    m->perf = t;
    return t;
}

static bool read_group(const sp__perf_thread *t, uint64_t *v)
{
    uint64_t buf[1 + SP__MAX_PERF_EVENTS];
    ssize_t want = (ssize_t)((1 + (size_t)t->nfd) * sizeof(uint64_t));
    if (t->nfd != sp__mode_cur.nperf || read(t->fd[0], buf, (size_t)want) != want ||
        buf[0] != (uint64_t)t->nfd)
        return false;
    memcpy(v, buf + 1, (size_t)t->nfd * sizeof *v);
    return true;
}

static __attribute__((noinline, cold)) sp__perf_thread *perf_slow(void)
{
    sp__mthread *m = sp__mthread_get();
    if (!m)
        return NULL;
    return m->perf ? m->perf : thread_init(m);
}

void sp__perf_begin(sp_region *r)
{
    sp__mthread *m = sp__mtls;
    sp__perf_thread *t;
    if (__builtin_expect(m && m->gen == sp__mode_gen && m->perf, 1))
        t = m->perf;
    else if (!(t = perf_slow()))
        return;
    if (t->depth < PERF_STACK) {
        t->stack[t->depth].id = r->id;
        if (!read_group(t, t->stack[t->depth].v)) {
            t->stack[t->depth].id = SP__DUMMY_ID; /* no start reading */
            t->failed_reads++;
        }
    }
    t->depth++;
}

static __attribute__((noinline, cold)) int grow_acc(sp__perf_thread *t, uint32_t id)
{
    uint32_t n = t->nacc ? t->nacc : 16;
    while (n <= id)
        n *= 2;
    acc *a = realloc(t->acc, n * sizeof *a);
    if (!a)
        return -1;
    memset(a + t->nacc, 0, (n - t->nacc) * sizeof *a);
    t->acc = a;
    t->nacc = n;
    return 0;
}

void sp__perf_end(sp_region *r)
{
    sp__mthread *m = sp__mtls;
    if (!m || m->gen != sp__mode_gen || !m->perf || m->perf->depth == 0)
        return;
    sp__perf_thread *t = m->perf;
    uint32_t d = --t->depth;
    if (d >= PERF_STACK || t->stack[d].id != r->id || r->id >= SP__MAX_REGIONS)
        return; /* beyond the stack, no start reading, or a mismatched end */
    uint64_t now[SP__MAX_PERF_EVENTS];
    if (!read_group(t, now)) {
        t->failed_reads++;
        return;
    }
    if (r->id >= t->nacc && grow_acc(t, r->id) != 0)
        return;
    acc *a = &t->acc[r->id];
    a->calls++;
    for (int i = 0; i < t->nfd; i++)
        a->v[i] += now[i] - t->stack[d].v[i];
}

void sp__perf_stop_all(void) {}

void sp__perf_reset(sp__mthread *m)
{
    sp__perf_thread *t = m->perf;
    if (!t)
        return;
    for (int i = SP__MAX_PERF_EVENTS - 1; i >= 0; i--)
        if (t->fd[i] >= 0)
            close(t->fd[i]);
    free(t->acc);
    free(t);
    m->perf = NULL;
}

int sp__perf_collect(sp_run *run)
{
    const sp__mode_plan *p = &sp__mode_cur;
    if (!(p->flags & SP__MODE_PERF) && !p->perf_dropped[0])
        return 0;
    char names[256] = "";
    for (int i = 0; i < p->nperf; i++)
        add_item(names, sizeof names, p->perf_name[i]);
    if (sp__mode_meta(run, "perf_events", names) ||
        (p->perf_dropped[0] && sp__mode_meta(run, "perf_events_dropped", p->perf_dropped)))
        return sp__error(SP_ENOMEM, "sp_finalize: out of memory storing counters");
    int32_t *run_id = sp__run_ids_by_registry(run);
    if (!run_id)
        return sp__error(SP_ENOMEM, "sp_finalize: out of memory storing counters");
    uint32_t nreg = sp__registry_count();
    int rc = 0;
    uint64_t failed = 0;
    for (sp__mthread *m = sp__mthreads_first(); m && rc == 0; m = m->next) {
        sp__perf_thread *t = m->perf;
        if (!t)
            continue;
        failed += t->failed_reads;
        int32_t thread = -2;
        for (uint32_t id = 0; id < t->nacc && id < nreg && rc == 0; id++) {
            if (!t->acc[id].calls || run_id[id] < 0)
                continue;
            if (thread == -2 && (thread = sp__run_thread_index(run, m->os_tid, NULL)) < 0)
                rc = SP_ENOMEM;
            for (int i = 0; i < t->nfd && rc == 0; i++)
                rc = sp__rank_add_counter(&run->ranks[0], run_id[id], thread, -1, SP_COUNTER_PERF,
                                          p->perf_name[i], (double)t->acc[id].v[i],
                                          t->acc[id].calls);
        }
    }
    free(run_id);
    if (rc == 0 && failed) {
        char v[32];
        snprintf(v, sizeof v, "%llu", (unsigned long long)failed);
        rc = sp__mode_meta(run, "perf_events_failed_reads", v);
    }
    return rc ? sp__error(SP_ENOMEM, "sp_finalize: out of memory storing counters") : 0;
}
