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

/* Exec Python with the scope_profiler module on the program: argv[0] is the
 * script or the interpreter, then its arguments. Returns only on failure,
 * with the exit status to use (the message is printed). */
int sp__run_python(int argc, char **argv, const char *output, bool all, bool quiet);

#endif
