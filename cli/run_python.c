/* SPDX-License-Identifier: MIT */
/*
 * run_python.c - `scope-profiler run script.py [ARGS]` and
 * `scope-profiler run python3 [PYOPTS] (script.py | -m MODULE) [ARGS]`:
 * a Python program is profiled by the Python module, not by the preload
 * library (which would see the interpreter's C functions): this process
 * becomes
 *
 *     PYTHON [PYOPTS] -m scope_profiler run [-o FILE] [--all] [--include-package N]...
 *            [-q] -- PROGRAM ARGS...
 *
 * with the package's folder first on PYTHONPATH. PYTHON is Debian's python3
 * the module was built for (SP_PYTHON3), or the interpreter named on the
 * command line. The package is looked for next to this program: installed
 * (<bindir>/../lib/python3/dist-packages) or in the build tree
 * (<build>/cli/../bindings/python); SCOPE_PROFILER_PYTHONPATH overrides.
 * Under mpirun each rank runs this; the module joins the ranks into one file.
 */
#include <errno.h>
#include <fnmatch.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__SANITIZE_ADDRESS__)
#include <link.h>
#endif

#include "cli_common.h"
#include "run_python.h"

static bool is_script(const char *program)
{
    size_t n = strlen(program);
    return (n > 3 && strcmp(program + n - 3, ".py") == 0) ||
           (n > 4 && strcmp(program + n - 4, ".pyw") == 0);
}

bool sp__run_is_python(const char *program)
{
    if (is_script(program))
        return true;
    const char *base = strrchr(program, '/');
    base = base ? base + 1 : program;
    return fnmatch("python", base, 0) == 0 || fnmatch("python[0-9]", base, 0) == 0 ||
           fnmatch("python[0-9].[0-9]*", base, 0) == 0;
}

/* Interpreter options that take a separate argument (-W error, -X dev). */
static bool takes_argument(const char *opt)
{
    return strcmp(opt, "-W") == 0 || strcmp(opt, "-X") == 0 || strcmp(opt, "--check-hash-based-pycs") == 0;
}

/* The index of the script (or of "-m") after the interpreter's options. */
static int script_index(int argc, char **argv)
{
    int i = 1;
    while (i < argc && argv[i][0] == '-' && strcmp(argv[i], "-m") != 0 &&
           strcmp(argv[i], "-c") != 0 && strcmp(argv[i], "-") != 0)
        i += takes_argument(argv[i]) ? 2 : 1;
    return i < argc ? i : argc;
}

int sp__run_python_args_index(int argc, char **argv)
{
    if (is_script(argv[0]))
        return 1;
    int i = script_index(argc, argv);
    if (i < argc && (strcmp(argv[i], "-m") == 0 || strcmp(argv[i], "-c") == 0))
        i++; /* the module (or code) */
    return i < argc ? i + 1 : argc;
}

#ifdef SP_PYTHON3

/* The folder holding scope_profiler/__init__.py, in out. */
static int find_package(char *out, size_t size)
{
    const char *env = getenv("SCOPE_PROFILER_PYTHONPATH");
    if (env && *env) {
        snprintf(out, size, "%s", env);
        return 0;
    }
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return -1;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (slash)
        *slash = '\0';
    const char *rel[] = {"../" SP_PYTHON_INSTALL_DIR, "../bindings/python"};
    for (size_t i = 0; i < sizeof rel / sizeof *rel; i++) {
        char probe[PATH_MAX + 64];
        snprintf(probe, sizeof probe, "%s/%s/scope_profiler/__init__.py", exe, rel[i]);
        char dir[PATH_MAX + 64];
        snprintf(dir, sizeof dir, "%s/%s", exe, rel[i]);
        char real[PATH_MAX];
        if (access(probe, R_OK) == 0 && realpath(dir, real)) {
            snprintf(out, size, "%s", real);
            return 0;
        }
    }
    return -1;
}

#if defined(__SANITIZE_ADDRESS__)
/* This command is an AddressSanitizer build, and so is the extension module:
 * Python (not instrumented) needs the ASan runtime preloaded. */
static int find_asan(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    if (info->dlpi_name && strstr(info->dlpi_name, "libasan")) {
        snprintf(data, PATH_MAX, "%s", info->dlpi_name);
        return 1;
    }
    return 0;
}

static int asan_environment(void)
{
    char asan[PATH_MAX] = "", preload[2 * PATH_MAX + 2];
    dl_iterate_phdr(find_asan, asan);
    const char *old = getenv("LD_PRELOAD");
    if (*asan && !(old && strstr(old, "libasan"))) {
        snprintf(preload, sizeof preload, "%s%s%s", asan, old && *old ? ":" : "",
                 old && *old ? old : "");
        if (setenv("LD_PRELOAD", preload, 1) != 0)
            return -1;
    }
    /* The interpreter keeps its objects until exit: not our leaks. */
    const char *opts = getenv("ASAN_OPTIONS");
    if (!opts || !strstr(opts, "detect_leaks")) {
        char buf[1024];
        snprintf(buf, sizeof buf, "%s%sdetect_leaks=0", opts ? opts : "", opts && *opts ? ":" : "");
        if (setenv("ASAN_OPTIONS", buf, 1) != 0)
            return -1;
    }
    return 0;
}
#endif

int sp__run_python(int argc, char **argv, const sp__run_python_opts *o)
{
    char pkg[PATH_MAX];
    if (find_package(pkg, sizeof pkg) != 0) {
        sp__cli_error("run: the scope_profiler Python package is not next to this program "
                      "(set SCOPE_PROFILER_PYTHONPATH to its folder)");
        return SP_CLI_EXIT_FAILURE;
    }
    /* PYTHON [interpreter options] -m scope_profiler run [ours] -- program args */
    char **args = calloc((size_t)argc + 12 + 2 * (size_t)o->ninclude, sizeof *args);
    if (!args) {
        sp__cli_error("run: out of memory");
        return SP_CLI_EXIT_FAILURE;
    }
    int k = 0, i = 0;
    bool interpreter = !is_script(argv[0]);
    args[k++] = interpreter ? argv[0] : (char *)SP_PYTHON3;
    if (interpreter) {
        /* The interpreter's own options, up to the script or -m MODULE. */
        int script = script_index(argc, argv);
        for (i = 1; i < script; i++)
            args[k++] = argv[i];
        if (i < argc && strcmp(argv[i], "-c") == 0) {
            sp__cli_error("run: python -c is not supported: put the code in a script");
            free(args);
            return SP_CLI_EXIT_USAGE;
        }
        if (i >= argc) {
            sp__cli_error("run: %s: missing the script (or -m MODULE) to run", argv[0]);
            free(args);
            return SP_CLI_EXIT_USAGE;
        }
    }
    args[k++] = "-m";
    args[k++] = "scope_profiler";
    args[k++] = "run";
    if (o->output) {
        args[k++] = "-o";
        args[k++] = (char *)o->output;
    }
    if (o->all)
        args[k++] = "--all";
    for (int n = 0; n < o->ninclude; n++) {
        args[k++] = "--include-package";
        args[k++] = o->include[n];
    }
    if (o->quiet)
        args[k++] = "-q";
    args[k++] = "--";
    for (; i < argc; i++)
        args[k++] = argv[i];
    args[k] = NULL;

    const char *old = getenv("PYTHONPATH");
    size_t len = strlen(pkg) + (old ? strlen(old) : 0) + 2;
    char *pp = malloc(len);
    if (!pp) {
        free(args);
        sp__cli_error("run: out of memory");
        return SP_CLI_EXIT_FAILURE;
    }
    snprintf(pp, len, "%s%s%s", pkg, old && *old ? ":" : "", old && *old ? old : "");
    int rc = setenv("PYTHONPATH", pp, 1);
    free(pp);
#if defined(__SANITIZE_ADDRESS__)
    if (rc == 0)
        rc = asan_environment();
#endif
    if (rc != 0) {
        free(args);
        sp__cli_error("run: cannot set the environment: %s", strerror(errno));
        return SP_CLI_EXIT_FAILURE;
    }
    fflush(NULL);
    execvp(args[0], args);
    int err = errno;
    sp__cli_error("run: cannot run '%s': %s", args[0], strerror(err));
    free(args);
    return err == ENOENT ? 127 : 126;
}

#else /* built without the Python module */

int sp__run_python(int argc, char **argv, const sp__run_python_opts *o)
{
    (void)argc;
    (void)o;
    sp__cli_error("run: %s is a Python program, and this scope-profiler was built without the "
                  "Python module (Debian: apt install python3-dev, then rebuild)",
                  argv[0]);
    return SP_CLI_EXIT_FAILURE;
}

#endif /* SP_PYTHON3 */
