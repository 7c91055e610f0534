/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_pmpi.c - MPI entry points of libscope_profiler_mpi, through the MPI
 * profiling interface (each MPI_X we define calls the library's PMPI_X).
 *
 * - MPI_Finalize finalizes a session the program left open, so a program
 *   that forgets sp_finalize() still gets its file (the known failure of
 *   other tools is "MPI is already finalized, cannot aggregate output").
 * - The point-to-point, completion and collective calls of the table in
 *   sp_schema_mpi.h are timed as regions named after the call
 *   ("MPI_Allreduce") when use_mpi_regions is on; they nest under the
 *   program's open regions like any other region. With messages on
 *   (SCOPE_PROFILER_MPI_MESSAGES, default: with the regions), each also
 *   records what it sent, received or completed (sp_mpi_msg.h). Both off
 *   (the default), a wrapper costs one load and one predictable branch
 *   before it calls PMPI_X.
 * - MPI_Comm_free and MPI_Request_free keep the communicator and request
 *   tables right (a handle may be reused).
 *
 * The recorder's own MPI traffic uses PMPI_ directly, never these.
 */
#ifdef SP_WITH_MPI

#include <string.h>

#include "sp_mpi_msg.h"
#include "sp_recorder.h"

sp_region *sp__mpi_handles[SP_MPI_FUNC_END];

void sp__mpi_regions_resolve(void)
{
    for (int id = 1; id < SP_MPI_FUNC_END; id++) {
        const char *name = sp_mpi_func_name(id);
        if (name && !sp__mpi_handles[id])
            sp__mpi_handles[id] = sp_region_get(name); /* never NULL */
    }
}

/* ---------------------------------------------------------------- helpers */

static int comm_rank(MPI_Comm comm)
{
    int r = -1;
    PMPI_Comm_rank(comm, &r);
    return r;
}

/* Ranks a collective's count arrays cover (the remote group of an
 * intercommunicator), 0 when unknown. */
static int group_size(MPI_Comm comm)
{
    int n = 0, in, out;
    return sp__mpi_comm_shape(comm, &n, &in, &out) ? n : 0;
}

static int64_t sum_bytes(const int counts[], int n, MPI_Datatype type)
{
    int64_t all = 0;
    for (int i = 0; counts && i < n; i++)
        all += counts[i] > 0 ? counts[i] : 0;
    return all ? sp__mpi_bytes(1, type) * all : 0;
}

static int64_t sum_bytes_w(const int counts[], const MPI_Datatype types[], int n)
{
    int64_t all = 0;
    for (int i = 0; counts && types && i < n; i++)
        all += sp__mpi_bytes(counts[i], types[i]);
    return all;
}

/* A status to record from when the program ignores its own. */
#define STATUS_OR(st, local) ((st) == MPI_STATUS_IGNORE ? &(local) : (st))

/* ---------------------------------------------------------------- finalize */

int MPI_Finalize(void)
{
    /* A session still open here: finalize it now, while MPI still works
     * (every rank is in MPI_Finalize, so the merge is collective too). */
    if (__atomic_load_n(&sp__sess.active, __ATOMIC_ACQUIRE))
        sp_finalize(false, NULL);
    sp__mpi_calls_set(false);
    if (sp__mpi.have_comm) {
        PMPI_Comm_free(&sp__mpi.comm);
        sp__mpi.have_comm = false;
    }
    sp__mpi.at_setup = false;
    return PMPI_Finalize();
}

int MPI_Comm_free(MPI_Comm *comm)
{
    if (comm)
        sp__mpi_forget_comm(*comm);
    return PMPI_Comm_free(comm);
}

int MPI_Request_free(MPI_Request *request)
{
    if (request && __atomic_load_n(&sp__mpi_flags, __ATOMIC_ACQUIRE))
        sp__mpi_forget_request(*request);
    return PMPI_Request_free(request);
}

/* ---------------------------------------------------------------- blocking sends */

#define SP__MPI_SEND(name)                                                                         \
    int MPI_##name(const void *buf, int count, MPI_Datatype type, int dest, int tag,               \
                   MPI_Comm comm)                                                                  \
    {                                                                                              \
        sp__mpi_call c;                                                                            \
        if (!sp__mpi_call_begin(&c, SP_MPI_##name))                                                \
            return PMPI_##name(buf, count, type, dest, tag, comm);                                 \
        int rc = PMPI_##name(buf, count, type, dest, tag, comm);                                   \
        if (sp__mpi_call_exit(&c, rc))                                                             \
            sp__mpi_send(&c, comm, dest, tag, count, type);                                        \
        sp__mpi_call_end(&c);                                                                      \
        return rc;                                                                                 \
    }
SP__MPI_SEND(Send)
SP__MPI_SEND(Bsend)
SP__MPI_SEND(Rsend)
SP__MPI_SEND(Ssend)
#undef SP__MPI_SEND

/* ---------------------------------------------------------------- blocking receives */

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    sp__mpi_call c;
    if (!sp__mpi_call_begin(&c, SP_MPI_Recv))
        return PMPI_Recv(buf, count, type, source, tag, comm, status);
    MPI_Status local, *st = STATUS_OR(status, local);
    int rc = PMPI_Recv(buf, count, type, source, tag, comm, st);
    if (sp__mpi_call_exit(&c, rc))
        sp__mpi_recv(&c, comm, st, false);
    sp__mpi_call_end(&c);
    return rc;
}

int MPI_Probe(int source, int tag, MPI_Comm comm, MPI_Status *status)
{
    sp__mpi_call c;
    if (!sp__mpi_call_begin(&c, SP_MPI_Probe))
        return PMPI_Probe(source, tag, comm, status);
    MPI_Status local, *st = STATUS_OR(status, local);
    int rc = PMPI_Probe(source, tag, comm, st);
    if (sp__mpi_call_exit(&c, rc))
        sp__mpi_recv(&c, comm, st, true);
    sp__mpi_call_end(&c);
    return rc;
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    sp__mpi_call c;
    if (!sp__mpi_call_begin(&c, SP_MPI_Sendrecv))
        return PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                             recvtype, source, recvtag, comm, status);
    MPI_Status local, *st = STATUS_OR(status, local);
    int rc = PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                           recvtype, source, recvtag, comm, st);
    if (sp__mpi_call_exit(&c, rc)) {
        sp__mpi_send(&c, comm, dest, sendtag, sendcount, sendtype);
        sp__mpi_recv(&c, comm, st, false);
    }
    sp__mpi_call_end(&c);
    return rc;
}

int MPI_Sendrecv_replace(void *buf, int count, MPI_Datatype type, int dest, int sendtag,
                         int source, int recvtag, MPI_Comm comm, MPI_Status *status)
{
    sp__mpi_call c;
    if (!sp__mpi_call_begin(&c, SP_MPI_Sendrecv_replace))
        return PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm,
                                     status);
    MPI_Status local, *st = STATUS_OR(status, local);
    int rc = PMPI_Sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, st);
    if (sp__mpi_call_exit(&c, rc)) {
        sp__mpi_send(&c, comm, dest, sendtag, count, type);
        sp__mpi_recv(&c, comm, st, false);
    }
    sp__mpi_call_end(&c);
    return rc;
}

/* ---------------------------------------------------------------- nonblocking starts */

#define SP__MPI_ISEND(name)                                                                        \
    int MPI_##name(const void *buf, int count, MPI_Datatype type, int dest, int tag,               \
                   MPI_Comm comm, MPI_Request *request)                                            \
    {                                                                                              \
        sp__mpi_call c;                                                                            \
        if (!sp__mpi_call_begin(&c, SP_MPI_##name))                                                \
            return PMPI_##name(buf, count, type, dest, tag, comm, request);                        \
        int rc = PMPI_##name(buf, count, type, dest, tag, comm, request);                          \
        if (sp__mpi_call_exit(&c, rc))                                                             \
            sp__mpi_post(&c, false, comm, dest, tag, count, type, *request);                       \
        sp__mpi_call_end(&c);                                                                      \
        return rc;                                                                                 \
    }
SP__MPI_ISEND(Isend)
SP__MPI_ISEND(Ibsend)
SP__MPI_ISEND(Irsend)
SP__MPI_ISEND(Issend)
#undef SP__MPI_ISEND

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    sp__mpi_call c;
    if (!sp__mpi_call_begin(&c, SP_MPI_Irecv))
        return PMPI_Irecv(buf, count, type, source, tag, comm, request);
    int rc = PMPI_Irecv(buf, count, type, source, tag, comm, request);
    if (sp__mpi_call_exit(&c, rc))
        sp__mpi_post(&c, true, comm, source, tag, count, type, *request);
    sp__mpi_call_end(&c);
    return rc;
}

/* ---------------------------------------------------------------- completions */

/* The requests of a completion call whose handle it set to
 * MPI_REQUEST_NULL completed there (persistent requests stay: they are
 * not followed). st: their statuses by index, or NULL. */
static void completed_all(const sp__mpi_call *c, int n, const MPI_Request *saved,
                          const MPI_Request *after, const MPI_Status *st)
{
    for (int i = 0; i < n; i++)
        if (saved[i] != MPI_REQUEST_NULL && after[i] == MPI_REQUEST_NULL)
            sp__mpi_done(c, saved[i], st ? &st[i] : NULL);
}

/* Statuses to pass for n requests: the program's, or scratch ones when it
 * ignores them (the receives' sources and sizes are needed). */
static MPI_Status *statuses_or(MPI_Status *user, int n)
{
    return user == MPI_STATUSES_IGNORE ? sp__mpi_scratch_statuses(n) : user;
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    sp__mpi_call c;
    if (!sp__mpi_call_begin(&c, SP_MPI_Wait))
        return PMPI_Wait(request, status);
    MPI_Request saved = *request;
    MPI_Status local, *st = STATUS_OR(status, local);
    int rc = PMPI_Wait(request, st);
    if (sp__mpi_call_exit(&c, rc))
        completed_all(&c, 1, &saved, request, st);
    sp__mpi_call_end(&c);
    return rc;
}

int MPI_Test(MPI_Request *request, int *flag, MPI_Status *status)
{
    sp__mpi_call c;
    if (!sp__mpi_call_begin(&c, SP_MPI_Test))
        return PMPI_Test(request, flag, status);
    MPI_Request saved = *request;
    MPI_Status local, *st = STATUS_OR(status, local);
    int rc = PMPI_Test(request, flag, st);
    if (sp__mpi_call_exit(&c, rc) && *flag)
        completed_all(&c, 1, &saved, request, st);
    sp__mpi_call_end(&c);
    return rc;
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status *statuses)
{
    sp__mpi_call c;
    if (!sp__mpi_call_begin(&c, SP_MPI_Waitall))
        return PMPI_Waitall(count, requests, statuses);
    MPI_Request *saved = (c.flags & SP__MPI_F_MSGS) ? sp__mpi_scratch_requests(count) : NULL;
    MPI_Status *st = saved ? statuses_or(statuses, count) : statuses;
    if (saved)
        memcpy(saved, requests, (size_t)count * sizeof *saved);
    int rc = PMPI_Waitall(count, requests, st);
    if (sp__mpi_call_exit(&c, rc) && saved)
        completed_all(&c, count, saved, requests, st);
    sp__mpi_call_end(&c);
    return rc;
}

int MPI_Testall(int count, MPI_Request requests[], int *flag, MPI_Status *statuses)
{
    sp__mpi_call c;
    if (!sp__mpi_call_begin(&c, SP_MPI_Testall))
        return PMPI_Testall(count, requests, flag, statuses);
    MPI_Request *saved = (c.flags & SP__MPI_F_MSGS) ? sp__mpi_scratch_requests(count) : NULL;
    MPI_Status *st = saved ? statuses_or(statuses, count) : statuses;
    if (saved)
        memcpy(saved, requests, (size_t)count * sizeof *saved);
    int rc = PMPI_Testall(count, requests, flag, st);
    if (sp__mpi_call_exit(&c, rc) && saved && *flag)
        completed_all(&c, count, saved, requests, st);
    sp__mpi_call_end(&c);
    return rc;
}

/* Waitany / Testany: the request at *index completed (with status). */
static void completed_one(const sp__mpi_call *c, int count, const MPI_Request *saved,
                          const MPI_Request *requests, int index, const MPI_Status *st)
{
    if (saved && index != MPI_UNDEFINED && index >= 0 && index < count)
        completed_all(c, 1, &saved[index], &requests[index], st);
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    sp__mpi_call c;
    if (!sp__mpi_call_begin(&c, SP_MPI_Waitany))
        return PMPI_Waitany(count, requests, index, status);
    MPI_Request *saved = (c.flags & SP__MPI_F_MSGS) ? sp__mpi_scratch_requests(count) : NULL;
    MPI_Status local, *st = STATUS_OR(status, local);
    if (saved)
        memcpy(saved, requests, (size_t)count * sizeof *saved);
    int rc = PMPI_Waitany(count, requests, index, st);
    if (sp__mpi_call_exit(&c, rc))
        completed_one(&c, count, saved, requests, *index, st);
    sp__mpi_call_end(&c);
    return rc;
}

int MPI_Testany(int count, MPI_Request requests[], int *index, int *flag, MPI_Status *status)
{
    sp__mpi_call c;
    if (!sp__mpi_call_begin(&c, SP_MPI_Testany))
        return PMPI_Testany(count, requests, index, flag, status);
    MPI_Request *saved = (c.flags & SP__MPI_F_MSGS) ? sp__mpi_scratch_requests(count) : NULL;
    MPI_Status local, *st = STATUS_OR(status, local);
    if (saved)
        memcpy(saved, requests, (size_t)count * sizeof *saved);
    int rc = PMPI_Testany(count, requests, index, flag, st);
    if (sp__mpi_call_exit(&c, rc) && *flag)
        completed_one(&c, count, saved, requests, *index, st);
    sp__mpi_call_end(&c);
    return rc;
}

/* Waitsome / Testsome: requests indices[0..outcount) completed. */
#define SP__MPI_SOME(name)                                                                         \
    int MPI_##name(int incount, MPI_Request requests[], int *outcount, int indices[],              \
                   MPI_Status statuses[])                                                          \
    {                                                                                              \
        sp__mpi_call c;                                                                            \
        if (!sp__mpi_call_begin(&c, SP_MPI_##name))                                                \
            return PMPI_##name(incount, requests, outcount, indices, statuses);                    \
        MPI_Request *saved =                                                                       \
            (c.flags & SP__MPI_F_MSGS) ? sp__mpi_scratch_requests(incount) : NULL;                \
        MPI_Status *st = saved ? statuses_or(statuses, incount) : statuses;                        \
        if (saved)                                                                                 \
            memcpy(saved, requests, (size_t)incount * sizeof *saved);                              \
        int rc = PMPI_##name(incount, requests, outcount, indices, st);                            \
        if (sp__mpi_call_exit(&c, rc) && saved && *outcount != MPI_UNDEFINED)                      \
            for (int j = 0; j < *outcount; j++)                                                    \
                if (indices[j] >= 0 && indices[j] < incount)                                       \
                    completed_all(&c, 1, &saved[indices[j]], &requests[indices[j]],                \
                                  st ? &st[j] : NULL);                                             \
        sp__mpi_call_end(&c);                                                                      \
        return rc;                                                                                 \
    }
SP__MPI_SOME(Waitsome)
SP__MPI_SOME(Testsome)
#undef SP__MPI_SOME

/* ---------------------------------------------------------------- collectives */

/* Time the call; when it succeeded with messages on, run the record
 * statement (its byte counts are computed only then). */
#define SP__MPI_COLL(name, call, ...)                                          \
    do {                                                                       \
        sp__mpi_call c;                                                        \
        if (!sp__mpi_call_begin(&c, SP_MPI_##name))                            \
            return call;                                                       \
        int rc = call;                                                         \
        if (sp__mpi_call_exit(&c, rc)) {                                       \
            __VA_ARGS__;                                                       \
        }                                                                      \
        sp__mpi_call_end(&c);                                                  \
        return rc;                                                             \
    } while (0)

/* A collective with a root: the bytes on the root and on the others. */
static void rooted(const sp__mpi_call *c, MPI_Comm comm, int root, int64_t root_sent,
                   int64_t root_recvd, int64_t sent, int64_t recvd)
{
    bool at_root = comm_rank(comm) == root;
    sp__mpi_coll(c, comm, root, at_root ? root_sent : sent, at_root ? root_recvd : recvd);
}

/* A collective every rank sends and receives the same in. */
static void even(const sp__mpi_call *c, MPI_Comm comm, int64_t sent, int64_t recvd)
{
    sp__mpi_coll(c, comm, -1, sent, recvd);
}

#define IN_PLACE(buf) ((const void *)(buf) == MPI_IN_PLACE)

int MPI_Barrier(MPI_Comm comm)
{
    SP__MPI_COLL(Barrier, PMPI_Barrier(comm), even(&c, comm, 0, 0));
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    SP__MPI_COLL(Bcast, PMPI_Bcast(buffer, count, type, root, comm),
                 int64_t b = sp__mpi_bytes(count, type); rooted(&c, comm, root, b, 0, 0, b));
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm)
{
    SP__MPI_COLL(Reduce, PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm),
                 int64_t b = sp__mpi_bytes(count, type); rooted(&c, comm, root, b, b, b, 0));
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    SP__MPI_COLL(Allreduce, PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm),
                 int64_t b = sp__mpi_bytes(count, type); even(&c, comm, b, b));
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int recvcounts[],
                       MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    SP__MPI_COLL(Reduce_scatter, PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, type, op, comm),
                 int me = comm_rank(comm);
                 even(&c, comm, sum_bytes(recvcounts, group_size(comm), type),
                      me >= 0 && recvcounts ? sp__mpi_bytes(recvcounts[me], type) : 0));
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    SP__MPI_COLL(Reduce_scatter_block,
                 PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, type, op, comm),
                 int64_t b = sp__mpi_bytes(recvcount, type); even(&c, comm, b * group_size(comm), b));
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
             MPI_Comm comm)
{
    SP__MPI_COLL(Scan, PMPI_Scan(sendbuf, recvbuf, count, type, op, comm),
                 int64_t b = sp__mpi_bytes(count, type); even(&c, comm, b, b));
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm)
{
    SP__MPI_COLL(Exscan, PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm),
                 int64_t b = sp__mpi_bytes(count, type); even(&c, comm, b, b));
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    SP__MPI_COLL(Gather,
                 PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                             comm),
                 int64_t s = sp__mpi_bytes(sendcount, sendtype);
                 int64_t r = sp__mpi_bytes(recvcount, recvtype);
                 rooted(&c, comm, root, IN_PLACE(sendbuf) ? r : s, r * group_size(comm), s, 0));
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    SP__MPI_COLL(Gatherv,
                 PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                              root, comm),
                 int64_t s = IN_PLACE(sendbuf) ? 0 : sp__mpi_bytes(sendcount, sendtype);
                 rooted(&c, comm, root, s, sum_bytes(recvcounts, group_size(comm), recvtype), s,
                        0));
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    SP__MPI_COLL(Allgather,
                 PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
                 int64_t r = sp__mpi_bytes(recvcount, recvtype);
                 even(&c, comm, IN_PLACE(sendbuf) ? r : sp__mpi_bytes(sendcount, sendtype),
                      r * group_size(comm)));
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    SP__MPI_COLL(Allgatherv,
                 PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                 recvtype, comm),
                 even(&c, comm, IN_PLACE(sendbuf) ? 0 : sp__mpi_bytes(sendcount, sendtype),
                      sum_bytes(recvcounts, group_size(comm), recvtype)));
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    SP__MPI_COLL(Scatter,
                 PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                              comm),
                 int64_t r = sp__mpi_bytes(recvcount, recvtype);
                 rooted(&c, comm, root, sp__mpi_bytes(sendcount, sendtype) * group_size(comm),
                        IN_PLACE(recvbuf) ? 0 : r, 0, r));
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    SP__MPI_COLL(Scatterv,
                 PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype,
                               root, comm),
                 int64_t r = sp__mpi_bytes(recvcount, recvtype);
                 rooted(&c, comm, root, sum_bytes(sendcounts, group_size(comm), sendtype),
                        IN_PLACE(recvbuf) ? 0 : r, 0, r));
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    SP__MPI_COLL(Alltoall,
                 PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm),
                 int n = group_size(comm); int64_t r = sp__mpi_bytes(recvcount, recvtype) * n;
                 even(&c, comm, IN_PLACE(sendbuf) ? r : sp__mpi_bytes(sendcount, sendtype) * n,
                      r));
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    SP__MPI_COLL(Alltoallv,
                 PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts,
                                rdispls, recvtype, comm),
                 int n = group_size(comm); int64_t r = sum_bytes(recvcounts, n, recvtype);
                 even(&c, comm, IN_PLACE(sendbuf) ? r : sum_bytes(sendcounts, n, sendtype), r));
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    SP__MPI_COLL(Alltoallw,
                 PMPI_Alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts,
                                rdispls, recvtypes, comm),
                 int n = group_size(comm); int64_t r = sum_bytes_w(recvcounts, recvtypes, n);
                 even(&c, comm, IN_PLACE(sendbuf) ? r : sum_bytes_w(sendcounts, sendtypes, n),
                      r));
}

/* ---------------------------------------------------------------- neighbourhood collectives */

/* The degrees of comm's topology (0 when it has none). */
static void degrees(MPI_Comm comm, int *in, int *out)
{
    int n;
    if (!sp__mpi_comm_shape(comm, &n, in, out) || *in < 0 || *out < 0)
        *in = *out = 0;
}

int MPI_Neighbor_allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    SP__MPI_COLL(Neighbor_allgather,
                 PMPI_Neighbor_allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                         recvtype, comm),
                 int in, out; degrees(comm, &in, &out);
                 even(&c, comm, sp__mpi_bytes(sendcount, sendtype) * out,
                      sp__mpi_bytes(recvcount, recvtype) * in));
}

int MPI_Neighbor_allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, const int recvcounts[], const int displs[],
                            MPI_Datatype recvtype, MPI_Comm comm)
{
    SP__MPI_COLL(Neighbor_allgatherv,
                 PMPI_Neighbor_allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                          displs, recvtype, comm),
                 int in, out; degrees(comm, &in, &out);
                 even(&c, comm, sp__mpi_bytes(sendcount, sendtype) * out,
                      sum_bytes(recvcounts, in, recvtype)));
}

int MPI_Neighbor_alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    SP__MPI_COLL(Neighbor_alltoall,
                 PMPI_Neighbor_alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        comm),
                 int in, out; degrees(comm, &in, &out);
                 even(&c, comm, sp__mpi_bytes(sendcount, sendtype) * out,
                      sp__mpi_bytes(recvcount, recvtype) * in));
}

int MPI_Neighbor_alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                           MPI_Datatype sendtype, void *recvbuf, const int recvcounts[],
                           const int rdispls[], MPI_Datatype recvtype, MPI_Comm comm)
{
    SP__MPI_COLL(Neighbor_alltoallv,
                 PMPI_Neighbor_alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                         recvcounts, rdispls, recvtype, comm),
                 int in, out; degrees(comm, &in, &out);
                 even(&c, comm, sum_bytes(sendcounts, out, sendtype),
                      sum_bytes(recvcounts, in, recvtype)));
}

int MPI_Neighbor_alltoallw(const void *sendbuf, const int sendcounts[], const MPI_Aint sdispls[],
                           const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                           const MPI_Aint rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    SP__MPI_COLL(Neighbor_alltoallw,
                 PMPI_Neighbor_alltoallw(sendbuf, sendcounts, sdispls, sendtypes, recvbuf,
                                         recvcounts, rdispls, recvtypes, comm),
                 int in, out; degrees(comm, &in, &out);
                 even(&c, comm, sum_bytes_w(sendcounts, sendtypes, out),
                      sum_bytes_w(recvcounts, recvtypes, in)));
}

#else
typedef int sp__mpi_pmpi_unused; /* ISO C: no empty translation unit */
#endif /* SP_WITH_MPI */
