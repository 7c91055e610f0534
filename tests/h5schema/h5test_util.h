/* SPDX-License-Identifier: MIT */
/*
 * h5test_util.h - building runs by hand and comparing runs, for the
 * h5schema tests, the golden-file maker, the benchmark and the recorder
 * test of hostile conditions (its file helpers).
 */
#ifndef H5TEST_UTIL_H
#define H5TEST_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "sp_model.h"

/* One call as the tests spell it. */
typedef struct h5t_call {
    int32_t thread;
    int64_t start, end;
    int32_t region;
    int64_t parent; /* index in the same list, -1 = top level */
} h5t_call;

/* Give rk these calls (in model order) and threads (names may be NULL).
 * Abort on out of memory: tests have no use for half-built runs. */
void h5t_set_calls(sp_rank_data *rk, const h5t_call *calls, size_t n);
void h5t_set_threads(sp_rank_data *rk, size_t n, const int64_t *tids,
                     const char *const *names);

/* Region names of the sample run; index = region id. */
#define H5T_NREGIONS 6
extern const char *const h5t_region_names[H5T_NREGIONS];

/*
 * The sample run: 3 ranks. Rank 0: two threads (one unnamed), nesting three
 * deep, a UTF-8 region name with '/', '.', ' '. Rank 1: one thread, clock
 * offset, per-rank metadata, dropped calls of a region never called. Rank 2:
 * no calls at all. Run metadata with UTF-8 keys and values.
 */
sp_run *h5t_sample_run(void);

/* A run of one rank with n calls cycling over nregions regions on nthreads
 * threads, nested two deep (every even call of a thread encloses the next).
 * Deterministic. */
sp_run *h5t_synthetic_run(size_t n, size_t nregions, int nthreads);

/* NULL if a and b hold the same data (names, metadata, ranks, threads,
 * calls, dropped counts; derived fields ignored), else a static description
 * of the first difference. An all-zero dropped array equals NULL. */
const char *h5t_runs_differ(const sp_run *a, const sp_run *b);

/* MPI tables for the sample run (run->mpi): ranks 0 and 1 exchange a
 * message (a send of rank 0, its receive on rank 1, on MPI_COMM_WORLD and a
 * duplicate communicator) and meet in an Allreduce; rank 2 recorded none. */
void h5t_sample_mpi(sp_run *run);

/* A fresh empty directory under the test binary dir; static buffer. */
const char *h5t_tmpdir(const char *tag);

/* buf = dir + "/" + name; aborts if it does not fit. Returns buf. */
char *h5t_join(char *buf, size_t size, const char *dir, const char *name);

/* Remove every directory h5t_tmpdir() made (call when all tests passed;
 * failures keep them for inspection). */
void h5t_cleanup(int failed);

/* Copy the first `len` bytes of src to dst (len = -1: all). 0 on success. */
int h5t_copy_file(const char *src, const char *dst, long len);

/* A whole file as a NUL-terminated, malloc'ed string; NULL if unreadable. */
char *h5t_read_text(const char *path);

/* Write text to a file. 0 on success. */
int h5t_write_text(const char *path, const char *text);

/* Size of a file in bytes, -1 if missing. */
long h5t_file_size(const char *path);

/* Number of directory entries of dir whose names contain needle. */
int h5t_count_entries(const char *dir, const char *needle);

#endif
