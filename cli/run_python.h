/* SPDX-License-Identifier: MIT */
/*
 * run_python.h - `scope-profiler run` for Python programs (run_python.c).
 */
#ifndef SP_CLI_RUN_PYTHON_H
#define SP_CLI_RUN_PYTHON_H

#include <stdbool.h>

/* True when PROGRAM is a Python script (*.py, *.pyw) or a Python interpreter
 * (python, python3, python3.11, ... by file name). */
bool sp__run_is_python(const char *program);

/* run's options that the Python module takes over. */
typedef struct sp__run_python_opts {
    const char *output;   /* -o FILE, or NULL */
    bool all, quiet;      /* --all, -q */
    char **include;       /* --include-package NAME..., ninclude of them */
    int ninclude;
} sp__run_python_opts;

/* Where the Python program's own arguments begin in argv (argv[0] is the
 * script or the interpreter): after the script, or after the interpreter's
 * options and its script or -m MODULE. argc when they are missing. */
int sp__run_python_args_index(int argc, char **argv);

/* Exec Python with the scope_profiler module on the program: argv[0] is the
 * script or the interpreter, then its arguments. Returns only on failure,
 * with the exit status to use (the message is printed). */
int sp__run_python(int argc, char **argv, const sp__run_python_opts *o);

#endif
