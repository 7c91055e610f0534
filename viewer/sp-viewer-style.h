/* SPDX-License-Identifier: MIT */
/*
 * sp-viewer-style.h - the viewer's CSS and light/dark choice: dark when
 * SCOPE_PROFILER_VIEWER_STYLE=dark, light when =light, otherwise following
 * the desktop's color-scheme (XDG Settings portal) when one answers.
 */
#ifndef SP_VIEWER_STYLE_H
#define SP_VIEWER_STYLE_H

#include <glib.h>

G_BEGIN_DECLS

/* Load the CSS on the default display and pick light or dark. follow_portal:
 * also ask the desktop portal (and follow its changes). */
void sp_viewer_style_init(gboolean follow_portal);

G_END_DECLS

#endif
