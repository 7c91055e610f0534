/* SPDX-License-Identifier: MIT */
/* sp_events.c - what every event source shares (see sp_events.h). */
#include "sp_events.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

int sp_event_source_read(sp_event_source *src, size_t rank, size_t b0, size_t b1,
                         sp_event_fn fn, void *ud)
{
    if (!src || rank >= src->nranks || b0 > b1 || b1 > src->nblocks[rank])
        return sp__error(SP_EINVAL, "event read out of range (rank %zu, blocks %zu-%zu)", rank,
                         b0, b1);
    if (b0 == b1)
        return 0;
    return src->ops->read(src, rank, b0, b1, fn, ud);
}

int sp_event_source_refresh(sp_event_source *src, bool *grew)
{
    *grew = false;
    if (!src->ops->refresh || src->complete)
        return 0;
    return src->ops->refresh(src, grew);
}

sp_run *sp_event_source_take_run(sp_event_source *src)
{
    sp_run *run = src->run;
    src->run = NULL;
    return run;
}

sp_event_source *sp_event_source_new(const sp_event_source_ops *ops, sp_run *run)
{
    sp_event_source *src = calloc(1, sizeof *src);
    if (!src)
        return NULL;
    size_t n = run->nranks ? run->nranks : 1;
    src->nblocks = calloc(n, sizeof *src->nblocks);
    src->blocks = calloc(n, sizeof *src->blocks);
    src->cap = calloc(n, sizeof *src->cap);
    if (!src->nblocks || !src->blocks || !src->cap) {
        free(src->nblocks);
        free(src->blocks);
        free(src->cap);
        free(src);
        return NULL;
    }
    src->ops = ops;
    src->run = run;
    src->nranks = run->nranks;
    src->bad_rank = src->bad_block = SIZE_MAX;
    return src;
}

int sp_event_source_add_blocks(sp_event_source *src, size_t r, const sp_block *b, size_t n)
{
    if (n > SIZE_MAX / sizeof *b - src->nblocks[r])
        return SP_ENOMEM;
    size_t need = src->nblocks[r] + n;
    if (need > src->cap[r]) {
        size_t c = src->cap[r] ? src->cap[r] : 64;
        while (c < need)
            c *= 2;
        sp_block *nb = realloc(src->blocks[r], c * sizeof *nb);
        if (!nb)
            return SP_ENOMEM;
        src->blocks[r] = nb;
        src->cap[r] = c;
    }
    if (n) /* nothing to add: blocks[r] may still be NULL */
        memcpy(src->blocks[r] + src->nblocks[r], b, n * sizeof *b);
    src->nblocks[r] = need;
    return 0;
}

void sp_event_source_free(sp_event_source *src)
{
    if (!src)
        return;
    if (src->ops && src->ops->close)
        src->ops->close(src);
    for (size_t r = 0; r < src->nranks; r++)
        free(src->blocks[r]);
    free(src->blocks);
    free(src->nblocks);
    free(src->cap);
    sp_run_free(src->run);
    free(src);
}
