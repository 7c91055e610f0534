/* SPDX-License-Identifier: MIT */
/*
 * gz_out.h - a gzip stream (RFC 1952, zlib's deflate) written into a FILE
 * as data comes, in bounded memory: what `export perfetto` writes (Perfetto
 * opens gzip-compressed traces as they are).
 */
#ifndef GZ_OUT_H
#define GZ_OUT_H

#include <stddef.h>
#include <stdio.h>

typedef struct sp__gz sp__gz;

/* A gzip stream into f (not closed by sp__gz_finish) at zlib's level
 * (1 fast .. 9 small). NULL on ENOMEM. */
sp__gz *sp__gz_new(FILE *f, int level);

/* Compress n bytes into the stream. 0, SP_EIO (write error) or SP_ENOMEM
 * (zlib's state); after an error every call returns it again. */
int sp__gz_write(sp__gz *g, const void *data, size_t n);

/* End the stream (trailer written) and free it; g may be NULL. 0 or the
 * first error. */
int sp__gz_finish(sp__gz *g);

/* Bytes before and after compression so far. */
void sp__gz_counts(const sp__gz *g, unsigned long long *in, unsigned long long *out);

#endif
