/* SPDX-License-Identifier: MIT */
/*
 * sp_schema.h - the single source of every name in a scope-profiler HDF5 file
 * (groups, datasets, attributes, metadata keys), of their types and of the
 * schema version. The writer and the reader use only the names defined here;
 * SCHEMA.md documents the same tables for readers who never see this code
 * (a test checks that SCHEMA.md mentions every name below).
 *
 * X-macro tables in the style of Darshan's module tables. This header does not
 * include <hdf5.h> so the recorder can use the metadata keys without HDF5;
 * sp_h5_util.c maps the symbolic types to HDF5 types.
 *
 * Versioning (see SCHEMA.md "Versioning"): a minor change only adds names and
 * keeps SP_SCHEMA_VERSION; readers ignore names they do not know. A change
 * that removes or re-types a name bumps the version and adds an upgrade path
 * in the reader.
 */
#ifndef SP_SCHEMA_H
#define SP_SCHEMA_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* SP_SCHEMA_VERSION (the version this build writes and the newest it reads)
 * is defined in sp_h5.h; the table below describes that version. */

/* What an entry names. */
typedef enum sp_schema_kind {
    SP_SK_GROUP,
    SP_SK_ATTR,
    SP_SK_DSET
} sp_schema_kind;

/* Element types. Files always store the little-endian type named in the
 * comment; memory uses the native type of the same width. */
typedef enum sp_schema_type {
    SP_ST_NONE, /* groups */
    SP_ST_I32,  /* H5T_STD_I32LE */
    SP_ST_I64,  /* H5T_STD_I64LE */
    SP_ST_U64,  /* H5T_STD_U64LE */
    SP_ST_F64,  /* H5T_IEEE_F64LE */
    SP_ST_STR,  /* variable-length string, H5T_CSET_UTF8, null-terminated */
    SP_ST_U8,   /* H5T_STD_U8LE (schema v2: raw bytes of names) */
    SP_ST_U32   /* H5T_STD_U32LE (schema v2: time deltas, counts) */
} sp_schema_type;

/*
 * The layout written by this build. X(ID, parent, name, kind, type, shape,
 * unit, description). `parent` is the path of the containing object, with
 * <N> standing for a rank number. Shapes: C calls of the rank, T threads of
 * the rank, R regions of the run, D regions with dropped calls on the rank,
 * F <= R flagged region ids, L line rows, K counter rows.
 */
#define SP_SCHEMA_NAMES(X)                                                     \
    X(ROOT_SCHEMA, "/", "scope_profiler_schema", ATTR, I32, "scalar", "",      \
      "schema version the file follows (this build writes 1)")                 \
    X(ROOT_NUM_RANKS, "/", "num_ranks", ATTR, I64, "scalar", "",               \
      "number of rank<N> groups; N runs from 0 to num_ranks-1")                \
    X(REGION_NAMES, "/", "region_names", DSET, STR, "[R]", "",                 \
      "region-name table: region id (row) -> UTF-8 name, unique")              \
    X(METADATA, "/", "metadata", GROUP, NONE, "", "",                          \
      "run metadata: one UTF-8 string attribute per key")                      \
    X(RANK_GROUP, "/", "rank", GROUP, NONE, "", "",                            \
      "prefix of the rank<N> groups (N decimal, no padding)")                  \
    X(RANK_RANK, "/rank<N>", "rank", ATTR, I32, "scalar", "",                  \
      "the rank number N")                                                     \
    X(RANK_CLOCK_OFFSET, "/rank<N>", "clock_offset_ns", ATTR, I64, "scalar",   \
      "ns", "add to this rank's times to align them with rank 0")              \
    X(RANK_CLOCK_OFFSET_ERR, "/rank<N>", "clock_offset_err_ns", ATTR, I64,     \
      "scalar", "ns", "uncertainty of clock_offset_ns (0 on one rank)")        \
    /* Optional (absent = not measured): MPI clock measurements. */          \
    X(RANK_CLOCK_SETUP, "/rank<N>", "clock_offset_setup_ns", ATTR, I64,        \
      "scalar", "ns", "MPI: offset to rank 0 measured at sp_setup")            \
    X(RANK_CLOCK_SETUP_ERR, "/rank<N>", "clock_offset_setup_err_ns", ATTR,     \
      I64, "scalar", "ns", "MPI: uncertainty of clock_offset_setup_ns")        \
    X(RANK_CLOCK_FINALIZE, "/rank<N>", "clock_offset_finalize_ns", ATTR, I64,  \
      "scalar", "ns", "MPI: offset to rank 0 measured at sp_finalize")         \
    X(RANK_CLOCK_FINALIZE_ERR, "/rank<N>", "clock_offset_finalize_err_ns",     \
      ATTR, I64, "scalar", "ns", "MPI: uncertainty of clock_offset_finalize_ns") \
    X(RANK_METADATA, "/rank<N>", "metadata", GROUP, NONE, "", "",              \
      "per-rank metadata: one UTF-8 string attribute per key")                 \
    X(THREADS, "/rank<N>", "threads", GROUP, NONE, "", "",                     \
      "thread table: columns of length T, row = thread index")                 \
    X(THREAD_OS_TID, "/rank<N>/threads", "os_tid", DSET, I64, "[T]", "",       \
      "operating-system thread id (gettid), -1 when unknown")                  \
    X(THREAD_NAME, "/rank<N>/threads", "name", DSET, STR, "[T]", "",           \
      "thread name (\"main\", pthread name), \"\" when unnamed")              \
    X(CALLS, "/rank<N>", "calls", GROUP, NONE, "", "",                         \
      "call table: columns of length C, in model order")                       \
    X(CALL_START, "/rank<N>/calls", "start_ns", DSET, I64, "[C]", "ns",        \
      "start timestamp of the call")                                           \
    X(CALL_END, "/rank<N>/calls", "end_ns", DSET, I64, "[C]", "ns",            \
      "end timestamp of the call (>= start_ns)")                               \
    X(CALL_REGION, "/rank<N>/calls", "region", DSET, I32, "[C]", "",           \
      "row of /region_names")                                                  \
    X(CALL_THREAD, "/rank<N>/calls", "thread", DSET, I32, "[C]", "",           \
      "row of the rank's thread table")                                        \
    X(CALL_PARENT, "/rank<N>/calls", "parent", DSET, I64, "[C]", "",           \
      "row (in this rank's calls) of the enclosing call, -1 = top level")      \
    X(DROPPED, "/rank<N>", "dropped", GROUP, NONE, "", "",                     \
      "calls lost (buffer could not grow): columns of length D")               \
    X(DROPPED_REGION, "/rank<N>/dropped", "region", DSET, I32, "[D]", "",      \
      "row of /region_names")                                                  \
    X(DROPPED_CALLS, "/rank<N>/dropped", "calls", DSET, U64, "[D]", "calls",   \
      "number of calls of that region lost on this rank (> 0)")                \
    /* Optional (absent = none): recording modes. */                           \
    X(REGION_FLAGS, "/", "region_flags", DSET, I32, "[F]", "",                 \
      "flags of region ids 0..F-1 (1 traced, 2 sampled, 4 throttled)")         \
    X(LINES, "/rank<N>", "lines", GROUP, NONE, "", "",                         \
      "line samples: one row per (region, file, line, function)")              \
    X(LINE_REGION, "/rank<N>/lines", "region", DSET, I32, "[L]", "",           \
      "row of /region_names: innermost open region when sampled")             \
    X(LINE_FILE, "/rank<N>/lines", "file", DSET, STR, "[L]", "",               \
      "source file path, \"\" when unknown")                                   \
    X(LINE_LINENO, "/rank<N>/lines", "lineno", DSET, I32, "[L]", "",           \
      "1-based line number, 0 when unknown")                                   \
    X(LINE_FUNCTION, "/rank<N>/lines", "function", DSET, STR, "[L]", "",       \
      "function the line belongs to")                                          \
    X(LINE_SAMPLES, "/rank<N>/lines", "samples", DSET, U64, "[L]", "samples", \
      "samples that hit the line")                                             \
    X(LINE_TIME, "/rank<N>/lines", "time_ns", DSET, I64, "[L]", "ns",          \
      "estimated time: samples x sampling period")                             \
    X(COUNTERS, "/rank<N>", "counters", GROUP, NONE, "", "",                   \
      "counter values: one row per (region, thread or cpu, counter)")          \
    X(COUNTER_REGION, "/rank<N>/counters", "region", DSET, I32, "[K]", "",     \
      "row of /region_names")                                                  \
    X(COUNTER_THREAD, "/rank<N>/counters", "thread", DSET, I32, "[K]", "",     \
      "row of the thread table, -1 when measured per cpu (LIKWID)")           \
    X(COUNTER_CPU, "/rank<N>/counters", "cpu", DSET, I32, "[K]", "",           \
      "hardware thread LIKWID measured on, else -1")                           \
    X(COUNTER_SOURCE, "/rank<N>/counters", "source", DSET, I32, "[K]", "",     \
      "0 perf_event, 1 LIKWID event, 2 LIKWID metric")                         \
    X(COUNTER_NAME, "/rank<N>/counters", "name", DSET, STR, "[K]", "",         \
      "event or metric name")                                                  \
    X(COUNTER_VALUE, "/rank<N>/counters", "value", DSET, F64, "[K]", "",       \
      "sum over the calls (metrics: as LIKWID derives them)")                 \
    X(COUNTER_CALLS, "/rank<N>/counters", "calls", DSET, U64, "[K]", "calls",  \
      "calls the value covers")

/*
 * Names read in files written by the Python scope-profiler package (never
 * written by this build). Same columns as above; types are what the reader
 * accepts (INT = any integer type, STR = any string type).
 */
#define SP_SCHEMA_PY_NAMES(X)                                                  \
    X(PY_METADATA, "/", "metadata", GROUP, NONE, "", "",                       \
      "run metadata attributes (strings, integers, floats, bools, lists)")     \
    X(PY_RANK_GROUP, "/", "rank", GROUP, NONE, "", "",                         \
      "per-region layout: prefix of the rank<N> groups")                       \
    X(PY_REGIONS, "/rank<N>", "regions", GROUP, NONE, "", "",                  \
      "per-region layout: one group per region (a '/' in a name nests)")       \
    X(PY_START_TIMES, "/rank<N>/regions/<name>", "start_times", DSET, I64,     \
      "[n]", "ns", "per-region layout: start timestamps")                      \
    X(PY_END_TIMES, "/rank<N>/regions/<name>", "end_times", DSET, I64, "[n]",  \
      "ns", "per-region layout: end timestamps")                               \
    X(PY_REGION_NAMES, "/", "region_names", DSET, STR, "[R]", "",              \
      "columnar layout: region-name table")                                    \
    X(PY_INDEX, "/", "index", GROUP, NONE, "", "",                             \
      "columnar layout: per (rank, region) index")                             \
    X(PY_INDEX_OFFSETS, "/index", "offsets", DSET, I64, "[P, R]", "",          \
      "columnar layout: first row in /events of rank p's calls of region r")  \
    X(PY_INDEX_COUNTS, "/index", "counts", DSET, I64, "[P, R]", "",            \
      "columnar layout: number of those rows")                                 \
    X(PY_EVENTS, "/", "events", GROUP, NONE, "", "",                           \
      "columnar layout: event columns of length N")                            \
    X(PY_EV_START, "/events", "start_times", DSET, I64, "[N]", "ns",           \
      "columnar layout: start timestamps")                                     \
    X(PY_EV_END, "/events", "end_times", DSET, I64, "[N]", "ns",               \
      "columnar layout: end timestamps")                                       \
    X(PY_EV_THREAD, "/events", "thread_ids", DSET, I64, "[N]", "",             \
      "columnar layout: id of the recording thread (not an index)")            \
    X(PY_EV_PARENT, "/events", "parent_ids", DSET, I64, "[N]", "",             \
      "columnar layout: row in /events of the enclosing call, -1 = none")

/*
 * Run metadata keys (attributes of /metadata) that scope-profiler itself
 * writes; all values are strings. X(ID, key, description). User facts from
 * sp_metadata_set() and SLURM_* environment variables (verbatim names) sit
 * beside them. Names shared with the Python package keep its spelling.
 */
#define SP_SCHEMA_META_KEYS(X)                                                 \
    X(TIMESTAMP, "timestamp",                                                  \
      "start of the run, ISO 8601 local time with UTC offset")                 \
    X(HOSTNAME, "hostname", "host name of rank 0")                             \
    X(USER, "user", "login name of the user")                                  \
    X(COMMAND_LINE, "command_line", "argv of the program, space-separated")   \
    X(WORKING_DIRECTORY, "working_directory", "current directory at setup")    \
    X(VERSION, "scope_profiler_version", "library version MAJOR.MINOR.PATCH")  \
    X(COMPILER, "compiler", "compiler that built the library")                 \
    X(PLATFORM, "platform", "operating system and machine (uname)")            \
    X(CPU_MODEL, "cpu_model", "CPU model name")                                \
    X(TOTAL_CORES, "total_cores", "online CPU cores of the host")              \
    X(CLOCK_SOURCE, "clock_source", "timestamp source: tsc or monotonic")      \
    X(CLOCK_CALIBRATION, "clock_calibration",                                  \
      "ticks-to-ns calibration of the clock (e.g. TSC frequency in Hz)")       \
    X(MPI_SIZE, "mpi_size", "number of MPI ranks (1 without MPI)")             \
    X(MPI_WRITER, "mpi_writer",                                                \
      "MPI: the writer that made the file, parallel-hdf5 or token")            \
    X(NUM_THREADS, "num_threads", "threads that recorded calls, all ranks")    \
    X(OMP_NUM_THREADS, "omp_num_threads",                                      \
      "value of OMP_NUM_THREADS (absent when unset)")                          \
    /* Recording modes (recorder/core/sp_mode_*.c; absent when unused). */     \
    X(RECORDING_MODE, "recording_mode",                                        \
      "time-only, line-profiler or likwid, + recursive, perf-events, ...")     \
    X(RUN_MODE, "run_mode", "scope-profiler run: traced or sampled call stacks") \
    X(SYMBOLIZER, "symbolizer", "what named addresses: libdw or dladdr")       \
    X(RECURSIVE_MAX_DEPTH, "recursive_max_depth", "traced nesting recorded")   \
    X(RECURSIVE_DEPTH_SKIPPED, "recursive_depth_skipped",                      \
      "traced calls deeper than that, not recorded")                           \
    X(RECURSIVE_THROTTLED, "recursive_throttled",                              \
      "functions no longer traced: name (calls, mean); ...")                   \
    X(LINE_SAMPLER, "line_sampler", "perf_event cpu-clock or posix timer")     \
    X(LINE_SAMPLE_HZ, "line_sample_hz", "samples per second of CPU asked")     \
    X(LINE_SAMPLE_HZ_EFFECTIVE, "line_sample_hz_effective",                    \
      "samples per second of CPU obtained")                                    \
    X(LINE_SAMPLES, "line_samples", "samples taken in regions, all threads")   \
    X(LINE_SAMPLES_LOST, "line_samples_lost", "samples that could not be kept") \
    X(LINE_UNWINDER, "line_unwinder", "libunwind or none")                     \
    X(PERF_EVENTS, "perf_events", "perf_event counters recorded")              \
    X(PERF_EVENTS_DROPPED, "perf_events_dropped",                              \
      "counters asked for but not countable here, with the reason")            \
    X(PERF_EVENTS_FAILED_READS, "perf_events_failed_reads",                    \
      "group reads that failed (those calls have no counts)")                  \
    X(LIKWID_EVENTS, "likwid_events", "LIKWID_EVENTS: group or event list")    \
    X(LIKWID_ARCH, "likwid_arch", "LIKWID's name of the CPU architecture")     \
    X(LIKWID_GROUP_FILES, "likwid_group_files", "group files read, '|'-separated") \
    X(LIKWID_FALLBACK, "likwid_fallback",                                      \
      "why LIKWID could not measure (time only was recorded)")                 \
    X(STACK_SAMPLER, "stack_sampler", "scope-profiler run: the stack sampler") \
    X(STACK_SAMPLE_HZ, "stack_sample_hz", "stack samples per second of CPU")   \
    X(STACK_SAMPLES, "stack_samples", "stack samples taken, all threads")      \
    X(STACK_SAMPLES_LOST, "stack_samples_lost", "stack samples lost")          \
    X(STACK_UNWINDER, "stack_unwinder", "libunwind or none")

/* Values of sp_run.layout after reading (which layout the file had). */
#define SP_LAYOUT_NATIVE "scope-profiler"
#define SP_LAYOUT_PY_REGIONS "python-per-region"
#define SP_LAYOUT_PY_COLUMNAR "python-columnar"

/* Prefix of SLURM environment variables copied into metadata verbatim. */
#define SP_SCHEMA_META_SLURM_PREFIX "SLURM_"

/* Ids: SP_SN_<ID> for layout names, SP_SN_PY_* for Python names. */
typedef enum sp_schema_id {
#define SP__SCHEMA_ENUM(id, parent, name, kind, type, shape, unit, desc) SP_SN_##id,
    SP_SCHEMA_NAMES(SP__SCHEMA_ENUM)
    SP_SCHEMA_PY_NAMES(SP__SCHEMA_ENUM)
#undef SP__SCHEMA_ENUM
    SP_SN_COUNT
} sp_schema_id;

typedef enum sp_schema_meta_id {
#define SP__SCHEMA_META_ENUM(id, key, desc) SP_SM_##id,
    SP_SCHEMA_META_KEYS(SP__SCHEMA_META_ENUM)
#undef SP__SCHEMA_META_ENUM
    SP_SM_COUNT
} sp_schema_meta_id;

typedef struct sp_schema_entry {
    const char *parent;
    const char *name;
    sp_schema_kind kind;
    sp_schema_type type;
    const char *shape;
    const char *unit;
    const char *desc;
} sp_schema_entry;

typedef struct sp_schema_meta_entry {
    const char *key;
    const char *desc;
} sp_schema_meta_entry;

/* The tables (sp_schema.c), indexed by the ids above. */
extern const sp_schema_entry sp__schema[SP_SN_COUNT];
extern const sp_schema_meta_entry sp__schema_meta[SP_SM_COUNT];

/* The name of a layout entry: SP_NAME(CALL_START) is "start_ns". */
#define SP_NAME(id) (sp__schema[SP_SN_##id].name)
/* A metadata key: SP_META_KEY(HOSTNAME) is "hostname". */
#define SP_META_KEY(id) (sp__schema_meta[SP_SM_##id].key)

#ifdef __cplusplus
}
#endif

#endif /* SP_SCHEMA_H */
