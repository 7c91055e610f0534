/* SPDX-License-Identifier: MIT */
/*
 * export_otf2.c - `export otf2`: the selected calls as an OTF2 archive,
 * written with the OTF2 library (see export_otf2.h and h5schema/FORMATS.md).
 *
 * Events first: the calls stream rank by rank (sp_trace_stream.h) into one
 * event writer per thread (OTF2 buffers a chunk per location and flushes it
 * to the location's file when full, so memory stays at a few chunks per
 * thread of one rank); a rank's writers are closed when the rank is done.
 * Then the global definitions, which need the event counts: clock
 * properties, the system tree (a node per host), a location group per
 * rank, a location per thread with events, a region per region; metadata
 * as archive properties, dropped calls as markers. The archive is built in
 * a temporary directory next to the destination and renamed into place.
 */
/* _GNU_SOURCE (CMake) gives nftw FTW_DEPTH / FTW_PHYS and strndup. */
#include "export_otf2.h"

#include "sp_error.h"

#ifndef SP_HAVE_OTF2

int sp__export_otf2(sp__trace_input *in, const char *dir, const sp__otf2_extra *extra,
                    sp__wrote_fn wrote)
{
    (void)in, (void)dir, (void)extra, (void)wrote;
    return sp__error(SP_ENOTSUP, "scope-profiler was built without OTF2 (Debian package "
                                 "libotf2-trace-dev): `export otf2` is not available");
}

#else

#include <ctype.h>
#include <errno.h>
#include <ftw.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "sp_analysis.h"

#define ARCHIVE_NAME "traces"
#define EVT_CHUNK (256u << 10) /* bytes of an event chunk */
#define EVT_CHUNKS_MAX 4       /* event chunks a location holds before OTF2 flushes it */
#define DEF_CHUNK (4u << 20)

typedef struct loc_info {
    uint64_t events;
    OTF2_EvtWriter *evt; /* open while its rank streams */
    bool used;           /* has events: gets a Location definition */
} loc_info;

struct sp__otf2 {
    sp__trace_input *in;
    const sp__otf2_extra *extra;
    OTF2_Archive *archive;
    OTF2_StringRef next_string;
    OTF2_GlobalDefWriter *defs;
    size_t *loc_base;   /* per rank: location ref of its thread 0 */
    size_t nlocs;
    loc_info *locs;
    uint64_t min_ts, max_ts;
    bool any_ts;
};

/* ---- OTF2 errors: captured, never printed by the library ---- */

static char otf2_msg[512];

static OTF2_ErrorCode on_otf2_error(void *ud, const char *file, uint64_t line, const char *fn,
                                    OTF2_ErrorCode code, const char *fmt, va_list va)
{
    (void)ud, (void)file, (void)line, (void)fn;
    char text[400] = "";
    if (fmt)
        vsnprintf(text, sizeof text, fmt, va);
    snprintf(otf2_msg, sizeof otf2_msg, "%s%s%s", OTF2_Error_GetName(code), *text ? ": " : "",
             text);
    return code;
}

static int otf2_fail(const char *what, OTF2_ErrorCode code)
{
    return sp__error(SP_EIO, "OTF2: %s failed: %s", what,
                     *otf2_msg ? otf2_msg : OTF2_Error_GetDescription(code));
}

#define OTF2_TRY(call, what)                                                                       \
    do {                                                                                           \
        OTF2_ErrorCode e_ = (call);                                                                \
        if (e_ != OTF2_SUCCESS)                                                                    \
            return otf2_fail(what, e_);                                                            \
    } while (0)

static OTF2_FlushType pre_flush(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void *caller,
                                bool final)
{
    (void)ud, (void)type, (void)loc, (void)caller, (void)final;
    return OTF2_FLUSH; /* a full chunk goes to its file: memory stays bounded */
}

/* OTF2 asks these for each chunk of a buffer. Left to itself it keeps
 * allocating event chunks (measured: 274 MB for 10M calls on 2 threads);
 * refusing a location's fifth event chunk makes it flush the buffer to the
 * location's file (the pre_flush above agrees) and hand the chunks back
 * through free_all, as Score-P bounds its trace buffers. */
typedef struct chunk_list {
    size_t n;
    void *chunk[EVT_CHUNKS_MAX + 1];
    struct chunk_list *more; /* other file types: no limit */
} chunk_list;

static void *chunk_alloc(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
                         uint64_t size)
{
    (void)ud, (void)loc;
    chunk_list *l = *per_buffer;
    if (!l && !(l = *per_buffer = calloc(1, sizeof *l)))
        return NULL;
    if (type == OTF2_FILETYPE_EVENTS && l->n == EVT_CHUNKS_MAX)
        return NULL; /* flush first */
    while (l->n == EVT_CHUNKS_MAX + 1) {
        if (!l->more && !(l->more = calloc(1, sizeof *l)))
            return NULL;
        l = l->more;
    }
    void *c = malloc(size);
    if (c)
        l->chunk[l->n++] = c;
    return c;
}

static void chunk_free_all(void *ud, OTF2_FileType type, OTF2_LocationRef loc, void **per_buffer,
                           bool final)
{
    (void)ud, (void)type, (void)loc;
    chunk_list *l = *per_buffer, *first = l;
    while (l) {
        for (size_t i = 0; i < l->n; i++)
            free(l->chunk[i]);
        l->n = 0;
        chunk_list *next = l->more;
        if (l != first || final)
            free(l);
        l = next;
    }
    if (first && !final)
        first->more = NULL;
    if (final)
        *per_buffer = NULL;
}

/* ---- references ---- */

OTF2_StringRef sp__otf2_new_string(sp__otf2 *w, const char *text)
{
    OTF2_StringRef ref = w->next_string++;
    OTF2_GlobalDefWriter_WriteString(w->defs, ref, text ? text : "");
    return ref;
}

OTF2_LocationGroupRef sp__otf2_group_ref(const sp__otf2 *w, size_t rank)
{
    (void)w;
    return (OTF2_LocationGroupRef)rank;
}

OTF2_LocationRef sp__otf2_location_ref(const sp__otf2 *w, size_t rank, int32_t thread)
{
    return (OTF2_LocationRef)(w->loc_base[rank] + (size_t)thread);
}

OTF2_TimeStamp sp__otf2_ts(const sp__otf2 *w, int64_t aligned_ns)
{
    (void)w;
    return aligned_ns > 0 ? (OTF2_TimeStamp)aligned_ns : 0; /* the clock's ns; never negative */
}

/* ---- events ---- */

static void note_ts(sp__otf2 *w, OTF2_TimeStamp ts)
{
    if (!w->any_ts || ts < w->min_ts)
        w->min_ts = ts;
    if (!w->any_ts || ts > w->max_ts)
        w->max_ts = ts;
    w->any_ts = true;
}

/* Extra events of (rank, thread) due at or before t_ns (INT64_MAX: all).
 * Before an Enter at t the caller passes t - 1, before a Leave t: an extra
 * event at the instant a region begins or ends goes inside it (an MPI
 * event inside its MPI call, however coarse the clock). */
static int write_extra(sp__otf2 *w, size_t rank, int32_t thread, loc_info *li, int64_t t_ns)
{
    const sp__otf2_extra *x = w->extra;
    if (!x)
        return 0;
    int64_t next;
    while ((next = x->next_time(x->ud, rank, thread)) != INT64_MAX && next <= t_ns) {
        int rc = x->write_next(x->ud, w, rank, thread, li->evt);
        if (rc)
            return rc;
        li->events++;
        note_ts(w, sp__otf2_ts(w, next));
    }
    return 0;
}

static int on_events(void *ud, size_t rank, int32_t thread, const sp_trace_event *ev, size_t n)
{
    sp__otf2 *w = ud;
    const sp_rank_data *rk = &w->in->run->ranks[rank];
    if (thread < 0 || (size_t)thread >= rk->nthreads)
        return sp__error(SP_EFORMAT, "rank %zu: events of thread %d, which the run does not name",
                         rank, (int)thread);
    OTF2_LocationRef loc = sp__otf2_location_ref(w, rank, thread);
    loc_info *li = &w->locs[loc];
    if (!li->evt) {
        li->evt = OTF2_Archive_GetEvtWriter(w->archive, loc);
        if (!li->evt)
            return otf2_fail("opening an event writer", OTF2_ERROR_INVALID);
        li->used = true;
    }
    for (size_t i = 0; i < n; i++) {
        OTF2_TimeStamp ts = sp__otf2_ts(w, ev[i].t_ns);
        int rc = write_extra(w, rank, thread, li, ev[i].begin ? ev[i].t_ns - 1 : ev[i].t_ns);
        if (rc)
            return rc;
        OTF2_ErrorCode e = ev[i].begin
                               ? OTF2_EvtWriter_Enter(li->evt, NULL, ts, (OTF2_RegionRef)ev[i].region)
                               : OTF2_EvtWriter_Leave(li->evt, NULL, ts, (OTF2_RegionRef)ev[i].region);
        if (e != OTF2_SUCCESS)
            return otf2_fail("writing an event", e);
        note_ts(w, ts);
    }
    li->events += n;
    return 0;
}

static int on_rank_end(void *ud, size_t rank)
{
    sp__otf2 *w = ud;
    const sp_rank_data *rk = &w->in->run->ranks[rank];
    for (size_t t = 0; t < rk->nthreads; t++) {
        loc_info *li = &w->locs[sp__otf2_location_ref(w, rank, (int32_t)t)];
        /* a thread with extra events but no call in the selection gets its
         * location for them */
        if (!li->evt && w->extra && w->extra->next_time(w->extra->ud, rank, (int32_t)t) != INT64_MAX) {
            li->evt = OTF2_Archive_GetEvtWriter(w->archive, sp__otf2_location_ref(w, rank, (int32_t)t));
            if (!li->evt)
                return otf2_fail("opening an event writer", OTF2_ERROR_INVALID);
            li->used = true;
        }
        if (!li->evt)
            continue;
        int rc = write_extra(w, rank, (int32_t)t, li, INT64_MAX);
        if (rc)
            return rc;
        OTF2_TRY(OTF2_Archive_CloseEvtWriter(w->archive, li->evt), "closing an event writer");
        li->evt = NULL;
    }
    return 0;
}

/* ---- definitions ---- */

/* The run's `timestamp` ("2026-01-01T12:00:00.000000", local time, with
 * "+01:00" when the writer knew its UTC offset) as ns since the epoch, or
 * OTF2_UNDEFINED_TIMESTAMP. */
static uint64_t parse_realtime(const char *s)
{
    struct tm tm = {0};
    long us = 0;
    int oh = 0, om = 0, used = 0;
    if (!s || sscanf(s, "%d-%d-%dT%d:%d:%d.%ld%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                     &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &us, &used) != 7)
        return OTF2_UNDEFINED_TIMESTAMP;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    const char *zone = s + used;
    time_t t;
    if ((*zone == '+' || *zone == '-') && sscanf(zone + 1, "%d:%d", &oh, &om) == 2) {
        int64_t off = (int64_t)(oh * 3600 + om * 60) * (*zone == '-' ? -1 : 1);
        t = timegm(&tm) - (time_t)off;
    } else {
        tm.tm_isdst = -1; /* no offset: the machine's local time */
        t = mktime(&tm);
    }
    if (t == (time_t)-1 || t < 0 || us < 0 || us > 999999)
        return OTF2_UNDEFINED_TIMESTAMP;
    return (uint64_t)t * 1000000000u + (uint64_t)us * 1000u;
}

static int write_clock(sp__otf2 *w)
{
    uint64_t t0 = w->any_ts ? w->min_ts : 0, len = w->any_ts ? w->max_ts - w->min_ts : 0;
    /* Times are the run's CLOCK_MONOTONIC ns (TSC ticks converted through
     * the run's calibration, ranks aligned to rank 0): 1e9 ticks a second.
     * The run's start (`timestamp`, taken at sp_setup) is the wall clock
     * of its first call, to within the time setup took. */
    uint64_t real = parse_realtime(sp_kvlist_get(&w->in->run->meta, "timestamp"));
    if (real != OTF2_UNDEFINED_TIMESTAMP && w->any_ts) {
        int64_t from_start = (int64_t)t0 - (int64_t)sp__otf2_ts(w, w->in->origin_ns);
        real = (uint64_t)((int64_t)real + from_start);
    }
    OTF2_TRY(OTF2_GlobalDefWriter_WriteClockProperties(w->defs, 1000000000u, t0, len, real),
             "writing the clock properties");
    return 0;
}

/* One system-tree node per host (ranks' `hostname`), under one root. */
static int write_system_tree(sp__otf2 *w, OTF2_SystemTreeNodeRef *host_of)
{
    const sp_run *run = w->in->run;
    OTF2_StringRef machine = sp__otf2_new_string(w, "machine");
    OTF2_StringRef node_class = sp__otf2_new_string(w, "node");
    const char *first = sp_kvlist_get(&run->meta, "hostname");
    OTF2_TRY(OTF2_GlobalDefWriter_WriteSystemTreeNode(w->defs, 0,
                                                      sp__otf2_new_string(w, "scope-profiler run"),
                                                      machine, OTF2_UNDEFINED_SYSTEM_TREE_NODE),
             "writing the system tree");
    OTF2_SystemTreeNodeRef next = 1;
    for (size_t r = 0; r < run->nranks; r++) {
        const char *host = sp_kvlist_get(&run->ranks[r].meta, "hostname");
        if (!host)
            host = first ? first : "unknown host";
        host_of[r] = OTF2_UNDEFINED_SYSTEM_TREE_NODE;
        for (size_t q = 0; q < r; q++) { /* ranks are few next to calls: a scan is fine */
            const char *h = sp_kvlist_get(&run->ranks[q].meta, "hostname");
            if (strcmp(h ? h : (first ? first : "unknown host"), host) == 0) {
                host_of[r] = host_of[q];
                break;
            }
        }
        if (host_of[r] != OTF2_UNDEFINED_SYSTEM_TREE_NODE)
            continue;
        host_of[r] = next++;
        OTF2_TRY(OTF2_GlobalDefWriter_WriteSystemTreeNode(w->defs, host_of[r],
                                                          sp__otf2_new_string(w, host), node_class,
                                                          0),
                 "writing the system tree");
    }
    return 0;
}

static int write_group_property(sp__otf2 *w, size_t r, const char *name, OTF2_Type type,
                                OTF2_AttributeValue v)
{
    OTF2_TRY(OTF2_GlobalDefWriter_WriteLocationGroupProperty(
                 w->defs, sp__otf2_group_ref(w, r), sp__otf2_new_string(w, name), type, v),
             "writing a rank property");
    return 0;
}

/* A location group per selected rank, a location per thread with events. */
static int write_locations(sp__otf2 *w, const OTF2_SystemTreeNodeRef *host_of)
{
    const sp_run *run = w->in->run;
    char name[96];
    for (size_t r = 0; r < run->nranks; r++) {
        if (!w->in->ranks[r])
            continue;
        const sp_rank_data *rk = &run->ranks[r];
        snprintf(name, sizeof name, "rank %zu", r);
        OTF2_TRY(OTF2_GlobalDefWriter_WriteLocationGroup(
                     w->defs, sp__otf2_group_ref(w, r), sp__otf2_new_string(w, name),
                     OTF2_LOCATION_GROUP_TYPE_PROCESS, host_of[r], OTF2_UNDEFINED_LOCATION_GROUP),
                 "writing a location group");
        for (size_t i = 0; i < rk->meta.n; i++) {
            OTF2_AttributeValue v = {.stringRef = sp__otf2_new_string(w, rk->meta.items[i].value)};
            int rc = write_group_property(w, r, rk->meta.items[i].key, OTF2_TYPE_STRING, v);
            if (rc)
                return rc;
        }
        /* Already applied to every timestamp: informative only. */
        int rc = write_group_property(w, r, "clock_offset_ns (applied)", OTF2_TYPE_INT64,
                                      (OTF2_AttributeValue){.int64 = rk->clock_offset_ns});
        if (rc == 0)
            rc = write_group_property(w, r, "clock_offset_err_ns", OTF2_TYPE_INT64,
                                      (OTF2_AttributeValue){.int64 = rk->clock_offset_err_ns});
        if (rc)
            return rc;
        for (size_t t = 0; t < rk->nthreads; t++) {
            OTF2_LocationRef loc = sp__otf2_location_ref(w, r, (int32_t)t);
            if (!w->locs[loc].used)
                continue;
            if (rk->threads[t].name) /* threads often share their program's name */
                snprintf(name, sizeof name, "%s (thread %zu)", rk->threads[t].name, t);
            else
                snprintf(name, sizeof name, "thread %zu", t);
            OTF2_TRY(OTF2_GlobalDefWriter_WriteLocation(
                         w->defs, loc, sp__otf2_new_string(w, name), OTF2_LOCATION_TYPE_CPU_THREAD,
                         w->locs[loc].events, sp__otf2_group_ref(w, r)),
                     "writing a location");
        }
    }
    return 0;
}

/* MPI functions timed as regions (use_mpi_regions) get the MPI paradigm and
 * the role of their kind, so Vampir colours them as MPI. */
static OTF2_RegionRole mpi_role(const char *name)
{
    static const struct {
        const char *prefix;
        OTF2_RegionRole role;
    } roles[] = {
        {"MPI_Barrier", OTF2_REGION_ROLE_BARRIER},  {"MPI_Bcast", OTF2_REGION_ROLE_COLL_ONE2ALL},
        {"MPI_Scatter", OTF2_REGION_ROLE_COLL_ONE2ALL}, {"MPI_Reduce", OTF2_REGION_ROLE_COLL_ALL2ONE},
        {"MPI_Gather", OTF2_REGION_ROLE_COLL_ALL2ONE}, {"MPI_All", OTF2_REGION_ROLE_COLL_ALL2ALL},
        {"MPI_Reduce_scatter", OTF2_REGION_ROLE_COLL_ALL2ALL}, {"MPI_Scan", OTF2_REGION_ROLE_COLL_OTHER},
        {"MPI_Exscan", OTF2_REGION_ROLE_COLL_OTHER},
    };
    OTF2_RegionRole role = OTF2_REGION_ROLE_POINT2POINT; /* Send, Recv, Wait, Test, ... */
    size_t best = 0;
    for (size_t i = 0; i < sizeof roles / sizeof *roles; i++) {
        size_t n = strlen(roles[i].prefix);
        if (n > best && strncmp(name, roles[i].prefix, n) == 0) {
            role = roles[i].role;
            best = n;
        }
    }
    if (strncmp(name, "MPI_Init", 8) == 0 || strncmp(name, "MPI_Finalize", 12) == 0)
        role = OTF2_REGION_ROLE_FUNCTION;
    return role;
}

static int write_regions(sp__otf2 *w)
{
    const sp_run *run = w->in->run;
    const char *descs[8] = {0};
    OTF2_StringRef desc_refs[8];
    size_t ndescs = 0;
    for (size_t g = 0; g < run->nregions; g++) {
        const char *name = run->region_names[g];
        int32_t flags = g < run->nregion_flags ? run->region_flags[g] : 0;
        OTF2_RegionRole role = OTF2_REGION_ROLE_CODE;
        OTF2_Paradigm paradigm = OTF2_PARADIGM_USER;
        const char *desc = "scope-profiler region";
        if (flags & SP_REGION_FLAG_SAMPLED) {
            role = OTF2_REGION_ROLE_FUNCTION;
            paradigm = OTF2_PARADIGM_SAMPLING;
            desc = "function estimated from call-stack samples (calls and times are estimates)";
        } else if (flags & SP_REGION_FLAG_TRACED) {
            role = OTF2_REGION_ROLE_FUNCTION;
            paradigm = OTF2_PARADIGM_COMPILER;
            desc = (flags & SP_REGION_FLAG_THROTTLED)
                       ? "traced function (-finstrument-functions), throttled: calls are a lower bound"
                       : "traced function (-finstrument-functions)";
        } else if (strncmp(name, "MPI_", 4) == 0) {
            role = mpi_role(name);
            paradigm = OTF2_PARADIGM_MPI;
            desc = "MPI call (use_mpi_regions)";
        }
        size_t d = 0; /* a handful of texts: each written once */
        while (d < ndescs && descs[d] != desc)
            d++;
        if (d == ndescs && ndescs < 8) {
            descs[ndescs] = desc;
            desc_refs[ndescs++] = sp__otf2_new_string(w, desc);
        }
        OTF2_StringRef s = sp__otf2_new_string(w, name);
        OTF2_TRY(OTF2_GlobalDefWriter_WriteRegion(w->defs, (OTF2_RegionRef)g, s, s,
                                                  desc_refs[d], role, paradigm,
                                                  OTF2_REGION_FLAG_NONE, OTF2_UNDEFINED_STRING, 0,
                                                  0),
                 "writing a region");
    }
    return 0;
}

/* Metadata key -> property name SCOPE_PROFILER::KEY ([A-Z0-9_], as OTF2
 * requires; other characters become '_'). */
static void property_name(const char *key, char *out, size_t n)
{
    size_t k = (size_t)snprintf(out, n, "SCOPE_PROFILER::");
    for (const char *p = key; *p && k + 1 < n; p++) {
        unsigned char c = (unsigned char)*p;
        out[k++] = isalnum(c) && c < 128 ? (char)toupper(c) : '_';
    }
    out[k] = '\0';
}

static int write_properties(sp__otf2 *w, uint64_t dropped)
{
    const sp_run *run = w->in->run;
    char name[160], num[32];
    for (size_t i = 0; i < run->meta.n; i++) {
        if (!*run->meta.items[i].value)
            continue; /* OTF2 takes an empty value as "remove the property" */
        property_name(run->meta.items[i].key, name, sizeof name);
        OTF2_TRY(OTF2_Archive_SetProperty(w->archive, name, run->meta.items[i].value, true),
                 "writing a property");
    }
    if (run->source_path)
        OTF2_TRY(OTF2_Archive_SetProperty(w->archive, "SCOPE_PROFILER::SOURCE_FILE",
                                          run->source_path, true),
                 "writing a property");
    snprintf(num, sizeof num, "%" PRIu64, dropped);
    OTF2_TRY(OTF2_Archive_SetProperty(w->archive, "SCOPE_PROFILER::DROPPED_CALLS", num, true),
             "writing a property");
    return 0;
}

/* Dropped calls (SP_FULL_DROP): one marker per (rank, region), scoped to the
 * rank, spanning the trace (when they were dropped is not recorded). */
static int write_dropped(sp__otf2 *w, uint64_t *total)
{
    const sp_run *run = w->in->run;
    *total = 0;
    OTF2_MarkerWriter *mw = NULL;
    char text[512];
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t g = 0; rk->dropped && w->in->ranks[r] && g < run->nregions; g++) {
            if (!rk->dropped[g])
                continue;
            *total += rk->dropped[g];
            if (!mw) {
                mw = OTF2_Archive_GetMarkerWriter(w->archive);
                if (!mw)
                    return otf2_fail("opening the marker writer", OTF2_ERROR_INVALID);
                OTF2_TRY(OTF2_MarkerWriter_WriteDefMarker(mw, 0, "scope-profiler",
                                                          "dropped calls", OTF2_SEVERITY_HIGH),
                         "writing a marker definition");
            }
            snprintf(text, sizeof text,
                     "%" PRIu64 " calls of %s were dropped on rank %zu (memory pool full, "
                     "SP_FULL_DROP): they are missing from this trace",
                     rk->dropped[g], run->region_names[g], r);
            OTF2_TRY(OTF2_MarkerWriter_WriteMarker(mw, w->min_ts, w->max_ts - w->min_ts, 0,
                                                   OTF2_MARKER_SCOPE_LOCATION_GROUP,
                                                   sp__otf2_group_ref(w, r), text),
                     "writing a marker");
        }
    }
    if (mw)
        OTF2_TRY(OTF2_Archive_CloseMarkerWriter(w->archive, mw), "closing the marker writer");
    return 0;
}

/* Empty local definition files, one per location, as OTF2 readers expect. */
static int write_local_defs(sp__otf2 *w)
{
    OTF2_TRY(OTF2_Archive_OpenDefFiles(w->archive), "opening the definition files");
    for (size_t l = 0; l < w->nlocs; l++) {
        if (!w->locs[l].used)
            continue;
        OTF2_DefWriter *dw = OTF2_Archive_GetDefWriter(w->archive, (OTF2_LocationRef)l);
        if (!dw)
            return otf2_fail("opening a definition writer", OTF2_ERROR_INVALID);
        OTF2_TRY(OTF2_Archive_CloseDefWriter(w->archive, dw), "closing a definition writer");
    }
    OTF2_TRY(OTF2_Archive_CloseDefFiles(w->archive), "closing the definition files");
    return 0;
}

static int write_definitions(sp__otf2 *w)
{
    uint64_t dropped = 0;
    int rc = write_dropped(w, &dropped);
    if (rc == 0)
        rc = write_properties(w, dropped);
    if (rc == 0 && !(w->defs = OTF2_Archive_GetGlobalDefWriter(w->archive)))
        rc = otf2_fail("opening the global definitions", OTF2_ERROR_INVALID);
    OTF2_SystemTreeNodeRef *host_of = NULL;
    if (rc == 0 && !(host_of = calloc(w->in->run->nranks + 1, sizeof *host_of)))
        rc = sp__error(SP_ENOMEM, "out of memory");
    if (rc == 0)
        rc = write_clock(w);
    if (rc == 0)
        rc = write_system_tree(w, host_of);
    if (rc == 0)
        rc = write_locations(w, host_of);
    if (rc == 0)
        rc = write_regions(w);
    if (rc == 0 && w->extra && w->extra->write_defs)
        rc = w->extra->write_defs(w->extra->ud, w, w->defs);
    free(host_of);
    return rc ? rc : write_local_defs(w);
}

/* ---- the archive's directory ---- */

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

static void rm_tree(const char *path)
{
    nftw(path, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

/* Move the finished archive tmp to dir (which must be missing or empty). */
static int place_archive(const char *tmp, const char *dir)
{
    if (rename(tmp, dir) == 0)
        return 0;
    if ((errno == ENOTEMPTY || errno == EEXIST) && rmdir(dir) == 0 && rename(tmp, dir) == 0)
        return 0;
    return sp__error(SP_EIO, "cannot write '%s': %s%s", dir, strerror(errno),
                     errno == ENOTEMPTY || errno == EEXIST
                         ? " (the directory is not empty: remove it or choose another -o)"
                         : "");
}

static int stream_events(sp__otf2 *w)
{
    sp_trace_sink sink = {.ud = w, .events = on_events, .rank_end = on_rank_end};
    OTF2_TRY(OTF2_Archive_OpenEvtFiles(w->archive), "opening the event files");
    int rc = sp_trace_stream(w->in->src, w->in->run->agg, &w->in->sel, &sink);
    for (size_t l = 0; l < w->nlocs; l++) /* after a failure: what is still open */
        if (w->locs[l].evt) {
            OTF2_Archive_CloseEvtWriter(w->archive, w->locs[l].evt);
            w->locs[l].evt = NULL;
        }
    if (rc)
        return rc;
    OTF2_TRY(OTF2_Archive_CloseEvtFiles(w->archive), "closing the event files");
    return 0;
}

static int write_archive(sp__otf2 *w, const char *path)
{
    static const OTF2_FlushCallbacks flush = {.otf2_pre_flush = pre_flush};
    char creator[64];
    snprintf(creator, sizeof creator, "scope-profiler %d.%d.%d", SP_VERSION_MAJOR,
             SP_VERSION_MINOR, SP_VERSION_PATCH);
    w->archive = OTF2_Archive_Open(path, ARCHIVE_NAME, OTF2_FILEMODE_WRITE, EVT_CHUNK, DEF_CHUNK,
                                   OTF2_SUBSTRATE_POSIX, OTF2_COMPRESSION_NONE);
    if (!w->archive)
        return otf2_fail("creating the archive", OTF2_ERROR_INVALID);
    static const OTF2_MemoryCallbacks memory = {.otf2_allocate = chunk_alloc,
                                                .otf2_free_all = chunk_free_all};
    OTF2_TRY(OTF2_Archive_SetFlushCallbacks(w->archive, &flush, NULL), "setting up the archive");
    OTF2_TRY(OTF2_Archive_SetMemoryCallbacks(w->archive, &memory, NULL), "setting up the archive");
    OTF2_TRY(OTF2_Archive_SetSerialCollectiveCallbacks(w->archive), "setting up the archive");
    OTF2_TRY(OTF2_Archive_SetCreator(w->archive, creator),
             "setting up the archive");
    if (w->in->run->source_path)
        OTF2_TRY(OTF2_Archive_SetDescription(w->archive, w->in->run->source_path),
                 "setting up the archive");
    const char *host = sp_kvlist_get(&w->in->run->meta, "hostname");
    if (host)
        OTF2_TRY(OTF2_Archive_SetMachineName(w->archive, host), "setting up the archive");
    int rc = stream_events(w);
    if (rc == 0 && !w->any_ts) /* OTF2 readers refuse an archive without locations */
        rc = sp__error(SP_ENOENT, "nothing to write: no call of the run is in the selection "
                                  "(--ranks, --include/--exclude, --top, --from/--to)");
    return rc ? rc : write_definitions(w);
}

int sp__export_otf2(sp__trace_input *in, const char *dir, const sp__otf2_extra *extra,
                    sp__wrote_fn wrote)
{
    sp__otf2 w = {.in = in, .extra = extra};
    const sp_run *run = in->run;
    otf2_msg[0] = '\0';
    OTF2_Error_RegisterCallback(on_otf2_error, NULL);
    w.loc_base = calloc(run->nranks + 1, sizeof *w.loc_base);
    if (!w.loc_base)
        return sp__error(SP_ENOMEM, "out of memory");
    for (size_t r = 0; r < run->nranks; r++)
        w.loc_base[r + 1] = w.loc_base[r] + run->ranks[r].nthreads;
    w.nlocs = w.loc_base[run->nranks];
    w.locs = calloc(w.nlocs + 1, sizeof *w.locs);
    size_t n = strlen(dir);
    char *tmp = malloc(n + 16);
    int rc = 0;
    if (!w.locs || !tmp)
        rc = sp__error(SP_ENOMEM, "out of memory");
    while (rc == 0 && n > 1 && dir[n - 1] == '/')
        n--; /* "out/" names the directory out */
    if (rc == 0) {
        snprintf(tmp, n + 16, "%.*s.tmpXXXXXX", (int)n, dir);
        if (!mkdtemp(tmp))
            rc = sp__error(SP_EIO, "cannot write '%s': %s", dir, strerror(errno));
    }
    char *archive_dir = NULL;
    if (rc == 0 && !(archive_dir = sp__path_join(tmp, "a")))
        rc = sp__error(SP_ENOMEM, "out of memory");
    if (rc == 0) {
        rc = write_archive(&w, archive_dir);
        if (w.archive) {
            OTF2_ErrorCode e = OTF2_Archive_Close(w.archive);
            if (rc == 0 && e != OTF2_SUCCESS)
                rc = otf2_fail("closing the archive", e);
        }
        if (rc == 0) {
            char *final_dir = strndup(dir, n);
            rc = final_dir ? place_archive(archive_dir, final_dir) : sp__error(SP_ENOMEM, "out of memory");
            free(final_dir);
        }
        rm_tree(tmp);
    }
    if (rc == 0 && wrote) {
        char *anchor = malloc(n + sizeof "/" ARCHIVE_NAME ".otf2");
        if (anchor) {
            snprintf(anchor, n + sizeof "/" ARCHIVE_NAME ".otf2", "%.*s/" ARCHIVE_NAME ".otf2",
                     (int)n, dir);
            wrote(anchor);
            free(anchor);
        }
    }
    free(archive_dir);
    free(tmp);
    free(w.locs);
    free(w.loc_base);
    return rc;
}

#endif /* SP_HAVE_OTF2 */
