/* SPDX-License-Identifier: MIT */
/* sp-session-bus.c - a viewer started where no D-Bus session bus exists. */
#include "sp-session-bus.h"

#include <sys/stat.h>

gboolean sp_session_bus_reachable(void)
{
    const char *address = g_getenv("DBUS_SESSION_BUS_ADDRESS");
    if (address && *address)
        return TRUE;
    const char *runtime = g_getenv("XDG_RUNTIME_DIR");
    if (!runtime || !*runtime)
        return FALSE;
    g_autofree char *path = g_build_filename(runtime, "bus", NULL);
    struct stat st;
    return stat(path, &st) == 0 && S_ISSOCK(st.st_mode);
}

void sp_session_bus_adapt(GApplication *app)
{
    if (sp_session_bus_reachable())
        return;
    g_application_set_flags(app, g_application_get_flags(app) | G_APPLICATION_NON_UNIQUE);
    const char *atspi = g_getenv("AT_SPI_BUS_ADDRESS");
    if (!atspi || !*atspi)
        g_setenv("GTK_A11Y", "none", FALSE); /* FALSE: a user's choice stays */
}
