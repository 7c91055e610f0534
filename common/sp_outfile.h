/* SPDX-License-Identifier: MIT */
/*
 * sp_outfile.h - writing an output file safely (internal; the CLI's export,
 * report and plot outputs and the plots library use it).
 *
 * A regular file (or a new one) is written to a temporary file created
 * exclusively next to it - mkstemp: an unpredictable name, O_CREAT|O_EXCL so
 * a link planted at that name is never followed - and renamed over the
 * target only when everything was written. The target never holds half a
 * file, and a symbolic link at the target is replaced, not followed.
 *
 * Anything else that already exists at the path (a device such as
 * /dev/null or /dev/stdout, a FIFO, a socket) is written in place: renaming
 * a file over it would replace the device. A directory is refused.
 */
#ifndef SP_OUTFILE_H
#define SP_OUTFILE_H

#include <stdbool.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_outfile {
    FILE *f;    /* write here */
    char *path; /* the target */
    char *tmp;  /* the temporary file, or NULL when writing in place */
} sp_outfile;

/* Open an output for path (binary or text alike). 0, or SP_EIO / SP_ENOMEM
 * with "cannot write 'path': reason" in sp_last_error(). */
int sp_outfile_open(sp_outfile *o, const char *path);

/* Finish: ok = true checks every write, flushes and renames the temporary
 * file into place; ok = false discards it. Returns 0 or SP_EIO (and the
 * temporary file is removed). Safe on a zeroed or already closed o. */
int sp_outfile_close(sp_outfile *o, bool ok);

#ifdef __cplusplus
}
#endif

#endif /* SP_OUTFILE_H */
