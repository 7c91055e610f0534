/* SPDX-License-Identifier: MIT */
/* diff_runs.c - options and inputs shared by `diff` and `check`. */
#include "diff_runs.h"

#include <string.h>

#include "cli_common.h"
#include "plot_args.h"

void sp__diff_runs_init(sp__diff_runs *r)
{
    memset(r, 0, sizeof *r);
    sp_diff_options_init(&r->o);
}

int sp__diff_runs_option(sp__diff_runs *r, int c, const char *arg, const char *verb)
{
    switch (c) {
    case 'm':
        if (sp_diff_metric_parse(arg, &r->o.metric))
            return sp__cli_usage_error(verb, "%s", sp_last_error());
        break;
    case 'a':
        if (sp__cli_parse_number(arg, 0, 1, &r->o.alpha) || r->o.alpha <= 0)
            return sp__cli_usage_error(verb, "invalid --alpha '%s' (between 0 and 1)", arg);
        break;
    case 'i':
        r->include = arg;
        break;
    case 'e':
        r->exclude = arg;
        break;
    }
    return 0;
}

int sp__diff_runs_open(sp__diff_runs *r, int argc, char **argv, bool tree, int diff_failed)
{
    int rc = sp__cli_expect_operands(argc, argv, 2, argv[0], "BASE and CANDIDATE files");
    if (rc)
        return rc;
    if (sp__cli_region_filter(argv[0], r->include, r->exclude, &r->filter))
        return SP_CLI_EXIT_USAGE;
    r->o.filter = r->filter;
    r->bpath = argv[optind];
    r->cpath = argv[optind + 1];
    r->base = sp__open_analyzed(r->bpath);
    r->cand = r->base ? sp__open_analyzed(r->cpath) : NULL;
    if (!r->base || !r->cand)
        return SP_CLI_EXIT_USAGE;
    r->d = tree ? sp_diff_tree(r->base, r->cand, &r->o)
                : sp_diff_regions(r->base, r->cand, &r->o);
    if (!r->d) {
        sp__cli_error("%s", sp_last_error());
        return diff_failed;
    }
    return 0;
}

void sp__diff_runs_free(sp__diff_runs *r)
{
    sp_diff_free(r->d);
    sp_run_free(r->base);
    sp_run_free(r->cand);
    sp_region_filter_free(r->filter);
    memset(r, 0, sizeof *r);
}
