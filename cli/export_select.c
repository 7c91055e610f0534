/* SPDX-License-Identifier: MIT */
/* export_select.c - a run opened for a timeline export (see export_select.h). */
#include "export_select.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "sp_error.h"
#include "sp_run_read.h"

int sp__window_option(sp__window_opts *w, int c, const char *arg, const char *verb)
{
    double v;
    switch (c) {
    case SP__OPT_FROM:
    case SP__OPT_TO:
        if (sp__cli_parse_number(arg, 0, 0, &v) || !isfinite(v) || v > 1e9)
            return sp__cli_usage_error(verb, "invalid %s '%s' (seconds from the run's start, >= 0)",
                                       c == SP__OPT_FROM ? "--from" : "--to", arg);
        if (c == SP__OPT_FROM) {
            w->has_from = true;
            w->from_s = v;
        } else {
            w->has_to = true;
            w->to_s = v;
        }
        break;
    case 'n':
        if (sp__count_parse(arg, "--top", 1000000000, &w->top_n))
            return sp__cli_usage_error(verb, "%s", sp_last_error());
        break;
    }
    if (w->has_from && w->has_to && w->to_s < w->from_s)
        return sp__cli_usage_error(verb, "--to %g is before --from %g", w->to_s, w->from_s);
    return 0;
}

static int pick_ranks(const char *verb, const char *path, const sp_run *run,
                      const sp__rank_list *list, bool *keep)
{
    for (size_t i = 0; i < list->n; i++)
        if (list->r[i].lo < 0 || (size_t)list->r[i].hi >= run->nranks) {
            sp__cli_usage_error(verb, "--ranks: rank %ld is not in %s (%zu ranks: 0-%zu)",
                                list->r[i].lo < 0 ? list->r[i].lo : list->r[i].hi, path,
                                run->nranks, run->nranks ? run->nranks - 1 : 0);
            return SP_CLI_EXIT_USAGE;
        }
    for (size_t r = 0; r < run->nranks; r++)
        keep[r] = sp__rank_list_has(list, (long)r);
    return 0;
}

/* regions[]: the filter's matches, cut to the top n by total time (n = 0:
 * all), in the order inspect sorts them (sp_run_sorted_regions: total
 * time, then name), as the other exports' --top. */
static int pick_regions(sp__trace_input *in, const sp_region_filter *f, long top_n)
{
    const sp_run *run = in->run;
    if (!f && top_n <= 0) {
        in->nregions_shown = run->nregions;
        return 0;
    }
    in->regions = calloc(run->nregions ? run->nregions : 1, sizeof *in->regions);
    int32_t *ids = NULL;
    long n = in->regions ? sp_run_sorted_regions(run, SP_SORT_TOTAL, f, &ids) : -1;
    if (n < 0) {
        free(ids);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    size_t kept = 0;
    for (long i = 0; i < n; i++)
        if (top_n <= 0 || (long)kept < top_n) {
            in->regions[ids[i]] = true;
            kept++;
        }
    in->nregions_shown = kept;
    free(ids);
    return 0;
}

int sp__trace_input_open(const char *verb, const char *path, const sp__selection *sel,
                         const sp__window_opts *w, sp__trace_input *in)
{
    memset(in, 0, sizeof *in);
    sp_region_filter *filter = NULL;
    if (sp__cli_region_filter(verb, sel->include, sel->exclude, &filter))
        return SP_CLI_EXIT_USAGE;
    int status = 0, rc = SP_CLI_EXIT_USAGE;
    in->src = sp_run_source_open(path, &status);
    if (!in->src) {
        sp__cli_report_open_error(path);
        goto done;
    }
    in->run = in->src->run;
    in->ranks = calloc(in->run->nranks ? in->run->nranks : 1, sizeof *in->ranks);
    if (!in->ranks) {
        sp__cli_error("out of memory");
        rc = SP_CLI_EXIT_FAILURE;
        goto done;
    }
    if (pick_ranks(verb, path, in->run, &sel->ranks, in->ranks))
        goto done;
    sp_agg_opts opts = {.flags = SP_AGG_LANES, .ranks = in->ranks};
    if (sp_run_aggregate(in->src, &opts)) {
        sp__cli_report_open_error(path);
        goto done;
    }
    const sp_agg *agg = in->run->agg;
    in->origin_ns = agg->has_span ? agg->first_ns : 0;
    if (pick_regions(in, filter, w ? w->top_n : 0)) {
        sp__cli_error("%s", sp_last_error());
        rc = SP_CLI_EXIT_FAILURE;
        goto done;
    }
    in->sel.ranks = in->ranks;
    in->sel.regions = in->regions;
    if (w && (w->has_from || w->has_to)) {
        in->sel.window = true;
        in->sel.t0_ns = w->has_from ? in->origin_ns + (int64_t)llround(w->from_s * 1e9) : INT64_MIN;
        in->sel.t1_ns = w->has_to ? in->origin_ns + (int64_t)llround(w->to_s * 1e9) : INT64_MAX;
    }
    rc = 0;
done:
    sp_region_filter_free(filter);
    if (rc)
        sp__trace_input_close(in);
    return rc;
}

void sp__trace_input_close(sp__trace_input *in)
{
    sp_event_source_free(in->src);
    free(in->ranks);
    free(in->regions);
    memset(in, 0, sizeof *in);
}
