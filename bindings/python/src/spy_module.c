/* SPDX-License-Identifier: MIT */
/*
 * spy_module.c - the extension module scope_profiler._core (built a second
 * time as _core_mpi on libscope_profiler_mpi): setup(), finalize(), module
 * state. The Python package (scope_profiler/__init__.py) picks one of the two
 * and wraps them in the ProfileManager class of the tutorial.
 */
#include "spy.h"

#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#ifndef SPY_MODULE_NAME
#define SPY_MODULE_NAME _core
#endif
#define SPY_STR2(x) #x
#define SPY_STR(x) SPY_STR2(x)
#define SPY_CAT2(a, b) a##b
#define SPY_CAT(a, b) SPY_CAT2(a, b)

spy_state spy = {.mode = SPY_NO_SESSION, .max_depth = 128};
PyObject *spy_error;

PyObject *spy_raise(int rc)
{
    const char *msg = sp_last_error();
    if (!msg || !*msg)
        msg = sp_strerror(rc);
    PyObject *type = spy_error;
    switch (rc) {
    case SP_EINVAL:
        type = PyExc_ValueError;
        break;
    case SP_ENOMEM:
        type = PyExc_MemoryError;
        break;
    case SP_EIO:
        type = PyExc_OSError;
        break;
    case SP_ENOENT:
        type = PyExc_FileNotFoundError;
        break;
    default:
        break;
    }
    PyErr_SetString(type, msg);
    return NULL;
}

/* "1", "true", "yes", "on" (any case), as the library reads its variables. */
static bool env_true(const char *name)
{
    const char *v = getenv(name);
    return v && (strcmp(v, "1") == 0 || strcasecmp(v, "true") == 0 || strcasecmp(v, "yes") == 0 ||
                 strcasecmp(v, "on") == 0);
}

/*
 * setup(deactivate_profiling=False, deactivate_file_output=False,
 *       file_path="profiling_data.h5", buffer_limit=1024,
 *       recursive_profile=False, use_likwid=False, use_line_profiler=False,
 *       max_depth=128, likwid_fallback=False, perf_events=None,
 *       use_mpi_regions=False)
 * Keyword-only; the SCOPE_PROFILER_* variables override, as in C.
 *
 * use_line_profiler is Python line profiling here (spy_lines.c): the library's
 * own line sampler, which would sample the interpreter's C code, is not asked
 * for (SCOPE_PROFILER_LINE_PROFILER=1 turns on both).
 */
static PyObject *fn_setup(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"deactivate_profiling",
                             "deactivate_file_output",
                             "file_path",
                             "buffer_limit",
                             "recursive_profile",
                             "use_likwid",
                             "use_line_profiler",
                             "max_depth",
                             "likwid_fallback",
                             "perf_events",
                             "use_mpi_regions",
                             NULL};
    int deact = 0, nofile = 0, recursive = 0, likwid = 0, lines = 0, fallback = 0, mpiregs = 0;
    PyObject *path = NULL;
    Py_ssize_t buffer_limit = 1024, max_depth = 128;
    const char *perf = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$ppO&npppnpzp:setup", kwlist, &deact, &nofile,
                                     PyUnicode_FSConverter, &path, &buffer_limit, &recursive,
                                     &likwid, &lines, &max_depth, &fallback, &perf, &mpiregs))
        return NULL;
    if (buffer_limit < 1 || max_depth < 1 || max_depth > (1 << 20)) {
        Py_XDECREF(path);
        return PyErr_Format(PyExc_ValueError, buffer_limit < 1
                                                  ? "buffer_limit must be at least 1"
                                                  : "max_depth must be between 1 and 1048576");
    }
    sp_options o;
    sp_options_init(&o);
    o.deactivate_profiling = deact;
    o.deactivate_file_output = nofile;
    if (path)
        o.file_path = PyBytes_AS_STRING(path);
    o.buffer_limit = (size_t)buffer_limit;
    o.use_likwid = likwid && !lines; /* line profiling wins over LIKWID */
    o.likwid_fallback = fallback;
    o.perf_events = perf;
    o.use_mpi_regions = mpiregs;
    o.max_depth = (unsigned)max_depth;

    /* A new session: this thread's tracers stop (a region left open across
     * setup() must not leave one running). */
    spy_trace_stop_thread();
    spy_lines_stop_thread();
    int rc = sp_setup(&o);
    Py_XDECREF(path);
    if (rc != 0)
        return spy_raise(rc);

    /* Run facts the Python package stored too (sp_metadata_set only fails
     * for reserved keys or out of memory: the file is the same without). */
    char ver[32];
    snprintf(ver, sizeof ver, "%d.%d.%d", PY_MAJOR_VERSION, PY_MINOR_VERSION, PY_MICRO_VERSION);
    if (sp_metadata_set("python_version", ver) != 0 || sp_metadata_set("binding", "python") != 0)
        (void)0;

    spy.session++;
    PyDict_Clear(spy.regions);
    spy_lines_reset();
    switch (sp_region_get_kind(spy.probe)) {
    case SP_REGION_DISABLED:
        spy.mode = SPY_DISABLED;
        break;
    case SP_REGION_FULL:
        spy.mode = SPY_FULL;
        break;
    case SP_REGION_LINE_PROFILER: /* SCOPE_PROFILER_LINE_PROFILER=1 */
        spy.mode = SPY_LINES;
        break;
    default:
        spy.mode = lines ? SPY_LINES : SPY_TIME_ONLY;
        break;
    }
    spy.max_depth = (unsigned)max_depth;
    spy.extra = 0;
    if (spy.mode != SPY_DISABLED) {
        if (recursive || env_true("SCOPE_PROFILER_RECURSIVE"))
            spy.extra |= SPY_X_RECURSIVE;
        if (spy.mode == SPY_LINES)
            spy.extra |= SPY_X_LINES;
    }
    Py_RETURN_NONE;
}

/* finalize(verbose=True, want_run=False) -> Run or None.
 * Ends the session: writes the file (unless deactivated), prints the summary
 * when verbose (through C stdout, after flushing sys.stdout, so the order of
 * the lines holds), and returns the run when asked. Unbalanced regions are a
 * RuntimeWarning (the file is still written); a write failure raises OSError.
 * Without a session: a RuntimeWarning and None. */
static PyObject *fn_finalize(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"verbose", "want_run", NULL};
    int verbose = 1, want = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|pp:finalize", kwlist, &verbose, &want))
        return NULL;
    if (spy.mode == SPY_NO_SESSION) {
        if (PyErr_WarnEx(PyExc_RuntimeWarning,
                         "scope_profiler: finalize() without a session (call setup() first)",
                         1) != 0)
            return NULL;
        Py_RETURN_NONE;
    }
    spy_trace_stop_thread();
    spy_lines_stop_thread();
    /* The line timings go into the file (line-profile, the viewer); if
     * that fails, the rest of the run is still written. */
    if (spy.mode == SPY_LINES && spy_lines_store() != 0) {
        PyErr_Clear();
        if (PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                             "scope_profiler: line timings not stored in the file: %s",
                             sp_last_error()) != 0)
            return NULL;
    }
    if (verbose) {
        PyObject *out = PySys_GetObject("stdout");
        PyObject *r = out && out != Py_None ? PyObject_CallMethod(out, "flush", NULL) : NULL;
        Py_XDECREF(r);
        PyErr_Clear();
    }
    sp_run *run = NULL;
    int rc = sp_finalize(verbose, want ? &run : NULL);
    fflush(stdout);
    spy.mode = SPY_NO_SESSION;
    spy.extra = 0;
    if (rc == SP_EUNBALANCED) {
        if (PyErr_WarnFormat(PyExc_RuntimeWarning, 1, "scope_profiler: %s", sp_last_error()) != 0) {
            sp_run_free(run);
            return NULL;
        }
    } else if (rc != 0) {
        sp_run_free(run);
        return spy_raise(rc);
    }
    if (!run)
        Py_RETURN_NONE;
    return spy_run_wrap(run, NULL);
}

/* metadata_set(key, value): a fact stored with the session's run (str). */
static PyObject *fn_metadata_set(PyObject *m, PyObject *args)
{
    const char *key, *value;
    if (!PyArg_ParseTuple(args, "ss:metadata_set", &key, &value))
        return NULL;
    int rc = sp_metadata_set(key, value);
    if (rc != 0)
        return spy_raise(rc);
    Py_RETURN_NONE;
}

static PyObject *fn_session_active(PyObject *m, PyObject *unused)
{
    return PyBool_FromLong(spy.mode != SPY_NO_SESSION);
}

static PyObject *fn_mode(PyObject *m, PyObject *unused)
{
    static const char *names[] = {"none", "disabled", "time_only", "full", "lines"};
    return PyUnicode_FromString(names[spy.mode]);
}

static PyMethodDef module_methods[] = {
    {"setup", (PyCFunction)(void (*)(void))fn_setup, METH_VARARGS | METH_KEYWORDS,
     "Start a profiling session (see ProfileManager.setup)."},
    {"finalize", (PyCFunction)(void (*)(void))fn_finalize, METH_VARARGS | METH_KEYWORDS,
     "finalize(verbose=True, want_run=False): end the session, write the file."},
    {"region", (PyCFunction)(void (*)(void))spy_fn_region, METH_FASTCALL | METH_KEYWORDS,
     "region(name, functions=None): the region called name (a context manager)."},
    {"get_region", spy_fn_get_region, METH_O,
     "get_region(name): the region of this session, or None."},
    {"profile", (PyCFunction)(void (*)(void))spy_fn_profile, METH_VARARGS | METH_KEYWORDS,
     "profile(region_name=None, *, recursive=False): decorator recording each call."},
    {"_decorate", (PyCFunction)(void (*)(void))spy_fn_decorate, METH_FASTCALL,
     "_decorate(name, recursive, func): internal."},
    {"read_h5", spy_fn_read_h5, METH_O, "read_h5(path): the Run stored in an HDF5 file."},
    {"line_stats", spy_fn_line_stats, METH_NOARGS,
     "line_stats(): [(code, [(line, hits, ns), ...]), ...] of this session."},
    {"trace_start", (PyCFunction)(void (*)(void))spy_fn_trace_start, METH_VARARGS | METH_KEYWORDS,
     "trace_start(filter, skip_prefixes, kinds, include=()): trace every Python call "
     "(run_script)."},
    {"trace_skipped", spy_fn_trace_skipped, METH_NOARGS,
     "trace_skipped(): [(package, kind, calls), ...] the run's filter left out."},
    {"trace_stop", spy_fn_trace_stop, METH_NOARGS, "trace_stop(): end trace_start()."},
    {"thread_installer", spy_fn_thread_installer, METH_VARARGS,
     "The threading.setprofile() hook of run_script."},
    {"session_active", fn_session_active, METH_NOARGS, "True between setup() and finalize()."},
    {"metadata_set", fn_metadata_set, METH_VARARGS,
     "metadata_set(key, value): store a run fact (str) with the session."},
    {"mode", fn_mode, METH_NOARGS, "none, disabled, time_only, full or lines."},
    {NULL, NULL, 0, NULL}};

static struct PyModuleDef module_def = {PyModuleDef_HEAD_INIT,
                                        SPY_STR(SPY_MODULE_NAME),
                                        "scope-profiler's recorder for Python (C extension).",
                                        -1,
                                        module_methods,
                                        NULL,
                                        NULL,
                                        NULL,
                                        NULL};

PyMODINIT_FUNC SPY_CAT(PyInit_, SPY_MODULE_NAME)(void);
PyMODINIT_FUNC SPY_CAT(PyInit_, SPY_MODULE_NAME)(void)
{
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    spy.regions = PyDict_New();
    spy.probe = sp_region_get("scope_profiler.python");
    spy_error = PyErr_NewExceptionWithDoc("scope_profiler.ScopeProfilerError",
                                          "A scope-profiler call failed (the message says why).",
                                          PyExc_RuntimeError, NULL);
    if (!spy.regions || !spy_error || PyModule_AddObjectRef(m, "ScopeProfilerError", spy_error) ||
        spy_codeinfo_init() != 0 || spy_region_types_init(m) != 0 ||
        spy_decorator_type_init(m) != 0 || spy_run_types_init(m) != 0 ||
        spy_reader_type_init(m) != 0 ||
        PyModule_AddStringConstant(m, "library_version", sp_version()) != 0 ||
#ifdef SPY_MPI
        PyModule_AddStringConstant(m, "flavour", "mpi") != 0
#else
        PyModule_AddStringConstant(m, "flavour", "serial") != 0
#endif
    ) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
