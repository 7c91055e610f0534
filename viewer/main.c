/* SPDX-License-Identifier: MIT */
/* main.c - scope-profiler-viewer: the GTK 4 desktop viewer. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp-run-document.h"
#include "sp-session-bus.h"
#include "sp-viewer-application.h"
#include "sp_display.h"
#include "sp_h5.h"
#include "sp_mem.h"
#include "sp_run_read.h"

/* What the viewer prints (errors of a screenshot run, --version, the
 * benchmark) may quote names and paths from a file: escaped like the CLI's
 * output (sp_display.h), never a raw control sequence. */
static void print_escaped(FILE *f, const char *s)
{
    char *e = g_malloc(4 * strlen(s) + 1);
    size_t n = sp_display_escape_bytes(e, s, strlen(s), SP_DISPLAY_KEEP_NEWLINE, NULL);
    fwrite(e, 1, n, f);
    fflush(f);
    g_free(e);
}
static void print_out(const char *s) { print_escaped(stdout, s); }
static void print_err(const char *s) { print_escaped(stderr, s); }

int main(int argc, char **argv)
{
    /* The reading helper: the viewer runs itself to read each file in its
     * own process (sp_run_read with isolation: the aggregate pass there,
     * only the header and the aggregates sent back), so a file that crashes
     * libhdf5 ends in an error page, not in the loss of the window and its
     * other runs. Nothing of GTK is started in that mode. */
    if (argc == 4 && strcmp(argv[1], SP_VIEWER_READ_HELPER_OPTION) == 0) {
        sp_mem_tune_for_reading();
        return sp_run_read_helper_main(argv[3], (unsigned)strtoul(argv[2], NULL, 10));
    }
    g_set_print_handler(print_out);
    g_set_printerr_handler(print_err);
    char exe[4096];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n > 0) {
        exe[n] = '\0';
        sp_run_document_set_read_helper(exe);
    }
    g_autoptr(SpViewerApplication) app = sp_viewer_application_new();
    sp_session_bus_adapt(G_APPLICATION(app)); /* no dbus-launch warning without a bus */
    int status = g_application_run(G_APPLICATION(app), argc, argv);
    return status ? status : sp_viewer_application_get_exit_status(app);
}
