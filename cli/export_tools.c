/* SPDX-License-Identifier: MIT */
/*
 * export_tools.c - the formats of other tools' readers: otf2 and perfetto
 * (the calls streamed from the file, export_select.h) and caliper-json (the
 * call tree from the aggregates). cmd_export.c hands them over after its
 * option parsing.
 */
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "export.h"
#include "export_otf2.h"
#include "export_otf2_mpi.h"
#include "export_select.h"
#include "sp_error.h"

enum { T_OTF2, T_PERFETTO, T_CALIPER };
static const char *const names[] = {"otf2", "perfetto", "caliper-json"};

int sp__tool_format(const char *name)
{
    for (int k = 0; k < (int)(sizeof names / sizeof *names); k++)
        if (strcmp(name, names[k]) == 0)
            return k;
    return -1;
}

static void print_path(const char *path)
{
    printf("%s\n", path);
}

/* otf2: the calls, and the MPI messages and collectives the run recorded
 * as OTF2 MPI events (export_otf2_mpi.h). */
static int export_otf2(sp__trace_input *in, const char *out)
{
#ifdef SP_HAVE_OTF2
    sp__otf2_mpi *mpi = NULL;
    sp__otf2_extra x;
    int err = sp__otf2_mpi_new(in, &mpi, &x);
    if (err == 0)
        err = sp__export_otf2(in, out, mpi ? &x : NULL, print_path);
    sp__otf2_mpi_free(mpi);
    return err;
#else
    return sp__export_otf2(in, out, NULL, print_path);
#endif
}

/* otf2 and perfetto: the calls streamed from the file. */
static int export_trace(int fmt, const char *verb, const char *path, const char *out,
                        const sp__selection *sel, const sp__window_opts *win)
{
    if (fmt == T_OTF2 && strcmp(out, "-") == 0)
        return sp__cli_usage_error(verb, "otf2 writes a directory; -o - is not possible");
    sp__trace_input in;
    int rc = sp__trace_input_open(verb, path, sel, win, &in);
    if (rc)
        return rc;
    int err;
    if (fmt == T_OTF2)
        err = export_otf2(&in, out);
    else
        err = sp__export_perfetto(&in, out, print_path, NULL, NULL);
    sp__trace_input_close(&in);
    if (err) {
        sp__cli_error("%s", sp_last_error());
        return err == SP_ENOTSUP ? SP_CLI_EXIT_USAGE : SP_CLI_EXIT_FAILURE;
    }
    return sp__cli_finish_output(SP_CLI_EXIT_OK);
}

/* caliper-json: aggregates only, read aggregate-first (in a child process
 * when isolation is on, as summary reads). */
static int export_caliper(const char *verb, const char *path, const char *out,
                          const sp__selection *sel, const sp__window_opts *win)
{
    if (sel->include || sel->exclude || win->has_from || win->has_to || win->top_n)
        return sp__cli_usage_error(verb, "caliper-json writes the whole call tree: only --ranks "
                                         "selects");
    sp_run *run = sp__cli_open_agg(path, 0);
    if (!run)
        return SP_CLI_EXIT_USAGE;
    bool *keep = calloc(run->nranks + 1, sizeof *keep);
    int rc = keep ? 0 : SP_CLI_EXIT_FAILURE;
    for (size_t i = 0; rc == 0 && i < sel->ranks.n; i++)
        if (sel->ranks.r[i].lo < 0 || (size_t)sel->ranks.r[i].hi >= run->nranks)
            rc = sp__cli_usage_error(verb, "--ranks: rank %ld is not in %s (%zu ranks: 0-%zu)",
                                     sel->ranks.r[i].lo < 0 ? sel->ranks.r[i].lo
                                                            : sel->ranks.r[i].hi,
                                     path, run->nranks, run->nranks ? run->nranks - 1 : 0);
    for (size_t r = 0; rc == 0 && r < run->nranks; r++)
        keep[r] = sp__rank_list_has(&sel->ranks, (long)r);
    if (rc == 0 && sp__export_caliper(run, keep, out, print_path)) {
        sp__cli_error("%s", sp_last_error());
        rc = SP_CLI_EXIT_FAILURE;
    }
    free(keep);
    sp_run_free(run);
    return rc ? rc : sp__cli_finish_output(SP_CLI_EXIT_OK);
}

int sp__export_tool(int format, const char *verb, const char *path, const char *out,
                    const sp__selection *sel, const sp__window_opts *w)
{
    if (format == T_CALIPER)
        return export_caliper(verb, path, out, sel, w);
    return export_trace(format, verb, path, out, sel, w);
}
