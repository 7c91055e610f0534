/* SPDX-License-Identifier: MIT */
/* compare_cli.c - inputs, options and header of the comparing verbs. */
#include "compare_cli.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cli_common.h"
#include "plot_args.h"
#include "sp_agg.h"
#include "sp_analysis_internal.h"

/* ---------------------------------------------------------------- lists */

static int push_path(sp__run_list *l, const char *path)
{
    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        char **p = realloc(l->paths, cap * sizeof *p);
        if (!p)
            return SP_ENOMEM;
        l->paths = p;
        l->cap = cap;
    }
    l->paths[l->n] = strdup(path);
    if (!l->paths[l->n])
        return SP_ENOMEM;
    l->n++;
    return 0;
}

static int is_h5(const struct dirent *d)
{
    size_t n = strlen(d->d_name);
    return n > 3 && strcmp(d->d_name + n - 3, ".h5") == 0;
}

int sp__run_list_add(sp__run_list *l, const char *path, const char *verb)
{
    struct stat st;
    if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
        if (push_path(l, path)) {
            sp__cli_error("out of memory");
            return SP_CLI_EXIT_FAILURE;
        }
        return 0; /* a file (or a missing one: reported when opened) */
    }
    struct dirent **names = NULL;
    int n = scandir(path, &names, is_h5, alphasort);
    if (n < 0) {
        sp__cli_error("%s: cannot list directory '%s': %s", verb, path, strerror(errno));
        return SP_CLI_EXIT_USAGE;
    }
    int rc = 0;
    for (int i = 0; i < n; i++) {
        char *p = sp__strdup_printf("%s/%s", path, names[i]->d_name);
        if (!rc && (!p || push_path(l, p)))
            rc = SP_CLI_EXIT_FAILURE;
        free(p);
        free(names[i]);
    }
    free(names);
    if (rc) {
        sp__cli_error("out of memory");
        return rc;
    }
    if (n == 0)
        return sp__cli_usage_error(verb, "directory '%s' has no *.h5 runs", path);
    return 0;
}

int sp__run_list_open(sp__run_list *l, unsigned flags)
{
    l->runs = calloc(l->n ? l->n : 1, sizeof *l->runs);
    if (!l->runs) {
        sp__cli_error("out of memory");
        return SP_CLI_EXIT_FAILURE;
    }
    for (size_t i = 0; i < l->n; i++) {
        l->runs[i] = sp__cli_open_agg(l->paths[i], flags);
        if (!l->runs[i])
            return SP_CLI_EXIT_USAGE;
    }
    return 0;
}

void sp__run_list_free(sp__run_list *l)
{
    for (size_t i = 0; i < l->n; i++) {
        free(l->paths[i]);
        if (l->runs)
            sp_run_free(l->runs[i]);
    }
    free(l->paths);
    free(l->runs);
    memset(l, 0, sizeof *l);
}

/* ---------------------------------------------------------------- options */

void sp__cmp_cli_init(sp__cmp_cli *a)
{
    memset(a, 0, sizeof *a);
    sp_compare_options_init(&a->o);
}

int sp__cmp_cli_take_lists(sp__cmp_cli *a, int *argc, char **argv)
{
    int out = 1;
    sp__run_list *cur = NULL;
    bool ended = false; /* after "--": operands only */
    for (int i = 1; i < *argc; i++) {
        char *s = argv[i];
        sp__run_list *which = NULL;
        const char *inline_val = NULL;
        if (!ended && (strcmp(s, "--base") == 0 || strncmp(s, "--base=", 7) == 0)) {
            which = &a->base;
            inline_val = s[6] == '=' ? s + 7 : NULL;
        } else if (!ended && (strcmp(s, "--cand") == 0 || strcmp(s, "--candidate") == 0 ||
                              strncmp(s, "--cand=", 7) == 0 ||
                              strncmp(s, "--candidate=", 12) == 0)) {
            which = &a->cand;
            const char *eq = strchr(s, '=');
            inline_val = eq ? eq + 1 : NULL;
        }
        if (which) {
            cur = which;
            a->lists = true;
            if (inline_val) {
                int rc = sp__run_list_add(cur, inline_val, argv[0]);
                if (rc)
                    return rc;
                cur = NULL;
            }
            continue;
        }
        if (strcmp(s, "--") == 0)
            ended = true;
        if (cur && s[0] != '-') {
            int rc = sp__run_list_add(cur, s, argv[0]);
            if (rc)
                return rc;
            continue;
        }
        cur = NULL;
        argv[out++] = s;
    }
    if (a->lists && (a->base.n == 0 || a->cand.n == 0))
        return sp__cli_usage_error(argv[0], "--base and --cand each need at least one run");
    argv[out] = NULL;
    *argc = out;
    return 0;
}

int sp__cmp_cli_option(sp__cmp_cli *a, int c, const char *arg, const char *verb)
{
    switch (c) {
    case 'a':
        if (sp__cli_parse_number(arg, 0, 1, &a->o.alpha) || a->o.alpha <= 0)
            return sp__cli_usage_error(verb, "invalid --alpha '%s' (between 0 and 1)", arg);
        return 0;
    case 'i':
        a->include = arg;
        return 0;
    case 'e':
        a->exclude = arg;
        return 0;
    case 'm':
        /* The model compares time per rank; of the former metrics only the
         * choice of inclusive or own time remains. */
        if (strcmp(arg, "total") == 0 || strcmp(arg, "inclusive") == 0)
            a->o.own = false;
        else if (strcmp(arg, "own") == 0)
            a->o.own = true;
        else
            return sp__cli_usage_error(verb,
                                       "unknown metric '%s' (valid: own, total; comparisons use "
                                       "the time per rank)",
                                       arg);
        return 0;
    case SP__CMP_OPT_MIN_TIME:
        if (sp__cli_parse_number(arg, 0, 0, &a->o.min_time_s))
            return sp__cli_usage_error(verb, "invalid --min-time '%s' (seconds >= 0)", arg);
        return 0;
    case SP__CMP_OPT_MIN_SHARE:
        if (sp__cli_parse_number(arg, 0, 100, &a->o.min_share_pct))
            return sp__cli_usage_error(verb, "invalid --min-share '%s' (a percentage 0-100)", arg);
        return 0;
    case SP__CMP_OPT_MIN_CHANGE:
        if (sp__cli_parse_number(arg, 0, 0, &a->o.min_change_pct))
            return sp__cli_usage_error(verb, "invalid --max-regression '%s' (a percentage >= 0)",
                                       arg);
        return 0;
    case SP__CMP_OPT_OWN:
        a->o.own = true;
        return 0;
    case SP__CMP_OPT_INCLUSIVE:
        a->o.own = false;
        return 0;
    case SP__CMP_OPT_ESTIMATOR:
        if (strcmp(arg, "quantile") == 0)
            a->o.estimator = SP_CMP_EST_QUANTILE;
        else if (strcmp(arg, "hl") == 0)
            a->o.estimator = SP_CMP_EST_HL;
        else
            return sp__cli_usage_error(verb, "unknown estimator '%s' (valid: quantile, hl)", arg);
        return 0;
    case SP__CMP_OPT_QUANTILE:
        if (sp__cli_parse_number(arg, 0, 1, &a->o.quantile) || a->o.quantile <= 0)
            return sp__cli_usage_error(verb, "invalid --quantile '%s' (between 0 and 1)", arg);
        return 0;
    default:
        return 1;
    }
}

int sp__cmp_cli_run(sp__cmp_cli *a, int argc, char **argv, int fail_status)
{
    const char *verb = argv[0];
    if (a->lists) {
        if (optind < argc)
            return sp__cli_usage_error(verb, "unexpected argument '%s' (the runs are given by "
                                             "--base and --cand)",
                                       argv[optind]);
    } else {
        int rc = sp__cli_expect_operands(argc, argv, 2, verb,
                                         "BASE and CANDIDATE (files, directories, or --base/--cand)");
        if (rc)
            return rc;
        if ((rc = sp__run_list_add(&a->base, argv[optind], verb)) ||
            (rc = sp__run_list_add(&a->cand, argv[optind + 1], verb)))
            return rc;
    }
    if (sp__cli_region_filter(verb, a->include, a->exclude, &a->filter))
        return SP_CLI_EXIT_USAGE;
    a->o.filter = a->filter;
    unsigned flags = SP_COMPARE_AGG_FLAGS(a->o.tree);
    int rc = sp__run_list_open(&a->base, flags);
    if (!rc)
        rc = sp__run_list_open(&a->cand, flags);
    if (rc)
        return rc;
    a->cmp = sp_compare_runs((const sp_run *const *)a->base.runs, a->base.n,
                             (const sp_run *const *)a->cand.runs, a->cand.n, &a->o);
    if (!a->cmp) {
        sp__cli_error("%s", sp_last_error());
        return fail_status;
    }
    return 0;
}

void sp__cmp_cli_free(sp__cmp_cli *a)
{
    sp_compare_free(a->cmp);
    sp__run_list_free(&a->base);
    sp__run_list_free(&a->cand);
    sp_region_filter_free(a->filter);
    memset(a, 0, sizeof *a);
}

/* ---------------------------------------------------------------- header */

static size_t regions_with_calls(const sp_run *run)
{
    size_t n = 0;
    for (size_t g = 0; run->regions && g < run->nregions; g++)
        n += run->regions[g].all.calls > 0;
    return n;
}

void sp__cmp_cli_describe_side(const sp__run_list *l, FILE *out)
{
    if (l->n == 1) {
        const sp_run *run = l->runs[0];
        size_t nreg = regions_with_calls(run);
        fprintf(out, "%s (%zu rank%s, %zu region%s)\n", l->paths[0], run->nranks,
                run->nranks == 1 ? "" : "s", nreg, nreg == 1 ? "" : "s");
        return;
    }
    fprintf(out, "%zu runs:", l->n);
    for (size_t i = 0; i < l->n; i++) {
        if (i == 4 && l->n > 5) {
            fprintf(out, " ... %s", l->paths[l->n - 1]);
            break;
        }
        fprintf(out, "%s %s", i ? "," : "", l->paths[i]);
    }
    fputc('\n', out);
}

void sp__cmp_cli_print_header(const sp__cmp_cli *a, FILE *out, int w)
{
    char buf[512];
    const sp_compare *c = a->cmp;
    fprintf(out, "%-*s ", w, "base:");
    sp__cmp_cli_describe_side(&a->base, out);
    fprintf(out, "%-*s ", w, "candidate:");
    sp__cmp_cli_describe_side(&a->cand, out);
    fprintf(out, "%-*s %s\n", w, "mode:", sp_compare_mode_text(c, buf, sizeof buf));
    fprintf(out, "%-*s %s\n", w, "method:", sp_compare_method_text(c, buf, sizeof buf));
    fprintf(out, "%-*s %s\n", w, "per rank:", sp_compare_ranks_text(c, buf, sizeof buf));
    fprintf(out, "%-*s %s\n", w, "CPU wait:", sp_compare_sched_text(c, buf, sizeof buf));
    if (c->mode == SP_CMP_MODE_CALLS)
        fprintf(out, "%-*s %s\n", w, "common:", sp_compare_common_text(c, buf, sizeof buf));
    sp_cmp_tally t;
    sp_compare_tally(c, &t);
    fprintf(out, "%-*s %s\n", w, "summary:", sp_compare_tally_text(&t, buf, sizeof buf));
}
