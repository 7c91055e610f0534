/* SPDX-License-Identifier: MIT */
/*
 * sp_schema_mpi.h - the names of the optional MPI message tables of schema
 * version 2 (/rank<N>/mpi: SCHEMA.md, "MPI messages and collectives"), and
 * the table of MPI functions whose ids those tables store.
 *
 * A minor addition to version 2: files without the group read as before,
 * and older readers ignore it. Pure macros (no HDF5): the recorder, the
 * reader, the model (common/sp_mpi_data.h) and the analysis use the same
 * lists, so a column is named, typed and documented in one place.
 */
#ifndef SP_SCHEMA_MPI_H
#define SP_SCHEMA_MPI_H

#include "sp_schema.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The MPI functions the library wraps, with the id stored in the tables'
 * `op` / `done_op` columns (ids never change; new functions get new ids)
 * and their class (what the analysis makes of them). X(id, Name, CLASS);
 * the function is MPI_<Name>.
 */
/* clang-format off */
#define SP_MPI_FUNCS(X)                                                        \
    X(1, Send, SEND) X(2, Bsend, SEND) X(3, Rsend, SEND) X(4, Ssend, SSEND)    \
    X(5, Recv, RECV) X(6, Sendrecv, SENDRECV) X(7, Sendrecv_replace, SENDRECV) \
    X(8, Probe, PROBE) X(9, Isend, ISEND) X(10, Ibsend, ISEND)                 \
    X(11, Irsend, ISEND) X(12, Issend, ISSEND) X(13, Irecv, IRECV)             \
    X(14, Wait, WAIT) X(15, Waitall, WAIT) X(16, Waitany, WAIT)                \
    X(17, Waitsome, WAIT) X(18, Test, TEST) X(19, Testall, TEST)               \
    X(20, Testany, TEST) X(21, Testsome, TEST) X(22, Barrier, BARRIER)         \
    X(23, Bcast, ONE_TO_ALL) X(24, Reduce, ALL_TO_ONE)                         \
    X(25, Allreduce, ALL_TO_ALL) X(26, Gather, ALL_TO_ONE)                     \
    X(27, Gatherv, ALL_TO_ONE) X(28, Allgather, ALL_TO_ALL)                    \
    X(29, Allgatherv, ALL_TO_ALL) X(30, Scatter, ONE_TO_ALL)                   \
    X(31, Scatterv, ONE_TO_ALL) X(32, Alltoall, ALL_TO_ALL)                    \
    X(33, Alltoallv, ALL_TO_ALL) X(34, Alltoallw, ALL_TO_ALL)                  \
    X(35, Reduce_scatter, ALL_TO_ALL) X(36, Reduce_scatter_block, ALL_TO_ALL)  \
    X(37, Scan, SCAN) X(38, Exscan, SCAN) X(39, Neighbor_allgather, NEIGHBOR)  \
    X(40, Neighbor_allgatherv, NEIGHBOR) X(41, Neighbor_alltoall, NEIGHBOR)    \
    X(42, Neighbor_alltoallv, NEIGHBOR) X(43, Neighbor_alltoallw, NEIGHBOR)
/* clang-format on */

enum {
#define SP__MPI_FUNC_ENUM(id, name, cls) SP_MPI_##name = id,
    SP_MPI_FUNCS(SP__MPI_FUNC_ENUM)
#undef SP__MPI_FUNC_ENUM
    SP_MPI_FUNC_END /* one past the largest id */
};

/* What a function does, for the analysis. */
typedef enum sp_mpi_class {
    SP_MPI_CLASS_NONE,
    SP_MPI_CLASS_SEND,       /* blocking standard, buffered or ready send */
    SP_MPI_CLASS_SSEND,      /* blocking synchronous send */
    SP_MPI_CLASS_RECV,       /* blocking receive */
    SP_MPI_CLASS_SENDRECV,   /* a send and a receive in one blocking call */
    SP_MPI_CLASS_PROBE,      /* blocking probe: waits for a message, moves none */
    SP_MPI_CLASS_ISEND,      /* nonblocking send, completed by a WAIT or TEST */
    SP_MPI_CLASS_ISSEND,     /* nonblocking synchronous send */
    SP_MPI_CLASS_IRECV,      /* nonblocking receive */
    SP_MPI_CLASS_WAIT,       /* blocking completion of requests */
    SP_MPI_CLASS_TEST,       /* nonblocking completion of requests */
    SP_MPI_CLASS_BARRIER,    /* every rank waits for the last to arrive */
    SP_MPI_CLASS_ALL_TO_ALL, /* N x N: every rank needs every rank's data */
    SP_MPI_CLASS_ONE_TO_ALL, /* the root's data goes to every rank */
    SP_MPI_CLASS_ALL_TO_ONE, /* every rank's data goes to the root */
    SP_MPI_CLASS_SCAN,       /* prefix: rank r needs ranks 0..r */
    SP_MPI_CLASS_NEIGHBOR    /* neighbourhood collectives (topology) */
} sp_mpi_class;

/* "MPI_Waitall" for an id, NULL for an id that is not in the table. */
const char *sp_mpi_func_name(int id);

/* The class of an id (SP_MPI_CLASS_NONE when unknown). */
sp_mpi_class sp_mpi_func_class(int id);

/* Whether a class is a collective (BARRIER .. NEIGHBOR). */
#define SP_MPI_CLASS_IS_COLL(c) ((c) >= SP_MPI_CLASS_BARRIER)

/* Values of the p2p table's `kind` column. */
#define SP_MPI_KIND_SEND 0
#define SP_MPI_KIND_RECV 1
#define SP_MPI_KIND_PROBE 2

/* Bits of the comms table's `flags` column. */
#define SP_MPI_COMM_WORLD 1 /* MPI_COMM_WORLD itself */
#define SP_MPI_COMM_INTER 2 /* an intercommunicator: members = the local group */

/*
 * The columns of the two record tables (all of length M, resp. N):
 * X(name, type, C type, unit, description). Times are ticks of the rank's
 * event clock (converted as the events are: the rank's clock/ table).
 */
#define SP_MPI_P2P_COLUMNS(X)                                                  \
    X(kind, I32, int32_t, "", "0 a send, 1 a receive, 2 a probe (MPI_Probe " \
      "found a message: nothing moved)")                                       \
    X(op, I32, int32_t, "", "the MPI function that started it (table below)") \
    X(done_op, I32, int32_t, "",                                               \
      "the MPI function that completed it (a blocking call: the same)")        \
    X(thread, I32, int32_t, "", "row of ../../threads: the thread that completed it") \
    X(path, I32, int32_t, "", "row of ../paths: the call path of the completing call") \
    X(comm, I32, int32_t, "", "row of ../comms")                               \
    X(peer, I32, int32_t, "",                                                  \
      "the other side as an MPI_COMM_WORLD rank (a receive: the source it "    \
      "came from); -1: unknown")                                               \
    X(tag, I32, int32_t, "", "the tag (a receive: the tag it carried)")       \
    X(bytes, I64, int64_t, "bytes", "size (a receive: the bytes received)")    \
    X(post_enter, I64, int64_t, "ticks", "the starting call began")           \
    X(post_exit, I64, int64_t, "ticks", "the starting call returned")         \
    X(done_enter, I64, int64_t, "ticks", "the completing call began")         \
    X(done_exit, I64, int64_t, "ticks", "the completing call returned")

#define SP_MPI_COLL_COLUMNS(X)                                                 \
    X(op, I32, int32_t, "", "the collective (table below)")                   \
    X(thread, I32, int32_t, "", "row of ../../threads")                        \
    X(path, I32, int32_t, "", "row of ../paths: the call path of the call")   \
    X(comm, I32, int32_t, "", "row of ../comms")                               \
    X(root, I32, int32_t, "",                                                  \
      "the root as an MPI_COMM_WORLD rank; -1 for collectives without one")    \
    X(bytes_sent, I64, int64_t, "bytes",                                       \
      "bytes of the send buffer(s) this rank's call reads")                    \
    X(bytes_recv, I64, int64_t, "bytes",                                       \
      "bytes of the receive buffer(s) this rank's call fills")                 \
    X(enter, I64, int64_t, "ticks", "the call began")                          \
    X(exit, I64, int64_t, "ticks", "the call returned")

/* X(ID, parent, name, kind, type, shape, unit, description): the group,
 * its attributes and the small tables. Shapes: C communicators, W member
 * entries, Q call paths, M point-to-point rows, N collective rows. */
#define SP_SCHEMA_MPI_GROUP_NAMES(X)                                           \
    X(MPI, "/rank<N>", "mpi", GROUP, NONE, "", "",                             \
      "optional: the rank's MPI messages and collectives")                    \
    X(MPI_RECORDS_DROPPED, "/rank<N>/mpi", "records_dropped", ATTR, U64,       \
      "scalar", "records", "finished file: records lost (no event chunk free)") \
    X(MPI_UNTRACKED, "/rank<N>/mpi", "untracked_completions", ATTR, U64,       \
      "scalar", "requests",                                                    \
      "finished file: completed requests whose start was not recorded")        \
    X(MPI_COMMS, "/rank<N>/mpi", "comms", GROUP, NONE, "", "",                 \
      "communicators the rank used, row = id in the record tables")           \
    X(MPI_COMM_MEMBERS, "/rank<N>/mpi/comms", "members", DSET, I32, "[W]", "", \
      "MPI_COMM_WORLD ranks of each communicator's members in communicator "   \
      "rank order, one communicator after the other")                         \
    X(MPI_COMM_MEMBERS_END, "/rank<N>/mpi/comms", "members_end", DSET, U64,    \
      "[C]", "", "end (exclusive) of row c's members in members")              \
    X(MPI_COMM_FLAGS, "/rank<N>/mpi/comms", "flags", DSET, I32, "[C]", "",     \
      "1 MPI_COMM_WORLD, 2 intercommunicator")                                 \
    X(MPI_PATHS, "/rank<N>/mpi", "paths", GROUP, NONE, "", "",                 \
      "call paths of the MPI calls, row = id in the record tables")           \
    X(MPI_PATH_PARENT, "/rank<N>/mpi/paths", "parent", DSET, I32, "[Q]", "",   \
      "row of the enclosing path, -1 at the top")                              \
    X(MPI_PATH_REGION, "/rank<N>/mpi/paths", "region", DSET, I32, "[Q]", "",   \
      "row of ../../regions: the path's innermost region")                    \
    X(MPI_P2P, "/rank<N>/mpi", "p2p", GROUP, NONE, "", "",                     \
      "point-to-point: one row per send, receive or probe, columns of length M") \
    X(MPI_COLL, "/rank<N>/mpi", "coll", GROUP, NONE, "", "",                   \
      "collectives: one row per call, columns of length N")

/* Ids: the group names, then one per column (SP_SNM_MPI_P2P_<column>,
 * SP_SNM_MPI_COLL_<column>). */
typedef enum sp_schema_mpi_id {
#define SP__SCHEMA_MPI_ENUM(id, parent, name, kind, type, shape, unit, desc) SP_SNM_##id,
#define SP__SCHEMA_MPI_P2P_ENUM(name, type, ctype, unit, desc) SP_SNM_MPI_P2P_##name,
#define SP__SCHEMA_MPI_COLL_ENUM(name, type, ctype, unit, desc) SP_SNM_MPI_COLL_##name,
    SP_SCHEMA_MPI_GROUP_NAMES(SP__SCHEMA_MPI_ENUM)
    SP_MPI_P2P_COLUMNS(SP__SCHEMA_MPI_P2P_ENUM)
    SP_MPI_COLL_COLUMNS(SP__SCHEMA_MPI_COLL_ENUM)
#undef SP__SCHEMA_MPI_ENUM
#undef SP__SCHEMA_MPI_P2P_ENUM
#undef SP__SCHEMA_MPI_COLL_ENUM
    SP_SNM_COUNT
} sp_schema_mpi_id;

/* The table (sp_schema_mpi.c), indexed by the ids above. */
extern const sp_schema_entry sp__schema_mpi[SP_SNM_COUNT];

/* The name of an entry: SP_NAMEM(MPI_COMMS) is "comms". */
#define SP_NAMEM(id) (sp__schema_mpi[SP_SNM_##id].name)

#ifdef __cplusplus
}
#endif

#endif /* SP_SCHEMA_MPI_H */
