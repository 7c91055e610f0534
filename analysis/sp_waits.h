/* SPDX-License-Identifier: MIT */
/*
 * sp_waits.h - why ranks wait: the MPI messages and collectives of a run
 * (sp_mpi_data.h) matched across ranks, the time each rank waited by
 * pattern and call site, and what the rank it waited for was doing instead
 * (internal API shared by the CLI, the report and the viewer). Pure
 * computation; printing goes to a FILE * the caller passes in.
 *
 * Matching (sp_waits_match.c): a send matches a receive of the same
 * communicator (its members, as world ranks, identify it on every rank),
 * source, destination and tag (as received: MPI_ANY_SOURCE and MPI_ANY_TAG
 * resolved), in the order each side started them (MPI's non-overtaking
 * rule: the k-th such send matches the k-th such receive). The k-th
 * collective of a communicator on one rank meets the k-th on every other
 * member.
 *
 * Patterns (the definitions of Scalasca's trace analyser), times on rank
 * 0's clock (each rank's clock_offset_ns added):
 * - late sender: a blocking receive (MPI_Recv, MPI_Sendrecv, a Wait* that
 *   completes receives, MPI_Probe) began before the matching send was
 *   started; the wait is from the receiving call's enter to the latest of
 *   its senders' starts (at most the call's end). One Wait* that completes
 *   several receives waits once, for its latest sender.
 * - late receiver: a synchronous send (MPI_Ssend, or MPI_Issend completed
 *   in a Wait*) began before the matching receive was posted; the wait is
 *   up to the receive's post.
 * - wait at barrier / wait at N x N (Allreduce, Allgather, Alltoall,
 *   Reduce_scatter): a rank's enter to the last member's enter.
 * - late broadcast (Bcast, Scatter): a non-root's enter to the root's.
 * - early reduce (Reduce, Gather): the root's enter to the last other
 *   member's enter.
 * Scan and the neighbourhood collectives are matched and counted but not
 * charged (their waiting depends on the ranks before, or the topology).
 * Every wait is clipped to the waiting call's own time. A wait no larger
 * than the two ranks' clock offset uncertainty (clock_offset_err_ns added)
 * counts as uncertain: shown, and said so.
 *
 * Causes (sp_waits_cause.c, delay analysis as in Scalasca): for a wait of
 * rank W for rank L, the interval of each since the last time they
 * synchronised with each other (a message between them, a collective of a
 * communicator with both) to the operation; per region, L's own time in
 * its interval minus W's in its: the regions where L spent more get the
 * wait, in proportion to that excess but never more than it. What the
 * excess does not cover goes, as far as it reaches, to the causes of the
 * waits L itself made in its interval (L was late because it waited for
 * another rank: the delay propagates, as Scalasca's long-term delay costs);
 * the rest stays unexplained (L was not running). MPI call regions are
 * left out (they are waiting themselves). This needs the calls of the two ranks' threads
 * in those intervals (the run's calls for now).
 */
#ifndef SP_WAITS_H
#define SP_WAITS_H

#include <stdbool.h>
#include <stdio.h>

#include "sp_events.h"
#include "sp_model.h"
#include "sp_mpi_data.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sp_wait_pattern {
    SP_WAIT_LATE_SENDER,
    SP_WAIT_LATE_RECEIVER,
    SP_WAIT_BARRIER,
    SP_WAIT_NXN,
    SP_WAIT_LATE_BCAST,
    SP_WAIT_EARLY_REDUCE,
    SP_WAIT_NPATTERNS
} sp_wait_pattern;

/* "late sender", "late receiver", "wait at barrier", "wait at N x N",
 * "late broadcast", "early reduce". */
const char *sp_wait_pattern_name(sp_wait_pattern p);

/* One region of the late rank that a wait is charged to. */
typedef struct sp_wait_cause {
    int32_t rank;         /* the late rank */
    int32_t region;       /* id in sp_waits.names */
    double charged_s;     /* the part of the waiting charged to it */
    double excess_s;      /* how much longer the late rank was in it than the
                             waiting rank, summed over the waits (direct part) */
    double via_s;         /* of charged_s, what reached the waiting rank through
                             ranks that waited for this one (propagated) */
} sp_wait_cause;

/* The waiting of one pattern at one call site of one rank. */
typedef struct sp_wait_row {
    sp_wait_pattern pattern;
    int32_t rank;         /* the rank that waited */
    int32_t path;         /* id in sp_waits.paths: the MPI call's call path */
    uint64_t count;       /* operations that waited (> 0 s) */
    double wait_s;        /* time waited */
    double uncertain_s;   /* of it, waits within the clocks' uncertainty */
    int32_t late_rank;    /* the rank waited for the longest */
    double late_rank_s;   /* ... that long */
    size_t ncauses;
    sp_wait_cause *causes; /* largest charged first */
    double explained_s;   /* the causes' charges summed (<= wait_s) */
} sp_wait_row;

/* Messages between one pair of ranks. */
typedef struct sp_wait_pair {
    int32_t src, dst;
    uint64_t sent, sent_bytes;         /* sends src recorded to dst */
    uint64_t received, received_bytes; /* receives dst recorded from src */
    uint64_t matched;                  /* of them, matched to each other */
} sp_wait_pair;

/* A matched message, times on rank 0's clock (ns). */
typedef struct sp_message {
    int32_t src, dst;
    int32_t tag;
    int64_t bytes;
    int64_t send_ns;      /* the send was started (its call's enter) */
    int64_t recv_ns;      /* the receive completed (its completing call's exit) */
    size_t send_row, recv_row; /* rows of the ranks' p2p tables */
} sp_message;

typedef struct sp_waits {
    size_t nranks;
    size_t nrows;
    sp_wait_row *rows;    /* largest wait first */
    sp_strtab paths;      /* call paths: "main > step > exchange > MPI_Recv" */
    sp_strtab names;      /* the causes' call paths (or regions) */
    double pattern_s[SP_WAIT_NPATTERNS];      /* summed over ranks */
    double pattern_uncertain_s[SP_WAIT_NPATTERNS];
    double *rank_pattern_s;                   /* nranks x SP_WAIT_NPATTERNS */
    double mpi_s;         /* time in MPI calls with records, summed over ranks */
    size_t npairs;
    sp_wait_pair *pairs;  /* by src, then dst */
    size_t nmessages;
    sp_message *messages; /* matched, by send time */
    int64_t max_transit_ns; /* longest send-to-receive of a matched message */
    uint64_t unmatched_sends, unmatched_recvs, collectives, coll_mismatched;
    uint64_t records_dropped, untracked;  /* what the recorder could not follow */
    int64_t clock_err_ns; /* the largest clock offset uncertainty of a rank */
    bool causes_done;     /* causes were computed (the run had calls) */
    bool program_regions; /* the run has regions of its own besides the MPI calls
                             (without them no cause can be named) */
    size_t ranks_without; /* ranks that recorded no messages */
} sp_waits;

/*
 * Match the run's messages and collectives and compute the waits by
 * pattern and call site, with their causes from the run's calls (run->mpi
 * must be set; run may have no calls: then no causes). *out is owned by
 * the caller (sp_waits_free). Returns 0, SP_ENOENT (the run recorded no
 * MPI messages: run->mpi NULL), SP_ENOMEM.
 */
int sp_waits_compute(const sp_run *run, sp_waits **out);

/*
 * The same for a run read aggregate-first: src->run (its MPI tables read
 * with the ranks' headers, no calls in memory) aggregated with
 * SP_AGG_LANES (sp_run_aggregate). The causes read the calls of each
 * wait's interval as a window (sp_window_load, at most
 * SP_WAITS_WINDOW_CALLS calls per interval: beyond, the interval's first
 * calls only), so memory follows the longest interval between two
 * synchronisations, not the run. A source whose run holds its calls (v1,
 * Python files) is read from memory. Returns as sp_waits_compute, or the
 * source's errors (SP_EFORMAT, SP_EIO).
 */
#define SP_WAITS_WINDOW_CALLS ((size_t)1 << 20)
int sp_waits_compute_source(sp_event_source *src, sp_waits **out);

/*
 * The waits of run, which was read from path: from its calls when it holds
 * them, else (read aggregate-first) from windows of a source opened on
 * path in this process (sp_waits_compute_source: one more pass over the
 * file's events, only for runs with MPI messages). path may be NULL for a
 * run built in memory. Returns as sp_waits_compute, or the source's
 * errors.
 */
int sp_waits_compute_for(const sp_run *run, const char *path, sp_waits **out);
void sp_waits_free(sp_waits *w);

/*
 * The matched messages with a part in [t0_ns, t1_ns] (rank 0's clock):
 * sent before t1 and received after t0, by send time, into *out
 * (malloc'ed; caller frees). For the timeline's message lines. Returns
 * the count, or -1 (SP_ENOMEM).
 */
long sp_waits_messages_in(const sp_waits *w, int64_t t0_ns, int64_t t1_ns, sp_message **out);

/*
 * Print the waits: totals by pattern, then one row per pattern, rank and
 * call site with the rank waited for and the causes, largest first (at
 * most max_rows rows, 0: all); with pairs, the messages per pair of ranks.
 * Returns 0 or SP_EIO. (The CSV form is the CLI's: cli/cmd_waits.c.)
 */
int sp_waits_print(const sp_waits *w, const char *path, size_t max_rows, bool pairs, FILE *out);

/* "rank 0 waits 2.10 s in MPI_Waitall for rank 5 (late sender), because
 * rank 5 spent 1.90 s more than the others in CalcHourglassControlForElems"
 * for row i, into buf. */
void sp_waits_sentence(const sp_waits *w, size_t i, char *buf, size_t len);

/* ---- per-rank MPI events, in time order (for exports such as OTF2) ---- */

typedef enum sp_mpi_event_kind {
    SP_MPI_EV_SEND,           /* a blocking send (MPI_Send...; Sendrecv's send) */
    SP_MPI_EV_ISEND,          /* a nonblocking send started */
    SP_MPI_EV_ISEND_COMPLETE, /* ... completed */
    SP_MPI_EV_IRECV_REQUEST,  /* a nonblocking receive posted */
    SP_MPI_EV_IRECV,          /* ... completed: the message arrived */
    SP_MPI_EV_RECV,           /* a blocking receive completed */
    SP_MPI_EV_COLL_BEGIN,
    SP_MPI_EV_COLL_END
} sp_mpi_event_kind;

typedef struct sp_mpi_event {
    int64_t t_ns;           /* the rank's own clock */
    sp_mpi_event_kind kind;
    size_t row;             /* row of the rank's p2p table (coll table for COLL_*) */
} sp_mpi_event;

/* Rank r's MPI events with t_ns in [t0_ns, t1_ns] (its own clock), in time
 * order, into *out (malloc'ed). Probes give no event. Returns the count,
 * or -1 (SP_ENOMEM). */
long sp_mpi_rank_events(const sp_mpi_data *d, size_t r, int64_t t0_ns, int64_t t1_ns,
                        sp_mpi_event **out);

#ifdef __cplusplus
}
#endif

#endif /* SP_WAITS_H */
