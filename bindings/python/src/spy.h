/* SPDX-License-Identifier: MIT */
/*
 * spy.h - what the files of the Python extension scope_profiler._core (and
 * its MPI build _core_mpi) share: the session state, region objects, the
 * per-code cache, and the two tracers (callees: PyEval_SetProfile; lines:
 * PyEval_SetTrace). Everything sits on the public C API, scope_profiler.h.
 *
 * All of it runs with the GIL held unless a comment says otherwise, so the
 * globals below need no locks.
 */
#ifndef SPY_H
#define SPY_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>
#include <stdbool.h>
#include <stdint.h>

#include <scope_profiler.h>

/* ---------------------------------------------------------------- session */

/* What the regions of the current session do (ProfileManager.setup). */
typedef enum spy_mode {
    SPY_NO_SESSION, /* before setup() and after finalize(): nothing records */
    SPY_DISABLED,   /* deactivate_profiling: decorators return the function */
    SPY_TIME_ONLY,  /* the default */
    SPY_FULL,       /* use_likwid: timestamps plus LIKWID counters */
    SPY_LINES       /* use_line_profiler: timestamps plus Python line timings */
} spy_mode;

/* Extra work a region does besides begin/end (bits of spy_region.extra and
 * spy_state.extra). */
enum {
    SPY_X_RECURSIVE = 1, /* trace the Python functions called inside */
    SPY_X_LINES = 2      /* time the lines of its registered functions */
};

typedef struct spy_state {
    spy_mode mode;
    unsigned extra;        /* SPY_X_* every region of the session does */
    unsigned max_depth;    /* nesting of traced calls recorded */
    unsigned long session; /* counts setup() calls: 0 before the first */
    PyObject *regions;     /* dict: name -> region object of this session */
    sp_region *probe;      /* any handle: asks the library the session's kind */
} spy_state;

extern spy_state spy;

/* Set a Python exception from a library status and sp_last_error(); returns
 * NULL so callers can `return spy_raise(rc);`. */
PyObject *spy_raise(int rc);

/* The module's exception class, ScopeProfilerError (a RuntimeError). */
extern PyObject *spy_error;

/* ---------------------------------------------------------------- reading */

/* _core.Reader: a run opened aggregate-first, calls as arrays (spy_reader.c). */
int spy_reader_type_init(PyObject *module);

/* ---------------------------------------------------------------- regions */

typedef struct spy_region {
    PyObject_HEAD sp_region *h; /* the library handle (lives forever) */
    PyObject *name;             /* str */
    PyObject *functions;        /* list of code objects line-profiled while open, or NULL */
    unsigned extra;             /* SPY_X_* for this region only */
} spy_region;

int spy_region_types_init(PyObject *module);
/* The region object called `name` (str) in this session, created and
 * registered on first use. New reference. */
PyObject *spy_region_get_or_create(PyObject *name);
/* True when o is a region object. */
int spy_region_check(PyObject *o);

PyObject *spy_fn_region(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames);
PyObject *spy_fn_get_region(PyObject *m, PyObject *name);

/* ---------------------------------------------------------------- decorator */

int spy_decorator_type_init(PyObject *module);
PyObject *spy_fn_profile(PyObject *m, PyObject *args, PyObject *kw);
PyObject *spy_fn_decorate(PyObject *m, PyObject *const *args, Py_ssize_t nargs);

/* ---------------------------------------------------------------- per code */

/* Cached per code object (PEP 523 "co_extra"), freed with the code. */
typedef struct spy_linestats spy_linestats;
typedef struct spy_codeinfo {
    sp_region *region;     /* "<module>.<qualname>", resolved on first trace */
    unsigned long run_gen; /* run filter decision below is for this run */
    signed char run_skip;  /* scope-profiler run: 1 skip (stdlib...), 0 trace */
    short run_group;       /* skipped: its package's row (spy_runfilter.c), or -1 */
    spy_linestats *lines;  /* line-profiled: per-line hits and time, or NULL */
} spy_codeinfo;

int spy_codeinfo_init(void);
/* The code's info, created when `create`; NULL (no exception) otherwise. */
spy_codeinfo *spy_codeinfo_get(PyObject *code, bool create);

/* ---------------------------------------------------------------- tracing */

/* Recursive regions: start tracing Python callees on this thread (nested
 * calls count); `own_code` is the code about to be called whose frame is the
 * region itself (not traced), or NULL. Return 0, or -1 with an exception. */
int spy_trace_enter(PyObject *own_code);
void spy_trace_exit(void);
/* scope-profiler run: trace every Python call of this thread, and of threads
 * started from now on (see spy_trace.c). */
PyObject *spy_fn_trace_start(PyObject *m, PyObject *args, PyObject *kw);
PyObject *spy_fn_trace_stop(PyObject *m, PyObject *unused);
PyObject *spy_fn_thread_installer(PyObject *m, PyObject *args);
/* Stop this thread's callee tracing whatever its counts (setup, finalize). */
void spy_trace_stop_thread(void);

/* scope-profiler run's filter (spy_runfilter.c): skip code whose file name
 * starts with one of `prefixes` (kinds: internal, stdlib, package,
 * generated; the longest match decides) unless its package is in `include`.
 * set: 0, or -1 with an exception. skips: cached per code object; counts
 * the skipped call per package (trace_skipped()). */
int spy_runfilter_set(PyObject *prefixes, PyObject *kinds, PyObject *include);
void spy_runfilter_clear(void);
bool spy_runfilter_skips(spy_codeinfo *ci, PyCodeObject *code);
PyObject *spy_fn_trace_skipped(PyObject *m, PyObject *unused);

/* Line profiling: register a function (or code object) so its lines are
 * timed while line tracing is on, stored in the file as lines of `region`
 * (the first region that registers it); 0 or -1 with an exception. */
int spy_lines_register(PyObject *fn, sp_region *region);
/* Hand this session's line timings to the library (sp_lines_add) before
 * sp_finalize, so the file holds them. 0, or -1 with an exception. */
int spy_lines_store(void);
/* Line tracing on/off for this thread (nested calls count). */
int spy_lines_enter(void);
void spy_lines_exit(void);
/* Line tracing off for this thread whatever its count (setup, finalize). */
void spy_lines_stop_thread(void);
/* Free a code object's line table (with the code object). */
void spy_linestats_free(spy_linestats *ls);
/* Forget this session's line timings (setup()). */
void spy_lines_reset(void);
PyObject *spy_fn_line_stats(PyObject *m, PyObject *unused);

/* ---------------------------------------------------------------- runs */

int spy_run_types_init(PyObject *module);
/* A Run object owning `run` (freed with it). */
PyObject *spy_run_wrap(sp_run *run, PyObject *path);
PyObject *spy_fn_read_h5(PyObject *m, PyObject *path);

/* Write text to sys.stdout (or `file`); -1 with an exception. */
int spy_write(PyObject *file, const char *text, size_t len);

#endif /* SPY_H */
