/* SPDX-License-Identifier: MIT */
/* gz_out.c - a gzip stream into a FILE (see gz_out.h). */
#include "gz_out.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "sp_error.h"

#define OUT_CHUNK (256u << 10)

struct sp__gz {
    FILE *f;
    z_stream z;
    int err;
    unsigned long long in, out;
    unsigned char buf[OUT_CHUNK];
};

sp__gz *sp__gz_new(FILE *f, int level)
{
    sp__gz *g = calloc(1, sizeof *g);
    if (!g)
        return NULL;
    g->f = f;
    /* windowBits 15 + 16: a gzip header and trailer around the deflate data. */
    if (deflateInit2(&g->z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
        free(g);
        return NULL;
    }
    return g;
}

static int pump(sp__gz *g, int flush)
{
    int zr;
    do {
        g->z.next_out = g->buf;
        g->z.avail_out = OUT_CHUNK;
        zr = deflate(&g->z, flush);
        if (zr == Z_STREAM_ERROR)
            return g->err = sp__error(SP_ENOMEM, "gzip: deflate failed");
        size_t have = OUT_CHUNK - g->z.avail_out;
        if (have && fwrite(g->buf, 1, have, g->f) != have)
            return g->err = sp__error(SP_EIO, "cannot write the output: %s", strerror(errno));
        g->out += have;
    } while (g->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
    return 0;
}

int sp__gz_write(sp__gz *g, const void *data, size_t n)
{
    if (g->err)
        return g->err;
    const unsigned char *p = data;
    g->in += n;
    while (n) { /* avail_in is an unsigned int */
        unsigned step = n > (1u << 30) ? 1u << 30 : (unsigned)n;
        g->z.next_in = (unsigned char *)p;
        g->z.avail_in = step;
        int rc = pump(g, Z_NO_FLUSH);
        if (rc)
            return rc;
        p += step;
        n -= step;
    }
    return 0;
}

int sp__gz_finish(sp__gz *g)
{
    if (!g)
        return 0;
    int rc = g->err;
    if (rc == 0) {
        g->z.next_in = NULL;
        g->z.avail_in = 0;
        rc = pump(g, Z_FINISH);
    }
    deflateEnd(&g->z);
    free(g);
    return rc;
}

void sp__gz_counts(const sp__gz *g, unsigned long long *in, unsigned long long *out)
{
    *in = g->in;
    *out = g->out;
}
