/* SPDX-License-Identifier: MIT */
/*
 * sp_instrument.c - recursive tracing: the -finstrument-functions hooks.
 *
 * Code compiled with -finstrument-functions calls __cyg_profile_func_enter /
 * __cyg_profile_func_exit around every function. Outside a region that
 * traces, both return after one TLS load (sp__trace_on) and one global load
 * (sp__trace_all, for `scope-profiler run`). Inside:
 *
 *   enter(fn): find fn in the thread's address table (open addressing,
 *              address -> pseudo region "sp:trace:0x<fn>", created once per
 *              address under the registry lock), push a frame, begin the
 *              region through the session's table;
 *   exit(fn):  pop the frame if it is fn's, end the region, count the call
 *              and its duration for the throttle.
 *
 * Names are never looked up here: sp__trace_collect() resolves each traced
 * address to "<module>.<function>" with libdw at finalize.
 *
 * Guard rails: beyond max_depth open traced calls nothing is recorded (the
 * nested calls are counted as skipped), and a function whose first
 * throttle_calls calls on a thread averaged under throttle_ns stops being
 * traced for the rest of the session (its calls so far stay; its callees
 * then hang off its caller).
 */
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_modes.h"
#include "sp_stream.h"
#include "sp_symbolize.h"

#define NOINSTR __attribute__((no_instrument_function))
#define NOINSTR_COLD __attribute__((no_instrument_function, noinline, cold))

__thread int sp__trace_on __attribute__((tls_model("initial-exec")));
int sp__trace_all;

/* One traced address for the whole process (entries live forever). */
typedef struct gent {
    uintptr_t fn;
    sp_region *region;
    int throttled;      /* atomic; per session */
    uint64_t thr_calls; /* calls and mean when it was throttled */
    double thr_mean_ns;
} gent;

struct sp__trace_hent {
    uintptr_t fn; /* 0 = empty slot */
    sp_region *region;
    gent *g;
    uint64_t calls;
    int64_t ticks; /* summed durations, raw clock ticks */
};

static gent **gslots; /* sp__lock */
static uint32_t gmask, gcount;

static inline NOINSTR uint32_t hash_addr(uintptr_t a)
{
    return (uint32_t)((a * UINT64_C(0x9E3779B97F4A7C15)) >> 32);
}

/* ---- the process-wide address map (slow path) ---- */

static NOINSTR gent *gfind_locked(uintptr_t fn)
{
    if (!gslots)
        return NULL;
    for (uint32_t j = hash_addr(fn) & gmask; gslots[j]; j = (j + 1) & gmask)
        if (gslots[j]->fn == fn)
            return gslots[j];
    return NULL;
}

static NOINSTR int ginsert_locked(gent *e)
{
    if (2 * (gcount + 1) > gmask + 1 || !gslots) {
        uint32_t n = gslots ? 2 * (gmask + 1) : 1024;
        gent **ns = calloc(n, sizeof *ns);
        if (!ns)
            return -1;
        for (uint32_t i = 0; gslots && i <= gmask; i++) {
            if (!gslots[i])
                continue;
            uint32_t j = hash_addr(gslots[i]->fn) & (n - 1);
            while (ns[j])
                j = (j + 1) & (n - 1);
            ns[j] = gslots[i];
        }
        free(gslots);
        gslots = ns;
        gmask = n - 1;
    }
    uint32_t j = hash_addr(e->fn) & gmask;
    while (gslots[j])
        j = (j + 1) & gmask;
    gslots[j] = e;
    gcount++;
    return 0;
}

static NOINSTR gent *gget(uintptr_t fn)
{
    pthread_mutex_lock(&sp__lock);
    gent *e = gfind_locked(fn);
    pthread_mutex_unlock(&sp__lock);
    if (e)
        return e;
    char name[64];
    snprintf(name, sizeof name, SP__TRACE_PREFIX "%lx", (unsigned long)fn);
    sp_region *r = sp_region_get(name); /* takes sp__lock itself */
    pthread_mutex_lock(&sp__lock);
    e = gfind_locked(fn); /* another thread may have won */
    if (!e && (e = calloc(1, sizeof *e)) != NULL) {
        e->fn = fn;
        e->region = r;
        if (ginsert_locked(e) != 0) {
            free(e);
            e = NULL;
        }
    }
    pthread_mutex_unlock(&sp__lock);
    return e;
}

bool sp__trace_parse_name(const char *name, uintptr_t *addr)
{
    size_t n = strlen(SP__TRACE_PREFIX);
    if (strncmp(name, SP__TRACE_PREFIX, n) != 0)
        return false;
    char *end;
    unsigned long long a = strtoull(name + n, &end, 16);
    if (*end || end == name + n)
        return false;
    *addr = (uintptr_t)a;
    return true;
}

/* ---- the per-thread address table ---- */

static NOINSTR_COLD sp__trace_hent *hent_miss(sp__mthread *m, uintptr_t fn)
{
    if (2 * (m->hcount + 1) > (m->hash ? m->hmask + 1 : 0)) {
        uint32_t n = m->hash ? 2 * (m->hmask + 1) : 256;
        sp__trace_hent *nh = calloc(n, sizeof *nh);
        if (!nh)
            return NULL;
        for (uint32_t i = 0; m->hash && i <= m->hmask; i++) {
            if (!m->hash[i].fn)
                continue;
            uint32_t j = hash_addr(m->hash[i].fn) & (n - 1);
            while (nh[j].fn)
                j = (j + 1) & (n - 1);
            nh[j] = m->hash[i];
        }
        free(m->hash);
        m->hash = nh;
        m->hmask = n - 1;
        /* Frames point into the table: re-point them. */
        for (uint32_t d = 0; d < m->depth; d++) {
            uintptr_t f = m->frames[d].fn;
            uint32_t j = hash_addr(f) & m->hmask;
            while (m->hash[j].fn && m->hash[j].fn != f)
                j = (j + 1) & m->hmask;
            m->frames[d].hent = m->hash[j].fn ? &m->hash[j] : NULL;
        }
    }
    gent *g = gget(fn);
    if (!g)
        return NULL;
    uint32_t j = hash_addr(fn) & m->hmask;
    while (m->hash[j].fn)
        j = (j + 1) & m->hmask;
    m->hash[j].fn = fn;
    m->hash[j].region = g->region;
    m->hash[j].g = g;
    m->hcount++;
    return &m->hash[j];
}

static inline NOINSTR sp__trace_hent *hent_find(sp__mthread *m, uintptr_t fn)
{
    if (m->hash) {
        for (uint32_t j = hash_addr(fn) & m->hmask; m->hash[j].fn; j = (j + 1) & m->hmask)
            if (m->hash[j].fn == fn)
                return &m->hash[j];
    }
    return hent_miss(m, fn);
}

static NOINSTR_COLD int grow_frames(sp__mthread *m)
{
    uint32_t cap = m->cap ? 2 * m->cap : 32;
    if (cap > sp__mode_cur.max_depth)
        cap = sp__mode_cur.max_depth;
    sp__trace_frame *f = realloc(m->frames, cap * sizeof *f);
    if (!f)
        return -1;
    m->frames = f;
    m->cap = cap;
    return 0;
}

/* The throttle's verdict, once per function and thread: the mean duration
 * of its calls so far, in ns (ticks through the rate seen since setup). */
static NOINSTR_COLD void throttle_check(sp__trace_hent *h)
{
    const sp__clock_calib *c = &sp__sess.calib;
    double ticks_per_ns = 1.0;
    if (c->source == SP__CLOCK_TSC) {
        sp__clock_point now = sp__clock_sample(c->source);
        if (now.ns > c->p0.ns && now.ticks > c->p0.ticks)
            ticks_per_ns = (double)(now.ticks - c->p0.ticks) / (double)(now.ns - c->p0.ns);
    }
    double mean = (double)h->ticks / (double)h->calls / ticks_per_ns;
    if (mean < (double)sp__mode_cur.throttle_ns &&
        !__atomic_exchange_n(&h->g->throttled, 1, __ATOMIC_RELAXED)) {
        h->g->thr_calls = h->calls;
        h->g->thr_mean_ns = mean;
    }
}

static NOINSTR_COLD sp__mthread *fresh_state(void)
{
    sp__mthread *m = sp__mthread_get();
    if (!m || (!sp__trace_on && !__atomic_load_n(&sp__trace_all, __ATOMIC_RELAXED)))
        return NULL; /* a stale sp__trace_on was just cleared */
    return m;
}

static NOINSTR void trace_enter(uintptr_t fn)
{
    if (!__atomic_load_n(&sp__recording, __ATOMIC_RELAXED))
        return;
    sp__mthread *m = sp__mtls;
    if (__builtin_expect(!m || m->gen != sp__mode_gen, 0) && !(m = fresh_state()))
        return;
    if (m->skipped || m->depth >= sp__mode_cur.max_depth ||
        (m->depth == m->cap && grow_frames(m) != 0)) {
        m->skipped++;
        m->depth_skipped++;
        return;
    }
    sp__trace_hent *h = hent_find(m, fn);
    sp__trace_frame *f = &m->frames[m->depth++];
    f->fn = fn;
    f->hent = h;
    f->region = h && !__atomic_load_n(&h->g->throttled, __ATOMIC_RELAXED) ? h->region : NULL;
    f->t0 = 0;
    if (f->region) {
        sp__mode_traced.begin(f->region);
        f->t0 = sp__stream_last_tick(); /* the begin's own tick */
    }
}

static NOINSTR void trace_exit(uintptr_t fn)
{
    sp__mthread *m = sp__mtls;
    if (!m || m->gen != sp__mode_gen)
        return;
    if (m->skipped) {
        m->skipped--;
        return;
    }
    if (m->depth == 0 || m->frames[m->depth - 1].fn != fn)
        return; /* a function entered before tracing began */
    sp__trace_frame *f = &m->frames[--m->depth];
    sp_region *r = f->region;
    if (!r)
        return;
    /* The call's duration, for the throttle's statistics: the end's tick
     * minus the begin's (a dropped call has none). */
    int64_t t0 = f->t0;
    sp__mode_traced.end(r);
    int64_t t1 = sp__stream_last_tick();
    sp__trace_hent *h = f->hent;
    if (t0 && t1 >= t0 && h) {
        h->ticks += t1 - t0;
        if (++h->calls == sp__mode_cur.throttle_calls)
            throttle_check(h);
    }
}

NOINSTR void __cyg_profile_func_enter(void *fn, void *site);
NOINSTR void __cyg_profile_func_exit(void *fn, void *site);

NOINSTR void __cyg_profile_func_enter(void *fn, void *site)
{
    (void)site;
    if (__builtin_expect(!sp__trace_on, 1) &&
        __builtin_expect(!__atomic_load_n(&sp__trace_all, __ATOMIC_RELAXED), 1))
        return;
    trace_enter((uintptr_t)fn);
}

NOINSTR void __cyg_profile_func_exit(void *fn, void *site)
{
    (void)site;
    if (__builtin_expect(!sp__trace_on, 1) &&
        __builtin_expect(!__atomic_load_n(&sp__trace_all, __ATOMIC_RELAXED), 1))
        return;
    trace_exit((uintptr_t)fn);
}

/* ---- regions that trace ---- */

void sp__trace_region_begin(void)
{
    sp__mthread *m = sp__mthread_get();
    if (!m)
        return;
    if (m->nrec < SP__REC_NEST)
        m->rec_saved[m->nrec] = m->depth;
    m->nrec++;
    sp__trace_on++;
}

/* End the traced calls opened since depth d (their functions have not
 * returned: the region that traced them ends first). */
static void close_to(sp__mthread *m, uint32_t d)
{
    m->skipped = 0;
    while (m->depth > d) {
        sp__trace_frame *f = &m->frames[--m->depth];
        if (f->region)
            sp__mode_traced.end(f->region);
    }
}

void sp__trace_close_thread(void)
{
    sp__mthread *m = sp__mtls;
    if (m && m->gen == sp__mode_gen)
        close_to(m, 0);
}

void sp__trace_region_end(void)
{
    sp__mthread *m = sp__mtls;
    if (!m || m->gen != sp__mode_gen || m->nrec == 0)
        return;
    m->nrec--;
    if (m->nrec < SP__REC_NEST)
        close_to(m, m->rec_saved[m->nrec]);
    if (sp__trace_on > 0)
        sp__trace_on--;
}

void sp_region_begin_recursive(sp_region *r)
{
    sp_region_begin(r);
    /* With recursive_profile every region already traces (the table). */
    if (__atomic_load_n(&sp__recording, __ATOMIC_RELAXED) &&
        !(sp__mode_cur.flags & SP__MODE_REC_ALL) && r && r->id < SP__MAX_REGIONS)
        sp__trace_region_begin();
}

void sp_region_end_recursive(sp_region *r)
{
    if (!(sp__mode_cur.flags & SP__MODE_REC_ALL) && r && r->id < SP__MAX_REGIONS)
        sp__trace_region_end();
    sp_region_end(r);
}

/* ---- finalize ---- */

static void list_add(char *buf, size_t size, const char *item)
{
    size_t n = strlen(buf);
    if (n + strlen(item) + 3 < size)
        snprintf(buf + n, size - n, "%s%s", n ? "; " : "", item);
    else if (n + 5 < size && !strstr(buf, "..."))
        snprintf(buf + n, size - n, "; ...");
}

/* A file that is a header (where inline accessors and templates live) or a
 * system header: tracing what it defines costs more than it tells. */
static bool is_header(const char *file)
{
    if (!file)
        return false;
    if (strncmp(file, "/usr/include/", 13) == 0 || strstr(file, "/include/c++/"))
        return true;
    const char *dot = strrchr(file, '.');
    static const char *const ext[] = {".h", ".hh", ".hpp", ".hxx", ".H", ".inl", ".tcc", ".ipp"};
    for (size_t i = 0; dot && i < sizeof ext / sizeof *ext; i++)
        if (strcmp(dot, ext[i]) == 0)
            return true;
    return false;
}

/* Calls per region id over the run's ranks (the counts the warning cites). */
static uint64_t *region_calls(const sp_run *run)
{
    uint64_t *n = calloc(run->nregions ? run->nregions : 1, sizeof *n);
    for (size_t r = 0; n && r < run->nranks; r++)
        for (size_t i = 0; i < run->ranks[r].ncalls; i++)
            if (run->ranks[r].region[i] >= 0 && (size_t)run->ranks[r].region[i] < run->nregions)
                n[run->ranks[r].region[i]]++;
    return n;
}

#define HEADER_WARN_CALLS 10000 /* a header function traced this often is an accessor */

int sp__trace_collect(sp_run *run, char *warn, size_t wsize)
{
    sp__symbolizer *sym = NULL;
    char throttled[1024] = "", headers[640] = "";
    size_t nthrottled = 0, ntraced = 0, nheaders = 0;
    uint64_t header_calls = 0, *calls = NULL;
    int rc = 0;
    for (size_t i = 0; i < run->nregions; i++) {
        uintptr_t addr;
        if (!sp__trace_parse_name(run->region_names[i], &addr))
            continue;
        if (!sym && !(sym = sp__symbolizer_new()))
            goto oom;
        /* The traced function itself, not what was inlined at its entry. */
        const sp__sym *s = sp__sym_outermost(sp__symbolize(sym, addr));
        if (!s)
            goto oom;
        char name[512];
        sp__sym_name(s, name, sizeof name);
        if (sp_run_region_id(run, name) >= 0) /* two functions, one name */
            snprintf(name + strlen(name), sizeof name - strlen(name), " [0x%lx]",
                     (unsigned long)addr);
        if ((rc = sp_run_rename_region(run, (int32_t)i, name)))
            goto done;
        ntraced++;
        if ((rc = sp__run_flag_region(run, (int32_t)i, SP_REGION_FLAG_TRACED)))
            goto done;
        if (is_header(s->def_file)) { /* compiled without the exclude list? */
            if (!calls && !(calls = region_calls(run)))
                goto oom;
            gent *hg = gfind_locked(addr);
            uint64_t n = calls[i];
            if (hg && __atomic_load_n(&hg->throttled, __ATOMIC_RELAXED) && hg->thr_calls > n)
                n = hg->thr_calls;
            if (n >= HEADER_WARN_CALLS || strncmp(s->def_file, "/usr/", 5) == 0) {
                char item[640];
                snprintf(item, sizeof item, "%s (%llu calls)", name, (unsigned long long)n);
                if (nheaders < 3)
                    list_add(headers, sizeof headers, item);
                nheaders++;
                header_calls += n;
            }
        }
        gent *g = gfind_locked(addr); /* finalize holds sp__lock */
        if (g && __atomic_load_n(&g->throttled, __ATOMIC_RELAXED)) {
            char item[640];
            snprintf(item, sizeof item, "%s (%llu calls, mean %.3f us)", name,
                     (unsigned long long)g->thr_calls, g->thr_mean_ns / 1000.0);
            list_add(throttled, sizeof throttled, item);
            nthrottled++;
            if ((rc = sp__run_flag_region(run, (int32_t)i, SP_REGION_FLAG_THROTTLED)))
                goto done;
        }
    }
    uint64_t skipped = 0;
    for (sp__mthread *m = sp__mthreads_first(); m; m = m->next)
        skipped += m->depth_skipped;
    if (ntraced || skipped || sp__trace_on || sp__mode_cur.flags & SP__MODE_REC_ALL) {
        char v[64];
        snprintf(v, sizeof v, "%u", sp__mode_cur.max_depth);
        if ((rc = sp__mode_meta(run, "recursive_max_depth", v)))
            goto done;
        snprintf(v, sizeof v, "%llu", (unsigned long long)skipped);
        if ((rc = sp__mode_meta(run, "recursive_depth_skipped", v)))
            goto done;
        if ((rc = sp__mode_meta(run, "recursive_throttled", throttled)))
            goto done;
        if (sym && (rc = sp__mode_meta(run, "symbolizer",
                                       sp__symbolizer_has_dwarf(sym) ? "libdw" : "dladdr")))
            goto done;
    }
    size_t n = strlen(warn);
    if (nthrottled)
        snprintf(warn + n, wsize - n,
                 "tracing stopped for %zu function(s) called more than %llu times for less "
                 "than %llu ns each: %s",
                 nthrottled, (unsigned long long)sp__mode_cur.throttle_calls,
                 (unsigned long long)sp__mode_cur.throttle_ns, throttled);
    n = strlen(warn);
    if (nheaders)
        snprintf(warn + n, wsize - n,
                 "%s%zu traced function(s) defined in headers ran at least %llu times (%s%s): tracing "
                 "inline accessors and system headers costs more than they do; compile with "
                 "-finstrument-functions-exclude-file-list=/usr/include,.h,.inl,.tcc (the "
                 "default of scope_profiler_instrument() and of `pkg-config "
                 "--variable=instrument_cflags scope-profiler`)",
                 n ? "\n" : "", nheaders, (unsigned long long)header_calls, headers,
                 nheaders > 3 ? "; ..." : "");
    n = strlen(warn);
    if (skipped)
        snprintf(warn + n, wsize - n,
                 "%s%llu traced call(s) deeper than max_depth=%u were not recorded "
                 "(SCOPE_PROFILER_MAX_DEPTH)",
                 n ? "\n" : "", (unsigned long long)skipped, sp__mode_cur.max_depth);
    if (sym)
        sp__symbolizer_note(sym, warn, wsize);
    goto done;
oom:
    rc = sp__error(SP_ENOMEM, "sp_finalize: out of memory naming traced functions");
done:
    free(calls);
    sp__symbolizer_free(sym);
    return rc;
}

void sp__trace_reset(sp__mthread *m)
{
    if (!m) {
        for (uint32_t i = 0; gslots && i <= gmask; i++)
            if (gslots[i])
                __atomic_store_n(&gslots[i]->throttled, 0, __ATOMIC_RELAXED);
        return;
    }
    free(m->frames);
    free(m->hash);
    m->frames = NULL;
    m->hash = NULL;
    m->depth = m->cap = m->skipped = m->nrec = 0;
    m->hmask = m->hcount = 0;
    m->depth_skipped = 0;
}
