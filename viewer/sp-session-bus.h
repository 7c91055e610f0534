/* SPDX-License-Identifier: MIT */
/* sp-session-bus.h - whether a D-Bus session bus can be reached, and what
 * the viewer does without one. */
#ifndef SP_SESSION_BUS_H
#define SP_SESSION_BUS_H

#include <gio/gio.h>

G_BEGIN_DECLS

/* TRUE when a session bus is there to connect to: DBUS_SESSION_BUS_ADDRESS
 * is set, or $XDG_RUNTIME_DIR/bus is a socket (systemd's user bus). GLib
 * would otherwise try to start one with dbus-launch (X11 autolaunch). */
gboolean sp_session_bus_reachable(void);

/* Before GTK starts, without a session bus: the application does not try to
 * register on one (G_APPLICATION_NON_UNIQUE: each start is its own
 * process), and GTK's accessibility is off (GTK_A11Y=none, unless set or
 * AT_SPI_BUS_ADDRESS names the bus), because GTK looks for the AT-SPI bus
 * through the session bus and warns "Unable to acquire session bus" at every
 * start when there is none (xvfb-run, ssh, containers). */
void sp_session_bus_adapt(GApplication *app);

G_END_DECLS

#endif
