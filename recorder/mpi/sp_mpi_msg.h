/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_msg.h - what the PMPI wrappers (sp_mpi_pmpi.c) record about the
 * messages and collectives of the program (libscope_profiler_mpi only;
 * SCHEMA.md "MPI messages and collectives").
 *
 * Per MPI call, when messages are on: the call's enter and exit times (the
 * event clock), and after it returns one record per message side or per
 * collective, stored into the thread's event chunk while the call's region
 * is still open (the writer gives it that call path). Point to point:
 * communicator, peer as a world rank, tag, bytes; a nonblocking request is
 * remembered in the thread's request table when it starts and recorded
 * when a Wait or Test completes it, with both calls' times and, for a
 * receive, the source, tag and size its status gives (MPI_ANY_SOURCE and
 * MPI_ANY_TAG resolved). Collectives: communicator, root, bytes.
 *
 * Hot path: no lock, no system call. Memory: per thread a request table
 * (grown in the slow path up to SP__MPI_REQ_MAX entries; beyond, requests
 * are not followed and their completions count as untracked) and scratch
 * arrays for the largest Wait/Test list seen; per process the
 * communicator table. Communicators: a lock-free hash from the handle to
 * an entry made at first use (MPI_Comm_group + MPI_Group_translate_ranks,
 * under a mutex), forgotten by MPI_Comm_free.
 */
#ifndef SP_MPI_MSG_H
#define SP_MPI_MSG_H

#ifdef SP_WITH_MPI

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "sp_clock.h"
#include "sp_mpi_internal.h"
#include "sp_schema_mpi.h"

#pragma GCC visibility push(hidden)

/* What the wrappers do (atomic; 0: tail-call PMPI_X and nothing else). */
#define SP__MPI_F_REGIONS 1 /* time the calls as regions */
#define SP__MPI_F_MSGS 2    /* record messages and collectives */
extern int sp__mpi_flags;

/* The region handle of each wrapped function, by id (sp_schema_mpi.h). */
extern sp_region *sp__mpi_handles[SP_MPI_FUNC_END];

/* The event clock of the session: TSC ticks or CLOCK_MONOTONIC ns. */
extern bool sp__mpi_clock_tsc;
static inline int64_t sp__mpi_now(void)
{
    return sp__mpi_clock_tsc ? sp__tsc_ticks() : sp__mono_ns();
}

/* One MPI call in a wrapper. */
typedef struct sp__mpi_call {
    int op;       /* its id */
    int flags;    /* sp__mpi_flags when it began */
    sp_region *r; /* its region, or NULL */
    int64_t t0;   /* enter (messages on) */
    int64_t t1;   /* exit, set by sp__mpi_call_exit */
} sp__mpi_call;

/* Begin a call: false when nothing is recorded (the wrapper tail-calls). */
static inline bool sp__mpi_call_begin(sp__mpi_call *c, int op)
{
    int f = __atomic_load_n(&sp__mpi_flags, __ATOMIC_ACQUIRE);
    if (__builtin_expect(!f, 1))
        return false;
    c->op = op;
    c->flags = f;
    c->r = (f & SP__MPI_F_REGIONS) ? sp__mpi_handles[op] : NULL;
    if (c->r)
        sp_region_begin(c->r);
    c->t0 = c->t1 = (f & SP__MPI_F_MSGS) ? sp__mpi_now() : 0;
    return true;
}

/* The call returned: true when its messages are to be recorded (rc is
 * MPI_SUCCESS and messages are on). */
static inline bool sp__mpi_call_exit(sp__mpi_call *c, int rc)
{
    if (!(c->flags & SP__MPI_F_MSGS))
        return false;
    c->t1 = sp__mpi_now();
    return rc == MPI_SUCCESS;
}

/* End the call's region (after its records). */
static inline void sp__mpi_call_end(const sp__mpi_call *c)
{
    if (c->r)
        sp_region_end(c->r);
}

/* ---- records (sp_mpi_msg.c) ---- */

/* A blocking send (or the send half of a Sendrecv). */
void sp__mpi_send(const sp__mpi_call *c, MPI_Comm comm, int dest, int tag, int count,
                  MPI_Datatype type);

/* A blocking receive (or the receive half of a Sendrecv, or a Probe:
 * probe = true) that returned status. */
void sp__mpi_recv(const sp__mpi_call *c, MPI_Comm comm, const MPI_Status *status, bool probe);

/* A nonblocking send or receive started: remember req. peer may be
 * MPI_ANY_SOURCE and tag MPI_ANY_TAG (resolved at completion). */
void sp__mpi_post(const sp__mpi_call *c, bool recv, MPI_Comm comm, int peer, int tag, int count,
                  MPI_Datatype type, MPI_Request req);

/* Request req (its handle before the call) was completed by call c with
 * status (NULL: not known). */
void sp__mpi_done(const sp__mpi_call *c, MPI_Request req, const MPI_Status *status);

/* Forget req (MPI_Request_free): its completion will not be seen. */
void sp__mpi_forget_request(MPI_Request req);

/* A collective call. root: rank in comm, or -1 (none); bytes as in
 * SCHEMA.md (this rank's send and receive buffers). */
void sp__mpi_coll(const sp__mpi_call *c, MPI_Comm comm, int root, int64_t sent, int64_t recvd);

/* Bytes of count elements of type (0 when MPI cannot say). */
int64_t sp__mpi_bytes(int count, MPI_Datatype type);

/* The group size of comm (the remote group of an intercommunicator) and
 * its neighbourhood (in/out degree; -1 without a topology), from the
 * communicator table; false when the table does not know it. */
bool sp__mpi_comm_shape(MPI_Comm comm, int *size, int *indeg, int *outdeg);

/* Per-thread scratch for a completion call of n requests: room to save
 * the handles (and statuses when the caller ignores them). NULL when n is
 * beyond what the thread may hold (the completions go unrecorded). */
MPI_Request *sp__mpi_scratch_requests(int n);
MPI_Status *sp__mpi_scratch_statuses(int n);

/* MPI_Comm_free: the handle may be reused for another communicator. */
void sp__mpi_forget_comm(MPI_Comm comm);

/* Session control (sp_mpi_session.c): choose from the options and the
 * environment, start and stop. */
int sp__mpi_msg_setup(bool regions, bool file_output, sp__clock_source clock);
void sp__mpi_calls_set(bool on);

#pragma GCC visibility pop

#endif /* SP_WITH_MPI */

#endif
