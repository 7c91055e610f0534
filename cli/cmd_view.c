/* SPDX-License-Identifier: MIT */
/*
 * cmd_view.c - `scope-profiler view FILE [FILE2]`: open runs in the desktop
 * viewer. This process becomes scope-profiler-viewer (exec), found next to
 * this program (installed: the same bindir; build tree: ../viewer), else on
 * PATH.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_common.h"
#include "cli_verbs.h"

#define VIEWER_NAME "scope-profiler-viewer"

static const char view_usage[] =
    "usage: " SP_CLI_NAME " view [VIEWER-OPTIONS] FILE [FILE2...]\n\n"
    "Open a run (or compare two: base, candidate; or three or more runs at\n"
    "different rank counts: a scaling study) in " VIEWER_NAME ",\n"
    "the GTK 4 desktop viewer. Every viewer option passes through (see\n"
    "`" VIEWER_NAME " --help`), e.g.\n"
    "  " SP_CLI_NAME " view --screenshot out.png --page timeline run.h5\n\n"
    "Options:\n"
    "  -h, --help  show this help\n";

/* The viewer beside this program, or NULL to search PATH. */
static const char *find_viewer(char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    static const char *const rel[] = {".", "../viewer"};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        int w = snprintf(out, size, "%s/%s/" VIEWER_NAME, exe, rel[i]);
        if (w > 0 && (size_t)w < size && access(out, X_OK) == 0)
            return out;
    }
    return NULL;
}

int sp__cmd_view(int argc, char **argv)
{
    if (argc < 2) {
        sp__cli_error("view: missing FILE (see '" SP_CLI_NAME " view --help')");
        return SP_CLI_EXIT_USAGE;
    }
    if (strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0) {
        fputs(view_usage, stdout);
        return sp__cli_finish_output(SP_CLI_EXIT_OK);
    }
    char path[PATH_MAX];
    const char *viewer = find_viewer(path, sizeof path);
    argv[0] = (char *)(viewer ? viewer : VIEWER_NAME); /* the viewer's own argv[0] */
    if (viewer)
        execv(viewer, argv);
    else
        execvp(VIEWER_NAME, argv);
    sp__cli_error("view: cannot start " VIEWER_NAME ": %s (was it built? it needs GTK 4)",
                  strerror(errno));
    return SP_CLI_EXIT_USAGE;
}
