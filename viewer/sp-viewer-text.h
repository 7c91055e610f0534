/* SPDX-License-Identifier: MIT */
/*
 * sp-viewer-text.h - text from a run file as the viewer shows it.
 *
 * Region and thread names, metadata, paths and source lines come from files
 * written elsewhere: a CR would break a label, ESC or invalid UTF-8 draws hex
 * boxes and U+202E reverses the rest of a line. Every string from a file
 * that a widget shows goes through these (common/sp_display.h escaping:
 * "\x1b", "\r", "\u202e", ...). The run model keeps the raw bytes, so
 * selection, matching and exports use the names as recorded.
 */
#ifndef SP_VIEWER_TEXT_H
#define SP_VIEWER_TEXT_H

#include <glib.h>

G_BEGIN_DECLS

/* s as shown: s itself when it needs no escaping (the common case costs one
 * scan and no copy), else an escaped copy that *owned receives (g_free it;
 * *owned is set to NULL when s is returned). NULL gives NULL. */
const char *sp_viewer_text(const char *s, char **owned);

/* An escaped copy of s (NULL gives ""). Newly allocated. */
char *sp_viewer_text_dup(const char *s);

/* s escaped for display, then for Pango markup (g_markup_escape_text), to
 * put between markup tags. NULL gives "". Newly allocated. */
char *sp_viewer_text_markup(const char *s);

G_END_DECLS

#endif
