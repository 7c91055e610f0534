/* SPDX-License-Identifier: MIT */
/* sp-viewer-settings.c - window size remembered in a key file. */
#include "sp-viewer-settings.h"

#include <errno.h>

#include <glib/gstdio.h>

static gboolean settings_enabled = TRUE;

void sp_viewer_settings_set_enabled(gboolean enabled) { settings_enabled = enabled; }
gboolean sp_viewer_settings_get_enabled(void) { return settings_enabled; }

char *sp_viewer_settings_path(void)
{
    return g_build_filename(g_get_user_config_dir(), "scope-profiler", "viewer.ini", NULL);
}

static GKeyFile *load(void)
{
    g_autofree char *path = sp_viewer_settings_path();
    GKeyFile *kf = g_key_file_new();
    /* A missing or broken file just means defaults. */
    g_key_file_load_from_file(kf, path, G_KEY_FILE_KEEP_COMMENTS, NULL);
    return kf;
}

gboolean sp_viewer_settings_get_window_size(int *width, int *height, gboolean *maximized)
{
    if (!settings_enabled)
        return FALSE;
    g_autoptr(GKeyFile) kf = load();
    g_autoptr(GError) error = NULL;
    int w = g_key_file_get_integer(kf, "window", "width", &error);
    if (error)
        return FALSE;
    int h = g_key_file_get_integer(kf, "window", "height", &error);
    if (error || w < 200 || h < 150 || w > 16384 || h > 16384)
        return FALSE;
    *width = w;
    *height = h;
    *maximized = g_key_file_get_boolean(kf, "window", "maximized", NULL);
    return TRUE;
}

void sp_viewer_settings_set_window_size(int width, int height, gboolean maximized)
{
    if (!settings_enabled)
        return;
    g_autoptr(GKeyFile) kf = load();
    g_key_file_set_integer(kf, "window", "width", width);
    g_key_file_set_integer(kf, "window", "height", height);
    g_key_file_set_boolean(kf, "window", "maximized", maximized);
    g_autofree char *path = sp_viewer_settings_path();
    g_autofree char *dir = g_path_get_dirname(path);
    g_autoptr(GError) error = NULL;
    if (g_mkdir_with_parents(dir, 0700) != 0 || !g_key_file_save_to_file(kf, path, &error))
        g_warning("could not save %s: %s", path, error ? error->message : g_strerror(errno));
}
