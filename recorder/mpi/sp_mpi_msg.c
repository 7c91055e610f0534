/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_msg.c - recording MPI messages and collectives (sp_mpi_msg.h):
 * the session's switches, the communicator table, the per-thread request
 * tables and the records themselves.
 */
#ifdef SP_WITH_MPI

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "sp_env.h"
#include "sp_error.h"
#include "sp_mpi_msg.h"
#include "sp_recorder.h"
#include "sp_stream.h"

int sp__mpi_flags;
bool sp__mpi_clock_tsc;
static int session_flags;      /* what sp__mpi_calls_set(true) switches on */
static unsigned msg_gen;       /* a new one per session: request tables start over */
static uint64_t rec_dropped;   /* atomic: records the chunks could not take */
static uint64_t untracked;     /* atomic: completions of requests never seen starting */

/* ---------------------------------------------------------------- switches */

int sp__mpi_msg_setup(bool regions, bool file_output, sp__clock_source clock)
{
    /* Messages go with the MPI call regions unless the variable says
     * otherwise; they need a file (their tables stream into the part). */
    bool msgs = regions;
    int rc = sp__env_bool("SCOPE_PROFILER_MPI_MESSAGES", &msgs);
    if (rc)
        return rc;
    session_flags = (regions ? SP__MPI_F_REGIONS : 0) | (msgs && file_output ? SP__MPI_F_MSGS : 0);
    sp__mpi_clock_tsc = clock == SP__CLOCK_TSC;
    __atomic_add_fetch(&msg_gen, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&rec_dropped, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&untracked, 0, __ATOMIC_RELAXED);
    return 0;
}

void sp__mpi_calls_set(bool on)
{
    __atomic_store_n(&sp__mpi_flags, on ? session_flags : 0, __ATOMIC_RELEASE);
}

bool sp__mpi_messages(void) { return session_flags & SP__MPI_F_MSGS; }

void sp__mpi_msg_counts(uint64_t *dropped, uint64_t *untracked_out)
{
    *dropped = __atomic_load_n(&rec_dropped, __ATOMIC_RELAXED);
    *untracked_out = __atomic_load_n(&untracked, __ATOMIC_RELAXED);
}

/* ---------------------------------------------------------------- communicators */

/* A communicator the program used. Immutable once published. */
typedef struct comm_entry {
    int32_t id;     /* row of the file's comms table */
    int32_t npeers; /* size of the group its peer ranks index */
    int32_t indeg, outdeg;
    int32_t *peers; /* world rank of each peer rank */
    struct comm_entry *next_dead; /* forgotten entries, freed a session later */
} comm_entry;

/* Open addressing on the handle: key 0 empty, 1 a forgotten handle. */
#define COMM_SLOTS 4096u
#define KEY_EMPTY ((uintptr_t)0)
#define KEY_GONE ((uintptr_t)1)
static struct {
    uintptr_t key; /* atomic (release/acquire) */
    comm_entry *e;
} comm_slot[COMM_SLOTS];

static pthread_mutex_t comm_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned comm_gen;          /* the session the slots belong to */
static comm_entry *dead, *dead_old; /* forgotten or of an older session */
static sp__comm_rows rows;         /* the session's rows, for the writer */

static uintptr_t comm_key(MPI_Comm c) { return (uintptr_t)c; }

static uint32_t comm_hash(uintptr_t k)
{
    return (uint32_t)(((uint64_t)k * 0x9E3779B97F4A7C15ull) >> 40) & (COMM_SLOTS - 1);
}

static void entry_bury(comm_entry *e)
{
    e->next_dead = dead;
    dead = e;
}

/* A new session: every entry goes (comm_lock held). A thread of the old
 * session may still hold one: they are freed only a session later. */
static void comm_reset_locked(void)
{
    while (dead_old) {
        comm_entry *n = dead_old->next_dead;
        free(dead_old->peers);
        free(dead_old);
        dead_old = n;
    }
    for (uint32_t i = 0; i < COMM_SLOTS; i++) {
        if (comm_slot[i].key > KEY_GONE)
            entry_bury(comm_slot[i].e);
        __atomic_store_n(&comm_slot[i].key, KEY_EMPTY, __ATOMIC_RELEASE);
        comm_slot[i].e = NULL;
    }
    dead_old = dead;
    dead = NULL;
    rows.n = 0;
    rows.nmembers = 0;
    comm_gen = __atomic_load_n(&msg_gen, __ATOMIC_ACQUIRE);
}

static bool rows_room(uint32_t n)
{
    if (rows.n == rows.cap) {
        uint32_t cap = rows.cap ? 2 * rows.cap : 16;
        uint32_t *s = realloc(rows.size, cap * sizeof *s);
        if (s)
            rows.size = s;
        int32_t *f = realloc(rows.flags, cap * sizeof *f);
        if (f)
            rows.flags = f;
        if (!s || !f)
            return false;
        rows.cap = cap;
    }
    if (rows.nmembers + n > rows.mcap) {
        size_t cap = rows.mcap ? 2 * rows.mcap : 256;
        while (cap < rows.nmembers + n)
            cap *= 2;
        int32_t *m = realloc(rows.members, cap * sizeof *m);
        if (!m)
            return false;
        rows.members = m;
        rows.mcap = cap;
    }
    return true;
}

/* World ranks of group g's members (n of them), into a new array. */
static int32_t *world_ranks(MPI_Group g, int n)
{
    MPI_Group world;
    int32_t *out = malloc((size_t)(n ? n : 1) * sizeof *out);
    int *in = malloc((size_t)(n ? n : 1) * sizeof *in), *tr = malloc((size_t)(n ? n : 1) * sizeof *tr);
    bool ok = out && in && tr && PMPI_Comm_group(MPI_COMM_WORLD, &world) == MPI_SUCCESS;
    if (ok) {
        for (int i = 0; i < n; i++)
            in[i] = i;
        ok = PMPI_Group_translate_ranks(g, n, in, world, tr) == MPI_SUCCESS;
        PMPI_Group_free(&world);
        for (int i = 0; ok && i < n; i++)
            out[i] = tr[i] == MPI_UNDEFINED ? -1 : tr[i];
    }
    free(in);
    free(tr);
    if (!ok) {
        free(out);
        return NULL;
    }
    return out;
}

/* The neighbourhood of a communicator with a topology. */
static void topology(MPI_Comm c, comm_entry *e)
{
    int topo = MPI_UNDEFINED;
    e->indeg = e->outdeg = -1;
    if (PMPI_Topo_test(c, &topo) != MPI_SUCCESS)
        return;
    if (topo == MPI_CART) {
        int nd = 0;
        if (PMPI_Cartdim_get(c, &nd) == MPI_SUCCESS)
            e->indeg = e->outdeg = 2 * nd;
    } else if (topo == MPI_GRAPH) {
        int me = 0, nn = 0;
        if (PMPI_Comm_rank(c, &me) == MPI_SUCCESS &&
            PMPI_Graph_neighbors_count(c, me, &nn) == MPI_SUCCESS)
            e->indeg = e->outdeg = nn;
    } else if (topo == MPI_DIST_GRAPH) {
        int in = 0, out = 0, weighted = 0;
        if (PMPI_Dist_graph_neighbors_count(c, &in, &out, &weighted) == MPI_SUCCESS) {
            e->indeg = in;
            e->outdeg = out;
        }
    }
}

/* Make the entry of c (comm_lock held): its members become a row. */
static comm_entry *comm_make(MPI_Comm c)
{
    int inter = 0, n = 0, np = 0;
    MPI_Group g = MPI_GROUP_NULL, rg = MPI_GROUP_NULL;
    comm_entry *e = calloc(1, sizeof *e);
    int32_t *members = NULL;
    if (!e || PMPI_Comm_test_inter(c, &inter) != MPI_SUCCESS ||
        PMPI_Comm_group(c, &g) != MPI_SUCCESS || PMPI_Group_size(g, &n) != MPI_SUCCESS ||
        !(members = world_ranks(g, n)))
        goto fail;
    if (inter) {
        if (PMPI_Comm_remote_group(c, &rg) != MPI_SUCCESS ||
            PMPI_Group_size(rg, &np) != MPI_SUCCESS || !(e->peers = world_ranks(rg, np)))
            goto fail;
        e->indeg = e->outdeg = -1;
    } else {
        np = n;
        if (!(e->peers = malloc((size_t)(n ? n : 1) * sizeof *e->peers)))
            goto fail;
        memcpy(e->peers, members, (size_t)n * sizeof *members);
        topology(c, e);
    }
    if (!rows_room((uint32_t)n))
        goto fail;
    e->npeers = np;
    e->id = (int32_t)rows.n;
    rows.size[rows.n] = (uint32_t)n;
    rows.flags[rows.n] = (c == MPI_COMM_WORLD ? SP_MPI_COMM_WORLD : 0) |
                         (inter ? SP_MPI_COMM_INTER : 0);
    memcpy(rows.members + rows.nmembers, members, (size_t)n * sizeof *members);
    rows.nmembers += (size_t)n;
    rows.n++;
    goto done;
fail:
    if (e)
        free(e->peers);
    free(e);
    e = NULL;
done:
    free(members);
    if (g != MPI_GROUP_NULL)
        PMPI_Group_free(&g);
    if (rg != MPI_GROUP_NULL)
        PMPI_Group_free(&rg);
    return e;
}

/* The entry of c, made on first use; NULL when it cannot be had. */
static const comm_entry *comm_get(MPI_Comm c)
{
    uintptr_t k = comm_key(c);
    if (k <= KEY_GONE || c == MPI_COMM_NULL)
        return NULL;
    uint32_t s = comm_hash(k);
    for (uint32_t i = 0; i < COMM_SLOTS; i++, s = (s + 1) & (COMM_SLOTS - 1)) {
        uintptr_t sk = __atomic_load_n(&comm_slot[s].key, __ATOMIC_ACQUIRE);
        if (sk == k)
            return comm_slot[s].e;
        if (sk == KEY_EMPTY)
            break;
    }
    /* The slow path, once per communicator and session. */
    comm_entry *e = NULL;
    pthread_mutex_lock(&comm_lock);
    if (comm_gen != __atomic_load_n(&msg_gen, __ATOMIC_ACQUIRE))
        comm_reset_locked();
    uint32_t free_slot = UINT32_MAX;
    s = comm_hash(k);
    for (uint32_t i = 0; i < COMM_SLOTS; i++, s = (s + 1) & (COMM_SLOTS - 1)) {
        uintptr_t sk = comm_slot[s].key;
        if (sk == k) {
            e = comm_slot[s].e;
            goto out;
        }
        if (sk == KEY_GONE && free_slot == UINT32_MAX)
            free_slot = s;
        if (sk == KEY_EMPTY) {
            if (free_slot == UINT32_MAX)
                free_slot = s;
            break;
        }
    }
    if (free_slot != UINT32_MAX && (e = comm_make(c))) {
        comm_slot[free_slot].e = e;
        __atomic_store_n(&comm_slot[free_slot].key, k, __ATOMIC_RELEASE);
    }
out:
    pthread_mutex_unlock(&comm_lock);
    return e;
}

void sp__mpi_forget_comm(MPI_Comm c)
{
    uintptr_t k = comm_key(c);
    if (k <= KEY_GONE)
        return;
    pthread_mutex_lock(&comm_lock);
    uint32_t s = comm_hash(k);
    for (uint32_t i = 0; i < COMM_SLOTS; i++, s = (s + 1) & (COMM_SLOTS - 1)) {
        if (comm_slot[s].key == k) {
            entry_bury(comm_slot[s].e);
            comm_slot[s].e = NULL;
            __atomic_store_n(&comm_slot[s].key, KEY_GONE, __ATOMIC_RELEASE);
            break;
        }
        if (comm_slot[s].key == KEY_EMPTY)
            break;
    }
    pthread_mutex_unlock(&comm_lock);
}

uint32_t sp__mpi_comm_rows(uint32_t from, sp__comm_rows *out)
{
    out->n = 0;
    out->nmembers = 0;
    pthread_mutex_lock(&comm_lock);
    uint32_t n = comm_gen == __atomic_load_n(&msg_gen, __ATOMIC_ACQUIRE) ? rows.n : 0;
    size_t first = 0;
    for (uint32_t i = 0; i < from && i < n; i++)
        first += rows.size[i];
    if (n > from) {
        uint32_t k = n - from;
        size_t m = rows.nmembers - first;
        uint32_t *s = out->cap < k ? realloc(out->size, k * sizeof *s) : out->size;
        int32_t *f = out->cap < k ? realloc(out->flags, k * sizeof *f) : out->flags;
        int32_t *mm = out->mcap < m ? realloc(out->members, (m ? m : 1) * sizeof *mm) : out->members;
        if (s)
            out->size = s;
        if (f)
            out->flags = f;
        if (mm)
            out->members = mm;
        if (s && f && mm) {
            out->cap = out->cap < k ? k : out->cap;
            out->mcap = out->mcap < m ? (m ? m : 1) : out->mcap;
            memcpy(out->size, rows.size + from, k * sizeof *s);
            memcpy(out->flags, rows.flags + from, k * sizeof *f);
            memcpy(out->members, rows.members + first, m * sizeof *mm);
            out->n = k;
            out->nmembers = m;
        } else {
            n = from; /* out of memory: the rows go with the next append */
        }
    }
    pthread_mutex_unlock(&comm_lock);
    return n > from ? n : from;
}

bool sp__mpi_comm_shape(MPI_Comm comm, int *size, int *indeg, int *outdeg)
{
    const comm_entry *e = comm_get(comm);
    if (!e)
        return false;
    *size = e->npeers;
    *indeg = e->indeg;
    *outdeg = e->outdeg;
    return true;
}

static int32_t world_of(const comm_entry *e, int rank)
{
    return rank >= 0 && rank < e->npeers ? e->peers[rank] : -1;
}

/* ---------------------------------------------------------------- requests */

#define SP__MPI_REQ_MAX ((uint32_t)1 << 16) /* requests followed per thread */
#define SP__MPI_SCRATCH_MAX ((uint32_t)1 << 16)

typedef struct req_entry {
    uintptr_t key;        /* the request handle; 0: empty */
    const comm_entry *ce; /* its communicator (alive until the request completes) */
    int32_t recv, op, peer, tag;
    int64_t bytes, t0, t1;
} req_entry;

typedef struct mpi_tls {
    unsigned gen;
    req_entry *tab;
    uint32_t cap, n;
    MPI_Request *saved;
    MPI_Status *st;
    uint32_t scap;
} mpi_tls;

static __thread mpi_tls *tls __attribute__((tls_model("initial-exec")));
static pthread_key_t tls_key;
static pthread_once_t tls_once = PTHREAD_ONCE_INIT;

static void tls_free(void *p)
{
    mpi_tls *t = p;
    free(t->tab);
    free(t->saved);
    free(t->st);
    free(t);
    tls = NULL;
}

static void tls_key_make(void) { pthread_key_create(&tls_key, tls_free); }

/* The calling thread's state for this session (slow path on first use). */
static mpi_tls *thread_state(void)
{
    mpi_tls *t = tls;
    unsigned g = __atomic_load_n(&msg_gen, __ATOMIC_ACQUIRE);
    if (__builtin_expect(t && t->gen == g, 1))
        return t;
    if (!t) {
        pthread_once(&tls_once, tls_key_make);
        if (!(t = calloc(1, sizeof *t)))
            return NULL;
        tls = t;
        pthread_setspecific(tls_key, t);
    }
    if (t->tab)
        memset(t->tab, 0, t->cap * sizeof *t->tab); /* the last session's requests */
    t->n = 0;
    t->gen = g;
    return t;
}

static uint32_t req_hash(uintptr_t k, uint32_t mask)
{
    return (uint32_t)(((uint64_t)k * 0x9E3779B97F4A7C15ull) >> 32) & mask;
}

static bool req_grow(mpi_tls *t)
{
    uint32_t cap = t->cap ? 2 * t->cap : 64;
    if (cap > SP__MPI_REQ_MAX)
        return false;
    req_entry *tab = calloc(cap, sizeof *tab);
    if (!tab)
        return false;
    for (uint32_t i = 0; i < t->cap; i++) {
        if (!t->tab[i].key)
            continue;
        uint32_t s = req_hash(t->tab[i].key, cap - 1);
        while (tab[s].key)
            s = (s + 1) & (cap - 1);
        tab[s] = t->tab[i];
    }
    free(t->tab);
    t->tab = tab;
    t->cap = cap;
    return true;
}

/* Requests are keyed by their handle, which need not be unique: Open MPI
 * returns one shared, already completed request for every small send it
 * delivered at once (measured: two MPI_Isend of 88 bytes gave the same
 * handle). So a handle may have several entries; they follow each other
 * along its probe chain in the order they were put (linear probing, and
 * backward-shift deletion keeps that order), and a completion takes the
 * oldest. */
static void req_put(mpi_tls *t, const req_entry *e)
{
    if (2 * (t->n + 1) > t->cap && !req_grow(t)) {
        __atomic_add_fetch(&untracked, 1, __ATOMIC_RELAXED); /* its completion will not match */
        return;
    }
    uint32_t mask = t->cap - 1, s = req_hash(e->key, mask);
    while (t->tab[s].key)
        s = (s + 1) & mask;
    t->n++;
    t->tab[s] = *e;
}

/* Take the entry of key out of the table (linear probing with backward
 * shift: the entries after it move back, so no tombstones). */
static bool req_take(mpi_tls *t, uintptr_t key, req_entry *out)
{
    if (!t->cap || !key)
        return false;
    uint32_t mask = t->cap - 1, i = req_hash(key, mask);
    while (t->tab[i].key && t->tab[i].key != key)
        i = (i + 1) & mask;
    if (!t->tab[i].key)
        return false;
    *out = t->tab[i];
    t->tab[i].key = 0;
    t->n--;
    for (uint32_t j = (i + 1) & mask; t->tab[j].key; j = (j + 1) & mask) {
        uint32_t home = req_hash(t->tab[j].key, mask);
        /* The entry at j stays when its home lies cyclically in (i, j]. */
        bool stays = i <= j ? (i < home && home <= j) : (i < home || home <= j);
        if (stays)
            continue;
        t->tab[i] = t->tab[j];
        t->tab[j].key = 0;
        i = j;
    }
    return true;
}

MPI_Request *sp__mpi_scratch_requests(int n)
{
    mpi_tls *t = thread_state();
    if (!t || n < 0 || (uint32_t)n > SP__MPI_SCRATCH_MAX)
        return NULL;
    if ((uint32_t)n > t->scap) {
        uint32_t cap = t->scap ? t->scap : 64;
        while (cap < (uint32_t)n)
            cap *= 2;
        MPI_Request *r = realloc(t->saved, cap * sizeof *r);
        if (r)
            t->saved = r;
        MPI_Status *st = realloc(t->st, cap * sizeof *st);
        if (st)
            t->st = st;
        if (!r || !st)
            return NULL;
        t->scap = cap;
    }
    return t->saved;
}

MPI_Status *sp__mpi_scratch_statuses(int n)
{
    mpi_tls *t = tls;
    return t && n >= 0 && (uint32_t)n <= t->scap ? t->st : NULL;
}

/* ---------------------------------------------------------------- records */

static void put_p2p(int kind, int op, int done_op, int32_t comm, int32_t peer, int32_t tag,
                    int64_t bytes, int64_t t0, int64_t t1, int64_t t2, int64_t t3)
{
    int32_t code[SP__REC_SLOTS_P2P] = {SP__REC_BASE + SP__REC_P2P,
                                       kind | (op << 8) | (done_op << 16), comm, peer, tag};
    int64_t t[SP__REC_SLOTS_P2P] = {t0, t1, t2, t3, bytes};
    if (!sp__stream_put_record(code, t, SP__REC_SLOTS_P2P))
        __atomic_add_fetch(&rec_dropped, 1, __ATOMIC_RELAXED);
}

int64_t sp__mpi_bytes(int count, MPI_Datatype type)
{
    int size = 0;
    if (count <= 0 || PMPI_Type_size(type, &size) != MPI_SUCCESS || size <= 0)
        return 0;
    return (int64_t)count * size;
}

static int64_t status_bytes(const MPI_Status *st)
{
    int n = 0;
    if (PMPI_Get_count(st, MPI_BYTE, &n) != MPI_SUCCESS || n == MPI_UNDEFINED)
        return -1;
    return n;
}

void sp__mpi_send(const sp__mpi_call *c, MPI_Comm comm, int dest, int tag, int count,
                  MPI_Datatype type)
{
    if (dest == MPI_PROC_NULL)
        return;
    const comm_entry *e = comm_get(comm);
    if (!e)
        return;
    put_p2p(SP_MPI_KIND_SEND, c->op, c->op, e->id, world_of(e, dest), tag,
            sp__mpi_bytes(count, type), c->t0, c->t1, c->t0, c->t1);
}

void sp__mpi_recv(const sp__mpi_call *c, MPI_Comm comm, const MPI_Status *st, bool probe)
{
    if (st->MPI_SOURCE == MPI_PROC_NULL || st->MPI_SOURCE < 0)
        return;
    const comm_entry *e = comm_get(comm);
    if (!e)
        return;
    put_p2p(probe ? SP_MPI_KIND_PROBE : SP_MPI_KIND_RECV, c->op, c->op, e->id,
            world_of(e, st->MPI_SOURCE), st->MPI_TAG, status_bytes(st), c->t0, c->t1, c->t0,
            c->t1);
}

void sp__mpi_post(const sp__mpi_call *c, bool recv, MPI_Comm comm, int peer, int tag, int count,
                  MPI_Datatype type, MPI_Request req)
{
    uintptr_t key = (uintptr_t)req;
    if (peer == MPI_PROC_NULL || req == MPI_REQUEST_NULL || !key)
        return;
    const comm_entry *e = comm_get(comm);
    mpi_tls *t = thread_state();
    if (!e || !t)
        return;
    req_entry r = {.key = key, .ce = e, .recv = recv, .op = c->op,
                   .peer = peer == MPI_ANY_SOURCE ? -1 : world_of(e, peer), .tag = tag,
                   .bytes = sp__mpi_bytes(count, type), .t0 = c->t0, .t1 = c->t1};
    req_put(t, &r);
}

void sp__mpi_done(const sp__mpi_call *c, MPI_Request req, const MPI_Status *st)
{
    mpi_tls *t = thread_state();
    req_entry r;
    if (!t || !req_take(t, (uintptr_t)req, &r)) {
        __atomic_add_fetch(&untracked, 1, __ATOMIC_RELAXED);
        return;
    }
    int cancelled = 0;
    if (st && PMPI_Test_cancelled(st, &cancelled) == MPI_SUCCESS && cancelled)
        return;
    int32_t peer = r.peer, tag = r.tag;
    int64_t bytes = r.bytes;
    if (r.recv && st) { /* what arrived: the source and tag of a wildcard too */
        if (st->MPI_SOURCE == MPI_PROC_NULL)
            return;
        peer = world_of(r.ce, st->MPI_SOURCE);
        tag = st->MPI_TAG;
        bytes = status_bytes(st);
    }
    put_p2p(r.recv ? SP_MPI_KIND_RECV : SP_MPI_KIND_SEND, r.op, c->op, r.ce->id, peer, tag, bytes,
            r.t0, r.t1, c->t0, c->t1);
}

void sp__mpi_forget_request(MPI_Request req)
{
    mpi_tls *t = tls;
    req_entry r;
    if (t && t->gen == __atomic_load_n(&msg_gen, __ATOMIC_ACQUIRE))
        req_take(t, (uintptr_t)req, &r);
}

void sp__mpi_coll(const sp__mpi_call *c, MPI_Comm comm, int root, int64_t sent, int64_t recvd)
{
    const comm_entry *e = comm_get(comm);
    if (!e)
        return;
    int32_t code[SP__REC_SLOTS_COLL] = {SP__REC_BASE + SP__REC_COLL, c->op, e->id,
                                        root >= 0 ? world_of(e, root) : -1};
    int64_t t[SP__REC_SLOTS_COLL] = {c->t0, c->t1, sent, recvd};
    if (!sp__stream_put_record(code, t, SP__REC_SLOTS_COLL))
        __atomic_add_fetch(&rec_dropped, 1, __ATOMIC_RELAXED);
}

#else
typedef int sp__mpi_msg_unused; /* ISO C: no empty translation unit */
#endif /* SP_WITH_MPI */
