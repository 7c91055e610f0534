/* SPDX-License-Identifier: MIT */
/* cli_common.c - errors, option parsing and run opening for every verb. */
#include "cli_common.h"

#include "cli_progress.h"
#include "sp_run_read.h"

#include "sp_h5.h"
#include "sp_ranks.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void verror(const char *fmt, va_list ap)
{
    fputs(SP_CLI_NAME ": ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
}

void sp__cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    verror(fmt, ap);
    va_end(ap);
}

int sp__cli_usage_error(const char *verb, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    sp__cli_error("%s: %s (see '" SP_CLI_NAME " %s --help')", verb, msg, verb);
    return SP_CLI_EXIT_USAGE;
}

void sp__cli_getopt_reset(void)
{
    optind = 0; /* glibc: 0 re-initialises the scanner, not just the index */
    opterr = 0; /* we print our own one-line messages */
}

int sp__cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts)
{
    char spec[64];
    snprintf(spec, sizeof spec, ":%s", shortopts); /* ':' reports a missing argument as ':' */
    int c = getopt_long(argc, argv, spec, longopts, NULL);
    if (c == '?' || c == ':') {
        const char *arg = argv[optind - 1];
        if (c == ':')
            sp__cli_usage_error(argv[0], "option '%s' needs an argument", arg);
        else if (optopt && strncmp(arg, "--", 2) != 0)
            sp__cli_usage_error(argv[0], "unknown option '-%c'", optopt);
        else
            sp__cli_usage_error(argv[0], "unknown option '%s'", arg);
        return '?';
    }
    return c;
}

int sp__cli_expect_operands(int argc, char **argv, int want, const char *verb, const char *what)
{
    int have = argc - optind;
    if (have < want)
        return sp__cli_usage_error(verb, "missing %s", what);
    if (have > want)
        return sp__cli_usage_error(verb, "unexpected argument '%s'", argv[optind + want]);
    return 0;
}

int sp__cli_parse_file_only(int argc, char **argv, const char *usage)
{
    static const struct option longopts[] = {{"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(argc, argv, "h", longopts)) != -1) {
        switch (c) {
        case 'h':
            fputs(usage, stdout);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            return SP_CLI_EXIT_USAGE;
        }
    }
    int rc = sp__cli_expect_operands(argc, argv, 1, argv[0], "FILE");
    return rc ? rc : -1;
}

int sp__cli_parse_number(const char *s, double lo, double hi, double *out)
{
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !isfinite(v) || v < lo || (hi > lo && v >= hi))
        return -1;
    *out = v;
    return 0;
}

int sp__cli_region_filter(const char *verb, const char *include, const char *exclude,
                          sp_region_filter **out)
{
    *out = NULL;
    if (!include && !exclude)
        return 0;
    *out = sp_region_filter_new(include, exclude);
    return *out ? 0 : sp__cli_usage_error(verb, "%s", sp_last_error());
}

/* The reader's message normally names the file; make sure it does. */
void sp__cli_report_open_error(const char *path)
{
    const char *why = sp_last_error();
    if (*why && strstr(why, path))
        sp__cli_error("%s", why);
    else
        sp__cli_error("cannot read '%s': %s", path, *why ? why : "unknown error");
}

sp_run *(*sp__cli_reader)(const char *path, const sp_agg_opts *opts, int *status);

sp_run *sp__cli_read(const char *path, const sp_agg_opts *opts)
{
    /* Aggregate-first (sp_run_read.h): one streaming pass, in a child
     * process as above, and only the aggregates come back; the run has no
     * calls. The progress line comes from the process that reads. */
    sp_agg_opts o = opts ? *opts : (sp_agg_opts){0};
    sp__progress prog;
    sp__progress_init(&prog, "reading", "events", 0);
    if (prog.enabled && !o.progress) {
        o.progress = sp__progress_pass;
        o.progress_ud = &prog;
    }
    int status;
    sp_run *run = sp__cli_reader ? sp__cli_reader(path, &o, &status)
                                 : sp_run_read(path, &o, NULL, sp_h5_isolation_enabled(), &status);
    sp__progress_erase_after(&prog);
    if (!run)
        sp__cli_report_open_error(path);
    return run;
}

sp_run *sp__cli_open_agg(const char *path, unsigned flags)
{
    sp_agg_opts opts = {.flags = flags};
    return sp__cli_read(path, &opts);
}

sp_event_source *sp__cli_open_source(const char *path, unsigned flags)
{
    /* In this process: windows of calls are read from the source later
     * (sp_window_load), which a reading child cannot serve. */
    sp_agg_opts opts = {.flags = flags};
    int status;
    sp_event_source *src = sp_run_source_open(path, &status);
    if (src && sp_run_aggregate(src, &opts) != 0) {
        sp_event_source_free(src);
        src = NULL;
    }
    if (!src)
        sp__cli_report_open_error(path);
    return src;
}

int sp__cli_open_filtered(const char *verb, const char *path, const char *include,
                          const char *exclude, unsigned flags, sp_run **run,
                          sp_region_filter **filter)
{
    *run = NULL;
    if (sp__cli_region_filter(verb, include, exclude, filter))
        return SP_CLI_EXIT_USAGE;
    *run = sp__cli_open_agg(path, flags);
    if (*run)
        return 0;
    sp_region_filter_free(*filter);
    *filter = NULL;
    return SP_CLI_EXIT_USAGE;
}

int sp__cli_keep_ranks(const char *verb, sp_run *run, const char *spec, char *list,
                       size_t size, size_t *count)
{
    bool *sel = NULL;
    if (sp_rank_list_parse(spec, sp_run_num_ranks(run), &sel, count) != 0)
        return sp__cli_usage_error(verb, "%s", sp_last_error());
    sp_rank_list_format(sel, sp_run_num_ranks(run), list, size);
    int rc = sp_run_keep_ranks(run, sel);
    free(sel);
    if (rc != 0) {
        sp__cli_error("%s", sp_last_error());
        return SP_CLI_EXIT_FAILURE;
    }
    return 0;
}

int sp__cli_find_private(const char *name, const char *env_name, const char *verb, bool quiet,
                         char *out, size_t size)
{
    const char *env = getenv(env_name);
    if (env && *env) {
        if (access(env, R_OK) != 0) {
            sp__cli_error("%s: %s=%s: %s", verb, env_name, env, strerror(errno));
            return -1;
        }
        snprintf(out, size, "%s", env);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0) {
        sp__cli_error("%s: cannot find this program's directory", verb);
        return -1;
    }
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    static const char *const rel[] = {"../lib",
                                      "../lib64",
                                      "../lib/x86_64-linux-gnu",
                                      "../lib/aarch64-linux-gnu",
                                      "../lib/scope-profiler",
                                      "."};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        int w = snprintf(out, size, "%s/%s/%s", exe, rel[i], name);
        char real[PATH_MAX];
        if (w > 0 && (size_t)w < size && access(out, R_OK) == 0 && realpath(out, real)) {
            snprintf(out, size, "%s", real);
            return 0;
        }
    }
    if (!quiet)
        sp__cli_error("%s: %s not found next to %s (set %s)", verb, name, exe, env_name);
    return -1;
}

int sp__cli_finish_output(int status)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        sp__cli_error("cannot write the output: %s", strerror(errno));
        return SP_CLI_EXIT_FAILURE;
    }
    return status;
}
