/* SPDX-License-Identifier: MIT */
/*
 * sp-session.h - what a window shows: the base run, an optional candidate run
 * (comparison), and the selected region, shared by every page. Pages listen
 * to notify::base / ::candidate / ::runs / ::selected-region. Regions are selected by
 * name, so a selection carries over between the two runs of a comparison.
 */
#ifndef SP_SESSION_H
#define SP_SESSION_H

#include "sp-run-document.h"

G_BEGIN_DECLS

#define SP_TYPE_SESSION (sp_session_get_type())
G_DECLARE_FINAL_TYPE(SpSession, sp_session, SP, SESSION, GObject)

SpSession *sp_session_new(void);

SpRunDocument *sp_session_get_base(SpSession *self);
SpRunDocument *sp_session_get_candidate(SpSession *self);
/* Replaces both runs at once (candidate may be NULL); clears the selection if
 * the selected region is not in the new base run. */
void sp_session_set_runs(SpSession *self, SpRunDocument *base, SpRunDocument *candidate);

/* Every run open in the window, in the order given (a scaling study when
 * there are more than two): docs[0] is the base, docs[1] the candidate.
 * Notifies "runs" (after base / candidate). n >= 1. */
void sp_session_set_run_list(SpSession *self, SpRunDocument *const *docs, guint n);
guint sp_session_get_n_runs(SpSession *self);
SpRunDocument *sp_session_get_run(SpSession *self, guint i);

const char *sp_session_get_selected_region(SpSession *self);
void sp_session_set_selected_region(SpSession *self, const char *name);
/* The selected region's id in doc (base or candidate), or -1. */
int sp_session_get_selected_id(SpSession *self, SpRunDocument *doc);

/* The region colours of the runs shown: one map for base and candidate
 * (sp_colors.h), so a region has one colour on every page and in both runs.
 * Valid until the session is finalized (safe to use from a drawing worker);
 * NULL before any run (charts then use hash colours). */
const sp_color_map *sp_session_get_colors(SpSession *self);

G_END_DECLS

#endif
