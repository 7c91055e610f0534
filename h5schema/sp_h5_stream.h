/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_stream.h - a schema v2 file as an event source (common/sp_events.h):
 * the header (metadata, every rank's region, thread, clock, dropped, line
 * and counter tables) and the blocks tables read at open, the event columns
 * read block by block on demand, in bounded slices. The file stays open
 * until the source is freed; a run that is still recording grows with
 * sp_event_source_refresh(), which reads only what was appended.
 */
#ifndef SP_H5_STREAM_H
#define SP_H5_STREAM_H

#include "sp_events.h"

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Open path for streaming reads. Only schema v2 files stream: for other
 * layouts (v1, the Python package's) it fails with SP_ENOTSUP and nothing
 * else is wrong with the file (read those whole with sp_h5_read()). Errors
 * as sp_h5_read(): SP_ENOENT, SP_EFORMAT (not HDF5, damaged, wrongly
 * shaped, a block table that announces more than 65,536 events a block or
 * threads the rank does not have), SP_EVERSION, SP_ENOMEM (a header over
 * the read limit); *status (may be NULL) receives the code. The header
 * tables are charged to the read limit like any read; events are read in
 * slices of at most 2^20 (8 MiB of buffers per concurrent reader).
 *
 * Reads may run on several threads at once for different ranks (HDF5 is
 * the thread-safe build). Blocks of an unfinished file beyond what its event
 * columns hold (a torn last write) are not in the block table (counted in
 * the rank's torn blocks, reported in file_state after a pass).
 */
sp_event_source *sp_h5_stream_open(const char *path, int *status);

/* What sp_h5_stream_open_ex leaves unread (flags). */
#define SP_H5_STREAM_LEAN 1u /* each rank's metadata attributes and thread names
                                (threads are still counted, their OS ids read):
                                what only listings of ranks and threads show */

/* sp_h5_stream_open, without what flags name: a run of 1,024 ranks opens
 * two datasets, a group and its attributes less per rank. Every table that
 * is read is checked as ever. */
sp_event_source *sp_h5_stream_open_ex(const char *path, unsigned flags, int *status);

/* Blocks of rank r left out at open or refresh because the event columns
 * do not hold their events (a torn write). 0 for other sources. */
uint64_t sp_h5_stream_torn_blocks(const sp_event_source *src, size_t r);

#ifdef __cplusplus
}
#endif

#endif /* SP_H5_STREAM_H */
