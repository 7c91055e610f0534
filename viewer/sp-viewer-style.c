/* SPDX-License-Identifier: MIT */
/* sp-viewer-style.c - CSS and dark mode. Plain GTK 4.8 does not follow the
 * desktop's color-scheme by itself (libadwaita does), so ask the portal. */
#include "sp-viewer-style.h"
#include "sp-session-bus.h"

#include <gtk/gtk.h>

static GDBusProxy *portal; /* kept for the SettingChanged signal */

static void set_dark(gboolean dark)
{
    g_object_set(gtk_settings_get_default(), "gtk-application-prefer-dark-theme", dark, NULL);
}

/* color-scheme: 0 no preference, 1 prefer dark, 2 prefer light. */
static void apply_color_scheme(GVariant *value)
{
    while (value && g_variant_is_of_type(value, G_VARIANT_TYPE_VARIANT)) {
        GVariant *inner = g_variant_get_variant(value);
        g_variant_unref(value);
        value = inner;
    }
    if (value && g_variant_is_of_type(value, G_VARIANT_TYPE_UINT32))
        set_dark(g_variant_get_uint32(value) == 1);
    if (value)
        g_variant_unref(value);
}

static void on_read(GObject *source, GAsyncResult *result, gpointer data)
{
    g_autoptr(GVariant) reply = g_dbus_proxy_call_finish(G_DBUS_PROXY(source), result, NULL);
    if (!reply)
        return; /* no portal: keep GTK's own setting */
    GVariant *value = NULL;
    g_variant_get(reply, "(v)", &value);
    apply_color_scheme(value);
}

static void on_setting_changed(GDBusProxy *proxy, const char *sender, const char *signal,
                               GVariant *params, gpointer data)
{
    if (g_strcmp0(signal, "SettingChanged") != 0)
        return;
    const char *ns = NULL, *key = NULL;
    GVariant *value = NULL;
    g_variant_get(params, "(&s&sv)", &ns, &key, &value);
    if (g_strcmp0(ns, "org.freedesktop.appearance") == 0 && g_strcmp0(key, "color-scheme") == 0)
        apply_color_scheme(value);
    else
        g_variant_unref(value);
}

static void on_proxy(GObject *source, GAsyncResult *result, gpointer data)
{
    portal = g_dbus_proxy_new_for_bus_finish(result, NULL);
    if (!portal)
        return;
    g_signal_connect(portal, "g-signal", G_CALLBACK(on_setting_changed), NULL);
    g_dbus_proxy_call(portal, "Read",
                      g_variant_new("(ss)", "org.freedesktop.appearance", "color-scheme"),
                      G_DBUS_CALL_FLAGS_NONE, 2000, NULL, on_read, NULL);
}

void sp_viewer_style_init(gboolean follow_portal)
{
    GtkCssProvider *css = gtk_css_provider_new();
    gtk_css_provider_load_from_resource(css, "/org/scopeprofiler/Viewer/style.css");
    gtk_style_context_add_provider_for_display(gdk_display_get_default(), GTK_STYLE_PROVIDER(css),
                                               GTK_STYLE_PROVIDER_PRIORITY_APPLICATION);
    g_object_unref(css);

    const char *forced = g_getenv("SCOPE_PROFILER_VIEWER_STYLE");
    if (forced && (g_str_equal(forced, "dark") || g_str_equal(forced, "light"))) {
        set_dark(g_str_equal(forced, "dark"));
        return;
    }
    /* Only session buses have a portal; skip when there is none, so no
     * D-Bus autolaunch is attempted. */
    if (follow_portal && sp_session_bus_reachable())
        g_dbus_proxy_new_for_bus(G_BUS_TYPE_SESSION, G_DBUS_PROXY_FLAGS_DO_NOT_LOAD_PROPERTIES,
                                 NULL, "org.freedesktop.portal.Desktop",
                                 "/org/freedesktop/portal/desktop",
                                 "org.freedesktop.portal.Settings", NULL, on_proxy, NULL);
}
