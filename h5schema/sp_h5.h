/* SPDX-License-Identifier: MIT */
/*
 * sp_h5.h - write and read the scope-profiler HDF5 layout (internal API).
 * The layout itself (names, version) is defined in sp_schema.h and
 * documented in SCHEMA.md.
 */
#ifndef SP_H5_H
#define SP_H5_H

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
 * Written to "<path>.tmp.<pid>" and renamed into place, so a crash never
 * leaves a half-written file at path. Returns 0, SP_EINVAL, SP_EIO (with the
 * HDF5 reason in sp_last_error(); the temporary file is removed).
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

#ifdef __cplusplus
}
#endif

#endif /* SP_H5_H */
