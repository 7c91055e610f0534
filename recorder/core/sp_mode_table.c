/* SPDX-License-Identifier: MIT */
/*
 * sp_mode_table.c - the recording table of the modes, and their session
 * life cycle (prepare at setup, activate, stop and collect at finalize,
 * reset), per-thread mode states, and small helpers to extend a run.
 *
 * The table wraps the time-only table of the session's clock: begin records
 * the timestamp first and then starts the modes' measurements (perf counters,
 * LIKWID, line sampler, tracing), end stops them in reverse order and records
 * the timestamp last, so the modes' own cost stays out of the region's
 * counters as far as possible (it still lands in its time).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_modes.h"

sp__mode_plan sp__mode_cur;
unsigned sp__mode_gen;
sp__ops_t sp__mode_base, sp__mode_traced;
__thread sp__mthread *sp__mtls __attribute__((tls_model("initial-exec")));

static unsigned mode_flags; /* sp__mode_cur.flags, read on every call */
static sp__mthread *mfirst, *mlast;
static char mode_warnings[4096]; /* of the last finalized session */

/* ---- the table ---- */

static inline void hooks_begin(sp_region *r, unsigned f)
{
    if (f & SP__MODE_PERF)
        sp__perf_begin(r);
    if (f & SP__MODE_LIKWID)
        sp__likwid_begin(r);
    if (f & SP__MODE_LINES)
        sp__lines_begin(r);
}

static inline void hooks_end(sp_region *r, unsigned f)
{
    if (f & SP__MODE_LINES)
        sp__lines_end(r);
    if (f & SP__MODE_LIKWID)
        sp__likwid_end(r);
    if (f & SP__MODE_PERF)
        sp__perf_end(r);
}

static void modes_begin(sp_region *r)
{
    unsigned f = mode_flags;
    sp__mode_base.begin(r);
    hooks_begin(r, f);
    if (f & SP__MODE_REC_ALL)
        sp__trace_region_begin();
}

static void modes_end(sp_region *r)
{
    unsigned f = mode_flags;
    if (f & SP__MODE_REC_ALL)
        sp__trace_region_end(); /* closes traced calls still open inside r */
    hooks_end(r, f);
    sp__mode_base.end(r);
}

static void traced_begin(sp_region *r)
{
    sp__mode_base.begin(r);
    hooks_begin(r, mode_flags);
}

static void traced_end(sp_region *r)
{
    hooks_end(r, mode_flags);
    sp__mode_base.end(r);
}

static const sp__ops_t ops_modes = {modes_begin, modes_end};
static const sp__ops_t ops_traced = {traced_begin, traced_end};

/* ---- session life cycle ---- */

static void add_warning(sp__mode_plan *p, const char *msg)
{
    size_t n = strlen(p->warnings);
    snprintf(p->warnings + n, sizeof p->warnings - n, "%s%s", n ? "\n" : "", msg);
}

static uint64_t env_u64(const char *name, uint64_t def)
{
    const char *v = getenv(name);
    if (!v || !*v)
        return def;
    char *end;
    unsigned long long n = strtoull(v, &end, 10);
    return *end || v[0] < '0' || v[0] > '9' ? def : (uint64_t)n;
}

int sp__modes_prepare(sp__config *cfg, sp__mode_plan *p)
{
    memset(p, 0, sizeof *p);
    if (cfg->kind == SP_REGION_DISABLED)
        return 0;
    p->max_depth = cfg->max_depth;
    /* Tuning knobs of the throttle, for tests and odd codes (README). */
    p->throttle_calls = env_u64("SCOPE_PROFILER_THROTTLE_CALLS", SP__THROTTLE_CALLS);
    p->throttle_ns = env_u64("SCOPE_PROFILER_THROTTLE_NS", SP__THROTTLE_NS);
    p->line_hz = cfg->line_hz;
    if (cfg->recursive)
        p->flags |= SP__MODE_REC_ALL;
    int rc;
    if (cfg->kind == SP_REGION_LINE_PROFILER) {
        if ((rc = sp__lines_prepare(p)) != 0)
            return rc;
        p->flags |= SP__MODE_LINES;
    } else if (cfg->kind == SP_REGION_FULL) {
        char why[400];
        rc = sp__likwid_prepare(p, why, sizeof why);
        if (rc == 0) {
            p->flags |= SP__MODE_LIKWID;
        } else if (!cfg->likwid_fallback) {
            return sp__error(rc, "use_likwid: %s", why);
        } else {
            cfg->kind = SP_REGION_TIME_ONLY;
            snprintf(p->likwid_fallback, sizeof p->likwid_fallback, "%s", why);
            char msg[600];
            snprintf(msg, sizeof msg,
                     "use_likwid: %s; recording time only (SCOPE_PROFILER_LIKWID_FALLBACK)", why);
            add_warning(p, msg);
        }
    }
    if (cfg->perf_events[0]) {
        if ((rc = sp__perf_prepare(cfg->perf_events, p)) != 0)
            return rc;
        if (p->nperf > 0)
            p->flags |= SP__MODE_PERF;
    }
    return 0;
}

const sp__ops_t *sp__modes_activate(const sp__mode_plan *p, const sp__ops_t *base)
{
    sp__mode_cur = *p;
    sp__mode_gen++;
    sp__mode_base = *base;
    __atomic_store_n(&mode_flags, p->flags, __ATOMIC_RELAXED);
    /* A traced call gets the hooks but never starts tracing itself. */
    sp__mode_traced = (p->flags & ~(unsigned)SP__MODE_REC_ALL) ? ops_traced : *base;
    return p->flags ? &ops_modes : base;
}

void sp__modes_stop(void)
{
    __atomic_store_n(&mode_flags, 0u, __ATOMIC_RELAXED);
    sp__lines_stop_all();
    sp__stacks_stop_all();
    sp__perf_stop_all();
    sp__likwid_stop();
}

/* Append the lines of s to buf, each once (several modes may give the
 * same advice, e.g. that the program has no debug information). */
static void note(char *buf, size_t size, const char *s)
{
    while (*s) {
        size_t len = strcspn(s, "\n"), n = strlen(buf);
        bool seen = false;
        for (const char *p = buf; !seen && *p; p += strcspn(p, "\n"), p += *p == '\n')
            seen = strncmp(p, s, len) == 0 && (p[len] == '\n' || p[len] == '\0');
        if (!seen && len)
            snprintf(buf + n, size - n, "%s%.*s", n ? "\n" : "", (int)len, s);
        s += len + (s[len] == '\n');
    }
}

int sp__modes_collect(sp_run *run)
{
    char w[2048] = "";
    mode_warnings[0] = '\0';
    note(mode_warnings, sizeof mode_warnings, sp__mode_cur.warnings);
    int rc = 0;
    const sp__mode_plan *p = &sp__mode_cur;
    char modes[128];
    snprintf(modes, sizeof modes, "%s%s%s%s%s",
             sp__sess.kind == SP_REGION_LINE_PROFILER ? "line-profiler"
             : sp__sess.kind == SP_REGION_FULL        ? "likwid"
                                                      : "time-only",
             p->flags & SP__MODE_REC_ALL ? "+recursive" : "",
             p->flags & SP__MODE_PERF ? "+perf-events" : "", sp__trace_all ? "+trace-all" : "",
             sp__stacks_active() ? "+stack-sampling" : "");
    if ((rc = sp__mode_meta(run, "recording_mode", modes)))
        return rc;
    if (p->likwid_fallback[0] && (rc = sp__mode_meta(run, "likwid_fallback", p->likwid_fallback)))
        return rc;
#define STEP(call)                                                                                 \
    do {                                                                                           \
        w[0] = '\0';                                                                               \
        if ((rc = (call)) != 0)                                                                    \
            return rc;                                                                             \
        note(mode_warnings, sizeof mode_warnings, w);                                              \
    } while (0)
    STEP(sp__lines_collect(run, w, sizeof w));
    STEP(sp__lines_extern_collect(run));
    STEP(sp__perf_collect(run));
    STEP(sp__likwid_collect(run, w, sizeof w));
    STEP(sp__stacks_collect(run, w, sizeof w));
    /* Last: it renames the traced regions the steps above looked up. */
    STEP(sp__trace_collect(run, w, sizeof w));
#undef STEP
    char n[32];
    snprintf(n, sizeof n, "%zu", run->ranks[0].nthreads);
    return sp__mode_meta(run, "num_threads", n);
}

void sp__modes_print_warnings(FILE *out)
{
    const char *s = mode_warnings;
    while (*s) {
        size_t n = strcspn(s, "\n");
        fprintf(out, "scope-profiler: warning: %.*s\n", (int)n, s);
        s += n + (s[n] == '\n');
    }
}

void sp__modes_reset(void)
{
    sp__modes_stop();
    sp__mthread **link = &mfirst;
    mlast = NULL;
    while (*link) {
        sp__mthread *m = *link;
        sp__trace_reset(m);
        sp__lines_reset(m);
        sp__perf_reset(m);
        sp__stacks_reset(m);
        if (__atomic_load_n(&m->exited, __ATOMIC_ACQUIRE)) {
            *link = m->next;
            free(m);
        } else {
            mlast = m;
            link = &m->next;
        }
    }
    sp__trace_reset(NULL);
    sp__likwid_reset();
    sp__lines_extern_reset();
    memset(&sp__mode_cur, 0, sizeof sp__mode_cur);
    sp__mode_gen++;
}

/* ---- per-thread states ---- */

static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static bool exit_key_ok;

/* The thread exits: stop its samplers (their timers target it); its data
 * stays for the session's finalize and is freed at the next reset. */
static void on_exit_thread(void *p)
{
    sp__mthread *m = p;
    sp__stacks_thread_stop();
    sp__lines_thread_exit(m);
    sp__mtls = NULL;
    __atomic_store_n(&m->exited, 1, __ATOMIC_RELEASE);
}

static void make_key(void)
{
    exit_key_ok = pthread_key_create(&exit_key, on_exit_thread) == 0;
}

sp__mthread *sp__mthread_get(void)
{
    sp__mthread *m = sp__mtls;
    unsigned gen = __atomic_load_n(&sp__mode_gen, __ATOMIC_RELAXED);
    if (m) {
        if (m->gen != gen) { /* a state of an earlier session: reset frees its data */
            m->gen = gen;
            sp__trace_on = 0;
        }
        return m;
    }
    m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->os_tid = gettid();
    m->gen = gen;
    pthread_once(&exit_once, make_key);
    if (exit_key_ok)
        pthread_setspecific(exit_key, m);
    pthread_mutex_lock(&sp__lock);
    if (mlast)
        mlast->next = m;
    else
        mfirst = m;
    mlast = m;
    pthread_mutex_unlock(&sp__lock);
    sp__trace_on = 0;
    sp__mtls = m;
    return m;
}

sp__mthread *sp__mthreads_first(void)
{
    return mfirst;
}

/* ---- extending a run ---- */

int sp__run_flag_region(sp_run *run, int32_t region, int32_t flag)
{
    if (region < 0 || (size_t)region >= run->nregions)
        return 0;
    if (run->nregion_flags < run->nregions) {
        int32_t *f = realloc(run->region_flags, run->nregions * sizeof *f);
        if (!f)
            return sp__error(SP_ENOMEM, "sp_finalize: out of memory flagging regions");
        memset(f + run->nregion_flags, 0, (run->nregions - run->nregion_flags) * sizeof *f);
        run->region_flags = f;
        run->nregion_flags = run->nregions;
    }
    run->region_flags[region] |= flag;
    return 0;
}

static uint64_t name_hash(const char *s)
{
    uint64_t h = UINT64_C(14695981039346656037);
    while (*s)
        h = (h ^ (unsigned char)*s++) * UINT64_C(1099511628211);
    return h;
}

int32_t *sp__run_ids_by_registry(const sp_run *run)
{
    uint32_t nreg = sp__registry_count();
    int32_t *ids = malloc((nreg ? nreg : 1) * sizeof *ids);
    size_t nslots = 16;
    while (nslots < 2 * run->nregions + 2)
        nslots *= 2;
    int32_t *slots = malloc(nslots * sizeof *slots); /* run id + 1, 0 = empty */
    if (!ids || !slots) {
        free(ids);
        free(slots);
        return NULL;
    }
    memset(slots, 0, nslots * sizeof *slots);
    for (size_t i = 0; i < run->nregions; i++) {
        size_t j = name_hash(run->region_names[i]) & (nslots - 1);
        while (slots[j])
            j = (j + 1) & (nslots - 1);
        slots[j] = (int32_t)i + 1;
    }
    for (uint32_t id = 0; id < nreg; id++) {
        const char *name = sp__registry_at(id)->name;
        ids[id] = -1;
        for (size_t j = name_hash(name) & (nslots - 1); slots[j]; j = (j + 1) & (nslots - 1))
            if (strcmp(run->region_names[slots[j] - 1], name) == 0) {
                ids[id] = slots[j] - 1;
                break;
            }
    }
    free(slots);
    return ids;
}

/* Grow a column when n reaches a power of two (capacity = next power). */
#define GROW(col, n)                                                                               \
    do {                                                                                           \
        if (((n) & ((n)-1)) == 0) {                                                                \
            void *g_ = realloc((col), ((n) ? 2 * (n) : 1) * sizeof *(col));                        \
            if (!g_)                                                                               \
                return SP_ENOMEM;                                                                  \
            (col) = g_;                                                                            \
        }                                                                                          \
    } while (0)

int sp__rank_add_counter(sp_rank_data *rk, int32_t region, int32_t thread, int32_t cpu,
                         int32_t source, const char *name, double value, uint64_t calls)
{
    size_t n = rk->ncounters;
    GROW(rk->counter_region, n);
    GROW(rk->counter_thread, n);
    GROW(rk->counter_cpu, n);
    GROW(rk->counter_source, n);
    GROW(rk->counter_name, n);
    GROW(rk->counter_value, n);
    GROW(rk->counter_calls, n);
    char *copy = strdup(name);
    if (!copy)
        return SP_ENOMEM;
    rk->counter_region[n] = region;
    rk->counter_thread[n] = thread;
    rk->counter_cpu[n] = cpu;
    rk->counter_source[n] = source;
    rk->counter_name[n] = copy;
    rk->counter_value[n] = value;
    rk->counter_calls[n] = calls;
    rk->ncounters = n + 1;
    return 0;
}

int sp__rank_add_line(sp_rank_data *rk, int32_t region, const char *file, int32_t lineno,
                      const char *function, uint64_t samples, int64_t time_ns)
{
    size_t n = rk->nlines;
    GROW(rk->line_region, n);
    GROW(rk->line_file, n);
    GROW(rk->line_lineno, n);
    GROW(rk->line_function, n);
    GROW(rk->line_samples, n);
    GROW(rk->line_time_ns, n);
    char *f = strdup(file), *fn = strdup(function);
    if (!f || !fn) {
        free(f);
        free(fn);
        return SP_ENOMEM;
    }
    rk->line_region[n] = region;
    rk->line_file[n] = f;
    rk->line_lineno[n] = lineno;
    rk->line_function[n] = fn;
    rk->line_samples[n] = samples;
    rk->line_time_ns[n] = time_ns;
    rk->nlines = n + 1;
    return 0;
}

int sp__mode_meta(sp_run *run, const char *key, const char *value)
{
    return sp_kvlist_set(&run->meta, key, value) ? SP_ENOMEM : 0;
}

int32_t sp__run_thread_index(sp_run *run, int64_t os_tid, const char *name)
{
    sp_rank_data *rk = &run->ranks[0];
    for (size_t i = 0; i < rk->nthreads; i++)
        if (rk->threads[i].os_tid == os_tid)
            return (int32_t)i;
    sp_thread_info *t = realloc(rk->threads, (rk->nthreads + 1) * sizeof *t);
    if (!t)
        return -1;
    rk->threads = t;
    t[rk->nthreads].os_tid = os_tid;
    t[rk->nthreads].name = name && *name ? strdup(name) : NULL;
    return (int32_t)rk->nthreads++;
}
