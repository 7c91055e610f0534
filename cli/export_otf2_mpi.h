/* SPDX-License-Identifier: MIT */
/*
 * export_otf2_mpi.h - the MPI messages and collectives a run recorded
 * (run->mpi, /rank<N>/mpi: SCHEMA.md "MPI messages and collectives") as OTF2
 * MPI events of `export otf2`, through the writer's sp__otf2_extra hook
 * (export_otf2.h). The mapping is documented in h5schema/FORMATS.md.
 *
 * Per exported rank, when the writer reaches it: the rank's records as
 * events in time order (sp_mpi_rank_events), split by the thread that
 * recorded them, clocks aligned to rank 0 as the calls are. A send row
 * gives MpiSend (MpiIsend + MpiIsendComplete when nonblocking), a receive
 * MpiRecv (MpiIrecvRequest + MpiIrecv), a collective MpiCollectiveBegin +
 * MpiCollectiveEnd. Left out: probes (nothing moved), messages whose peer
 * is not exported (--ranks) or unknown, rows outside --from/--to (a row is
 * kept when its span, start of its first call to end of its last, overlaps
 * the window, as calls are), intercommunicators and neighbourhood
 * collectives (OTF2 3.0 has no operation for them).
 *
 * Communicators: one OTF2 Comm per distinct communicator of the run (its
 * members as MPI_COMM_WORLD ranks, and which of a rank's communicators with
 * those members it is, as the waits analysis tells them apart), its Group
 * the exported members; ranks in events are ranks within that group. The
 * COMM_LOCATIONS group lists thread 0 of each exported rank, in rank order.
 * Memory: the communicator table and one rank's events at a time.
 */
#ifndef EXPORT_OTF2_MPI_H
#define EXPORT_OTF2_MPI_H

#include "export_otf2.h"

#ifdef SP_HAVE_OTF2

typedef struct sp__otf2_mpi sp__otf2_mpi;

/*
 * The MPI events of in's selected ranks, for sp__export_otf2: fills *x to
 * write them and sets *out (owned by the caller: sp__otf2_mpi_free after the
 * export). *out stays NULL when the run recorded no MPI messages (run->mpi
 * NULL). Returns 0 or SP_ENOMEM (sp_last_error() set). in must outlive
 * the export.
 */
int sp__otf2_mpi_new(const sp__trace_input *in, sp__otf2_mpi **out, sp__otf2_extra *x);

void sp__otf2_mpi_free(sp__otf2_mpi *m);

#endif
#endif
