/* SPDX-License-Identifier: MIT */
/*
 * scope_profiler.h - the public API of the scope-profiler recorder.
 *
 * Record named regions with nanosecond start/end timestamps, stream them to an
 * HDF5 file while the program runs (finished at sp_finalize()), and read them
 * back as an sp_run.
 *
 *     #include <scope_profiler.h>
 *
 *     int main(void) {
 *         sp_setup(NULL);                      // defaults: time-only, profiling_data.h5
 *                                              // (a valid file from here on)
 *         SP_SCOPE("solve") { do_work(); }     // a block region
 *         return sp_finalize(true, NULL) ? 1 : 0;  // writes the file, prints the summary
 *     }
 *
 * Conventions (every function below follows them):
 * - Status-returning functions return 0 (SP_OK) or a negative SP_E* code; the
 *   reason is then available from sp_last_error() (thread-local, valid until the
 *   next failing call on the same thread).
 * - Pointer-returning functions return NULL on failure and set sp_last_error().
 * - The library never calls exit() and never prints, unless a function is
 *   explicitly asked to (a `verbose` flag or a FILE * argument).
 * - Compiling with -DSCOPE_PROFILER_DISABLE turns every SP_* macro into nothing;
 *   the functions stay declared so explicit calls still link.
 */
#ifndef SCOPE_PROFILER_H
#define SCOPE_PROFILER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SP_VERSION_MAJOR 0
#define SP_VERSION_MINOR 1
#define SP_VERSION_PATCH 0

/* ---------------------------------------------------------------- errors */

/* Every status code, defined once: X(NAME, value, message). */
#define SP_ERRNO_MAP(X)                                                        \
    X(EINVAL, -1, "invalid argument")                                          \
    X(ENOMEM, -2, "out of memory")                                             \
    X(EIO, -3, "input/output error")                                           \
    X(ESTATE, -4, "call out of order")                                         \
    X(EFORMAT, -5, "not a scope-profiler file, or wrongly shaped")             \
    X(EVERSION, -6, "file written by a newer schema version")                  \
    X(ENOTSUP, -7, "not supported by this build or machine")                   \
    X(ENOENT, -8, "no such file or region")                                    \
    X(EUNBALANCED, -9, "regions were not properly nested or left open")

typedef enum sp_status {
    SP_OK = 0,
#define SP__ERRNO_ENUM(name, value, msg) SP_##name = value,
    SP_ERRNO_MAP(SP__ERRNO_ENUM)
#undef SP__ERRNO_ENUM
} sp_status;

/* The fixed description of a status code ("unknown error" for unknown codes).
 * Returns a static string; never NULL. */
const char *sp_strerror(int code);

/* Why the last failing call on this thread failed: a one-line, human-readable
 * message naming the object involved (file, region, option). Returns a
 * thread-local buffer owned by the library ("" when nothing failed yet);
 * valid until the next failing call on this thread. Never NULL. */
const char *sp_last_error(void);

/* The library version as "MAJOR.MINOR.PATCH". Static string. */
const char *sp_version(void);

/* ---------------------------------------------------------------- setup */

/* The recording path each region uses; chosen once per session by sp_setup(). */
typedef enum sp_region_kind {
    SP_REGION_DISABLED,      /* nothing recorded */
    SP_REGION_TIME_ONLY,     /* start/end timestamps (the default) */
    SP_REGION_FULL,          /* timestamps plus LIKWID hardware counters */
    SP_REGION_LINE_PROFILER  /* timestamps plus line-level samples */
} sp_region_kind;

/* What a recording thread does when every event chunk of the pool is in use
 * (the writer has not caught up): see sp_options.when_full. */
typedef enum sp_full_policy {
    SP_FULL_BLOCK = 0, /* wait for the writer: never loses a call (the default) */
    SP_FULL_DROP = 1   /* do not wait: the calls are counted as dropped (reported
                          by sp_region_dropped_calls, the file and finalize) */
} sp_full_policy;

typedef struct sp_options {
    bool deactivate_profiling;   /* false: true records nothing, writes no file */
    bool deactivate_file_output; /* false: true keeps everything in memory */
    const char *file_path;       /* "profiling_data.h5"; copied by sp_setup */
    size_t buffer_limit;         /* 1024: initial calls per region buffer (>= 1) */
    bool recursive_profile;      /* false: trace callees (-finstrument-functions) */
    bool use_likwid;             /* false: LIKWID marker regions */
    bool use_line_profiler;      /* false: line-level sampling; wins over use_likwid */
    /* Recording modes (see "Recording modes" below); 0 / NULL: defaults. */
    unsigned max_depth;          /* 128: nesting of traced calls recorded */
    unsigned line_hz;            /* 1000: line samples per second of CPU time */
    bool likwid_fallback;        /* false: true records time only, with a warning,
                                    when LIKWID cannot measure (else sp_setup fails) */
    const char *perf_events;     /* NULL: comma list of perf_event counters read
                                    around every call, e.g. "task-clock,page-faults" */
    bool use_mpi_regions;        /* false: under MPI (libscope_profiler_mpi), time the
                                    MPI calls themselves as regions ("MPI_Allreduce") */
    /* Streaming (see "Streaming" below); 0: defaults. */
    size_t memory_limit;         /* 64 MiB: bytes of event chunks in use at most
                                    (from 1 MiB); the whole process stays near it */
    double flush_interval;       /* 1.0 s: a call that ended this long before a kill
                                    is in the file (from 0.01 s) */
    sp_full_policy when_full;    /* SP_FULL_BLOCK: no chunk free -> wait or drop */
} sp_options;

/* Fill *o with the defaults documented above. */
void sp_options_init(sp_options *o);

/*
 * Recording modes (each adds to the timestamps; see README "Recording modes"):
 * - recursive_profile: code compiled with -finstrument-functions gets every
 *   function it calls while a region is open traced as a region named
 *   "<module>.<function>" (module: stem of the source file declaring the
 *   function, from the debug information). Compiled without -g, a program's
 *   functions are named "<function>" alone (its symbol table has no files)
 *   and sp_finalize warns once how to get file names (-g changes no code;
 *   CMake's scope_profiler_instrument() adds it). SP_SCOPE_RECURSIVE /
 *   sp_region_begin_recursive trace below one region only. Guard rails:
 *   max_depth, and a function called more than 100,000 times for less than
 *   1 us each stops being traced (reported at finalize and in metadata).
 * - use_line_profiler: while a region is open, its thread's instruction
 *   pointer is sampled (perf_event cpu-clock, else a POSIX CPU-time timer;
 *   SIGPROF) about line_hz times per second of CPU time; samples become a
 *   per region line table (`scope-profiler line-profile FILE`).
 * - use_likwid: every region is also a LIKWID marker region (run the program
 *   under `likwid-perfctr -g GROUP -m`); raw events and derived metrics are
 *   stored per region and hardware thread (`scope-profiler inspect --likwid`).
 *   liblikwid is loaded at sp_setup; without it, or when LIKWID cannot measure
 *   on this machine, sp_setup returns SP_ENOTSUP (or, with likwid_fallback,
 *   records time only and says so).
 * - perf_events: the listed counters (task-clock, page-faults, minor-faults,
 *   major-faults, context-switches, cpu-migrations, cpu-clock, cycles,
 *   instructions, cache-misses, branch-misses) are read as one group at every
 *   begin and end; per region and thread sums are stored
 *   (`scope-profiler inspect --counters`). Events this machine cannot count
 *   are dropped with a warning.
 */

/*
 * Streaming. A session records each thread's begins and ends as 12-byte
 * events into 64 KiB chunks from a per-process pool (at most memory_limit
 * bytes in use); a background writer thread ("sp-writer") empties full
 * chunks into the file as the program runs and gives them back. The hot
 * path stays free of locks, allocation and system calls; a chunk switch
 * (every ~5400 events) takes the pool's mutex. From sp_setup() on, the file
 * at file_path is a valid run: every flush_interval / 2 the writer also
 * writes the events of chunks still being filled and flushes, so after a
 * SIGKILL the file holds every call that ended at least flush_interval
 * (plus the writer's lag under load, bounded: README "How it records")
 * before the kill, however fast threads record (h5schema/SCHEMA.md, "A run
 * while it records, and after a kill"). sp_finalize() turns it into one finished file. When the
 * writer cannot keep up (every chunk in use): SP_FULL_BLOCK waits for it,
 * SP_FULL_DROP counts new calls as dropped instead (calls already recorded
 * keep their ends). With deactivate_file_output everything stays in memory
 * as encoded events (8 bytes per event, 16 per call) until sp_finalize().
 */

/*
 * MPI (link -lscope_profiler_mpi instead of -lscope_profiler; nothing changes
 * in the code). sp_setup() notices whether MPI is initialised (if not yet,
 * sp_finalize() does); then both are collective: every rank calls them, and
 * sp_finalize() before MPI_Finalize() (a program that forgets it gets its
 * file anyway: MPI_Finalize() finalizes the session first). All ranks write
 * one file: while the job runs every rank streams into its own part next to
 * file_path (rank 0's file there links to them), and sp_finalize() joins the
 * parts rank by rank into one finished file, published atomically; every
 * rank returns the same status (SCOPE_PROFILER_MPI_WRITER, which chose
 * between the writers of schema 1, is still accepted and ignored). Each rank's
 * clock offset to rank 0 is measured at setup and finalize. With
 * use_mpi_regions the common MPI calls are timed as regions named after the
 * call. verbose prints the summary on rank 0 only; *results is the merged
 * run on rank 0 (read back from the file) and on other ranks that rank's
 * calls only (the other ranks empty). Built without MPI, use_mpi_regions and
 * SCOPE_PROFILER_MPI_* are ignored.
 */

/*
 * Start a profiling session. o == NULL means the defaults.
 *
 * Environment variables override the options, so a production binary can be
 * switched without recompiling:
 *   SCOPE_PROFILER_DISABLE=1        deactivate_profiling
 *   SCOPE_PROFILER_NO_FILE=1        deactivate_file_output
 *   SCOPE_PROFILER_FILE=path        file_path
 *   SCOPE_PROFILER_BUFFER_LIMIT=n   buffer_limit
 *   SCOPE_PROFILER_CLOCK=tsc|monotonic  force the timestamp source
 *   SCOPE_PROFILER_RECURSIVE=1      recursive_profile
 *   SCOPE_PROFILER_MAX_DEPTH=n      max_depth
 *   SCOPE_PROFILER_LINE_PROFILER=1  use_line_profiler (short: SCOPE_PROFILER_LINES=1)
 *   SCOPE_PROFILER_LINE_HZ=n        line_hz
 *   SCOPE_PROFILER_LINE_SAMPLER=perf|timer  force the line sampler
 *   SCOPE_PROFILER_LIKWID=1         use_likwid
 *   SCOPE_PROFILER_LIKWID_FALLBACK=1  likwid_fallback
 *   SCOPE_PROFILER_PERF_EVENTS=list perf_events ("" or "none": off)
 *   SCOPE_PROFILER_MPI_REGIONS=1    use_mpi_regions
 *   SCOPE_PROFILER_MPI_WRITER=parallel|token  the MPI file writer (below)
 *   SCOPE_PROFILER_MEMORY_LIMIT=n   memory_limit in bytes (suffix K, M or G: KiB...)
 *   SCOPE_PROFILER_FLUSH_INTERVAL=s flush_interval in seconds (e.g. 0.5)
 *   SCOPE_PROFILER_WHEN_FULL=block|drop  when_full
 *   SCOPE_PROFILER_COMPRESSION=lz4|deflate|none  the event tables' filter
 *                                   (default lz4 where HDF5's LZ4 plugin loads,
 *                                   else deflate; see SCHEMA.md)
 * (values "1", "true", "yes", "on" are true; "0", "false", "no", "off" false).
 *
 * With file output, the file at file_path is created at once (an older file
 * there is replaced) and holds the run as it records; if it cannot be
 * created, sp_setup still succeeds, the calls are kept in memory, and
 * sp_finalize() tries again and reports. One run per path: when another
 * run that is still running (another process, a fork child, another MPI
 * job) records to file_path, this run writes "<stem>.pid<pid>.h5" instead
 * (file_path "<stem>.h5"; under MPI rank 0's pid, for every rank) and says
 * so in the metadata key path_in_use and in sp_finalize(verbose)'s
 * warnings; the run's results (sp_finalize) name the file in source_path.
 * Parts of file_path that dead runs left (a SIGKILL, an MPI_Abort) are
 * removed here, never a live run's. A background writer thread
 * ("sp-writer", every signal blocked) runs until sp_finalize(); after fork()
 * the child records nothing and its sp_finalize() returns SP_ESTATE without
 * touching the parent's files (a child's own sp_setup starts its own run).
 *
 * Calling it again ends the current session (its data and its files are
 * discarded unless sp_finalize() ran) and starts a new one; region handles
 * stay valid. Other threads may keep recording meanwhile (an OpenMP pool
 * left running): a call they have open when the old session ends is lost
 * with it, never a crash; their next calls record in the new session
 * (tests/recorder/test_race_finalize.c, also under ThreadSanitizer).
 * Threads may call sp_setup() and sp_finalize() at the same time: one runs
 * at a time, each as if called alone (tests/recorder/test_setup_threads.c).
 * Returns 0, SP_EINVAL for a bad option or environment value, SP_ENOTSUP for
 * a mode this build or machine cannot record, SP_ENOMEM, SP_EIO (the writer
 * thread could not start).
 */
int sp_setup(const sp_options *o);

/* Add a fact about this run to the file's metadata (e.g. "problem_size",
 * "128"). Both strings are copied; a key set twice keeps the last value.
 * Keys set while no session is active go to the next session; sp_finalize()
 * consumes them and a new sp_setup() over an unfinalized session drops them.
 * Reserved: the keys the recorder fills itself (hostname, timestamp, pid,
 * ..., and every "slurm_" / "clock_" key).
 * Returns 0, SP_EINVAL (NULL or empty key, or a reserved key), SP_ENOMEM. */
int sp_metadata_set(const char *key, const char *value);

/* ---------------------------------------------------------------- regions */

typedef struct sp_region sp_region;

/*
 * The handle of the region called `name` (any UTF-8, copied), created on first
 * use. Handles live until the process exits and stay valid across sessions.
 * Thread-safe (takes a lock: resolve handles once, not on the hot path).
 * Never returns NULL: on a NULL name or out of memory it returns a shared
 * handle that records nothing, and sp_last_error() says why.
 */
sp_region *sp_region_get(const char *name);

/* Open / close one call of region r on the calling thread: one event into
 * the thread's current chunk; no lock, no allocation, no system call. About
 * every 5,400 events the thread takes a fresh chunk from the pool (its
 * mutex; under SP_FULL_BLOCK it may wait for the writer). Calls must nest
 * properly per thread; a mismatched end is repaired by the writer, counted
 * and reported at finalize, never a crash. */
void sp_region_begin(sp_region *r);
void sp_region_end(sp_region *r);

/* Like sp_region_begin/end, and while the call is open the thread's
 * functions compiled with -finstrument-functions are traced as regions (in
 * any session that records, whatever recursive_profile says). Ending it
 * first closes the traced calls still open inside it. */
void sp_region_begin_recursive(sp_region *r);
void sp_region_end_recursive(sp_region *r);

/* The kind of recording r does in the current session. */
sp_region_kind sp_region_get_kind(const sp_region *r);

/* "DisabledProfileRegion", "TimeOnlyProfileRegion", "FullProfileRegion",
 * "LineProfilerRegion" (the region classes of the Python package);
 * "UnknownProfileRegion" otherwise. Static string. */
const char *sp_region_kind_name(sp_region_kind k);

/* The region's name (owned by the library, lives as long as the handle). */
const char *sp_region_name(const sp_region *r);

/* Calls recorded in this session, summed over all threads. After
 * sp_finalize() this and the two queries below report the finished session
 * until the next sp_setup() resets them. */
uint64_t sp_region_num_calls(const sp_region *r);

/* Calls not recorded, all threads: no chunk free under SP_FULL_DROP, or out
 * of memory. */
uint64_t sp_region_dropped_calls(const sp_region *r);

/* The capacity the Python package's per-region buffer would have for the
 * calls recorded so far on each thread (buffer_limit doubled as often as
 * needed; 0 before the first call), summed over the threads that used r.
 * Kept for the package's semantics: memory is bounded by memory_limit. */
size_t sp_region_capacity(const sp_region *r);

/* Copy up to `max` durations (end - start, ns) of completed calls still held
 * in memory into out, thread by thread in recording order: every call of a
 * session without file output; in a session writing a file, the calls not
 * yet written (the writer writes every few milliseconds: read the file for
 * the others). Returns how many were copied (0 after sp_finalize(): use its
 * results instead). Safe while other threads record. */
size_t sp_region_durations_ns(const sp_region *r, int64_t *out, size_t max);

/* Add line timings measured by someone else than the line sampler (a
 * language binding's line tracer: the Python module's use_line_profiler
 * stores its per-line table this way) to the calling rank's line table in
 * the file (the lines/ table of SCHEMA.md; `scope-profiler line-profile`,
 * the viewer's Lines page): `count` executions of line `lineno` of `file`,
 * in `function`, while `region` was open, taking `time_ns` in all. Strings
 * are copied; rows with the same region, file, line and function add up.
 * Set the metadata key "line_tracer" (sp_metadata_set) to say what measured
 * them: readers then call the counts executions, not samples, and the times
 * measured, not estimated. Call between sp_setup() and sp_finalize().
 * Returns 0, SP_EINVAL (NULL region, file or function, negative lineno or
 * time), SP_ESTATE (no session), SP_ENOMEM. */
int sp_lines_add(sp_region *region, const char *file, int lineno, const char *function,
                 uint64_t count, int64_t time_ns);

/* ---------------------------------------------------------------- results */

typedef struct sp_run sp_run;               /* a whole run: ranks, threads, calls */
typedef struct sp_run_region sp_run_region; /* one region's statistics in a run */

/*
 * End the session: stop recording, close the clock calibration, let the
 * writer write what is left and close calls still open, build the finished
 * file (under an exclusive temporary name, the streamed events copied as
 * they are, renamed over file_path; the parts are removed), and optionally
 * hand back the run (read back from the file, or from memory without file
 * output).
 *
 * verbose: print the summary tree and any warnings to stdout.
 * results: if not NULL, *results receives the run (free with sp_run_free());
 *          NULL when profiling was deactivated.
 * Returns 0; SP_ESTATE without a session (nothing written);
 * SP_EUNBALANCED when calls were left open or mismatched (the file is still
 * written, open calls closed at finalize time; sp_last_error() names them);
 * SP_EIO when the finished file cannot be written (no partial file is left;
 * the streamed file at file_path, readable, stays as it was; if it could not
 * even be created at sp_setup, the calls are handed back from memory) or
 * when writing failed while recording (the file holds the calls written
 * before); SP_ESTATE in a fork() child; SP_ENOMEM.
 *
 * Threads that race it (OpenMP pools, I/O threads) are safe, never a crash
 * or a corrupted heap, whatever they do: a call begun before sp_finalize()
 * is recorded (closed at finalize if still open); a call begun while it
 * collects the session is not recorded and is counted as dropped (in the
 * file, the warning and sp_region_dropped_calls()), up to the moment it
 * takes the counts, before the file is written; a thread started meanwhile
 * records nothing; after it returns, calls record nothing until the next
 * sp_setup(), which threads still running may race too (their first call
 * of the new session starts their state over). One event of a thread
 * preempted inside sp_region_begin/end across the whole of finalize may be
 * lost (its own chunk, nobody else's). Tested: tests/recorder/
 * test_race_finalize.c, also under ThreadSanitizer.
 *
 * The serial library started by an MPI launcher with several processes
 * (Open MPI, MPICH/Hydra, PMIx, Slurm srun) writes one file per rank,
 * <name>.rank<N>.h5, each with the metadata key `mpi_misuse` saying why
 * (verbose: rank 0 prints it once); libscope_profiler_mpi writes one file.
 * Temporaries of file_path left by a run killed during finalize (its
 * process gone) are removed; the parts of a killed streamed run are kept
 * until the next sp_setup() on the same path removes them.
 */
int sp_finalize(bool verbose, sp_run **results);

/*
 * Read a run from an HDF5 file written by scope-profiler (schema v1 or v2:
 * finished, still recording, or left by a killed run, with no recovery
 * step), or by the Python scope-profiler package (per-region or columnar
 * layout).
 * Returns a new run (free with sp_run_free()), or NULL with sp_last_error()
 * set: missing file, not HDF5, wrongly shaped, newer schema version.
 */
sp_run *sp_read_h5(const char *path);

/* Number of distinct regions / ranks in the run. */
size_t sp_run_num_regions(const sp_run *run);
size_t sp_run_num_ranks(const sp_run *run);

/* The i-th region (0 <= i < sp_run_num_regions), NULL when out of range. */
const sp_run_region *sp_run_region_at(const sp_run *run, size_t i);

/* The region called `name`, or NULL (with sp_last_error() set). The pointer
 * is owned by the run. */
const sp_run_region *sp_run_find(const sp_run *run, const char *name);

const char *sp_run_region_name(const sp_run_region *r);
uint64_t sp_run_region_num_calls(const sp_run_region *r);  /* all ranks */
double sp_run_region_total_s(const sp_run_region *r);      /* all ranks */

/* A run metadata value ("hostname", "mpi_size", user keys...), or NULL. */
const char *sp_run_metadata(const sp_run *run, const char *key);

/* Print the seed's boxed summary tree (region, total [s], (own) rows, (Nx)
 * counts) and the Info panel listing the scope-profiler verbs for this run's
 * file. Returns 0 or SP_EIO / SP_EINVAL. */
int sp_run_print_summary(const sp_run *run, FILE *out);

/* Free a run and everything it owns. NULL is a no-op. */
void sp_run_free(sp_run *run);

/* ---------------------------------------------------------------- macros */

/*
 * SP_SCOPE("name") { ... }   records the block as one call of region "name".
 * SP_FUNCTION();             records from here to the enclosing block's end as
 *                            a region named after the enclosing function.
 * Each caches its handle at the call site, so the hot path never looks a name
 * up. Leaving an SP_SCOPE block by break, continue, return or goto still ends
 * the call (GCC/Clang cleanup attribute). SP_SCOPE is one statement (a `for`
 * whose body is the block), so it may be the unbraced body of an if/for; but
 * for that reason a break or continue directly inside its block leaves the
 * block only, not an enclosing loop. GNU C / g++ extensions (statement
 * expressions, cleanup) are required unless the macros are disabled.
 * With -DSCOPE_PROFILER_DISABLE both compile to nothing (the block still runs).
 */
#define SP__CAT2(a, b) a##b
#define SP__CAT(a, b) SP__CAT2(a, b)
#define SP__ID(base) SP__CAT(base, __LINE__)

/* The inline helpers below must not call the -finstrument-functions hooks
 * themselves (GCC instruments inline functions too). */
#define SP__NO_INSTRUMENT __attribute__((no_instrument_function))

#if defined(SCOPE_PROFILER_DISABLE)

#define SP_SCOPE(name) if (1)
#define SP_FUNCTION() ((void)0)
#define SP_SCOPE_RECURSIVE(name) if (1)
#define SP_FUNCTION_RECURSIVE() ((void)0)

#else

typedef struct sp__scope_guard {
    sp_region *region; /* NULL: nothing was begun, nothing to end */
} sp__scope_guard;

/* Internal (set only by sp_setup() and sp_finalize()): nonzero while a session
 * records. Only the macros read it, so that a runtime-disabled SP_SCOPE costs
 * a load and a branch instead of two calls; sp_region_begin/end never look at
 * it (they jump through the recording table sp_setup() chose). */
extern int sp__recording;

/* The call-site handle, resolved on first use (benign race: every thread
 * gets the same handle); NULL while no session records. */
static inline SP__NO_INSTRUMENT sp_region *sp__scope_region(sp_region **slot, const char *name)
{
    if (!__atomic_load_n(&sp__recording, __ATOMIC_RELAXED))
        return NULL;
    sp_region *r = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
    if (__builtin_expect(r == NULL, 0)) {
        r = sp_region_get(name);
        __atomic_store_n(slot, r, __ATOMIC_RELEASE);
    }
    return r;
}

/* Resolve the handle, then begin. */
static inline SP__NO_INSTRUMENT sp__scope_guard sp__scope_open(sp_region **slot,
                                                                const char *name)
{
    sp__scope_guard g = {sp__scope_region(slot, name)};
    if (g.region)
        sp_region_begin(g.region);
    return g;
}

static inline SP__NO_INSTRUMENT void sp__scope_close(sp__scope_guard *g)
{
    if (g->region) {
        sp_region_end(g->region);
        g->region = NULL;
    }
}

/* The recursive variants: same guard, the other begin/end pair. */
static inline SP__NO_INSTRUMENT sp__scope_guard sp__scope_open_recursive(sp_region **slot,
                                                                          const char *name)
{
    sp__scope_guard g = {sp__scope_region(slot, name)};
    if (g.region)
        sp_region_begin_recursive(g.region);
    return g;
}

static inline SP__NO_INSTRUMENT void sp__scope_close_recursive(sp__scope_guard *g)
{
    if (g->region) {
        sp_region_end_recursive(g->region);
        g->region = NULL;
    }
}

/* The call-site slot: a static declared inside a statement expression, so
 * each macro stays a single statement / declaration. */
#define SP__SLOT() ({ static sp_region *sp__slot_; &sp__slot_; })

/* The guard's cleanup ends the call when the `for` statement is left in any
 * way; the second loop variable makes the body run exactly once. */
#define SP_SCOPE(name)                                                         \
    for (sp__scope_guard SP__ID(sp__guard_)                                    \
             __attribute__((cleanup(sp__scope_close))) =                       \
             sp__scope_open(SP__SLOT(), (name)),                               \
             *SP__ID(sp__once_) = &SP__ID(sp__guard_);                         \
         SP__ID(sp__once_); SP__ID(sp__once_) = NULL)

#define SP_FUNCTION()                                                          \
    sp__scope_guard SP__ID(sp__fguard_)                                        \
        __attribute__((cleanup(sp__scope_close), unused)) =                    \
            sp__scope_open(SP__SLOT(), __func__)

/* SP_SCOPE_RECURSIVE("name") { ... } and SP_FUNCTION_RECURSIVE(): as
 * SP_SCOPE / SP_FUNCTION, and the functions called inside (compiled with
 * -finstrument-functions) are traced as regions "<module>.<function>"
 * ("<function>" without -g: see recursive_profile above). */
#define SP_SCOPE_RECURSIVE(name)                                               \
    for (sp__scope_guard SP__ID(sp__guard_)                                    \
             __attribute__((cleanup(sp__scope_close_recursive))) =             \
             sp__scope_open_recursive(SP__SLOT(), (name)),                     \
             *SP__ID(sp__once_) = &SP__ID(sp__guard_);                         \
         SP__ID(sp__once_); SP__ID(sp__once_) = NULL)

#define SP_FUNCTION_RECURSIVE()                                                \
    sp__scope_guard SP__ID(sp__fguard_)                                        \
        __attribute__((cleanup(sp__scope_close_recursive), unused)) =          \
            sp__scope_open_recursive(SP__SLOT(), __func__)

#endif /* SCOPE_PROFILER_DISABLE */

#ifdef __cplusplus
}
#endif

#endif /* SCOPE_PROFILER_H */
