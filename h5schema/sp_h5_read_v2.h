/* SPDX-License-Identifier: MIT */
/* sp_h5_read_v2.h - pieces of the v2 reader (sp_h5_read_v2*.c). */
#ifndef SP_H5_READ_V2_H
#define SP_H5_READ_V2_H

#include "sp_h5_internal.h"
#include "sp_h5_v2.h"
#include "sp_schema_v2.h"

/* An open, checked 1-D integer column. */
typedef struct sp_v2c {
    hid_t dset;
    hsize_t n;          /* rows */
    char where[256];    /* its HDF5 path, for messages */
} sp_v2c;

/* Open column `name` under loc: 1-D, integer, and no more rows than its
 * stored bytes can hold. A missing optional column gives dset < 0, n 0. */
int sp_v2c_open(const char *file, hid_t loc, const char *name, bool optional, sp_v2c *c);
void sp_v2c_close(sp_v2c *c);

/* Rows off .. off+count-1 as mtype into buf. */
int sp_v2c_read(const char *file, const sp_v2c *c, hid_t mtype, hsize_t off, hsize_t count,
                void *buf);

/* The first n rows (at most the column's) into a new array of width bytes
 * per row. */
int sp_v2c_read_all(const char *file, const sp_v2c *c, hid_t mtype, size_t width, hsize_t n,
                    void **out);

/* A names table (name_bytes, name_end) under loc: at most max_rows rows,
 * as text (sp_v2_bytes_to_text). */
int sp_v2c_names(const char *file, hid_t loc, size_t max_rows, size_t *n, char ***out);

/* Per-file state of a read: the global region table is built rank by rank
 * from each rank's own table. */
typedef struct sp_v2_read {
    const char *file;
    sp_run *run;
    bool complete;          /* the file's `complete` attribute */
    uint64_t open_calls;    /* calls a killed run left open (all ranks) */
    uint64_t torn_blocks;   /* blocks after a torn write, dropped (all ranks) */
    char missing[256];      /* ranks whose part could not be opened */
    size_t *dropped_len;    /* per rank: entries of ranks[r].dropped */
    bool lean;              /* no rank metadata, no thread names (set after
                               sp_v2_read_begin; SP_H5_STREAM_LEAN) */
} sp_v2_read;

/* The start of a read: the root's num_ranks, /metadata, the run's ranks,
 * the name index (st zeroed first; free with sp_v2_read_free). */
int sp_v2_read_begin(sp_v2_read *st, const char *file, hid_t fid, sp_run *run);
/* A rank whose part is missing (named in incomplete_ranks). */
void sp_v2_note_missing(sp_v2_read *st, size_t r);
/* The end: dropped columns sized for every region, file_state and
 * incomplete_ranks for an unfinished run. */
int sp_v2_read_end(sp_v2_read *st);
void sp_v2_read_free(sp_v2_read *st);

/* Where /rank<r> was opened: a group of the run file, or of its part. */
typedef struct sp_v2_rank_loc {
    hid_t group;  /* the rank's group */
    hid_t part;   /* the part file, or H5I_INVALID_HID */
    int fd;       /* the part as we opened it, or -1 */
} sp_v2_rank_loc;

/* Open /rank<r>: a group, or the external link of a run that records,
 * followed only to its own part (sp_h5_read_v2_link.c: the policy). 0 with
 * *missing set when the part does not exist (yet); an error for any link
 * the policy refuses. Close with sp_v2_close_rank(). */
int sp_v2_open_rank(sp_v2_read *st, hid_t fid, size_t r, sp_v2_rank_loc *loc, bool *missing);
void sp_v2_close_rank(sp_v2_rank_loc *loc);

/* Read /rank<r> (opened) into run->ranks[r]. */
int sp_v2_read_rank(sp_v2_read *st, hid_t rg, size_t r);

/* What a streaming reader needs of /rank<r> besides the run's header:
 * the rank's region rows as run ids, and its clock calibration. */
typedef struct sp_v2_rank_header {
    int32_t *map;          /* region row -> run region id (malloc'ed) */
    size_t nlocal;         /* rows */
    sp_v2_clock_map clock; /* ticks -> ns */
} sp_v2_rank_header;

/* Read everything of /rank<r> into run->ranks[r] but its events (attributes,
 * threads, regions, dropped calls, lines, counters, flags), and *out. */
int sp_v2_read_rank_header(sp_v2_read *st, hid_t rg, size_t r, sp_v2_rank_header *out);

#endif /* SP_H5_READ_V2_H */
