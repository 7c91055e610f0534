/* SPDX-License-Identifier: MIT */
/*
 * export_collapsed.c - `export collapsed`: folded stacks for flamegraph.pl
 * and speedscope: one line "outer;inner;leaf VALUE" per call path of the
 * merged call tree (all ranks and threads) whose own (exclusive) time is
 * not zero; VALUE is that own time in whole nanoseconds (default) or
 * microseconds (rounded; paths that round to 0 are left out). Region names
 * cannot carry the format's separators: ';' becomes ':', and line breaks
 * and tabs become spaces.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "sp_display.h"
#include "sp_error.h"

static void put_frame(FILE *f, const char *name)
{
    /* Control characters as visible escapes (sp_display.h), so no name can
     * break a line or reach a terminal that shows the file. */
    char buf[64];
    for (const char *p = name; *p; p++) {
        char c = *p;
        if (c == ';' || c == '\n' || c == '\r' || c == '\t') {
            fputc(c == ';' ? ':' : ' ', f);
            continue;
        }
        size_t len = 1;
        while (p[len] && ((unsigned char)p[len] & 0xC0) == 0x80 && len < 4)
            len++; /* the whole UTF-8 character */
        fwrite(buf, 1, sp_display_escape_bytes(buf, p, len, 0, NULL), f);
        p += len - 1;
    }
}

static void put_path(FILE *f, const sp_run *run, int32_t node, int32_t *chain)
{
    size_t n = 0;
    int32_t k = node;
    /* The innermost SP__EXPORT_MAX_FRAMES frames: a 20,000-deep recursion
     * must not write 20,000 lines of 20,000 frames each. */
    for (; k > 0 && n < SP__EXPORT_MAX_FRAMES; k = run->tree.nodes[k].parent)
        chain[n++] = k;
    if (k > 0)
        fputs("\xe2\x80\xa6;", f); /* "…": outer frames left out */
    while (n--) {
        put_frame(f, run->region_names[run->tree.nodes[chain[n]].region]);
        if (n)
            fputc(';', f);
    }
}

static int collapsed_body(const sp_run *run, FILE *f, const void *ctx)
{
    bool us = ((const sp__export *)ctx)->us;
    int32_t *chain = malloc(SP__EXPORT_MAX_FRAMES * sizeof *chain);
    if (!chain)
        return sp__error(SP_ENOMEM, "out of memory");
    for (size_t k = 1; k < run->tree.nnodes; k++) {
        double own = run->tree.nodes[k].own_s;
        long long v = llround(us ? own * 1e6 : own * 1e9);
        if (v <= 0)
            continue;
        put_path(f, run, (int32_t)k, chain);
        fprintf(f, " %lld\n", v);
    }
    free(chain);
    return 0;
}

int sp__export_collapsed(const sp__export *x, const char *path, sp__wrote_fn wrote)
{
    return sp__write_file(path, collapsed_body, x->run, x, wrote);
}
