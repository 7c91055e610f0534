/* SPDX-License-Identifier: MIT */
/*
 * sp_fortran_shim.c - the two calls of the Fortran module that cannot bind
 * to the C API directly: sp_setup (an sp_options struct, whose layout Fortran
 * should not have to mirror) and sp_finalize (flush C's stdout after the
 * summary, so it lands before the program's next Fortran output).
 * Public API only.
 */
#include <scope_profiler.h>
#include <stdio.h>

int sp_fortran_setup(const char *file_path, long long buffer_limit, int deactivate_profiling,
                     int deactivate_file_output, int recursive_profile, int use_line_profiler,
                     int use_likwid);
int sp_fortran_finalize(int verbose);

/* file_path: NUL-terminated, or NULL for the default; buffer_limit <= 0:
 * the default. */
int sp_fortran_setup(const char *file_path, long long buffer_limit, int deactivate_profiling,
                     int deactivate_file_output, int recursive_profile, int use_line_profiler,
                     int use_likwid)
{
    sp_options o;
    sp_options_init(&o);
    if (file_path && *file_path)
        o.file_path = file_path;
    if (buffer_limit > 0)
        o.buffer_limit = (size_t)buffer_limit;
    o.deactivate_profiling = deactivate_profiling != 0;
    o.deactivate_file_output = deactivate_file_output != 0;
    o.recursive_profile = recursive_profile != 0;
    o.use_line_profiler = use_line_profiler != 0;
    o.use_likwid = use_likwid != 0;
    return sp_setup(&o);
}

int sp_fortran_finalize(int verbose)
{
    int rc = sp_finalize(verbose != 0, NULL);
    fflush(stdout);
    return rc;
}
