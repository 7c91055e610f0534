/* SPDX-License-Identifier: MIT */
/*
 * main.c - `scope-profiler VERB ...`: dispatch to the verb's handler.
 * Exit status: 0 ok, 1 runtime failure, 2 bad usage or unreadable file.
 */
#include <stdio.h>
#include <string.h>

#include "cli_common.h"
#include "cli_verbs.h"

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
                 "  -h, --help     show this help (" SP_CLI_NAME " COMMAND --help: the command's)\n"
                 "  -V, --version  show the version\n");
}

static const cli_verb *find_verb(const char *name)
{
    for (size_t i = 0; i < NVERBS; i++)
        if (strcmp(verbs[i].name, name) == 0)
            return &verbs[i];
    return NULL;
}

int main(int argc, char **argv)
{
    /* Names and messages from run files never reach the terminal raw; the
     * TUI draws through ncurses on the real stdout and escapes its own text. */
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
