/* SPDX-License-Identifier: MIT */
/*
 * sp-viewer-settings.h - the viewer's few remembered settings, in a GKeyFile
 * at g_get_user_config_dir()/scope-profiler/viewer.ini (GSettings would need
 * an installed schema).
 */
#ifndef SP_VIEWER_SETTINGS_H
#define SP_VIEWER_SETTINGS_H

#include <glib.h>

G_BEGIN_DECLS

/* FALSE: nothing is read or written (screenshots, benchmarks, tests). */
void sp_viewer_settings_set_enabled(gboolean enabled);
gboolean sp_viewer_settings_get_enabled(void);

/* The last window size; returns FALSE (outputs untouched) when none is
 * stored or settings are disabled. */
gboolean sp_viewer_settings_get_window_size(int *width, int *height, gboolean *maximized);
void sp_viewer_settings_set_window_size(int width, int height, gboolean maximized);

/* Directories whose source files the Lines page may show, besides the run's
 * own working directory (sp_source.h): those given with --source-dir, then
 * the list "dirs" of group [sources] in the settings file (e.g.
 * "dirs=/home/me/proj;/opt/src"), then SCOPE_PROFILER_SOURCE_DIR (read by
 * sp_source_policy_init). The result is NULL-terminated and valid until the
 * next call. */
void sp_viewer_settings_add_source_dir(const char *dir);
const char *const *sp_viewer_settings_get_source_dirs(void);

/* The path of the settings file (newly allocated). */
char *sp_viewer_settings_path(void);

G_END_DECLS

#endif
