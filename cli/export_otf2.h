/* SPDX-License-Identifier: MIT */
/*
 * export_otf2.h - `export otf2`: an OTF2 archive (Vampir, Scalasca, Pipit)
 * written through the OTF2 library (libotf2, Debian's libotf2-trace-dev),
 * streamed rank by rank. The mapping is documented in h5schema/FORMATS.md.
 *
 * More events per location (MPI messages, issue 23): a caller passes an
 * sp__otf2_extra. Before each Enter or Leave of a location the writer asks
 * next_time() for that location's next extra event and lets write_next()
 * write every one due before it (before an Enter: strictly before; before a
 * Leave: at or before, so an event at the instant a region begins or ends
 * lands inside it), so the location's stream stays in time order; what is
 * left after the location's last region event is written when its rank
 * ends (a thread with extra events and no call in the selection gets its
 * location for them then). The writer asks about the ranks in rank order,
 * one rank after the other. write_defs() adds the global definitions
 * those events refer to (communicators, groups), after the writer's own
 * (string and other references: see sp__otf2_new_string()).
 */
#ifndef EXPORT_OTF2_H
#define EXPORT_OTF2_H

#include <stddef.h>
#include <stdint.h>

#include "export.h"
#include "export_select.h"

#ifdef SP_HAVE_OTF2
#include <otf2/otf2.h>

/* The writer's state, for extra definitions. */
typedef struct sp__otf2 sp__otf2;

/* A new string definition in the archive; returns its reference. */
OTF2_StringRef sp__otf2_new_string(sp__otf2 *w, const char *text);

/* The location group (rank) and location (rank, thread) references, and
 * the OTF2 timestamp of an aligned time in ns. */
OTF2_LocationGroupRef sp__otf2_group_ref(const sp__otf2 *w, size_t rank);
OTF2_LocationRef sp__otf2_location_ref(const sp__otf2 *w, size_t rank, int32_t thread);
OTF2_TimeStamp sp__otf2_ts(const sp__otf2 *w, int64_t aligned_ns);

typedef struct sp__otf2_extra {
    void *ud;
    /* Aligned time of the next unwritten extra event of (rank, thread), or
     * INT64_MAX when there is none. */
    int64_t (*next_time)(void *ud, size_t rank, int32_t thread);
    /* Write that event to evt (its time through sp__otf2_ts) and move past
     * it. 0 or a negative SP_E* code. */
    int (*write_next)(void *ud, sp__otf2 *w, size_t rank, int32_t thread, OTF2_EvtWriter *evt);
    /* Global definitions the extra events use. 0 or SP_E*. May be NULL. */
    int (*write_defs)(void *ud, sp__otf2 *w, OTF2_GlobalDefWriter *defs);
} sp__otf2_extra;
#else
typedef struct sp__otf2_extra sp__otf2_extra;
#endif

/*
 * Write the selected calls of `in` as an OTF2 archive in directory dir
 * (created; it must not exist or be empty): dir/traces.otf2 (the anchor
 * file Vampir opens), dir/traces.def, dir/traces/. Built in a temporary
 * directory beside dir and renamed into place, so a failure leaves
 * nothing. extra may be NULL. 0 or SP_E* with sp_last_error();
 * SP_ENOTSUP when built without OTF2.
 */
int sp__export_otf2(sp__trace_input *in, const char *dir, const sp__otf2_extra *extra,
                    sp__wrote_fn wrote);

#endif
