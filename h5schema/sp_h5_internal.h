/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_internal.h - helpers shared by the h5schema sources (writer, readers,
 * checks). Not used outside h5schema/ except by its tests and benchmark.
 */
#ifndef SP_H5_INTERNAL_H
#define SP_H5_INTERNAL_H

#include <hdf5.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_h5.h"
#include "sp_model.h"
#include "sp_schema.h"

/* ---- HDF5 error handling (sp_h5_util.c) ---- */

/* HDF5's automatic error printing, switched off for the duration of one of
 * our calls and restored afterwards (the caller may use HDF5 too). */
typedef struct sp__h5_quiet {
    H5E_auto2_t func;
    void *data;
} sp__h5_quiet;

void sp__h5_quiet_begin(sp__h5_quiet *q);
void sp__h5_quiet_end(const sp__h5_quiet *q);

/* Set sp_last_error() to the formatted message followed by the reason of
 * the last HDF5 failure (" (HDF5: ...)", one line), clear HDF5's error stack
 * and return code. */
int sp__h5_error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* HDF5 file and native memory types of a schema type. Both return
 * predefined types except for SP_ST_STR, which is a new variable-length
 * UTF-8 string type; close every result with sp__h5_type_close(). */
hid_t sp__h5_file_type(sp_schema_type t);
hid_t sp__h5_mem_type(sp_schema_type t);
void sp__h5_type_close(hid_t type);

/* Attributes a metadata group keeps compact at most (HDF5's limit). */
#define SP_H5_META_COMPACT_MAX 65535u

/* A group under loc, without object times (reproducible bytes); meta: a
 * metadata group (attributes in creation order, kept compact: see the
 * definition). H5I_INVALID_HID on failure. */
hid_t sp__h5_group(hid_t loc, const char *name, bool meta);

/* The HDF5 path of loc joined with name ("/rank0/calls/start_ns") into buf. */
const char *sp__h5_path(hid_t loc, const char *name, char *buf, size_t len);

/* Whether s is valid UTF-8 (no overlongs, no surrogates, <= U+10FFFF). */
bool sp__utf8_valid(const char *s);

/* Replace every byte that does not belong to valid UTF-8 by '?', so strings
 * read from any file are safe for GTK and terminals. Returns whether it
 * changed anything. */
bool sp__utf8_sanitize(char *s);

/* For HDF5 calls in a function with `int rc` and a `done:` label: when expr
 * is negative, rc = sp__h5_error(SP_EIO, message...) and leave through done. */
#define H5TRY(expr, ...)                                                                           \
    do {                                                                                           \
        if ((expr) < 0) {                                                                          \
            rc = sp__h5_error(SP_EIO, __VA_ARGS__);                                                \
            goto done;                                                                             \
        }                                                                                          \
    } while (0)

/* ---- writer tuning (sp_h5_write.c; the benchmark compares settings) ---- */

typedef struct sp__h5_write_options {
    size_t chunk_min;    /* numeric columns with >= this many elements are
                            chunked; 0 = always contiguous */
    size_t chunk_target; /* elements per chunk aimed at (rounded so the
                            chunks divide the column with < 1 chunk padding) */
    int deflate;         /* 0 = none, 1..9 = shuffle + gzip level on chunks */
    bool fsync;          /* fsync the temporary file before rename(2) */
} sp__h5_write_options;

/* The defaults sp_h5_write() uses. */
void sp__h5_write_options_default(sp__h5_write_options *o);

/* sp_h5_write() with explicit options. */
int sp__h5_write_opts(const sp_run *run, const char *path,
                      const sp__h5_write_options *o);

/* ---- pieces of sp_h5_write() for the MPI writers (sp_h5_write_mpi*.c),
 * which write a file one rank group at a time ---- */

/* New file access properties of every writer (the 1.8 file format). */
int sp__h5_file_access(const char *path, hid_t *out);

/* A scalar integer attribute of table entry id on loc, from value. */
int sp__h5_write_int_attr(const char *path, hid_t loc, sp_schema_id id, int64_t value);

/* Everything sp_h5_write() would refuse in run (SP_EINVAL with a message). */
int sp__h5_write_check(const sp_run *run, const char *path);

/* The root objects: attributes, /metadata, /region_names, /region_flags. */
int sp__h5_write_root(hid_t file, const sp_run *run, const char *path,
                      const sp__h5_write_options *o);

/* The group /rank<r>, complete; call_data false: the call columns are
 * allocated at their exact size (no fill value) but not written. */
int sp__h5_write_rank(hid_t file, const sp_run *run, size_t r, const char *path,
                      const sp__h5_write_options *o, bool call_data);

/* The optional line and counter tables of a rank under rank_group, as the
 * v1 writer writes them (schema v2 keeps their layout). Strings must be
 * valid UTF-8. */
int sp__h5_write_mode_tables(hid_t rank_group, const sp_rank_data *rk, const char *path);

/* ---- model checks (sp_h5_check.c) ---- */

/*
 * Check one rank's columns without trusting anything: every column present
 * when ncalls > 0, region in [0, nregions), thread in [0, nthreads), parent
 * in [-1, ncalls) and not the call itself, start <= end. On failure return
 * `code` with a message "<ctx>: call <i>: ...".
 */
int sp__rank_check_columns(const sp_rank_data *rk, size_t nregions, int code,
                           const char *ctx);

/* Whether the calls are in model order (thread, start, longer first); if not
 * and first_bad is not NULL, *first_bad is the first call out of order. */
bool sp__rank_in_model_order(const sp_rank_data *rk, size_t *first_bad);

/* In model order, every parent precedes its child, is on the same thread
 * and encloses it in time. Returns 0 or `code` with a message. */
int sp__rank_check_parents(const sp_rank_data *rk, int code, const char *ctx);

/* The optional recording-mode tables of a rank (line samples, counters):
 * columns present, regions and threads in range, strings valid UTF-8 (NULL
 * strings count as ""), line numbers and cpus not below their "unknown"
 * value. Returns 0 or `code` with a message. */
int sp__rank_check_modes(const sp_rank_data *rk, size_t nregions, int code,
                         const char *ctx);

/*
 * What every layout reader's result must satisfy, checked once in
 * sp_h5_read() after the layout reader (so a new layout gets it too):
 * times and clock offsets within +-2^61 ns and end >= start, so that any
 * time plus offset minus another stays in int64; the sum of all call
 * durations, line-sample times and samples, counter calls and dropped calls
 * each at most 2^62, so no per-region or per-node sum can overflow; no call
 * whose direct children last longer than it (negative own time); and the
 * memory analysis will need (ranks x regions statistics, per-call arrays)
 * charged to the read budget. Ranks must be in model order with parents
 * checked (sp__h5_finish_rank) first. 0, SP_EFORMAT or SP_ENOMEM.
 */
int sp__run_check_read(const char *file, const sp_run *run);

/* The run's MPI tables (run->mpi, may be NULL) row by row: every row they
 * name exists, kinds and functions are known, times within +-2^61 ns and
 * in order; and what the analysis of them will need, charged
 * (sp_h5_read_mpi.c). Part of sp__run_check_read(). 0, SP_EFORMAT, SP_ENOMEM. */
struct sp_mpi_data;
int sp__mpi_data_check(const char *file, const struct sp_mpi_data *d, const sp_run *run);

/* Everything sp_h5_read() guarantees, checked on a run that arrived from
 * another process (sp_h5_wire.c): columns, modes, model order, parents,
 * unique region names, then sp__run_check_read(). The names are checked by
 * indexing them: the run keeps that index (sp_run_index_regions), as it
 * must before it meets other threads. 0, SP_EFORMAT, SP_ENOMEM. */
int sp__h5_check_decoded(const char *file, sp_run *run);

/* ---- the read budget (sp_h5_read_budget.c) ----
 *
 * A read trusts nothing the file claims. sp_h5_read() opens a budget for the
 * file (its real size and the read limit, sp_h5_read_limit()) on the calling
 * thread; every helper below charges what it is about to allocate, and a
 * charge over the limit fails with SP_ENOMEM and a message that names the
 * limit and SCOPE_PROFILER_READ_LIMIT. Readers of new layouts (schema v2)
 * use the same helpers, or sp__h5_dataset_check() + sp__read_charge() for
 * datasets they read themselves (hyperslabs, chunk by chunk). Outside a
 * budget (no sp_h5_read() on this thread) nothing is charged. */

typedef struct sp__read_budget {
    const char *file;        /* for messages */
    uint64_t file_size;      /* bytes of the file as opened */
    uint64_t limit, used;    /* bytes */
    bool ranks_charged;      /* sp__read_charge_ranks() was called */
    struct sp__read_budget *prev;
} sp__read_budget;

/* Open a budget for file (fd: the file, for its size; -1: no file, its size
 * unknown) on this thread. 0, or SP_EINVAL for an invalid
 * SCOPE_PROFILER_READ_LIMIT, SP_EIO. */
int sp__read_budget_begin(sp__read_budget *b, const char *file, int fd);
void sp__read_budget_end(sp__read_budget *b);
/* The budget of the read in progress on this thread, or NULL. */
sp__read_budget *sp__read_budget_current(void);

/* Charge bytes (n elements of size bytes) for `what` (an object path or a
 * description). 0, or SP_ENOMEM "<file>: <what> needs X more, over the read
 * limit of Y (raise it with SCOPE_PROFILER_READ_LIMIT=SIZE, ...)". */
int sp__read_charge(const char *what, uint64_t bytes);
int sp__read_charge_n(const char *what, uint64_t n, uint64_t size);

/* Charge what nranks ranks of nregions regions cost once analysed (the
 * rank structs and per rank and region statistics); call it before
 * sp_run_set_ranks(), so a file naming a million ranks or regions in a few
 * kilobytes is refused before anything is allocated for them. */
#define SP__H5_RANK_REGION_BYTES 128
int sp__read_charge_ranks(size_t nranks, size_t nregions);

/* "1.5 GiB", "512 bytes". */
void sp__h5_size_str(uint64_t bytes, char *buf, size_t len);

/* A compressed dataset may claim at most this many times its stored bytes
 * (deflate cannot exceed about 1032:1; a profile column never comes close),
 * unless it claims no more than SP__H5_INFLATE_FLOOR bytes in all. */
#define SP__H5_INFLATE_MAX_RATIO 2048
#define SP__H5_INFLATE_FLOOR ((uint64_t)1 << 20)

/*
 * Check an open dataset before reading n elements of elem_size bytes (its
 * file type's size) from it: no external storage; storage not beyond the
 * end of the file; unfiltered, the storage holds all n elements (else they
 * were never written); filtered, the claim is at most
 * SP__H5_INFLATE_MAX_RATIO times the storage (else a decompression bomb or
 * unwritten chunks, refused before inflating anything). `where` names the
 * dataset in messages. 0 or SP_EFORMAT.
 */
int sp__h5_dataset_check(const char *file, hid_t dset, const char *where, uint64_t n,
                         size_t elem_size);

/* A chunked dataset may be stored in at most SP__H5_MAX_CHUNKS chunks, or
 * in more only when its chunks hold SP__H5_MIN_CHUNK_ELEMENTS elements or
 * more on average: libhdf5 keeps per-chunk state while it reads, so a
 * 200 MB file of 2^20 one-element compressed chunks took 102 s and 6.9 GB
 * inside libhdf5, before any check of ours could count the memory. Our
 * writers use chunks of 256 elements or more; h5py's automatic chunks hold
 * hundreds. */
#define SP__H5_MAX_CHUNKS 65536
#define SP__H5_MIN_CHUNK_ELEMENTS 64

/* Refuse dset (an open dataset of n elements; sp_h5_read_columns.c) when its chunk layout splits
 * it into more chunks than the limit above, counted from its extent and
 * chunk dimensions before anything is read. 0 or SP_EFORMAT. */
int sp__h5_chunks_check(const char *file, hid_t dset, const char *where, uint64_t n);

/* ---- reading helpers (sp_h5_read_columns.c, sp_h5_read_strings.c,
 * sp_h5_read_meta.c, sp_h5_visited.c); all return 0 or an SP_E* code
 * with a message "<file>: <object path>: <problem>". Each checks the
 * dataset (sp__h5_dataset_check) and charges the read budget before
 * allocating; strings are read in blocks and charged as they come. ---- */

/* NULL when loc/name is missing or a hard link; else what it is ("a soft
 * link", "an external link", ...): such links are never followed. */
const char *sp__h5_link_refused(hid_t loc, const char *name);
/* Both in one look: 1 a hard link, 0 missing, -1 a link never followed
 * (*why names its kind; NULL otherwise). */
int sp__h5_link_check(hid_t loc, const char *name, const char **why);
/* Whether loc has a hard link called name (false also on error). */
bool sp__h5_has(hid_t loc, const char *name);

/* n * size, saturating at UINT64_MAX (sizes a file claims). */
static inline uint64_t sp__mul_sat(uint64_t n, uint64_t size)
{
    return size && n > UINT64_MAX / size ? UINT64_MAX : n * size;
}

/* An open dataset whose shape and type were checked (sp_h5_read_columns.c). */
typedef struct sp__h5_column {
    hid_t dset, ftype;
    int ndims;
    size_t dims[2];
    size_t n; /* elements */
    char where[256];
} sp__h5_column;

/* Open loc/name as a dataset of at most max_rank dimensions and type class
 * cls, its size checked against the read budget; 0 or SP_EFORMAT etc. */
int sp__h5_column_open(const char *file, hid_t loc, const char *name, int max_rank,
                       H5T_class_t cls, sp__h5_column *c);
void sp__h5_column_close(sp__h5_column *c);

/* The n strings of an attribute of string type ftype (sp_h5_read_strings.c),
 * sanitized, as sp__h5_read_strings gives them; where names it in messages. */
int sp__h5_attr_strings(const char *file, hid_t attr, hid_t ftype, size_t n, const char *where,
                        char ***out);

/* Open a required group. */
int sp__h5_open_group(const char *file, hid_t loc, const char *name, hid_t *out);

/* Read a 1-D integer dataset (any integer file type) into a new array of
 * int32 (width 4) or int64 (width 8); *n receives the length. */
int sp__h5_read_ints(const char *file, hid_t loc, const char *name, int width,
                     size_t *n, void **out);

/* Read a 1-D floating-point dataset into a new array of double. */
int sp__h5_read_f64(const char *file, hid_t loc, const char *name, size_t *n,
                    double **out);

/* Read a dataset of any integer type with 1 or 2 dimensions as int64;
 * *ndims and dims[0..1] receive the shape (dims[1] = 1 for 1-D). */
int sp__h5_read_ints_2d(const char *file, hid_t loc, const char *name, int *ndims,
                        size_t dims[2], int64_t **out);

/* The shape of a 1-D or 2-D dataset (dims[1] = 1 for 1-D), checked as the
 * readers check it, without reading it. */
int sp__h5_dims(const char *file, hid_t loc, const char *name, int *ndims, size_t dims[2]);

/* Read a 1-D string dataset (variable or fixed length) into a new array of
 * n malloc'ed strings. */
int sp__h5_read_strings(const char *file, hid_t loc, const char *name,
                        size_t *n, char ***out);
void sp__strings_free(char **s, size_t n);

/* SP_EFORMAT "<file>: <g's path>: columns have different lengths (name n,
 * ...)" unless the ncols lengths n[] (of the columns ids[]) are equal. */
int sp__h5_lengths_differ(const char *file, hid_t g, const size_t *n, const sp_schema_id *ids,
                          int ncols);

/* One integer column of a table group: read as int32 (width 4) or int64
 * (width 8) into *out. */
typedef struct sp__h5_int_column {
    sp_schema_id id;
    int width;
    void **out;
} sp__h5_int_column;

#define SP__H5_TABLE_MAX 8

/* Open the table group `group` under loc and read its ncols (<=
 * SP__H5_TABLE_MAX) integer columns, which must all have the same length,
 * *n. On failure the columns read so far stay in their *out for the caller
 * to free. */
int sp__h5_read_int_table(const char *file, hid_t loc, sp_schema_id group,
                          const sp__h5_int_column *cols, int ncols, size_t *n);

/* A scalar integer attribute. */
int sp__h5_read_int_attr(const char *file, hid_t loc, const char *name,
                         int64_t *out);

/* Every attribute of obj, converted to a string (numbers in decimal, lists
 * joined with ", "), appended to l in creation order when the file tracks
 * it, else in name order. Attributes of other types are skipped. */
int sp__h5_read_meta(const char *file, hid_t obj, sp_kvlist *l);

/* The objects (groups) a traversal has entered, by identity (file number
 * and address, or token): a second visit is a hard-link cycle or alias,
 * which a walk must refuse, or it could run forever (a group that links to
 * itself) or for 2^depth steps (links that fan out to the same group). */
typedef struct sp__h5_visited {
    size_t n, cap;
    unsigned char (*keys)[16];
    bool *used;
} sp__h5_visited;

/* Record obj; *seen = whether it was visited before. 0, SP_EFORMAT, SP_ENOMEM. */
int sp__h5_visit(const char *file, sp__h5_visited *v, hid_t obj, bool *seen);
void sp__h5_visited_free(sp__h5_visited *v);

/* ---- opening a run file (sp_h5_read.c) ---- */

/* A run file opened for reading: the file as checked (fd), a read budget
 * and HDF5's error printing switched off on this thread, the HDF5 file, and
 * its layout. */
typedef struct sp__h5_opened {
    int fd;
    hid_t fapl, file;
    sp__h5_quiet quiet;
    sp__read_budget budget;
    bool quieted, in_budget;
    int64_t version;        /* scope_profiler_schema, 0 when absent */
    const char *layout;     /* SP_LAYOUT_* */
    char name_buf[64];
} sp__h5_opened;

/* Open path (a regular, non-empty HDF5 file of a known layout). 0 or an
 * error; either way finish with sp__h5_open_end(). */
int sp__h5_open_begin(const char *path, sp__h5_opened *o);
/* End the budget and restore HDF5's error printing (the file stays open:
 * a reader that keeps it must do so on the thread that opened it). */
void sp__h5_open_release(sp__h5_opened *o);
/* Close everything. */
void sp__h5_open_end(sp__h5_opened *o);
/* The run's schema_version, layout and source_path from o. */
int sp__h5_finish_read(const char *path, const sp__h5_opened *o, sp_run *run);

/* ---- layout readers (sp_h5_read_*.c); fill an empty run ---- */

int sp__h5_read_v1(const char *file, hid_t fid, sp_run *run);
int sp__h5_read_py_regions(const char *file, hid_t fid, sp_run *run);
int sp__h5_read_py_columnar(const char *file, hid_t fid, sp_run *run);
/* Schema version 2 (sp_h5_read_v2.c): finished, being recorded, or left by
 * a kill; rank groups reached through external links are opened for SWMR
 * reading. */
int sp__h5_read_v2(const char *file, hid_t fid, sp_run *run);

/* Make a freshly read rank trustworthy: check its columns, sort into model
 * order if needed, infer parents (Python per-region files), check parents.
 * Returns 0, SP_EFORMAT or SP_ENOMEM. */
int sp__h5_finish_rank(const char *file, sp_rank_data *rk, size_t nregions,
                       bool infer_parents);

#endif /* SP_H5_INTERNAL_H */
