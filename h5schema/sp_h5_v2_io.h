/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_v2_io.h - HDF5 pieces shared by the v2 writers (part, main and
 * finished files): appendable columns, byte tables of names, attributes,
 * exclusive file creation. Internal to h5schema.
 */
#ifndef SP_H5_V2_IO_H
#define SP_H5_V2_IO_H

#include "sp_h5_internal.h"
#include "sp_h5_v2.h"
#include "sp_schema_v2.h"

/* Elements per HDF5 chunk of the event columns (256 KiB of each), of the
 * blocks table, and of the small tables. */
#define SP_V2_CHUNK_EVENTS ((hsize_t)1 << 16)
#define SP_V2_CHUNK_BLOCKS ((hsize_t)1 << 12)
#define SP_V2_CHUNK_SMALL ((hsize_t)256)

/* An appendable 1-D column: chunked, unlimited, optionally compressed. */
typedef struct sp_v2_col {
    hid_t dset;
    hsize_t n;          /* elements written */
    sp_schema_type type;
} sp_v2_col;

/* Create column `name` under loc (H5I_INVALID_HID on failure, with the
 * message naming path). */
int sp_v2_col_create(hid_t loc, const char *name, sp_schema_type type, hsize_t chunk,
                     sp_v2_compress c, const char *path, sp_v2_col *out);

/* A column written once, exactly sized and contiguous (the finished
 * file's small tables: nothing is appended to them). */
int sp_v2_col_fixed(hid_t loc, const char *name, sp_schema_type type, const void *data,
                    size_t n, const char *path);

/* Open an existing column (after a copy) for appending. */
int sp_v2_col_open(hid_t loc, const char *name, sp_schema_type type, const char *path,
                   sp_v2_col *out);

/* Append count elements of data (the column's native memory type). */
int sp_v2_col_append(sp_v2_col *c, const void *data, size_t count, const char *path);

void sp_v2_col_close(sp_v2_col *c);

/* A table of names as raw bytes: <prefix>name_bytes + <prefix>name_end. */
typedef struct sp_v2_names {
    sp_v2_col bytes, end;
    uint64_t total;     /* bytes written */
} sp_v2_names;

int sp_v2_names_create(hid_t loc, sp_v2_compress c, const char *path, sp_v2_names *out);

/* A names table written once (sp_v2_col_fixed). */
int sp_v2_names_fixed(hid_t loc, const char *const *names, size_t n, const char *path);
int sp_v2_names_append(sp_v2_names *t, const char *const *names, size_t n, const char *path);
void sp_v2_names_close(sp_v2_names *t);

/* A scalar integer attribute (file type from the schema type). */
int sp_v2_int_attr(hid_t loc, const char *name, sp_schema_type type, int64_t value,
                   const char *path);

/* A metadata group: one UTF-8 string attribute per entry, keys and values
 * escaped where they are not UTF-8 (sp_v2_text_escape); empty keys are
 * skipped. */
int sp_v2_meta_group(hid_t loc, const char *name, const sp_kvlist *l, const char *path);

/* File access properties: our driver (sp_v2_vfd), the 1.8 format for new
 * objects, the latest allowed (SWMR parts, and copies of their datasets).
 * swmr: the latest format only (SWMR needs it). */
int sp_v2_fapl(bool swmr, const char *path, hid_t *out);

/* Create file `name` exclusively (O_EXCL: fails if it exists, never
 * through a link), for path's messages. */
int sp_v2_file_create(const char *name, hid_t fapl, const char *path, hid_t *out);

/* Writing on a full disk. libhdf5 1.10's paths for a failing write are
 * not safe: a file or dataset whose flush fails at close stays
 * half-destroyed, and HDF5's exit handler then crashes on it (SIGSEGV in
 * H5F__close_cb) or cannot shut down ("infinite loop closing library",
 * chunk buffers leaked); measured on full disks of 16 KiB to 8 MiB. So
 * every file we write goes through our own file driver (sp_h5_vfd.c:
 * POSIX I/O as HDF5's sec2) which never lets HDF5 see a write fail: at the
 * first failing write the file is abandoned (nothing more is written or
 * truncated; the bytes on disk stay as the last successful write left
 * them, and a reader drops a torn last block), the errno is kept, and our
 * code asks for it where it must know (each append, flush and close). */

/* The driver (registered on first use); set by sp_v2_fapl. */
hid_t sp_v2_vfd(void);

/* Abandon file now (an error of ours; nothing more goes to disk). A file
 * of another driver: nothing. */
void sp_v2_file_abandon(hid_t file);

/* The errno of the first failed write (or truncate) of file, or of the
 * file that obj (a dataset, group) is in; 0: none, or another driver. */
int sp_v2_file_write_error(hid_t file);
int sp_v2_object_write_error(hid_t obj);

/* The errno of a failed write of the last of our files this thread
 * closed (0: none), and forget it. */
int sp_v2_vfd_closed_error(void);

/* Flush before closing; on failure abandon the file. Returns 0, or SP_EIO
 * with "cannot write 'path': closing 'name': reason" ("closing it" when
 * name is NULL) when the flush, or any write of the file before, failed.
 * file < 0: 0. */
int sp_v2_file_flush(hid_t file, const char *path, const char *name);

/* sp_v2_file_flush, then close. Returns 0, or SP_EIO as above when anything
 * could not be written; the file is closed in every case. file < 0: 0. */
int sp_v2_file_close(hid_t file, const char *path, const char *name);

/* Close a file whose contents no longer matter (an error path; the caller
 * removes it): nothing more is written to disk. file < 0: nothing. */
void sp_v2_file_discard(hid_t file);

#endif /* SP_H5_V2_IO_H */
