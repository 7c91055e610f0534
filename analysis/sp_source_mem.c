/* SPDX-License-Identifier: MIT */
/*
 * sp_source_mem.c - calls held in memory as an event source (sp_events.h):
 * runs the recorder builds, runs built by hand, and the layouts that store
 * calls rather than events (v1, the Python package's), so that every run is
 * analysed by the same streaming pass.
 *
 * A rank's calls are in model order (by thread, then start, parents first).
 * Each thread's calls become its events: before a call begins, the open
 * calls that are not its ancestors end (innermost first, at their end
 * times); at the thread's end every open call ends. A parent that is not
 * open at that point (damaged input) makes the call top-level, as the
 * analysis always treated it. The events are cut into blocks of
 * MEM_BLOCK_EVENTS; each block remembers the next call to begin and how
 * many calls are open at its start, so any block can be decoded on its own:
 * the open calls are the outermost `depth` ancestors of the last call begun.
 */
#include "sp_source_mem.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

#define MEM_BLOCK_EVENTS 16384u

typedef struct block_pos {
    size_t next_call; /* first call that begins in the block (or after it) */
    size_t depth;     /* calls open at the block's start */
    size_t end;       /* end of the block's thread's calls */
} block_pos;

typedef struct mem_rank {
    block_pos *pos;      /* per block */
    int64_t *eff_parent; /* the parent each call got (NULL: its own parent column) */
} mem_rank;

typedef struct mem_src {
    const sp_run *calls; /* the run holding the calls (not owned) */
    mem_rank *rk;
    int64_t *stack;      /* scratch: open calls of the thread being decoded */
    size_t stack_cap;
    int64_t *t;          /* one block of decoded events */
    int32_t *region;
} mem_src;

static int64_t parent_of(const mem_rank *m, const sp_rank_data *rk, size_t i)
{
    return m->eff_parent ? m->eff_parent[i] : rk->parent[i];
}

static int push(mem_src *s, size_t *depth, int64_t call)
{
    if (*depth == s->stack_cap) {
        size_t c = s->stack_cap ? 2 * s->stack_cap : 64;
        int64_t *p = realloc(s->stack, c * sizeof *p);
        if (!p)
            return SP_ENOMEM;
        s->stack = p;
        s->stack_cap = c;
    }
    s->stack[(*depth)++] = call;
    return 0;
}

/* The thread's events from the cursor on (open calls s->stack[0 .. depth)),
 * into the block buffers, `limit` at most: returns how many (SIZE_MAX on
 * ENOMEM). */
typedef struct cursor {
    size_t call, end;  /* next call to begin; end of the thread's calls */
    size_t depth;      /* open calls (s->stack) */
    size_t begins;
} cursor;

static size_t step(mem_src *s, mem_rank *m, const sp_rank_data *rk, cursor *c, size_t limit)
{
    size_t n = 0;
    c->begins = 0;
    while (n < limit) {
        if (c->call < c->end) {
            int64_t p = parent_of(m, rk, c->call);
            if (c->depth && s->stack[c->depth - 1] != p) { /* an open call ends first */
                int64_t top = s->stack[--c->depth];
                s->t[n] = rk->end_ns[top];
                s->region[n] = -1;
                n++;
                continue;
            }
            s->t[n] = rk->start_ns[c->call];
            s->region[n] = rk->region[c->call];
            if (push(s, &c->depth, (int64_t)c->call) != 0)
                return SIZE_MAX;
            c->call++;
            c->begins++;
            n++;
        } else if (c->depth) {
            int64_t top = s->stack[--c->depth];
            s->t[n] = rk->end_ns[top];
            s->region[n] = -1;
            n++;
        } else {
            break;
        }
    }
    return n;
}

/* Which parent each call really gets: its own when open at its begin,
 * else none. Kept only when some call differs. */
static int effective_parents(mem_src *s, mem_rank *m, const sp_rank_data *rk)
{
    size_t depth = 0;
    int32_t thread = -1;
    for (size_t i = 0; i < rk->ncalls; i++) {
        if (rk->thread[i] != thread) {
            thread = rk->thread[i];
            depth = 0;
        }
        int64_t p = rk->parent[i];
        while (depth && s->stack[depth - 1] != p &&
               (p < 0 || s->stack[depth - 1] > p)) /* ancestors have smaller rows */
            depth--;
        int64_t got = depth && s->stack[depth - 1] == p ? p : -1;
        if (got != p) {
            if (!m->eff_parent) {
                if (!(m->eff_parent = malloc(rk->ncalls * sizeof *m->eff_parent)))
                    return SP_ENOMEM;
                memcpy(m->eff_parent, rk->parent, rk->ncalls * sizeof *m->eff_parent);
            }
            m->eff_parent[i] = got;
        }
        if (got < 0)
            depth = 0;
        if (push(s, &depth, (int64_t)i) != 0)
            return SP_ENOMEM;
    }
    return 0;
}

static int build_rank(sp_event_source *src, mem_src *s, size_t r)
{
    const sp_rank_data *rk = &s->calls->ranks[r];
    mem_rank *m = &s->rk[r];
    int rc = effective_parents(s, m, rk);
    size_t cap = 0, nb = 0;
    for (size_t first = 0; rc == 0 && first < rk->ncalls;) {
        size_t end = first;
        while (end < rk->ncalls && rk->thread[end] == rk->thread[first])
            end++;
        cursor c = {.call = first, .end = end};
        for (;;) {
            block_pos at = {c.call, c.depth, end};
            size_t n = step(s, m, rk, &c, MEM_BLOCK_EVENTS);
            if (n == SIZE_MAX) {
                rc = SP_ENOMEM;
                break;
            }
            if (n == 0)
                break;
            if (nb == cap) {
                cap = cap ? 2 * cap : 16;
                block_pos *p = realloc(m->pos, cap * sizeof *p);
                if (!p) {
                    rc = SP_ENOMEM;
                    break;
                }
                m->pos = p;
            }
            m->pos[nb++] = at;
            sp_block b = {rk->thread[first], (uint32_t)n, (uint32_t)c.begins, s->t[0]};
            if ((rc = sp_event_source_add_blocks(src, r, &b, 1)) != 0)
                break;
        }
        first = end;
    }
    return rc;
}

/* Reads may run on several threads (one per rank): each has its own
 * scratch, a copy of the source's buffers. */
static int mem_read(sp_event_source *src, size_t rank, size_t b0, size_t b1, sp_event_fn fn,
                    void *ud)
{
    const mem_src *shared = src->impl;
    mem_src s = {.calls = shared->calls, .rk = shared->rk,
                 .t = malloc(MEM_BLOCK_EVENTS * sizeof *s.t),
                 .region = malloc(MEM_BLOCK_EVENTS * sizeof *s.region)};
    const sp_rank_data *rk = &s.calls->ranks[rank];
    mem_rank *m = &s.rk[rank];
    int rc = s.t && s.region ? 0 : SP_ENOMEM;
    cursor c = {0};
    for (size_t b = b0; b < b1 && rc == 0; b++) {
        const sp_block *blk = &src->blocks[rank][b];
        block_pos at = m->pos[b];
        /* The next block of the thread starts where the last one ended: its
         * open calls are on the stack already (walking them again per block
         * was depth x blocks: 2^20-deep nesting). Else the open calls: the
         * outermost at.depth ancestors of the last call begun (ancestors
         * have smaller rows, so walk up then reverse). */
        bool go_on = b > b0 && src->blocks[rank][b - 1].thread == blk->thread &&
                     c.call == at.next_call && c.depth == at.depth;
        size_t chain = 0;
        for (int64_t k = go_on ? -1 : at.next_call ? (int64_t)at.next_call - 1 : -1;
             k >= 0 && rk->thread[k] == blk->thread && rc == 0; k = parent_of(m, rk, (size_t)k))
            rc = push(&s, &chain, k);
        if (rc)
            break;
        for (size_t i = 0; i < chain / 2; i++) {
            int64_t x = s.stack[i];
            s.stack[i] = s.stack[chain - 1 - i];
            s.stack[chain - 1 - i] = x;
        }
        if (!go_on)
            c = (cursor){.call = at.next_call, .end = at.end,
                         .depth = at.depth < chain ? at.depth : chain};
        size_t n = step(&s, m, rk, &c, blk->events);
        if (n == SIZE_MAX) {
            rc = SP_ENOMEM;
            break;
        }
        sp_event_batch batch = {rank, b, blk->thread, n, s.t, s.region};
        rc = fn(ud, &batch);
    }
    free(s.stack);
    free(s.t);
    free(s.region);
    return rc;
}

static void mem_close(sp_event_source *src)
{
    mem_src *s = src->impl;
    if (!s)
        return;
    for (size_t r = 0; r < src->nranks; r++) {
        free(s->rk[r].pos);
        free(s->rk[r].eff_parent);
    }
    free(s->rk);
    free(s->stack);
    free(s->t);
    free(s->region);
    free(s);
    src->impl = NULL;
}

static const sp_event_source_ops mem_ops = {mem_read, NULL, mem_close};

sp_event_source *sp_source_mem_new(const sp_run *calls, sp_run *header)
{
    sp_event_source *src = sp_event_source_new(&mem_ops, header);
    mem_src *s = src ? calloc(1, sizeof *s) : NULL;
    if (!s) {
        if (src)
            src->run = NULL; /* the caller keeps header on failure */
        sp_event_source_free(src);
        return sp__error_null(SP_ENOMEM, "out of memory");
    }
    src->impl = s;
    src->complete = true;
    src->trusted = true;
    s->calls = calls;
    s->rk = calloc(calls->nranks ? calls->nranks : 1, sizeof *s->rk);
    s->t = malloc(MEM_BLOCK_EVENTS * sizeof *s->t);
    s->region = malloc(MEM_BLOCK_EVENTS * sizeof *s->region);
    int rc = (!s->rk || !s->t || !s->region) ? SP_ENOMEM : 0;
    for (size_t r = 0; rc == 0 && r < calls->nranks; r++)
        rc = build_rank(src, s, r);
    if (rc) {
        src->run = NULL;
        sp_event_source_free(src);
        return sp__error_null(SP_ENOMEM, "out of memory");
    }
    return src;
}
