/* SPDX-License-Identifier: MIT */
/* sp-timeline-messages.h - the timeline's MPI message lines: the matched
 * messages of a run (analysis/sp_waits.h) in a window of its timeline, as
 * lines from the sender's lane at the send to the receiver's lane at the
 * receive (sp_timeline_arrow). */
#ifndef SP_TIMELINE_MESSAGES_H
#define SP_TIMELINE_MESSAGES_H

#include <stddef.h>

#include "sp-run-document.h"

G_BEGIN_DECLS

/* Most lines drawn at once: a denser window shows an even sample of its
 * messages (every k-th by send time), so a zoomed-out view of a long run
 * stays a picture and a frame stays cheap. */
#define SP_TIMELINE_MAX_MESSAGE_LINES 4000

/*
 * The lines of doc's matched messages with a part in [t0_ns, t1_ns]
 * (timeline time: ns from sp_timeline_origin_ns(tl)). Each goes from the
 * lane of (sender, the thread that sent) at the send's start to the lane
 * of (receiver, the thread that completed the receive) at its completion,
 * times in timeline time; messages whose lanes the timeline does not have
 * are left out. At most SP_TIMELINE_MAX_MESSAGE_LINES (thinned evenly).
 * *out is g_malloc'ed (g_free), NULL when there are none; *n_in_window (may
 * be NULL) is the messages the window holds before thinning. Returns the
 * count of lines; 0 for a run without messages or on a failure.
 */
size_t sp_timeline_message_lines(SpRunDocument *doc, const sp_timeline *tl, gint64 t0_ns,
                                 gint64 t1_ns, sp_timeline_arrow **out, size_t *n_in_window);

G_END_DECLS

#endif
