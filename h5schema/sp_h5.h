/* SPDX-License-Identifier: MIT */
/*
 * sp_h5.h - write and read the scope-profiler HDF5 layout (internal API).
 * The layout itself (names, version) is defined in sp_schema.h and
 * documented in SCHEMA.md.
 */
#ifndef SP_H5_H
#define SP_H5_H

#include <stdbool.h>

#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The newest schema version this build reads, and the one the recorder
 * writes (SCHEMA.md, "Schema version 2"). */
#define SP_SCHEMA_VERSION 2

/* Version 1: the columnar call tables written once at finalize by earlier
 * builds; sp_h5_write() still writes it for runs built in memory. */
#define SP_SCHEMA_V1 1

/*
 * Write run to path in schema version 1 (every rank, thread and call,
 * datasets exactly sized; for runs built in memory: tests, tools, golden
 * files; the recorder writes version 2, sp_h5_v2.h).
 * Written to an unpredictable temporary "<path>.tmp.<pid>-<host>.<random>",
 * created exclusively (a link planted there is never followed), and renamed
 * into place, so a crash never leaves a half-written file at path. Returns
 * 0, SP_EINVAL, SP_EIO (with the HDF5 reason in sp_last_error(); the
 * temporary file is removed).
 */
int sp_h5_write(const sp_run *run, const char *path);

/*
 * Read a file of schema v1 or v2 (finished, being recorded, or left by a
 * killed run), or of the Python scope-profiler's per-region or columnar
 * layouts, into a new (not yet analyzed) run. NULL with
 * sp_last_error() set: SP_ENOENT missing, SP_EFORMAT not HDF5 / truncated /
 * wrongly shaped, SP_EVERSION newer schema (the message names both versions).
 * *status (may be NULL) receives the code.
 */
sp_run *sp_h5_read(const char *path, int *status);

/* The metadata value `file_state` of a run that did not finish (complete =
 * 0): that it is recording or was killed, how many calls were still open
 * (cut at their thread's last event) and how many damaged blocks a torn
 * write left out (0: not mentioned). Into buf (len bytes). */
void sp_h5_file_state_text(uint64_t open_calls, uint64_t torn_blocks, char *buf, size_t len);

/* ---- reading in another process (sp_h5_read_isolated.c) ----
 * libhdf5 can crash or loop on a damaged file; reading in a child process
 * turns that into an error for the caller. */
#define SP_READ_ISOLATION_ENV "SCOPE_PROFILER_READ_ISOLATION" /* "0": read in-process */
#define SP_READ_TIMEOUT_ENV "SCOPE_PROFILER_READ_TIMEOUT"     /* seconds */
#define SP_READ_TIMEOUT_DEFAULT 300.0

typedef struct sp_h5_isolation {
    /* NULL: fork() and read in the child (single-threaded callers only).
     * Else the program to spawn, NULL-terminated argv; the file's path is
     * appended, and the program must call sp_h5_read_helper_main(path). */
    const char *const *helper_argv;
    double timeout_s; /* 0: SCOPE_PROFILER_READ_TIMEOUT, else 300 s */
    int cancel_fd;    /* readable = give up and kill the child; -1: none */
} sp_h5_isolation;

/*
 * sp_h5_read() in a child process (how: NULL = fork, default timeout); the
 * run comes back through a pipe and is checked again here. Besides the
 * errors of sp_h5_read(): SP_EFORMAT "'f' is a damaged HDF5 file: reading it
 * crashed the HDF5 library (a segmentation fault)", SP_EIO "reading took
 * longer than N s and was stopped". *status (may be NULL) gets the code.
 */
sp_run *sp_h5_read_isolated(const char *path, const sp_h5_isolation *how, int *status);

/* The helper program's side: read path, write the outcome to stdout (fd 1)
 * for sp_h5_read_isolated(). Returns the exit status for main(). */
int sp_h5_read_helper_main(const char *path);

/*
 * The isolation itself, for other kinds of reading (analysis's aggregate
 * pass): child(path, fd, child_arg) runs in a child process (fork; its
 * return value is the exit status) and writes its outcome to fd, or the
 * helper program of how->helper_argv does (path appended; it writes to
 * stdout); parent(fd, ...) reads it here, with a read budget open on this
 * thread, the timeout and the cancel fd. A child that crashes, is killed or
 * outlasts the timeout becomes the errors of sp_h5_read_isolated(). Returns
 * parent's status or one of those errors.
 */
typedef int (*sp_h5_child_fn)(const char *path, int fd, void *arg);
typedef int (*sp_h5_parent_fn)(int fd, int cancel_fd, const char *path, double timeout_s,
                               bool *timed_out, void *arg);
int sp_h5_isolated_call(const char *path, const sp_h5_isolation *how, sp_h5_child_fn child,
                        void *child_arg, sp_h5_parent_fn parent, void *parent_arg);

/* The memory limit of a reading child (RLIMIT_AS from the read limit; not
 * under sanitizers), for helper programs. */
void sp_h5_isolated_child_limits(void);

/* In a reading child whose read failed with status: when it ran out of
 * memory under that limit, sp_last_error() gets the limit and how to raise
 * it appended (the error is set again with status, or SP_ENOMEM); else
 * nothing changes. */
void sp_h5_isolated_explain_oom(int status);

/* Whether SCOPE_PROFILER_READ_ISOLATION allows isolation (anything but "0"). */
bool sp_h5_isolation_enabled(void);
/* SCOPE_PROFILER_READ_TIMEOUT when valid, else SP_READ_TIMEOUT_DEFAULT. */
double sp_h5_read_timeout(void);

/* ---- how much a read may use (sp_h5_read_budget.c) ----
 * Every read is bounded: what the file claims (elements, strings, ranks,
 * metadata) is charged before memory is allocated for it, and a read that
 * would need more than the limit fails with SP_ENOMEM and a message naming
 * the limit and how to raise it. Default 4 GiB; SCOPE_PROFILER_READ_LIMIT
 * (e.g. "16G", "512M", "unlimited") or `scope-profiler --read-limit SIZE`
 * raise it. */
#define SP_READ_LIMIT_ENV "SCOPE_PROFILER_READ_LIMIT"
#define SP_READ_LIMIT_DEFAULT ((uint64_t)4 << 30)

/* The limit in bytes: SCOPE_PROFILER_READ_LIMIT when valid, else the default. */
uint64_t sp_h5_read_limit(void);

/* Parse a size: a number with an optional K, M, G or T suffix (powers of
 * 1024, "GiB"/"GB" accepted), at least 1 MiB; "unlimited" or "none" give
 * UINT64_MAX. 0 or SP_EINVAL. */
int sp_h5_parse_size(const char *s, uint64_t *out);

#ifdef __cplusplus
}
#endif

#endif /* SP_H5_H */
