/* SPDX-License-Identifier: MIT */
/*
 * sp_stream_mpi.c - the writer's side of MPI records (sp_stream.h,
 * "Records"): decode a record from a thread's chunk, give it the call path
 * of the thread's open calls at that point (the MPI call's region and the
 * program's regions around it), keep it until the next append, and hand
 * the new communicator rows, path rows and records to the part.
 *
 * Slots of a record (code, tick):
 *   point to point  0: header, post_enter   1: kind | op << 8 | done_op << 16, post_exit
 *                   2: comm, done_enter     3: peer, done_exit     4: tag, bytes
 *   collective      0: header, enter        1: op, exit
 *                   2: comm, bytes_sent     3: root, bytes_recv
 *
 * Call paths are interned per (parent path, region row): memory grows with
 * the distinct paths of MPI calls, never with the records.
 */
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_mpi.h"
#include "sp_stream_consume.h"

/* ---------------------------------------------------------------- paths */

static uint32_t path_hash(int32_t parent, int32_t region, uint32_t mask)
{
    uint64_t k = ((uint64_t)(uint32_t)parent << 32) | (uint32_t)region;
    return (uint32_t)((k * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static int paths_rehash(void)
{
    sp__consumer *c = &sp__cons;
    uint32_t cap = c->path_hcap ? 2 * c->path_hcap : 256;
    int32_t *h = calloc(cap, sizeof *h);
    if (!h)
        return -1;
    for (uint32_t i = 0; i < c->npaths; i++) {
        uint32_t s = path_hash(c->path_parent[i], c->path_region[i], cap - 1);
        while (h[s])
            s = (s + 1) & (cap - 1);
        h[s] = (int32_t)i + 1;
    }
    free(c->path_hash);
    c->path_hash = h;
    c->path_hcap = cap;
    return 0;
}

/* The path row of (parent, region), made when new; -1 on ENOMEM. */
static int32_t path_row(int32_t parent, int32_t region)
{
    sp__consumer *c = &sp__cons;
    if (2 * (c->npaths + 1) > c->path_hcap && paths_rehash() != 0)
        return -1;
    uint32_t mask = c->path_hcap - 1, s = path_hash(parent, region, mask);
    for (; c->path_hash[s]; s = (s + 1) & mask) {
        int32_t i = c->path_hash[s] - 1;
        if (c->path_parent[i] == parent && c->path_region[i] == region)
            return i;
    }
    if (c->npaths == c->paths_cap) {
        uint32_t cap = c->paths_cap ? 2 * c->paths_cap : 64;
        int32_t *p = realloc(c->path_parent, cap * sizeof *p);
        if (p)
            c->path_parent = p;
        int32_t *r = realloc(c->path_region, cap * sizeof *r);
        if (r)
            c->path_region = r;
        if (!p || !r)
            return -1;
        c->paths_cap = cap;
    }
    c->path_parent[c->npaths] = parent;
    c->path_region[c->npaths] = region;
    c->path_hash[s] = (int32_t)++c->npaths;
    return (int32_t)c->npaths - 1;
}

/* The path of the thread's open calls (-1: none open, or out of memory). */
static int32_t path_of(const sp__cthread *ct)
{
    int32_t p = -1;
    for (uint32_t d = 0; d < ct->depth && (d == 0 || p >= 0); d++)
        p = path_row(p, ct->open[d]);
    return p;
}

/* ---------------------------------------------------------------- records */

uint32_t sp__cons_record(const sp__cthread *ct, int32_t trow, const sp__chunk *ch, uint32_t k,
                         uint32_t to)
{
    sp__consumer *c = &sp__cons;
    int32_t type = ch->code[k] - SP__REC_BASE;
    uint32_t slots = type == SP__REC_P2P ? SP__REC_SLOTS_P2P
                     : type == SP__REC_COLL ? SP__REC_SLOTS_COLL : 1;
    if (k + slots > to) /* never: records are published whole */
        return to - k;
    if (!c->mpi) /* no mpi/ tables (no part): nothing keeps it */
        return slots;
    const int32_t *code = ch->code + k;
    const int64_t *t = ch->t + k;
    int rc = SP_ENOMEM;
    int32_t path = path_of(ct);
    if (type == SP__REC_P2P) {
        sp_mpi_p2p_row r = {.kind = code[1] & 0xff, .op = (code[1] >> 8) & 0xff,
                            .done_op = (code[1] >> 16) & 0xff, .thread = trow, .path = path,
                            .comm = code[2], .peer = code[3], .tag = code[4], .bytes = t[4],
                            .post_enter = t[0], .post_exit = t[1], .done_enter = t[2],
                            .done_exit = t[3]};
        rc = sp_mpi_p2p_add(&c->p2p, &r);
    } else if (type == SP__REC_COLL) {
        sp_mpi_coll_row r = {.op = code[1], .thread = trow, .path = path, .comm = code[2],
                             .root = code[3], .bytes_sent = t[2], .bytes_recv = t[3],
                             .enter = t[0], .exit = t[1]};
        rc = sp_mpi_coll_add(&c->coll, &r);
    }
    if (rc != 0)
        c->mpi_lost++;
    return slots;
}

size_t sp__cons_mpi_pending(void) { return sp__cons.p2p.n + sp__cons.coll.n; }

void sp__cons_mpi_batch(sp_v2_mpi_batch *b)
{
    sp__consumer *c = &sp__cons;
    memset(b, 0, sizeof *b);
    if (!c->mpi)
        return;
    /* After the records were consumed: every row they name is there. */
    uint32_t n = sp__mpi_comm_rows(c->comms_written, &c->comm_rows);
    if (n > c->comms_written) {
        b->ncomms = n - c->comms_written;
        b->comm_size = c->comm_rows.size;
        b->comm_members = c->comm_rows.members;
        b->comm_flags = c->comm_rows.flags;
    }
    b->npaths = c->npaths - c->paths_written;
    b->path_parent = c->path_parent + c->paths_written;
    b->path_region = c->path_region + c->paths_written;
    b->p2p = &c->p2p;
    b->coll = &c->coll;
}

void sp__cons_mpi_written(const sp_v2_mpi_batch *b)
{
    sp__consumer *c = &sp__cons;
    c->comms_written += (uint32_t)b->ncomms;
    c->paths_written = c->npaths;
    sp_mpi_p2p_clear(&c->p2p);
    sp_mpi_coll_clear(&c->coll);
}

void sp__cons_mpi_drop(void)
{
    sp__consumer *c = &sp__cons;
    c->mpi_lost += c->p2p.n + c->coll.n;
    sp_mpi_p2p_clear(&c->p2p);
    sp_mpi_coll_clear(&c->coll);
}

void sp__cons_mpi_free(void)
{
    sp__consumer *c = &sp__cons;
    sp_mpi_p2p_free(&c->p2p);
    sp_mpi_coll_free(&c->coll);
    free(c->path_parent);
    free(c->path_region);
    free(c->path_hash);
    free(c->comm_rows.size);
    free(c->comm_rows.flags);
    free(c->comm_rows.members);
}

uint64_t sp__stream_mpi_lost(void) { return sp__cons.mpi_lost; }
