/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_wire.h - passing a run from the process that read it to the one
 * that shows it (internal to h5schema; see sp_h5_read_isolated.c).
 */
#ifndef SP_H5_WIRE_H
#define SP_H5_WIRE_H

#include <stdbool.h>

#include "sp_model.h"

/* Write the outcome of a read to fd: status 0 and the run, or a negative
 * SP_E* status and its message (run ignored). 0 or SP_EIO / SP_ENOMEM. */
int sp__h5_wire_write(int fd, const sp_run *run, int status, const char *message);
/* The same with extra_len bytes of extra (the aggregates of the run) after
 * the run (extra may be NULL). */
int sp__h5_wire_write_ex(int fd, const sp_run *run, int status, const char *message,
                         const void *extra, size_t extra_len);

/*
 * Read what sp__h5_wire_write() sent, waiting at most timeout_s seconds in
 * all (0: no limit), and stopping ("reading was cancelled", *timed_out set)
 * when cancel_fd (-1: none) becomes readable. Every count is charged to the read budget of this
 * thread (open one first), and the run is checked as a run read from a file
 * is. 0 with *out, or the sender's status and message, or SP_EFORMAT /
 * SP_EIO "<file>: the reading process sent back a damaged run" (or "took
 * too long", with *timed_out set).
 */
int sp__h5_wire_read(int fd, int cancel_fd, const char *file, double timeout_s, sp_run **out,
                     bool *timed_out);
/* The same, handing back the extra bytes sent with the run (malloc'ed,
 * charged to the budget; NULL and 0 when none): extra may be NULL to drop
 * them. On failure *extra stays NULL. */
int sp__h5_wire_read_ex(int fd, int cancel_fd, const char *file, double timeout_s, sp_run **out,
                        void **extra, size_t *extra_len, bool *timed_out);

#endif
