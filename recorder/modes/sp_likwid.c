/* SPDX-License-Identifier: MIT */
/*
 * sp_likwid.c - LIKWID marker regions (use_likwid, SP_REGION_FULL).
 *
 * liblikwid is loaded with dlopen at sp_setup (no link-time dependency).
 * The program must run under `likwid-perfctr -C <cpus> -g <GROUP> -m`, which
 * sets LIKWID_EVENTS, LIKWID_THREADS, LIKWID_FILEPATH and LIKWID_MODE and
 * reads the marker file when the program ends. Then:
 *
 *   setup:    likwid_markerInit(), every known region registered up front
 *             (likwid_markerRegisterRegion);
 *   thread:   likwid_markerThreadInit() on a thread's first region call;
 *   begin/end likwid_markerStartRegion / likwid_markerStopRegion by name;
 *   finalize: likwid_markerClose() writes the marker file, which is parsed
 *             (sp_likwid_parse.c) together with the group file(s) named by
 *             LIKWID_EVENTS, and stored as counter rows per region and
 *             hardware thread: raw events and derived metrics.
 *
 * Before anything is initialised, LIKWID is asked whether it knows the CPU
 * (topology_init + get_cpuInfo()->short_name): on a CPU it does not support,
 * its marker API would later wait for its access daemon and exit() the
 * process, so sp_setup refuses (SP_ENOTSUP) or, with likwid_fallback,
 * records time only. One LIKWID session per process.
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_likwid.h"
#include "sp_modes.h"

#if defined(__has_include)
#if __has_include(<likwid.h>)
#include <likwid.h>
#define SP__HAVE_LIKWID_H 1
#endif
#endif
#ifndef SP__HAVE_LIKWID_H
#define SP__HAVE_LIKWID_H 0
#endif

static struct {
    void *handle;
    void (*init)(void);
    void (*thread_init)(void);
    int (*reg)(const char *);
    int (*start)(const char *);
    int (*stop)(const char *);
    void (*close)(void);
    int (*topology_init)(void);
    void *(*cpu_info)(void);
    int (*ngroups)(void);
    uint64_t (*cpu_clock)(void);
    int active;    /* marker API initialised for this session */
    int closed;    /* likwid_markerClose() ran in this process */
    char arch[64]; /* LIKWID's short name of the CPU */
    double clock_hz;
    double sockets;
} lk;

/* Parsed at sp__likwid_stop(), stored at collect. */
static struct {
    int have;
    sp__lk_marker marker;
    sp__lk_group *groups;
    int ngroups;
    char err[512];
    char group_files[512];
} res;

static __thread unsigned lk_thread_gen; /* session generation + 1 of ThreadInit */

static char loaded[1024]; /* the library lk points into */

static bool load(char *why, size_t size)
{
    const char *path = getenv("SCOPE_PROFILER_LIKWID_LIB");
    if (lk.handle && strcmp(loaded, path && *path ? path : "") == 0)
        return true;
    if (lk.active) {
        snprintf(why, size, "LIKWID is in use by the running session");
        return false;
    }
    void *h = dlopen(path && *path ? path : "liblikwid.so.5", RTLD_NOW | RTLD_LOCAL);
    if (!h && !(path && *path))
        h = dlopen("liblikwid.so", RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        snprintf(why, size, "LIKWID is not installed (%s)", dlerror());
        return false;
    }
#define SYM(field, name) (*(void **)&lk.field = dlsym(h, name)) != NULL
    bool ok = SYM(init, "likwid_markerInit") && SYM(thread_init, "likwid_markerThreadInit") &&
              SYM(reg, "likwid_markerRegisterRegion") && SYM(start, "likwid_markerStartRegion") &&
              SYM(stop, "likwid_markerStopRegion") && SYM(close, "likwid_markerClose") &&
              SYM(topology_init, "topology_init") && SYM(cpu_info, "get_cpuInfo") &&
              SYM(ngroups, "perfmon_getNumberOfGroups");
    (void)(SYM(cpu_clock, "timer_getCpuClock")); /* optional */
#undef SYM
    if (!ok) {
        snprintf(why, size, "liblikwid lacks the marker API (%s)", dlerror());
        dlclose(h);
        lk.handle = NULL; /* the pointers are half replaced: load again next time */
        loaded[0] = '\0';
        return false;
    }
    lk.handle = h; /* an earlier library stays loaded: its code may still be referenced */
    lk.closed = 0;
    snprintf(loaded, sizeof loaded, "%s", path && *path ? path : "");
    return true;
}

/* Does LIKWID know this CPU? Asked without touching counters. */
static bool cpu_known(char *why, size_t size)
{
    if (lk.topology_init() != 0) {
        snprintf(why, size, "LIKWID cannot measure on this machine: topology_init failed");
        return false;
    }
#if SP__HAVE_LIKWID_H
    CpuInfo_t info = (CpuInfo_t)lk.cpu_info();
    if (!info || !info->short_name || !*info->short_name) {
        snprintf(why, size,
                 "LIKWID cannot measure on this machine: LIKWID does not support this CPU "
                 "(%s, family %u model %u; `likwid-perfctr -i` lists the supported ones)",
                 info && info->name ? info->name : "unknown", info ? info->family : 0,
                 info ? info->model : 0);
        return false;
    }
    snprintf(lk.arch, sizeof lk.arch, "%s", info->short_name);
    lk.clock_hz = (double)info->clock;
#endif
    if (lk.cpu_clock && lk.clock_hz <= 0)
        lk.clock_hz = (double)lk.cpu_clock();
    return true;
}

int sp__likwid_prepare(sp__mode_plan *plan, char *why, size_t size)
{
    (void)plan;
    if (!load(why, size) || !cpu_known(why, size))
        return SP_ENOTSUP;
    if (lk.closed || lk.active) { /* a running session is closed by the new setup */
        snprintf(why, size,
                 "LIKWID's marker API was already closed in this process "
                 "(one LIKWID session per process)");
        return SP_ENOTSUP;
    }
    static const char *const vars[] = {"LIKWID_EVENTS", "LIKWID_FILEPATH", "LIKWID_THREADS",
                                       "LIKWID_MODE"};
    for (size_t i = 0; i < 4; i++) {
        const char *v = getenv(vars[i]);
        if (!v || !*v) {
            snprintf(why, size,
                     "LIKWID cannot measure: %s is not set; run the program under "
                     "`likwid-perfctr -C <cpus> -g <GROUP> -m`",
                     vars[i]);
            return SP_ENOTSUP;
        }
    }
    lk.init();
    if (lk.ngroups() <= 0) {
        snprintf(why, size,
                 "LIKWID cannot measure on this machine: its marker API did not initialise "
                 "(see LIKWID's messages on stderr)");
        return SP_ENOTSUP;
    }
    lk.sockets = 1;
    lk.active = 1;
    /* Register what exists now; later regions register at their first start. */
    pthread_mutex_lock(&sp__lock);
    uint32_t n = sp__registry_count();
    pthread_mutex_unlock(&sp__lock);
    for (uint32_t id = 0; id < n; id++) {
        const struct sp_region *r = sp__registry_at(id);
        if (r)
            lk.reg(r->name);
    }
    lk_thread_gen = 0;
    return 0;
}

void sp__likwid_begin(sp_region *r)
{
    if (r->id >= SP__MAX_REGIONS)
        return;
    if (__builtin_expect(lk_thread_gen != sp__mode_gen + 1, 0)) {
        lk.thread_init();
        lk_thread_gen = sp__mode_gen + 1;
    }
    lk.start(r->name);
}

void sp__likwid_end(sp_region *r)
{
    if (r->id < SP__MAX_REGIONS)
        lk.stop(r->name);
}

/* The group files behind LIKWID_EVENTS ("GROUP" or "EV:CTR,..."; '|'
 * separates groups). */
static int load_groups(const char *events)
{
    char *copy = strdup(events);
    if (!copy)
        return SP_ENOMEM;
    int rc = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, "|", &save); tok && rc == 0; tok = strtok_r(NULL, "|", &save)) {
        sp__lk_group *g = realloc(res.groups, (size_t)(res.ngroups + 1) * sizeof *g);
        if (!g) {
            rc = SP_ENOMEM;
            break;
        }
        res.groups = g;
        g = &res.groups[res.ngroups];
        if (strchr(tok, ':')) {
            rc = sp__lk_group_from_list(tok, g);
        } else {
            char path[1024];
            const char *dir = getenv("SCOPE_PROFILER_LIKWID_GROUPS");
            const char *home = getenv("HOME");
            rc = SP_ENOENT;
            if (home) { /* LIKWID looks in the user's groups first */
                snprintf(path, sizeof path, "%s/.likwid/groups/%s/%s.txt", home, lk.arch, tok);
                rc = sp__lk_group_read(path, g, NULL, 0);
            }
            if (rc == SP_ENOENT) {
                snprintf(path, sizeof path, "%s/%s/%s.txt",
                         dir && *dir ? dir : "/usr/share/likwid/perfgroups", lk.arch, tok);
                rc = sp__lk_group_read(path, g, res.err, sizeof res.err);
            }
            if (rc == 0) {
                size_t n = strlen(res.group_files);
                snprintf(res.group_files + n, sizeof res.group_files - n, "%s%s", n ? "|" : "",
                         path);
            }
        }
        if (rc == 0) {
            res.ngroups++;
        } else if (rc != SP_ENOMEM) {
            /* Keep the raw events: an empty group names them "event<i>". */
            memset(g, 0, sizeof *g);
            res.ngroups++;
            rc = 0;
        }
    }
    free(copy);
    return rc;
}

void sp__likwid_stop(void)
{
    if (!lk.active)
        return;
    lk.close(); /* writes $LIKWID_FILEPATH for likwid-perfctr */
    lk.active = 0;
    lk.closed = 1;
    const char *path = getenv("LIKWID_FILEPATH");
    if (sp__lk_marker_read(path, &res.marker, res.err, sizeof res.err) == 0 &&
        load_groups(getenv("LIKWID_EVENTS")) == 0)
        res.have = 1;
}

int sp__likwid_collect(sp_run *run, char *warn, size_t wsize)
{
    if (!(sp__mode_cur.flags & SP__MODE_LIKWID))
        return 0;
    int rc = 0;
    const char *events = getenv("LIKWID_EVENTS");
    if (sp__mode_meta(run, "likwid_events", events ? events : "") ||
        sp__mode_meta(run, "likwid_arch", lk.arch) ||
        sp__mode_meta(run, "likwid_group_files", res.group_files))
        return sp__error(SP_ENOMEM, "sp_finalize: out of memory storing LIKWID results");
    if (!res.have) {
        snprintf(warn, wsize, "LIKWID results not read: %s", res.err[0] ? res.err : "no file");
        return 0;
    }
    sp__lk_env env = {0, lk.clock_hz > 0 ? 1.0 / lk.clock_hz : 0, lk.sockets, 1};
    size_t skipped = 0;
    if ((rc = sp__lk_store(run, &res.marker, res.groups, res.ngroups, &env, &skipped)))
        return sp__error(SP_ENOMEM, "sp_finalize: out of memory storing LIKWID results");
    if (skipped)
        snprintf(warn, wsize, "LIKWID: %zu result line(s) of regions this run does not have",
                 skipped);
    return 0;
}

void sp__likwid_reset(void)
{
    sp__lk_marker_free(&res.marker);
    for (int i = 0; i < res.ngroups; i++)
        sp__lk_group_free(&res.groups[i]);
    free(res.groups);
    memset(&res, 0, sizeof res);
}
