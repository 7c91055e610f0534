/* SPDX-License-Identifier: MIT */
/*
 * cli_main.c - `scope-profiler VERB ...`: dispatch to the verb's handler
 * (main.c for the command, cli/mpi/cli_mpi.c on rank 0 of the MPI helper).
 * Exit status: 0 ok, 1 runtime failure, 2 bad usage or unreadable file.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_common.h"
#include "cli_verbs.h"
#include "sp_h5.h"
#include "sp_mem.h"

typedef struct cli_verb {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *help;
} cli_verb;

static const cli_verb verbs[] = {
#define SP_CLI_VERB_ENTRY(name, handler, help) {name, handler, help},
    SP_CLI_VERBS(SP_CLI_VERB_ENTRY)
#undef SP_CLI_VERB_ENTRY
};
#define NVERBS (sizeof verbs / sizeof *verbs)

static void usage(FILE *out)
{
    fprintf(out, "usage: " SP_CLI_NAME " COMMAND [OPTIONS] [ARGS]\n\n"
                 "Read and analyse scope-profiler (and Python scope-profiler) HDF5 runs.\n\n"
                 "Commands:\n");
    size_t w = 0;
    for (size_t i = 0; i < NVERBS; i++)
        if (strlen(verbs[i].name) > w)
            w = strlen(verbs[i].name);
    for (size_t i = 0; i < NVERBS; i++)
        fprintf(out, "  %-*s  %s\n", (int)w, verbs[i].name, verbs[i].help);
    fprintf(out, "\nOptions:\n"
                 "  -h, --help             show this help (" SP_CLI_NAME " COMMAND --help: the\n"
                 "                         command's)\n"
                 "  -V, --version          show the version\n"
                 "      --read-limit SIZE  memory one file may take to read and analyse\n"
                 "                         (default 4G; e.g. 16G, unlimited; also\n"
                 "                         SCOPE_PROFILER_READ_LIMIT)\n\n"
                 "Files are read in a separate process (a damaged file that crashes the HDF5\n"
                 "library ends in an error, exit status 2; SCOPE_PROFILER_READ_TIMEOUT, default\n"
                 "300 s, bounds it). Names and messages from files are shown escaped.\n\n"
                 "Under mpirun (mpirun -n N " SP_CLI_NAME " summary RUN), summary, inspect,\n"
                 "ranks, report and check split the runs' ranks over the processes and print\n"
                 "once, exactly what one process prints, with its exit status; this needs\n"
                 "a build with MPI (scope-profiler-mpi beside the preload libraries).\n");
}

static const cli_verb *find_verb(const char *name)
{
    for (size_t i = 0; i < NVERBS; i++)
        if (strcmp(verbs[i].name, name) == 0)
            return &verbs[i];
    return NULL;
}

int sp__cli_main(int argc, char **argv)
{
    sp_mem_tune_for_reading(); /* the command and the MPI helper both read runs */
    /* Names and messages from run files never reach the terminal raw; the
     * TUI draws through ncurses on the real stdout and escapes its own text. */
    /* Options before the verb: the read limit of every file the verb opens. */
    while (argc >= 2 && strncmp(argv[1], "--read-limit", 12) == 0 &&
           (argv[1][12] == '\0' || argv[1][12] == '=')) {
        const char *value = argv[1][12] == '=' ? argv[1] + 13 : argc >= 3 ? argv[2] : NULL;
        int used = argv[1][12] == '=' ? 1 : 2;
        uint64_t bytes;
        if (!value || sp_h5_parse_size(value, &bytes) != 0) {
            sp__cli_protect_output(true);
            sp__cli_error("invalid --read-limit '%s' (a size such as 512M, 8G or unlimited, "
                          "at least 1M)",
                          value ? value : "");
            return SP_CLI_EXIT_USAGE;
        }
        setenv(SP_READ_LIMIT_ENV, value, 1);
        argv[used] = argv[0];
        argv += used;
        argc -= used;
    }
    sp__cli_protect_output(!(argc >= 2 && strcmp(argv[1], "tui") == 0));
    if (argc < 2) {
        sp__cli_error("missing command (see '" SP_CLI_NAME " --help')");
        return SP_CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "-h") == 0 || strcmp(cmd, "--help") == 0 ||
        (strcmp(cmd, "help") == 0 && argc == 2)) {
        usage(stdout);
        return sp__cli_finish_output(SP_CLI_EXIT_OK);
    }
    if (strcmp(cmd, "-V") == 0 || strcmp(cmd, "--version") == 0) {
        printf(SP_CLI_NAME " %s\n", sp_version());
        return sp__cli_finish_output(SP_CLI_EXIT_OK);
    }
    if (strcmp(cmd, "help") == 0) { /* help VERB == VERB --help */
        const cli_verb *v = find_verb(argv[2]);
        if (!v) {
            sp__cli_error("unknown command '%s' (see '" SP_CLI_NAME " --help')", argv[2]);
            return SP_CLI_EXIT_USAGE;
        }
        char *args[] = {(char *)v->name, "--help", NULL};
        return v->run(2, args);
    }
    if (cmd[0] == '-') {
        sp__cli_error("unknown option '%s' (see '" SP_CLI_NAME " --help')", cmd);
        return SP_CLI_EXIT_USAGE;
    }
    const cli_verb *v = find_verb(cmd);
    if (!v) {
        sp__cli_error("unknown command '%s' (see '" SP_CLI_NAME " --help')", cmd);
        return SP_CLI_EXIT_USAGE;
    }
    return v->run(argc - 1, argv + 1);
}
