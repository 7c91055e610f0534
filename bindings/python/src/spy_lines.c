/* SPDX-License-Identifier: MIT */
/*
 * spy_lines.c - line profiling for Python: a C line tracer
 * (PyEval_SetTrace, the C side of sys.settrace) times the lines of the
 * registered functions (ProfileManager.profile in use_line_profiler mode,
 * region(name, functions=[...])) while tracing is on for the thread.
 *
 * A line's time runs from its LINE event to the next event of the same frame
 * (the next line, or the return), as line_profiler measures: it includes the
 * functions the line calls and the tracer's own cost per line. Hits count
 * LINE events. Only frames of registered code are timed; the tracer sees
 * every frame's events while on, so it is turned on only around registered
 * functions and regions that name them.
 *
 * Per thread, like spy_trace.c: a capsule in the thread state holds a stack
 * of the registered frames currently running (frame, last line, its start).
 * The tables are per code object (spy_codeinfo.lines), updated with the GIL
 * held, so threads add up without locks.
 */
#include "spy.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct row {
    uint64_t hits;
    int64_t ns;
} row;

struct spy_linestats {
    int first; /* line number of rows[0] (the code's first line) */
    int nrows;
    row *rows;
    sp_region *region; /* the file's lines are stored under this region */
};

typedef struct lframe {
    PyFrameObject *frame; /* borrowed: popped at its RETURN */
    spy_linestats *ls;
    int line; /* -1 before the first LINE event */
    int64_t t;
} lframe;

typedef struct ltracer {
    lframe *stack;
    size_t n, cap;
    int active;
    Py_tracefunc prev_func;
    PyObject *prev_obj;
} ltracer;

static PyObject *registry; /* list of the registered code objects (kept alive) */

void spy_linestats_free(spy_linestats *ls)
{
    if (ls) {
        free(ls->rows);
        free(ls);
    }
}

static inline int64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static row *row_at(spy_linestats *ls, int line)
{
    int i = line - ls->first;
    if (i < 0)
        return NULL;
    if (i >= ls->nrows) {
        int n = ls->nrows ? ls->nrows : 16;
        while (n <= i)
            n *= 2;
        row *r = realloc(ls->rows, (size_t)n * sizeof *r);
        if (!r)
            return NULL;
        memset(r + ls->nrows, 0, (size_t)(n - ls->nrows) * sizeof *r);
        ls->rows = r;
        ls->nrows = n;
    }
    return &ls->rows[i];
}

/* ---- registration ---- */

/* 1 and *out set, 0 when o has no such attribute, -1 on other errors. */
static int optional_attr(PyObject *o, const char *name, PyObject **out)
{
    *out = PyObject_GetAttrString(o, name);
    if (*out)
        return 1;
    if (!PyErr_ExceptionMatches(PyExc_AttributeError))
        return -1;
    PyErr_Clear();
    return 0;
}

/* The code object behind fn: a code object, a function, a bound method, a
 * profiled wrapper or anything functools.wraps made (via __wrapped__). */
static PyObject *code_of(PyObject *fn)
{
    PyObject *cur = Py_NewRef(fn);
    for (int hops = 0; hops < 64; hops++) {
        if (PyCode_Check(cur))
            return cur;
        PyObject *next = NULL;
        if (optional_attr(cur, "__wrapped__", &next) < 0 ||
            (!next && optional_attr(cur, "__func__", &next) < 0) ||
            (!next && optional_attr(cur, "__code__", &next) < 0)) {
            Py_DECREF(cur);
            return NULL;
        }
        if (!next)
            break;
        Py_SETREF(cur, next);
    }
    PyErr_Format(PyExc_TypeError, "cannot line-profile %R: not a Python function", fn);
    Py_DECREF(cur);
    return NULL;
}

int spy_lines_register(PyObject *fn, sp_region *region)
{
    PyObject *code = code_of(fn);
    if (!code)
        return -1;
    spy_codeinfo *ci = spy_codeinfo_get(code, true);
    int rc = 0;
    if (!ci) {
        PyErr_NoMemory();
        rc = -1;
    } else if (!ci->lines) {
        spy_linestats *ls = calloc(1, sizeof *ls);
        if (!ls) {
            PyErr_NoMemory();
            rc = -1;
        } else {
            ls->first = ((PyCodeObject *)code)->co_firstlineno;
            ls->region = region;
            ci->lines = ls;
            if (!registry && !(registry = PyList_New(0)))
                rc = -1;
            else
                rc = PyList_Append(registry, code);
        }
    }
    Py_DECREF(code);
    return rc;
}

void spy_lines_reset(void)
{
    Py_ssize_t n = registry ? PyList_GET_SIZE(registry) : 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        spy_codeinfo *ci = spy_codeinfo_get(PyList_GET_ITEM(registry, i), false);
        if (ci && ci->lines && ci->lines->rows)
            memset(ci->lines->rows, 0, (size_t)ci->lines->nrows * sizeof(row));
    }
}

int spy_lines_store(void)
{
    Py_ssize_t n = registry ? PyList_GET_SIZE(registry) : 0;
    bool any = false;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyCodeObject *code = (PyCodeObject *)PyList_GET_ITEM(registry, i);
        spy_codeinfo *ci = spy_codeinfo_get((PyObject *)code, false);
        if (!ci || !ci->lines || !ci->lines->region)
            continue;
#if PY_VERSION_HEX >= 0x030B0000
        PyObject *qual = code->co_qualname;
#else
        PyObject *qual = code->co_name;
#endif
        const char *file = PyUnicode_AsUTF8(code->co_filename), *fn = PyUnicode_AsUTF8(qual);
        if (!file || !fn)
            return -1;
        for (int j = 0; j < ci->lines->nrows; j++) {
            const row *r = &ci->lines->rows[j];
            if (r->hits == 0 && r->ns == 0)
                continue;
            int rc = sp_lines_add(ci->lines->region, file, ci->lines->first + j, fn, r->hits,
                                  r->ns);
            if (rc != 0) {
                spy_raise(rc);
                return -1;
            }
            any = true;
        }
    }
    /* Readers call these counts executions and the times measured. */
    if (any && sp_metadata_set("line_tracer", "python line tracer (PyEval_SetTrace)") != 0) {
        PyErr_NoMemory();
        return -1;
    }
    return 0;
}

/* line_stats() -> [(code, [(line, hits, ns), ...]), ...] for every registered
 * code object that ran in this session, lines in order. */
PyObject *spy_fn_line_stats(PyObject *m, PyObject *unused)
{
    PyObject *out = PyList_New(0);
    Py_ssize_t n = registry ? PyList_GET_SIZE(registry) : 0;
    for (Py_ssize_t i = 0; out && i < n; i++) {
        PyObject *code = PyList_GET_ITEM(registry, i);
        spy_codeinfo *ci = spy_codeinfo_get(code, false);
        if (!ci || !ci->lines)
            continue;
        PyObject *lines = PyList_New(0);
        for (int j = 0; lines && j < ci->lines->nrows; j++) {
            const row *r = &ci->lines->rows[j];
            if (r->hits == 0 && r->ns == 0)
                continue;
            PyObject *t = Py_BuildValue("(iKL)", ci->lines->first + j, (unsigned long long)r->hits,
                                        (long long)r->ns);
            if (!t || PyList_Append(lines, t) != 0)
                Py_CLEAR(lines);
            Py_XDECREF(t);
        }
        if (!lines) {
            Py_CLEAR(out);
            break;
        }
        if (PyList_GET_SIZE(lines) > 0) {
            PyObject *pair = PyTuple_Pack(2, code, lines);
            if (!pair || PyList_Append(out, pair) != 0)
                Py_CLEAR(out);
            Py_XDECREF(pair);
        }
        Py_DECREF(lines);
    }
    return out;
}

/* ---- the tracer ---- */

static int line_hook(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg);

static void capsule_free(PyObject *cap)
{
    ltracer *t = PyCapsule_GetPointer(cap, NULL);
    if (!t)
        return;
    Py_XDECREF(t->prev_obj);
    free(t->stack);
    free(t);
}

static ltracer *thread_ltracer(void)
{
    PyThreadState *ts = PyThreadState_Get();
    if (ts->c_tracefunc != line_hook || !ts->c_traceobj)
        return NULL;
    return PyCapsule_GetPointer(ts->c_traceobj, NULL);
}

/* The entry of `frame` in the stack (usually the top), or NULL. */
static lframe *find(ltracer *t, PyFrameObject *frame)
{
    for (size_t i = t->n; i-- > 0;)
        if (t->stack[i].frame == frame)
            return &t->stack[i];
    return NULL;
}

static void charge(lframe *e, int64_t now)
{
    if (e->line >= 0) {
        row *r = row_at(e->ls, e->line);
        if (r)
            r->ns += now - e->t;
    }
}

/* The clock is read once per event, and only for the events of registered
 * frames: the rest (every other frame's lines while tracing is on) return
 * after a code-object or pointer check. */
static int line_hook(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    (void)arg;
    ltracer *t = PyCapsule_GetPointer(obj, NULL);
    if (!t) {
        PyErr_Clear();
        return 0;
    }
    if (what == PyTrace_CALL) {
        PyCodeObject *code = PyFrame_GetCode(frame);
        spy_codeinfo *ci = spy_codeinfo_get((PyObject *)code, false);
        Py_DECREF(code);
        if (!ci || !ci->lines)
            return 0;
        if (t->n == t->cap) {
            size_t cap = t->cap ? 2 * t->cap : 16;
            lframe *s = realloc(t->stack, cap * sizeof *s);
            if (!s)
                return 0; /* this call goes untimed */
            t->stack = s;
            t->cap = cap;
        }
        t->stack[t->n++] = (lframe){frame, ci->lines, -1, now_ns()};
        return 0;
    }
    if (t->n == 0 || (what != PyTrace_LINE && what != PyTrace_RETURN))
        return 0;
    lframe *e = t->stack[t->n - 1].frame == frame ? &t->stack[t->n - 1] : find(t, frame);
    if (!e)
        return 0;
    int64_t now = now_ns();
    charge(e, now);
    if (what == PyTrace_RETURN) {
        t->n = (size_t)(e - t->stack); /* pops it (and anything left above) */
        return 0;
    }
    int line = PyFrame_GetLineNumber(frame);
    row *r = row_at(e->ls, line);
    if (r)
        r->hits++;
    e->line = line;
    e->t = now;
    return 0;
}

int spy_lines_enter(void)
{
    ltracer *t = thread_ltracer();
    if (!t) {
        if (!(t = calloc(1, sizeof *t))) {
            PyErr_NoMemory();
            return -1;
        }
        PyThreadState *ts = PyThreadState_Get();
        t->prev_func = ts->c_tracefunc;
        t->prev_obj = Py_XNewRef(ts->c_traceobj);
        PyObject *cap = PyCapsule_New(t, NULL, capsule_free);
        if (!cap) {
            Py_XDECREF(t->prev_obj);
            free(t);
            return -1;
        }
        PyEval_SetTrace(line_hook, cap);
        Py_DECREF(cap);
        if (thread_ltracer() != t) {
            PyErr_SetString(spy_error, "cannot install the line tracer");
            return -1;
        }
    }
    t->active++;
    return 0;
}

static void ltracer_uninstall(ltracer *t)
{
    Py_tracefunc f = t->prev_func;
    PyObject *o = t->prev_obj;
    t->prev_obj = NULL;
    PyEval_SetTrace(f, o); /* frees t */
    Py_XDECREF(o);
}

void spy_lines_exit(void)
{
    ltracer *t = thread_ltracer();
    if (t && --t->active <= 0)
        ltracer_uninstall(t);
}

void spy_lines_stop_thread(void)
{
    ltracer *t = thread_ltracer();
    if (t)
        ltracer_uninstall(t);
}
