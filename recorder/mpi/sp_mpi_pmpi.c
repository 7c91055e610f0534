/* SPDX-License-Identifier: MIT */
/*
 * sp_mpi_pmpi.c - MPI entry points of libscope_profiler_mpi, through the MPI
 * profiling interface (each MPI_X we define calls the library's PMPI_X).
 *
 * - MPI_Finalize finalizes a session the program left open, so a program
 *   that forgets sp_finalize() still gets its file (the known failure of
 *   other tools is "MPI is already finalized, cannot aggregate output").
 * - The common point-to-point and collective calls are timed as regions
 *   named after the call ("MPI_Allreduce") when use_mpi_regions is on; they
 *   nest under the program's open regions like any other region. Off (the
 *   default), a wrapper costs one load and one predictable branch before it
 *   tail-calls PMPI_X.
 *
 * The recorder's own MPI traffic uses PMPI_ directly, never these.
 */
#ifdef SP_WITH_MPI

#include "sp_mpi_internal.h"
#include "sp_recorder.h"

/* X(call): the wrapped calls, in the order of their region handles. */
/* clang-format off */
#define SP__MPI_CALLS(X)                                                       \
    X(Send) X(Recv) X(Isend) X(Irecv) X(Sendrecv) X(Wait) X(Waitall)           \
    X(Waitany) X(Barrier) X(Bcast) X(Reduce) X(Allreduce) X(Gather)            \
    X(Gatherv) X(Allgather) X(Allgatherv) X(Scatter) X(Scatterv) X(Alltoall)   \
    X(Alltoallv)

enum {
#define SP__MPI_ENUM(call) SP__MPI_##call,
    SP__MPI_CALLS(SP__MPI_ENUM)
#undef SP__MPI_ENUM
    SP__MPI_NCALLS
};
/* clang-format on */

static const char *const call_names[SP__MPI_NCALLS] = {
#define SP__MPI_NAME(call) "MPI_" #call,
    SP__MPI_CALLS(SP__MPI_NAME)
#undef SP__MPI_NAME
};

int sp__mpi_regions_on;
static sp_region *handles[SP__MPI_NCALLS];

void sp__mpi_regions_resolve(void)
{
    for (int i = 0; i < SP__MPI_NCALLS; i++)
        if (!handles[i])
            handles[i] = sp_region_get(call_names[i]); /* never NULL */
}

/* Release / acquire: a wrapper that sees the flag also sees the handles
 * (plain loads and stores on x86-64). */
void sp__mpi_regions_set(bool on)
{
    __atomic_store_n(&sp__mpi_regions_on, on, __ATOMIC_RELEASE);
}

/* The body of every wrapper. */
#define SP__MPI_TIMED(call, expr)                                                                  \
    do {                                                                                           \
        if (__builtin_expect(!__atomic_load_n(&sp__mpi_regions_on, __ATOMIC_ACQUIRE), 1))          \
            return expr;                                                                           \
        sp_region *r_ = handles[SP__MPI_##call];                                                   \
        sp_region_begin(r_);                                                                       \
        int rc_ = expr;                                                                            \
        sp_region_end(r_);                                                                         \
        return rc_;                                                                                \
    } while (0)

/* ---------------------------------------------------------------- finalize */

int MPI_Finalize(void)
{
    /* A session still open here: finalize it now, while MPI still works
     * (every rank is in MPI_Finalize, so the merge is collective too). */
    if (__atomic_load_n(&sp__sess.active, __ATOMIC_ACQUIRE))
        sp_finalize(false, NULL);
    sp__mpi_regions_set(false);
    if (sp__mpi.have_comm) {
        PMPI_Comm_free(&sp__mpi.comm);
        sp__mpi.have_comm = false;
    }
    sp__mpi.at_setup = false;
    return PMPI_Finalize();
}

/* ---------------------------------------------------------------- point to point */

int MPI_Send(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm)
{
    SP__MPI_TIMED(Send, PMPI_Send(buf, count, type, dest, tag, comm));
}

int MPI_Recv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
             MPI_Status *status)
{
    SP__MPI_TIMED(Recv, PMPI_Recv(buf, count, type, source, tag, comm, status));
}

int MPI_Isend(const void *buf, int count, MPI_Datatype type, int dest, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    SP__MPI_TIMED(Isend, PMPI_Isend(buf, count, type, dest, tag, comm, request));
}

int MPI_Irecv(void *buf, int count, MPI_Datatype type, int source, int tag, MPI_Comm comm,
              MPI_Request *request)
{
    SP__MPI_TIMED(Irecv, PMPI_Irecv(buf, count, type, source, tag, comm, request));
}

int MPI_Sendrecv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, int dest, int sendtag,
                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int source, int recvtag,
                 MPI_Comm comm, MPI_Status *status)
{
    SP__MPI_TIMED(Sendrecv, PMPI_Sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf,
                                          recvcount, recvtype, source, recvtag, comm, status));
}

int MPI_Wait(MPI_Request *request, MPI_Status *status)
{
    SP__MPI_TIMED(Wait, PMPI_Wait(request, status));
}

int MPI_Waitall(int count, MPI_Request requests[], MPI_Status *statuses)
{
    SP__MPI_TIMED(Waitall, PMPI_Waitall(count, requests, statuses));
}

int MPI_Waitany(int count, MPI_Request requests[], int *index, MPI_Status *status)
{
    SP__MPI_TIMED(Waitany, PMPI_Waitany(count, requests, index, status));
}

/* ---------------------------------------------------------------- collectives */

int MPI_Barrier(MPI_Comm comm)
{
    SP__MPI_TIMED(Barrier, PMPI_Barrier(comm));
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype type, int root, MPI_Comm comm)
{
    SP__MPI_TIMED(Bcast, PMPI_Bcast(buffer, count, type, root, comm));
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               int root, MPI_Comm comm)
{
    SP__MPI_TIMED(Reduce, PMPI_Reduce(sendbuf, recvbuf, count, type, op, root, comm));
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
                  MPI_Comm comm)
{
    SP__MPI_TIMED(Allreduce, PMPI_Allreduce(sendbuf, recvbuf, count, type, op, comm));
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    SP__MPI_TIMED(Gather, PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                      root, comm));
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int recvcounts[], const int displs[], MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    SP__MPI_TIMED(Gatherv, PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs,
                                        recvtype, root, comm));
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    SP__MPI_TIMED(Allgather,
                  PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int recvcounts[], const int displs[], MPI_Datatype recvtype, MPI_Comm comm)
{
    SP__MPI_TIMED(Allgatherv, PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts,
                                              displs, recvtype, comm));
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    SP__MPI_TIMED(Scatter, PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                        root, comm));
}

int MPI_Scatterv(const void *sendbuf, const int sendcounts[], const int displs[],
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    SP__MPI_TIMED(Scatterv, PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount,
                                          recvtype, root, comm));
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    SP__MPI_TIMED(Alltoall,
                  PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int MPI_Alltoallv(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  MPI_Datatype sendtype, void *recvbuf, const int recvcounts[], const int rdispls[],
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    SP__MPI_TIMED(Alltoallv, PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf,
                                            recvcounts, rdispls, recvtype, comm));
}

#else
typedef int sp__mpi_pmpi_unused; /* ISO C: no empty translation unit */
#endif /* SP_WITH_MPI */
