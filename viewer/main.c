/* SPDX-License-Identifier: MIT */
/* main.c - scope-profiler-viewer: the GTK 4 desktop viewer. */
#include "sp-viewer-application.h"

int main(int argc, char **argv)
{
    g_autoptr(SpViewerApplication) app = sp_viewer_application_new();
    int status = g_application_run(G_APPLICATION(app), argc, argv);
    return status ? status : sp_viewer_application_get_exit_status(app);
}
