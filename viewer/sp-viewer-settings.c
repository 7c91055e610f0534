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

/* ---- source directories (the Lines page: sp_source.h) ---- */

static GPtrArray *cli_source_dirs; /* from --source-dir, in order */
static char **source_dirs_cache;   /* what get_source_dirs() last returned */

void sp_viewer_settings_add_source_dir(const char *dir)
{
    if (!cli_source_dirs)
        cli_source_dirs = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(cli_source_dirs, g_strdup(dir));
}

const char *const *sp_viewer_settings_get_source_dirs(void)
{
    GPtrArray *all = g_ptr_array_new_with_free_func(g_free);
    for (guint i = 0; cli_source_dirs && i < cli_source_dirs->len; i++)
        g_ptr_array_add(all, g_strdup(cli_source_dirs->pdata[i]));
    if (settings_enabled) {
        g_autoptr(GKeyFile) kf = load();
        gsize n = 0;
        g_auto(GStrv) dirs = g_key_file_get_string_list(kf, "sources", "dirs", &n, NULL);
        for (gsize i = 0; dirs && i < n; i++)
            g_ptr_array_add(all, g_strdup(dirs[i]));
    }
    g_ptr_array_add(all, NULL);
    g_strfreev(source_dirs_cache);
    source_dirs_cache = (char **)g_ptr_array_free(all, FALSE);
    return (const char *const *)source_dirs_cache;
}
