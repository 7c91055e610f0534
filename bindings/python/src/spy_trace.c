/* SPDX-License-Identifier: MIT */
/*
 * spy_trace.c - recursive profiling and `scope-profiler run` for Python: the
 * interpreter's profiling hook (PyEval_SetProfile, the C side of
 * sys.setprofile) turns every Python function call into a call of the region
 * "<module>.<qualname>" (module: the frame's globals' __name__, e.g.
 * "__main__.leaf", "__main__.Solver.step").
 *
 * The hook is per thread. A recursive region installs it when it opens on a
 * thread that has none, counts nested recursive regions, and removes it when
 * the last one closes, restoring whatever profiler was there before (events
 * in between go to us only). Each thread's state (a stack of the regions it
 * began, NULL for frames it does not record) lives in a capsule owned by the
 * thread state, so it is freed with the thread.
 *
 * Events: CALL (a function starts, or a generator/coroutine resumes) pushes
 * and begins; RETURN (return, exception or yield) pops and ends; the C
 * function events are ignored. A RETURN with an empty stack belongs to a
 * frame that started before the hook: ignored. The frame of the decorated
 * function itself is not traced (the region is that call).
 *
 * `scope-profiler run` (ProfileManager.run_script) keeps the hook on for the
 * whole script, on the calling thread and on every thread started meanwhile
 * (threading.setprofile with a one-shot installer that swaps itself for the
 * C hook), and skips the code of the standard library and site-packages
 * unless --all (the decision is cached per code object).
 */
#include "spy.h"

#include <stdlib.h>

typedef struct tracer {
    sp_region **stack; /* regions begun, NULL: frame not recorded */
    size_t n, cap;
    size_t recorded;        /* non-NULL entries: the nesting of traced calls */
    size_t lost;            /* pushes that failed (out of memory): pops to ignore */
    int active;             /* open recursive regions on this thread */
    bool run;               /* installed by a run: stays until the run stops */
    PyObject *own_code;     /* borrowed: the next call of this code is not traced */
    Py_tracefunc prev_func; /* the profiler this one replaced */
    PyObject *prev_obj;
} tracer;

static bool run_active; /* a run is tracing */
static bool run_filter; /* ... and skips what spy_runfilter.c says */

static int profile_hook(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg);

static void capsule_free(PyObject *cap)
{
    tracer *t = PyCapsule_GetPointer(cap, NULL);
    if (!t)
        return;
    Py_XDECREF(t->prev_obj);
    free(t->stack);
    free(t);
}

/* This thread's tracer, or NULL. */
static tracer *thread_tracer(void)
{
    PyThreadState *ts = PyThreadState_Get();
    if (ts->c_profilefunc != profile_hook || !ts->c_profileobj)
        return NULL;
    return PyCapsule_GetPointer(ts->c_profileobj, NULL);
}

/* keep_prev: restore the current profiler at uninstall (not for threads
 * started by a run, whose current profiler is the installer itself). */
static tracer *tracer_install(bool keep_prev)
{
    tracer *t = calloc(1, sizeof *t);
    if (!t) {
        PyErr_NoMemory();
        return NULL;
    }
    PyThreadState *ts = PyThreadState_Get();
    if (keep_prev) {
        t->prev_func = ts->c_profilefunc;
        t->prev_obj = Py_XNewRef(ts->c_profileobj);
    }
    PyObject *cap = PyCapsule_New(t, NULL, capsule_free);
    if (!cap) {
        Py_XDECREF(t->prev_obj);
        free(t);
        return NULL;
    }
    PyEval_SetProfile(profile_hook, cap); /* takes its own reference */
    Py_DECREF(cap);
    if (thread_tracer() != t) { /* refused by an audit hook */
        PyErr_SetString(spy_error, "cannot install the profiling hook");
        return NULL;
    }
    return t;
}

/* End what is still open (in reverse) and give the thread back to the
 * profiler that was there. Frees t. */
static void tracer_uninstall(tracer *t)
{
    while (t->n) {
        sp_region *r = t->stack[--t->n];
        if (r)
            sp_region_end(r);
    }
    t->recorded = 0;
    Py_tracefunc f = t->prev_func;
    PyObject *o = t->prev_obj;
    t->prev_obj = NULL;
    PyEval_SetProfile(f, o); /* drops the capsule: t is gone */
    Py_XDECREF(o);
}

/* ---- naming and filtering ---- */

static sp_region *name_region(PyCodeObject *code, PyFrameObject *frame)
{
    PyObject *globals = PyFrame_GetGlobals(frame);
    PyObject *mod =
        globals && PyDict_Check(globals) ? PyDict_GetItemString(globals, "__name__") : NULL;
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *qual = code->co_qualname;
#else
    PyObject *qual = code->co_name;
#endif
    PyObject *s = mod && PyUnicode_Check(mod) ? PyUnicode_FromFormat("%U.%U", mod, qual)
                                              : PyUnicode_FromFormat("?.%U", qual);
    Py_XDECREF(globals);
    const char *utf8 = s ? PyUnicode_AsUTF8(s) : NULL;
    sp_region *r = utf8 ? sp_region_get(utf8) : NULL;
    Py_XDECREF(s);
    if (!r)
        PyErr_Clear();
    return r;
}

static sp_region *code_region(PyCodeObject *code, PyFrameObject *frame)
{
    spy_codeinfo *ci = spy_codeinfo_get((PyObject *)code, true);
    if (!ci)
        return NULL;
    if (run_filter && spy_runfilter_skips(ci, code))
        return NULL;
    if (!ci->region)
        ci->region = name_region(code, frame);
    return ci->region;
}

/* ---- the hook ---- */

static int grow(tracer *t)
{
    size_t cap = t->cap ? 2 * t->cap : 64;
    sp_region **s = realloc(t->stack, cap * sizeof *s);
    if (!s)
        return -1;
    t->stack = s;
    t->cap = cap;
    return 0;
}

static void on_call(tracer *t, PyFrameObject *frame)
{
    if (t->n == t->cap && grow(t) != 0) {
        t->lost++;
        return;
    }
    PyCodeObject *code = PyFrame_GetCode(frame);
    sp_region *r = NULL;
    if ((PyObject *)code == t->own_code)
        t->own_code = NULL; /* the decorated function's own frame */
    else if (t->recorded < spy.max_depth)
        r = code_region(code, frame);
    Py_DECREF(code);
    t->stack[t->n++] = r;
    if (r) {
        t->recorded++;
        sp_region_begin(r);
    }
}

static void on_return(tracer *t)
{
    if (t->lost) {
        t->lost--;
        return;
    }
    if (t->n == 0)
        return; /* a frame that began before the hook */
    sp_region *r = t->stack[--t->n];
    if (r) {
        t->recorded--;
        sp_region_end(r);
    }
}

static int profile_hook(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    (void)arg;
    if (what != PyTrace_CALL && what != PyTrace_RETURN)
        return 0;
    tracer *t = PyCapsule_GetPointer(obj, NULL);
    if (!t) {
        PyErr_Clear();
        return 0;
    }
    if (__builtin_expect(t->run && !run_active, 0)) {
        /* A thread started by a run that has stopped: step aside. */
        t->run = false;
        if (t->active <= 0) {
            tracer_uninstall(t);
            return 0;
        }
    }
    if (what == PyTrace_CALL)
        on_call(t, frame);
    else
        on_return(t);
    return 0;
}

/* ---- recursive regions ---- */

int spy_trace_enter(PyObject *own_code)
{
    tracer *t = thread_tracer();
    if (!t && !(t = tracer_install(true)))
        return -1;
    t->active++;
    t->own_code = own_code;
    return 0;
}

void spy_trace_exit(void)
{
    tracer *t = thread_tracer();
    if (!t)
        return;
    t->own_code = NULL;
    if (t->active > 0)
        t->active--;
    if (t->active == 0 && !t->run)
        tracer_uninstall(t);
}

void spy_trace_stop_thread(void)
{
    tracer *t = thread_tracer();
    if (t && !t->run)
        tracer_uninstall(t);
}

/* ---- scope-profiler run ---- */

/* trace_start(filter, skip_prefixes, kinds, include=()): trace every
 * Python call of this thread until trace_stop(); with filter, skip code
 * whose file name starts with one of skip_prefixes (of the kinds given, one
 * per prefix) unless its package is in include (spy_runfilter.c).
 * (threading.setprofile(thread_installer) is the caller's part.) */
PyObject *spy_fn_trace_start(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"filter", "skip_prefixes", "kinds", "include", NULL};
    int filter = 1;
    PyObject *prefixes = NULL, *kinds = NULL, *include = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "pO!O!|O:trace_start", kwlist, &filter,
                                     &PyTuple_Type, &prefixes, &PyTuple_Type, &kinds, &include))
        return NULL;
    PyObject *none = include ? NULL : PyTuple_New(0);
    int rc = spy_runfilter_set(prefixes, kinds, include ? include : none);
    Py_XDECREF(none);
    if (rc != 0)
        return NULL;
    tracer *t = thread_tracer();
    if (!t && !(t = tracer_install(true)))
        return NULL;
    run_filter = filter;
    run_active = true;
    t->run = true;
    Py_RETURN_NONE;
}

PyObject *spy_fn_trace_stop(PyObject *m, PyObject *unused)
{
    run_active = false;
    run_filter = false;
    tracer *t = thread_tracer();
    if (t) {
        t->run = false;
        if (t->active <= 0)
            tracer_uninstall(t);
    }
    Py_RETURN_NONE;
}

/* The profile function threading.setprofile() gives new threads during a
 * run: on its first event it puts the C hook in its place. */
PyObject *spy_fn_thread_installer(PyObject *m, PyObject *args)
{
    PyObject *frame = NULL, *event = NULL, *arg = NULL;
    if (!PyArg_UnpackTuple(args, "thread_installer", 0, 3, &frame, &event, &arg))
        return NULL;
    if (!run_active) {
        PyEval_SetProfile(NULL, NULL);
        Py_RETURN_NONE;
    }
    tracer *t = thread_tracer();
    if (!t && !(t = tracer_install(false)))
        return NULL;
    t->run = true;
    /* This event was the installer's: replay it (the thread's run()). */
    if (frame && PyFrame_Check(frame) && event && PyUnicode_Check(event) &&
        PyUnicode_CompareWithASCIIString(event, "call") == 0)
        on_call(t, (PyFrameObject *)frame);
    Py_RETURN_NONE;
}
