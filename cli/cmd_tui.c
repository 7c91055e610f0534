/* SPDX-License-Identifier: MIT */
/* cmd_tui.c - `scope-profiler tui FILE`: an ncurses browser of a run
 * (tui_*.c). */
#include "cli_common.h"
#include "cli_verbs.h"
#include "plot_args.h"
#include "tui.h"

static const char tui_usage[] =
    "usage: " SP_CLI_NAME " tui FILE\n\n"
    "Browse a run in the terminal. Screens (Tab / Shift-Tab or 1-4):\n"
    "  1 Regions    the region table; sort with t (total), o (own), c (calls),\n"
    "               m (mean), x (max), p (p95), n (name); / filters by name\n"
    "               (Enter applies, Esc clears); Enter shows the region per rank\n"
    "  2 Call tree  Enter or space expands / collapses (Enter on a leaf: its\n"
    "               ranks), right / left open / close, + / - everything\n"
    "  3 Ranks      the selected region on every rank, with its imbalance\n"
    "  4 Info       the run's facts and metadata\n"
    "Arrows, Page Up / Down, Home / End move; q quits.\n\n"
    "Options:\n"
    "  -h, --help  show this help\n";

int sp__cmd_tui(int argc, char **argv)
{
    int rc = sp__cli_parse_file_only(argc, argv, tui_usage);
    if (rc >= 0)
        return rc;
#ifndef SP_HAVE_NCURSES
    sp__cli_error("tui: scope-profiler was built without ncurses/cairo (the TUI needs ncursesw)");
    return SP_CLI_EXIT_USAGE;
#else
    const char *path = argv[optind];
    sp_run *run = sp__open_analyzed(path);
    if (!run)
        return SP_CLI_EXIT_USAGE;
    rc = sp__tui_run(run, path);
    sp_run_free(run);
    if (rc) {
        sp__cli_error("tui: %s", sp_last_error());
        return SP_CLI_EXIT_USAGE;
    }
    return SP_CLI_EXIT_OK;
#endif
}
