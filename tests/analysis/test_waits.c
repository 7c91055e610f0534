/* SPDX-License-Identifier: MIT */
/*
 * test_waits.c - the waits analysis (analysis/sp_waits.h) on runs built by
 * hand, whose waits follow from their timestamps: late senders (one
 * Waitall waits once, for its latest sender), late receivers, waits at
 * barriers and N x N collectives, late broadcasts, early reduces, probes;
 * clock offsets and their uncertainty; matching by channel and order,
 * unmatched messages, collectives that disagree; the causes, direct and
 * through a rank that waited itself; the messages of a time window and a
 * rank's events in time order.
 */
#include "run_builder.h"
#include "sp_mpi_data.h"
#include "sp_test.h"
#include "sp_waits.h"

/* A record in ms. */
typedef struct tb_p2p {
    int rank, kind, op, done_op, peer, tag;
    long long bytes;
    double post_enter, post_exit, done_enter, done_exit;
    const char *where; /* region of the path of the completing call */
} tb_p2p;

typedef struct tb_coll {
    int rank, op, root;
    double enter, exit;
    const char *where;
} tb_coll;

static int64_t ns(double ms) { return (int64_t)(ms * 1e6 + (ms < 0 ? -0.5 : 0.5)); }

/* The top-level path of region `name` on rank r, made on first use. */
static int32_t path_of(sp_mpi_data *d, int r, const char *name)
{
    sp_mpi_rank *rk = &d->ranks[r];
    int32_t g = sp_strtab_intern(&d->names, name);
    for (size_t q = 0; q < rk->npaths; q++)
        if (rk->path_region[q] == g)
            return (int32_t)q;
    rk->path_parent[rk->npaths] = -1;
    rk->path_region[rk->npaths] = g;
    return (int32_t)rk->npaths++;
}

/* run->mpi from the records: every rank present, one communicator (all
 * ranks), one top-level path per region name. */
static void tb_mpi(sp_run *run, const tb_p2p *p, size_t np, const tb_coll *c, size_t nc)
{
    sp_mpi_data *d = sp_mpi_data_new(run->nranks);
    for (size_t r = 0; r < run->nranks; r++) {
        sp_mpi_rank *rk = &d->ranks[r];
        rk->present = 1;
        rk->clock_offset_ns = run->ranks[r].clock_offset_ns;
        rk->clock_offset_err_ns = run->ranks[r].clock_offset_err_ns;
        rk->ncomms = 1;
        rk->comm_end = malloc(sizeof *rk->comm_end);
        rk->comm_end[0] = run->nranks;
        rk->comm_flags = calloc(1, sizeof *rk->comm_flags);
        rk->comm_flags[0] = SP_MPI_COMM_WORLD;
        rk->comm_members = malloc(run->nranks * sizeof *rk->comm_members);
        for (size_t k = 0; k < run->nranks; k++)
            rk->comm_members[k] = (int32_t)k;
        rk->path_parent = malloc(64 * sizeof(int32_t));
        rk->path_region = malloc(64 * sizeof(int32_t));
    }
    for (size_t i = 0; i < np; i++) {
        sp_mpi_p2p_row row = {.kind = p[i].kind, .op = p[i].op, .done_op = p[i].done_op,
                              .thread = 0, .path = path_of(d, p[i].rank, p[i].where), .comm = 0,
                              .peer = p[i].peer, .tag = p[i].tag, .bytes = p[i].bytes,
                              .post_enter = ns(p[i].post_enter), .post_exit = ns(p[i].post_exit),
                              .done_enter = ns(p[i].done_enter), .done_exit = ns(p[i].done_exit)};
        sp_mpi_p2p_add(&d->ranks[p[i].rank].p2p, &row);
    }
    for (size_t i = 0; i < nc; i++) {
        sp_mpi_coll_row row = {.op = c[i].op, .thread = 0, .path = path_of(d, c[i].rank, c[i].where),
                               .comm = 0, .root = c[i].root, .enter = ns(c[i].enter),
                               .exit = ns(c[i].exit)};
        sp_mpi_coll_add(&d->ranks[c[i].rank].coll, &row);
    }
    run->mpi = d;
}

/* The row of (pattern, rank) whose call path ends in `call`, or NULL. */
static const sp_wait_row *find(const sp_waits *w, sp_wait_pattern p, int rank, const char *call)
{
    for (size_t i = 0; i < w->nrows; i++) {
        const sp_wait_row *r = &w->rows[i];
        const char *path = w->paths.s[r->path];
        size_t n = strlen(path), m = strlen(call);
        if (r->pattern == p && r->rank == rank && n >= m && !strcmp(path + n - m, call))
            return r;
    }
    return NULL;
}

/* The charge of the cause (rank, name ending in `region`) in row r. */
static const sp_wait_cause *cause(const sp_waits *w, const sp_wait_row *r, int rank,
                                  const char *region)
{
    for (size_t i = 0; r && i < r->ncauses; i++) {
        const char *nm = w->names.s[r->causes[i].region];
        size_t n = strlen(nm), m = strlen(region);
        if (r->causes[i].rank == rank && n >= m && !strcmp(nm + n - m, region))
            return &r->causes[i];
    }
    return NULL;
}

#define S SP_MPI_KIND_SEND
#define R SP_MPI_KIND_RECV
#define TOL 1e-9

/*
 * Rank 1 computes 30 ms, the others 10; rank 1 then sends to rank 0 (which
 * waits in MPI_Recv from 10 to 30 ms), and all meet in MPI_Allreduce: rank
 * 1 enters at 30.1, rank 0 at 30 (after its receive), rank 2 at 10.
 */
static sp_run *late_sender_run(void)
{
    tb_call calls[] = {
        {0, 0, "compute", 0, 10 * MS},      {0, 0, "MPI_Recv", 10 * MS, 30 * MS},
        {0, 0, "MPI_Allreduce", 30 * MS, 31 * MS},
        {1, 0, "compute", 0, 30 * MS},      {1, 0, "MPI_Send", 30 * MS, 30100000},
        {1, 0, "MPI_Allreduce", 30100000, 31 * MS},
        {2, 0, "compute", 0, 10 * MS},      {2, 0, "MPI_Allreduce", 10 * MS, 31 * MS},
    };
    sp_run *run = tb_build(calls, sizeof calls / sizeof *calls, 3, 1);
    tb_p2p p[] = {{0, R, SP_MPI_Recv, SP_MPI_Recv, 1, 5, 800, 10, 30, 10, 30, "MPI_Recv"},
                  {1, S, SP_MPI_Send, SP_MPI_Send, 0, 5, 800, 30, 30.1, 30, 30.1, "MPI_Send"}};
    tb_coll c[] = {{0, SP_MPI_Allreduce, -1, 30, 31, "MPI_Allreduce"},
                   {1, SP_MPI_Allreduce, -1, 30.1, 31, "MPI_Allreduce"},
                   {2, SP_MPI_Allreduce, -1, 10, 31, "MPI_Allreduce"}};
    tb_mpi(run, p, 2, c, 3);
    sp_run_analyze(run);
    return run;
}

static void test_late_sender_and_allreduce(void)
{
    sp_run *run = late_sender_run();
    sp_waits *w = NULL;
    ASSERT_EQ_I(sp_waits_compute(run, &w), 0);
    const sp_wait_row *ls = find(w, SP_WAIT_LATE_SENDER, 0, "MPI_Recv");
    ASSERT(ls != NULL);
    ASSERT_EQ_U(ls->count, 1);
    ASSERT_NEAR(ls->wait_s, 0.020, TOL); /* 10 -> 30 ms */
    ASSERT_EQ_I(ls->late_rank, 1);
    const sp_wait_cause *c = cause(w, ls, 1, "compute");
    ASSERT(c != NULL);
    ASSERT_NEAR(c->charged_s, 0.020, TOL); /* 30 ms of compute against 10 */
    ASSERT_NEAR(c->excess_s, 0.020, TOL);
    ASSERT_NEAR(c->via_s, 0, TOL);
    /* rank 2 waits from 10 to 30.1 ms for rank 1; rank 0 from 30 to 30.1 */
    const sp_wait_row *n2 = find(w, SP_WAIT_NXN, 2, "MPI_Allreduce");
    const sp_wait_row *n0 = find(w, SP_WAIT_NXN, 0, "MPI_Allreduce");
    ASSERT(n2 && n0);
    ASSERT_NEAR(n2->wait_s, 0.0201, TOL);
    ASSERT_NEAR(n0->wait_s, 0.0001, TOL);
    ASSERT_EQ_I(n2->late_rank, 1);
    ASSERT(find(w, SP_WAIT_NXN, 1, "MPI_Allreduce") == NULL); /* the last one never waits */
    c = cause(w, n2, 1, "compute");
    ASSERT(c != NULL);
    ASSERT_NEAR(c->charged_s, 0.020, TOL); /* compute explains 20 of the 20.1 ms ... */
    ASSERT_NEAR(n2->explained_s, 0.020, TOL); /* ... MPI_Send's 0.1 ms is no cause */
    ASSERT_NEAR(w->pattern_s[SP_WAIT_LATE_SENDER], 0.020, TOL);
    ASSERT_NEAR(w->pattern_s[SP_WAIT_NXN], 0.0202, TOL);
    ASSERT_EQ_U(w->nmessages, 1);
    ASSERT_EQ_U(w->collectives, 1);
    ASSERT_EQ_U(w->npairs, 1);
    ASSERT(w->pairs[0].src == 1 && w->pairs[0].dst == 0 && w->pairs[0].sent == 1 &&
           w->pairs[0].sent_bytes == 800 && w->pairs[0].received_bytes == 800 &&
           w->pairs[0].matched == 1);
    char line[512];
    sp_waits_sentence(w, 0, line, sizeof line);
    ASSERT_CONTAINS(line, "rank 2 waits 0.02 s in MPI_Allreduce for rank 1 (wait at N x N), "
                          "because rank 1 spent 0.02 s more than rank 2 in compute");
    sp_waits_free(w);
    sp_run_free(run);
}

/* The same waits with rank 1's clock 5 ms ahead (its times 5 ms larger,
 * offset -5 ms puts them back): nothing changes. Then an uncertainty of
 * 15 ms on rank 1 makes the 0.1 ms wait and the 20 ms ones within error. */
static void test_clock_offsets(void)
{
    sp_run *run = late_sender_run();
    sp_mpi_rank *rk = &run->mpi->ranks[1];
    rk->clock_offset_ns = -5 * MS;
    for (size_t i = 0; i < rk->p2p.n; i++) {
        rk->p2p.post_enter[i] += 5 * MS, rk->p2p.post_exit[i] += 5 * MS;
        rk->p2p.done_enter[i] += 5 * MS, rk->p2p.done_exit[i] += 5 * MS;
    }
    for (size_t i = 0; i < rk->coll.n; i++)
        rk->coll.enter[i] += 5 * MS, rk->coll.exit[i] += 5 * MS;
    for (size_t r = 0; r < run->nranks; r++) /* causes would need the calls shifted too */
        sp_rank_free_calls(&run->ranks[r]);
    sp_waits *w = NULL;
    ASSERT_EQ_I(sp_waits_compute(run, &w), 0);
    ASSERT(!w->causes_done);
    ASSERT_NEAR(find(w, SP_WAIT_LATE_SENDER, 0, "MPI_Recv")->wait_s, 0.020, TOL);
    ASSERT_NEAR(find(w, SP_WAIT_NXN, 2, "MPI_Allreduce")->wait_s, 0.0201, TOL);
    ASSERT_NEAR(w->pattern_uncertain_s[SP_WAIT_NXN], 0, TOL);
    sp_waits_free(w);
    rk->clock_offset_err_ns = 15 * MS; /* rank 0: 0 */
    ASSERT_EQ_I(sp_waits_compute(run, &w), 0);
    ASSERT_EQ_I(w->clock_err_ns, 15 * MS);
    /* 0.1 ms (rank 0 for rank 1) <= 15 ms: uncertain; 20.1 ms > 15: certain */
    ASSERT_NEAR(find(w, SP_WAIT_NXN, 0, "MPI_Allreduce")->uncertain_s, 0.0001, TOL);
    ASSERT_NEAR(find(w, SP_WAIT_NXN, 2, "MPI_Allreduce")->uncertain_s, 0, TOL);
    sp_waits_free(w);
    sp_run_free(run);
}

/* Rank 0 posts two receives and waits for both in one MPI_Waitall from 5
 * ms; rank 1 sends at 12, rank 2 at 18: one wait of 13 ms, for rank 2. */
static void test_waitall_waits_once(void)
{
    tb_call calls[] = {{0, 0, "x", 0, 1}, {1, 0, "x", 0, 1}, {2, 0, "x", 0, 1}};
    sp_run *run = tb_build(calls, 3, 3, 1);
    tb_p2p p[] = {
        {0, R, SP_MPI_Irecv, SP_MPI_Waitall, 1, 3, 8, 0, 0.1, 5, 20, "MPI_Waitall"},
        {0, R, SP_MPI_Irecv, SP_MPI_Waitall, 2, 3, 8, 0, 0.1, 5, 20, "MPI_Waitall"},
        {1, S, SP_MPI_Isend, SP_MPI_Wait, 0, 3, 8, 12, 12.1, 12.1, 12.2, "MPI_Wait"},
        {2, S, SP_MPI_Isend, SP_MPI_Wait, 0, 3, 8, 18, 18.1, 18.1, 18.2, "MPI_Wait"},
    };
    tb_mpi(run, p, 4, NULL, 0);
    sp_waits *w = NULL;
    ASSERT_EQ_I(sp_waits_compute(run, &w), 0);
    const sp_wait_row *r = find(w, SP_WAIT_LATE_SENDER, 0, "MPI_Waitall");
    ASSERT(r != NULL);
    ASSERT_EQ_U(r->count, 1);
    ASSERT_NEAR(r->wait_s, 0.013, TOL);
    ASSERT_EQ_I(r->late_rank, 2);
    ASSERT_EQ_U(w->nrows, 1);
    ASSERT_EQ_U(w->nmessages, 2);
    /* the messages of a window: sent before 15 ms and received after 14 */
    sp_message *m = NULL;
    long n = sp_waits_messages_in(w, 14 * MS, 15 * MS, &m);
    ASSERT_EQ_I(n, 1);
    ASSERT(m[0].src == 1 && m[0].dst == 0 && m[0].send_ns == 12 * MS && m[0].recv_ns == 20 * MS);
    free(m);
    ASSERT_EQ_I(sp_waits_messages_in(w, 21 * MS, 30 * MS, &m), 0);
    free(m);
    sp_waits_free(w);
    sp_run_free(run);
}

/* Channels and order: two messages 0 -> 1 with tag 1 and one with tag 2,
 * received in another order, match in posting order per tag; a send
 * nobody receives stays unmatched. A synchronous send waits for the
 * receive's post (late receiver). */
static void test_matching_and_late_receiver(void)
{
    tb_call calls[] = {{0, 0, "x", 0, 1}, {1, 0, "x", 0, 1}};
    sp_run *run = tb_build(calls, 2, 2, 1);
    tb_p2p p[] = {
        /* rank 0 sends tag 1 twice (10 and 20 bytes), tag 2 once, and one
         * message nobody receives (tag 9) */
        {0, S, SP_MPI_Send, SP_MPI_Send, 1, 1, 10, 1, 1.1, 1, 1.1, "MPI_Send"},
        {0, S, SP_MPI_Send, SP_MPI_Send, 1, 2, 30, 2, 2.1, 2, 2.1, "MPI_Send"},
        {0, S, SP_MPI_Send, SP_MPI_Send, 1, 1, 20, 3, 3.1, 3, 3.1, "MPI_Send"},
        {0, S, SP_MPI_Send, SP_MPI_Send, 1, 9, 5, 4, 4.1, 4, 4.1, "MPI_Send"},
        /* a synchronous send from 5 to 13 ms, its receive posted at 12 */
        {0, S, SP_MPI_Ssend, SP_MPI_Ssend, 1, 4, 7, 5, 13, 5, 13, "MPI_Ssend"},
        /* rank 1 receives tag 2 first, then tag 1 twice */
        {1, R, SP_MPI_Recv, SP_MPI_Recv, 0, 2, 30, 6, 6.1, 6, 6.1, "MPI_Recv"},
        {1, R, SP_MPI_Recv, SP_MPI_Recv, 0, 1, 10, 7, 7.1, 7, 7.1, "MPI_Recv"},
        {1, R, SP_MPI_Recv, SP_MPI_Recv, 0, 1, 20, 8, 8.1, 8, 8.1, "MPI_Recv"},
        {1, R, SP_MPI_Recv, SP_MPI_Recv, 0, 4, 7, 12, 13, 12, 13, "MPI_Recv"},
    };
    tb_mpi(run, p, 9, NULL, 0);
    sp_waits *w = NULL;
    ASSERT_EQ_I(sp_waits_compute(run, &w), 0);
    ASSERT_EQ_U(w->nmessages, 4);
    ASSERT_EQ_U(w->unmatched_sends, 1);
    ASSERT_EQ_U(w->unmatched_recvs, 0);
    for (size_t i = 0; i < w->nmessages; i++) { /* each send with the receive of its size */
        const sp_message *m = &w->messages[i];
        const sp_mpi_p2p *r1 = &run->mpi->ranks[1].p2p;
        ASSERT_EQ_I(r1->bytes[m->recv_row], m->bytes);
    }
    const sp_wait_row *lr = find(w, SP_WAIT_LATE_RECEIVER, 0, "MPI_Ssend");
    ASSERT(lr != NULL);
    ASSERT_NEAR(lr->wait_s, 0.007, TOL); /* 5 -> 12 ms */
    ASSERT_EQ_I(lr->late_rank, 1);
    /* no late sender: every receive began after its send */
    ASSERT_NEAR(w->pattern_s[SP_WAIT_LATE_SENDER], 0, TOL);
    ASSERT_EQ_U(w->npairs, 1);
    ASSERT_EQ_U(w->pairs[0].sent, 5);
    ASSERT_EQ_U(w->pairs[0].received, 4);
    ASSERT_EQ_U(w->pairs[0].matched, 4);
    ASSERT_EQ_U(w->pairs[0].sent_bytes, 72);
    /* rank 0's events: 5 sends, in time order */
    sp_mpi_event *ev = NULL;
    long n = sp_mpi_rank_events(run->mpi, 0, INT64_MIN, INT64_MAX, &ev);
    ASSERT_EQ_I(n, 5);
    for (long i = 1; i < n; i++)
        ASSERT(ev[i - 1].t_ns <= ev[i].t_ns && ev[i].kind == SP_MPI_EV_SEND);
    free(ev);
    sp_waits_free(w);
    sp_run_free(run);
}

/* Collectives with a root, and a probe. */
static void test_rooted_collectives_and_probe(void)
{
    tb_call calls[] = {{0, 0, "x", 0, 1}, {1, 0, "x", 0, 1}, {2, 0, "x", 0, 1}};
    sp_run *run = tb_build(calls, 3, 3, 1);
    tb_coll c[] = {
        /* Bcast from root 1 entering at 10: ranks 0 and 2 (2, 5) wait 8 and 5 */
        {0, SP_MPI_Bcast, 1, 2, 11, "MPI_Bcast"},
        {1, SP_MPI_Bcast, 1, 10, 11, "MPI_Bcast"},
        {2, SP_MPI_Bcast, 1, 5, 11, "MPI_Bcast"},
        /* Reduce to root 0 entering at 12: the last other at 20: 8 */
        {0, SP_MPI_Reduce, 0, 12, 21, "MPI_Reduce"},
        {1, SP_MPI_Reduce, 0, 14, 15, "MPI_Reduce"},
        {2, SP_MPI_Reduce, 0, 20, 21, "MPI_Reduce"},
        /* Barrier: the last at 30; waits 5 and 2 */
        {0, SP_MPI_Barrier, -1, 25, 31, "MPI_Barrier"},
        {1, SP_MPI_Barrier, -1, 28, 31, "MPI_Barrier"},
        {2, SP_MPI_Barrier, -1, 30, 31, "MPI_Barrier"},
        /* A scan: matched, not charged */
        {0, SP_MPI_Scan, -1, 32, 40, "MPI_Scan"},
        {1, SP_MPI_Scan, -1, 33, 40, "MPI_Scan"},
        {2, SP_MPI_Scan, -1, 39, 40, "MPI_Scan"},
    };
    tb_p2p p[] = {
        /* rank 2 probes from 41 ms; rank 1 sends at 46; then the receive */
        {2, SP_MPI_KIND_PROBE, SP_MPI_Probe, SP_MPI_Probe, 1, 0, 4, 41, 47, 41, 47, "MPI_Probe"},
        {2, R, SP_MPI_Recv, SP_MPI_Recv, 1, 0, 4, 47, 47.1, 47, 47.1, "MPI_Recv"},
        {1, S, SP_MPI_Send, SP_MPI_Send, 2, 0, 4, 46, 46.1, 46, 46.1, "MPI_Send"},
    };
    tb_mpi(run, p, 3, c, 12);
    sp_waits *w = NULL;
    ASSERT_EQ_I(sp_waits_compute(run, &w), 0);
    ASSERT_NEAR(find(w, SP_WAIT_LATE_BCAST, 0, "MPI_Bcast")->wait_s, 0.008, TOL);
    ASSERT_NEAR(find(w, SP_WAIT_LATE_BCAST, 2, "MPI_Bcast")->wait_s, 0.005, TOL);
    ASSERT(find(w, SP_WAIT_LATE_BCAST, 1, "MPI_Bcast") == NULL);
    const sp_wait_row *er = find(w, SP_WAIT_EARLY_REDUCE, 0, "MPI_Reduce");
    ASSERT(er && er->late_rank == 2);
    ASSERT_NEAR(er->wait_s, 0.008, TOL);
    ASSERT(find(w, SP_WAIT_EARLY_REDUCE, 1, "MPI_Reduce") == NULL);
    ASSERT_NEAR(find(w, SP_WAIT_BARRIER, 0, "MPI_Barrier")->wait_s, 0.005, TOL);
    ASSERT_NEAR(find(w, SP_WAIT_BARRIER, 1, "MPI_Barrier")->wait_s, 0.002, TOL);
    ASSERT_EQ_U(w->collectives, 4);
    const sp_wait_row *pr = find(w, SP_WAIT_LATE_SENDER, 2, "MPI_Probe");
    ASSERT(pr && pr->late_rank == 1);
    ASSERT_NEAR(pr->wait_s, 0.005, TOL); /* 41 -> 46 ms */
    ASSERT(find(w, SP_WAIT_LATE_SENDER, 2, "MPI_Recv") == NULL);
    sp_waits_free(w);
    sp_run_free(run);
}

/* Ranks that disagree on a communicator's collectives: matched while they
 * agree, the rest counted as mismatched. */
static void test_mismatched_collectives(void)
{
    tb_call calls[] = {{0, 0, "x", 0, 1}, {1, 0, "x", 0, 1}};
    sp_run *run = tb_build(calls, 2, 2, 1);
    tb_coll c[] = {{0, SP_MPI_Barrier, -1, 1, 2, "b"}, {1, SP_MPI_Barrier, -1, 1, 2, "b"},
                   {0, SP_MPI_Allreduce, -1, 3, 4, "a"}, {1, SP_MPI_Bcast, 0, 3, 4, "c"},
                   {0, SP_MPI_Barrier, -1, 5, 6, "b"}};
    tb_mpi(run, NULL, 0, c, 5);
    sp_waits *w = NULL;
    ASSERT_EQ_I(sp_waits_compute(run, &w), 0);
    ASSERT_EQ_U(w->collectives, 1);
    ASSERT_EQ_U(w->coll_mismatched, 2); /* one instance disagreed, one had no partner */
    sp_waits_free(w);
    sp_run_free(run);
}

/*
 * Propagation: rank 3 computes 30 ms and sends to rank 0, which waits for
 * it from 10 to 30 ms in MPI_Recv and so reaches MPI_Allreduce last (30.1
 * ms); ranks 1 and 2 computed 10 ms and wait there from 10 ms for rank 0.
 * Rank 0 did no more work than they did: their waits go, through rank 0's
 * own wait, to compute on rank 3.
 */
static void test_delay_propagates(void)
{
    tb_call calls[] = {
        {0, 0, "compute", 0, 10 * MS},      {0, 0, "MPI_Recv", 10 * MS, 30 * MS},
        {0, 0, "MPI_Allreduce", 30100000, 31 * MS},
        {1, 0, "compute", 0, 10 * MS},      {1, 0, "MPI_Allreduce", 10 * MS, 31 * MS},
        {2, 0, "compute", 0, 10 * MS},      {2, 0, "MPI_Allreduce", 10 * MS, 31 * MS},
        {3, 0, "compute", 0, 30 * MS},      {3, 0, "MPI_Send", 30 * MS, 30050000},
        {3, 0, "MPI_Allreduce", 30050000, 31 * MS},
    };
    sp_run *run = tb_build(calls, sizeof calls / sizeof *calls, 4, 1);
    tb_p2p p[] = {{0, R, SP_MPI_Recv, SP_MPI_Recv, 3, 5, 8, 10, 30, 10, 30, "MPI_Recv"},
                  {3, S, SP_MPI_Send, SP_MPI_Send, 0, 5, 8, 30, 30.05, 30, 30.05, "MPI_Send"}};
    tb_coll c[] = {{0, SP_MPI_Allreduce, -1, 30.1, 31, "MPI_Allreduce"},
                   {1, SP_MPI_Allreduce, -1, 10, 31, "MPI_Allreduce"},
                   {2, SP_MPI_Allreduce, -1, 10, 31, "MPI_Allreduce"},
                   {3, SP_MPI_Allreduce, -1, 30.05, 31, "MPI_Allreduce"}};
    tb_mpi(run, p, 2, c, 4);
    sp_run_analyze(run);
    sp_waits *w = NULL;
    ASSERT_EQ_I(sp_waits_compute(run, &w), 0);
    const sp_wait_row *r1 = find(w, SP_WAIT_NXN, 1, "MPI_Allreduce");
    ASSERT(r1 && r1->late_rank == 0);
    ASSERT_NEAR(r1->wait_s, 0.0201, TOL);
    const sp_wait_cause *c3 = cause(w, r1, 3, "compute");
    ASSERT(c3 != NULL);
    ASSERT_NEAR(c3->charged_s, 0.020, TOL); /* all of rank 0's 20 ms wait */
    ASSERT_NEAR(c3->via_s, 0.020, TOL);
    ASSERT(cause(w, r1, 0, "compute") == NULL); /* rank 0 did no extra work */
    char line[512];
    sp_waits_sentence(w, (size_t)(r1 - w->rows), line, sizeof line);
    ASSERT(strstr(line, "for rank 0 (wait at N x N), itself held up by rank 3: 0.02 s of the "
                        "wait is rank 3's extra time in compute") != NULL);
    sp_waits_free(w);
    sp_run_free(run);
}

static void test_no_messages(void)
{
    tb_call calls[] = {{0, 0, "x", 0, 1}};
    sp_run *run = tb_build(calls, 1, 1, 1);
    sp_waits *w = (sp_waits *)1;
    ASSERT_EQ_I(sp_waits_compute(run, &w), SP_ENOENT);
    ASSERT(w == NULL);
    ASSERT_CONTAINS(sp_last_error(), "no MPI messages");
    sp_run_free(run);
}

int main(void)
{
    RUN(test_late_sender_and_allreduce);
    RUN(test_clock_offsets);
    RUN(test_waitall_waits_once);
    RUN(test_matching_and_late_receiver);
    RUN(test_rooted_collectives_and_probe);
    RUN(test_mismatched_collectives);
    RUN(test_delay_propagates);
    RUN(test_no_messages);
    return sp_test_summary();
}
