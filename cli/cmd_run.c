/* SPDX-License-Identifier: MIT */
/*
 * cmd_run.c - `scope-profiler run [OPTIONS] PROGRAM [ARGS...]`: profile a
 * program that was never edited. The program is exec'ed (this process
 * becomes it, so its exit status and signals are its own) with
 * libscope_profiler_preload.so in LD_PRELOAD, which starts a session when it
 * loads and writes the file when the program ends (see
 * recorder/preload/sp_preload.c).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
#include <link.h>
#endif

#include "cli_common.h"
#include "cli_verbs.h"
#include "run_python.h"

static const char run_usage[] =
    "usage: " SP_CLI_NAME " run [-o FILE] [--all] [--mode auto|trace|sample] [--hz N]\n"
    "                         [--include-package NAME]... [-q] PROGRAM [ARGS...]\n\n"
    "Profile PROGRAM without editing it and without a setup call: it runs with\n"
    "libscope_profiler_preload.so preloaded, which records from start to exit and\n"
    "writes FILE when the program returns from main, calls exit(), gets SIGINT or\n"
    "SIGTERM, or calls MPI_Finalize. The summary is printed on stderr.\n\n"
    "A program compiled with -finstrument-functions has every function call traced\n"
    "(regions \"<module>.<function>\"); any other program has its call stacks sampled\n"
    "(CPU time, N per second) and each function becomes a region whose calls and\n"
    "times are estimated from the samples (flagged \"sampled\").\n\n"
    "A Python program (PROGRAM.py, or a python interpreter with its script or\n"
    "-m MODULE) runs under Debian's python3 with the scope_profiler module: every\n"
    "Python function call is traced (\"<module>.<qualname>\"); the standard\n"
    "library and installed packages (site-packages, dist-packages) are skipped\n"
    "unless --all or --include-package names them (-m MODULE's own package is\n"
    "traced anyway); when that leaves almost nothing, run says which packages\n"
    "had the calls.\n\n"
    "run's options go before PROGRAM: everything after it is passed to PROGRAM\n"
    "(run warns when its own options follow PROGRAM; after \"--\" it does not).\n\n"
    "Options:\n"
    "  -o, --output FILE  the HDF5 file to write (default profiling_data.h5)\n"
    "  -a, --all          keep frames of libc, the loader and system libraries\n"
    "                     (left out by default); Python: trace the standard\n"
    "                     library and installed packages too\n"
    "      --include-package NAME\n"
    "                     Python: trace the installed package NAME (its top-level\n"
    "                     name, e.g. networkx); repeatable\n"
    "  -m, --mode MODE    auto (default: trace if instrumented, else sample),\n"
    "                     trace, or sample\n"
    "      --hz N         stack samples per second of CPU time (default 1000)\n"
    "  -q, --quiet        print no summary\n"
    "  -h, --help         show this help\n\n"
    "Environment: SCOPE_PROFILER_PRELOAD=path overrides where the preload library\n"
    "is looked for; every SCOPE_PROFILER_* variable of sp_setup() applies.\n"
    "Under mpirun, run each rank: mpirun -n 4 " SP_CLI_NAME " run ./app. With the MPI\n"
    "build (libscope_profiler_mpi_preload.so) the ranks are gathered into one FILE\n"
    "in MPI_Finalize; otherwise each rank writes FILE.rank<N>.h5.\n";

#if defined(__SANITIZE_ADDRESS__)
/* An AddressSanitizer build of the preload library needs the ASan runtime
 * loaded first: preload the one this program uses. */
static int find_asan(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "libasan")) {
        snprintf(data, PATH_MAX, "%s", info->dlpi_name);
        return 1;
    }
    return 0;
}
#endif

/* The index of PROGRAM in argv: the first operand (options before it are
 * ours, everything after it is the program's). */
static int program_index(int argc, char **argv)
{
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0)
            return i + 1;
        if (a[0] != '-' || a[1] == '\0')
            return i;
        /* Options that take a separate argument. */
        if (strcmp(a, "-o") == 0 || strcmp(a, "--output") == 0 || strcmp(a, "-m") == 0 ||
            strcmp(a, "--mode") == 0 || strcmp(a, "--hz") == 0 ||
            strcmp(a, "--include-package") == 0)
            i++;
    }
    return argc;
}

/* Python's `scope-profiler run script.py -o x.h5 --all` (the tutorial's
 * order) takes run's options anywhere; here everything after PROGRAM is the
 * program's. Say so when run's own options follow PROGRAM (not after an
 * explicit "--", which says they are meant for the program). A Python
 * interpreter's own options and its -m MODULE are no program arguments:
 * `run python3 -m pyflakes DIR` has none of run's options after PROGRAM. */
static void warn_late_options(int argc, char **argv, int prog)
{
    static const char *const ours[] = {"-o",   "--output", "-a", "--all",  "-m", "--mode",
                                       "--hz", "-q",       "--quiet", "--include-package"};
    if (prog > 1 && strcmp(argv[prog - 1], "--") == 0)
        return;
    char found[256] = "";
    size_t n = 0;
    int first = sp__run_is_python(argv[prog])
                    ? prog + sp__run_python_args_index(argc - prog, argv + prog)
                    : prog + 1;
    for (int i = first; i < argc; i++) {
        for (size_t k = 0; k < sizeof ours / sizeof *ours; k++) {
            size_t len = strlen(ours[k]);
            if (strncmp(argv[i], ours[k], len) != 0 ||
                (argv[i][len] != '\0' && !(argv[i][1] == '-' && argv[i][len] == '=')))
                continue;
            n += (size_t)snprintf(found + n, n < sizeof found ? sizeof found - n : 0, "%s%s",
                                  n ? ", " : "", argv[i]);
            break;
        }
    }
    if (n)
        fprintf(stderr,
                SP_CLI_NAME ": run: warning: %s come%s after PROGRAM, so %s passed to %s, not "
                            "to run; put run's options first: " SP_CLI_NAME
                            " run [OPTIONS] PROGRAM "
                            "[ARGS...]\n",
                found, strchr(found, ',') ? "" : "s", strchr(found, ',') ? "they are" : "it is",
                argv[prog]);
}

/* Exec PROGRAM with the preload library (a program that is not Python). */
static int run_native(char **argv, int prog, const sp__run_python_opts *o, const char *mode,
                      const char *hz)
{
    /* Under mpirun, the MPI build (one file for the job) when it exists. */
    char lib[PATH_MAX];
    bool under_mpi = getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMI_SIZE") || getenv("PMIX_RANK");
    if ((!under_mpi ||
         sp__cli_find_private("libscope_profiler_mpi_preload.so", "SCOPE_PROFILER_PRELOAD", "run",
                              true, lib, sizeof lib) != 0) &&
        sp__cli_find_private("libscope_profiler_preload.so", "SCOPE_PROFILER_PRELOAD", "run", false,
                             lib, sizeof lib) != 0)
        return SP_CLI_EXIT_FAILURE;
    char preload[3 * PATH_MAX];
    const char *old = getenv("LD_PRELOAD");
    char asan[PATH_MAX] = "";
#if defined(__SANITIZE_ADDRESS__)
    dl_iterate_phdr(find_asan, asan);
#endif
    snprintf(preload, sizeof preload, "%s%s%s%s%s", asan, *asan ? ":" : "", lib,
             old && *old ? ":" : "", old && *old ? old : "");
    if (setenv("LD_PRELOAD", preload, 1) != 0 || setenv("SCOPE_PROFILER_RUN", "1", 1) != 0 ||
        setenv("SCOPE_PROFILER_RUN_MODE", mode, 1) != 0 ||
        (o->output && setenv("SCOPE_PROFILER_FILE", o->output, 1) != 0) ||
        (o->all && setenv("SCOPE_PROFILER_RUN_ALL", "1", 1) != 0) ||
        (hz && setenv("SCOPE_PROFILER_SAMPLE_HZ", hz, 1) != 0) ||
        (o->quiet && setenv("SCOPE_PROFILER_RUN_QUIET", "1", 1) != 0)) {
        sp__cli_error("run: cannot set the environment: %s", strerror(errno));
        return SP_CLI_EXIT_FAILURE;
    }
    fflush(NULL);
    execvp(argv[prog], argv + prog);
    sp__cli_error("run: cannot run '%s': %s", argv[prog], strerror(errno));
    return errno == ENOENT ? 127 : 126; /* as shells do */
}

int sp__cmd_run(int argc, char **argv)
{
    static const struct option longopts[] = {{"output", required_argument, NULL, 'o'},
                                             {"all", no_argument, NULL, 'a'},
                                             {"include-package", required_argument, NULL, 'I'},
                                             {"mode", required_argument, NULL, 'm'},
                                             {"hz", required_argument, NULL, 'z'},
                                             {"quiet", no_argument, NULL, 'q'},
                                             {"help", no_argument, NULL, 'h'},
                                             {0, 0, 0, 0}};
    int prog = program_index(argc, argv);
    const char *mode = "auto", *hz = NULL;
    /* --include-package names point into argv: at most one per argument. */
    char *names[64];
    sp__run_python_opts o = {NULL, false, false, names, 0};
    int c;
    sp__cli_getopt_reset();
    while ((c = sp__cli_getopt(prog, argv, "o:am:qh", longopts)) != -1) {
        switch (c) {
        case 'o':
            o.output = optarg;
            break;
        case 'a':
            o.all = true;
            break;
        case 'I':
            if (!*optarg || strchr(optarg, '/'))
                return sp__cli_usage_error(argv[0], "--include-package '%s': expected the "
                                                    "package's top-level name (e.g. networkx)",
                                           optarg);
            if (o.ninclude == (int)(sizeof names / sizeof *names))
                return sp__cli_usage_error(argv[0], "--include-package: at most %zu packages",
                                           sizeof names / sizeof *names);
            names[o.ninclude++] = optarg;
            break;
        case 'm':
            if (strcmp(optarg, "auto") != 0 && strcmp(optarg, "trace") != 0 &&
                strcmp(optarg, "sample") != 0)
                return sp__cli_usage_error(argv[0], "--mode '%s': expected auto, trace or sample",
                                           optarg);
            mode = optarg;
            break;
        case 'z': {
            char *end;
            long v = strtol(optarg, &end, 10);
            if (*end || v < 1 || v > 100000)
                return sp__cli_usage_error(argv[0], "--hz '%s': expected 1 to 100000", optarg);
            hz = optarg;
            break;
        }
        case 'q':
            o.quiet = true;
            break;
        case 'h':
            fputs(run_usage, stdout);
            return sp__cli_finish_output(SP_CLI_EXIT_OK);
        default:
            return SP_CLI_EXIT_USAGE;
        }
    }
    if (optind < prog)
        return sp__cli_usage_error(argv[0], "unexpected argument '%s'", argv[optind]);
    if (prog >= argc)
        return sp__cli_usage_error(argv[0], "missing PROGRAM");
    warn_late_options(argc, argv, prog);

    /* A Python script or interpreter: the Python module traces it (run_python.c). */
    if (sp__run_is_python(argv[prog]))
        return sp__run_python(argc - prog, argv + prog, &o);
    if (o.ninclude)
        return sp__cli_usage_error(argv[0], "--include-package is for Python programs (%s is "
                                            "not one)",
                                   argv[prog]);
    return run_native(argv, prog, &o, mode, hz);
}
