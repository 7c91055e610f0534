/* SPDX-License-Identifier: MIT */
/*
 * spy_region.c - region objects: ProfileManager.region(name) and
 * get_region(name), the context manager, and what a region reports
 * (num_calls, capacity, get_durations_numpy()).
 *
 * The four classes of the Python package (DisabledProfileRegion,
 * TimeOnlyProfileRegion, FullProfileRegion, LineProfilerRegion) share one
 * implementation: the class only names the session's mode at the time the
 * region was created. __enter__/__exit__ always go through the library's
 * recording table, which setup() chose; so a region object created before
 * setup() (at import time, say) records once a session is active, and a
 * disabled session costs one call into a no-op.
 *
 * Speed: `with r:` costs two lookups of special methods (each makes a bound
 * method) and two calls; __enter__ is METH_NOARGS and __exit__ METH_FASTCALL
 * (no argument tuple). region(name) is one dict lookup keyed by the str
 * (its hash is cached in the str), so it never rebuilds a region.
 */
#include "spy.h"

static PyTypeObject *base_type;     /* ProfileRegion (not instantiable) */
static PyTypeObject *kind_types[4]; /* by spy_mode - SPY_DISABLED */
static PyObject *np_frombuffer, *np_int64;

int spy_region_check(PyObject *o)
{
    return PyObject_TypeCheck(o, base_type);
}

/* ---- enter / exit ---- */

/* The rare path: trace callees (recursive profiling) and/or time the lines
 * of the region's registered functions (line profiling) while it is open.
 * A tracer that cannot start (out of memory) leaves the region timed only,
 * with a warning. */
static void enter_extra(spy_region *r)
{
    sp_region_begin(r->h);
    if (((r->extra | spy.extra) & SPY_X_RECURSIVE) && spy_trace_enter(NULL) != 0)
        PyErr_WriteUnraisable((PyObject *)r);
    if ((spy.extra & SPY_X_LINES) && r->functions && spy_lines_enter() != 0)
        PyErr_WriteUnraisable((PyObject *)r);
}

static void exit_extra(spy_region *r)
{
    if ((spy.extra & SPY_X_LINES) && r->functions)
        spy_lines_exit();
    if ((r->extra | spy.extra) & SPY_X_RECURSIVE)
        spy_trace_exit();
    sp_region_end(r->h);
}

/* Extras nest by counting (a region entered recursively counts twice);
 * ending a tracer that is not running is a no-op, and setup() stops the
 * calling thread's tracers, so a region left open across setup() cannot
 * leave one running. */
static PyObject *region_enter(PyObject *self, PyObject *Py_UNUSED(unused))
{
    spy_region *r = (spy_region *)self;
    if (__builtin_expect((r->extra | spy.extra) != 0, 0))
        enter_extra(r);
    else
        sp_region_begin(r->h);
    return Py_NewRef(self);
}

static PyObject *region_exit(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)args;
    (void)nargs;
    spy_region *r = (spy_region *)self;
    if (__builtin_expect((r->extra | spy.extra) != 0, 0))
        exit_extra(r);
    else
        sp_region_end(r->h);
    Py_RETURN_NONE; /* falsy: an exception raised in the block propagates */
}

/* ---- queries ---- */

static PyObject *region_num_calls(PyObject *self, void *closure)
{
    return PyLong_FromUnsignedLongLong(sp_region_num_calls(((spy_region *)self)->h));
}

static PyObject *region_capacity(PyObject *self, void *closure)
{
    return PyLong_FromSize_t(sp_region_capacity(((spy_region *)self)->h));
}

static PyObject *region_dropped(PyObject *self, void *closure)
{
    return PyLong_FromUnsignedLongLong(sp_region_dropped_calls(((spy_region *)self)->h));
}

static PyObject *region_name(PyObject *self, void *closure)
{
    return Py_NewRef(((spy_region *)self)->name);
}

static int numpy_ready(void)
{
    if (np_frombuffer)
        return 0;
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np)
        return -1;
    np_frombuffer = PyObject_GetAttrString(np, "frombuffer");
    np_int64 = PyObject_GetAttrString(np, "int64");
    Py_DECREF(np);
    if (!np_frombuffer || !np_int64) {
        Py_CLEAR(np_frombuffer);
        Py_CLEAR(np_int64);
        return -1;
    }
    return 0;
}

/* Durations (end - start, ns) of the completed calls of this session, as a
 * numpy int64 array (thread by thread, in recording order). */
static PyObject *region_durations(PyObject *self, PyObject *Py_UNUSED(unused))
{
    spy_region *r = (spy_region *)self;
    if (numpy_ready() != 0)
        return NULL;
    uint64_t n = sp_region_num_calls(r->h);
    if (n > (uint64_t)(PY_SSIZE_T_MAX / 8))
        return PyErr_NoMemory();
    PyObject *buf = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(n * 8));
    if (!buf)
        return NULL;
    size_t k = n ? sp_region_durations_ns(r->h, (int64_t *)PyByteArray_AS_STRING(buf), n) : 0;
    if (k < n && PyByteArray_Resize(buf, (Py_ssize_t)(k * 8)) != 0) {
        Py_DECREF(buf);
        return NULL;
    }
    PyObject *args[2] = {buf, np_int64};
    PyObject *kwnames = Py_BuildValue("(s)", "dtype");
    PyObject *arr = kwnames ? PyObject_Vectorcall(np_frombuffer, args, 1, kwnames) : NULL;
    Py_XDECREF(kwnames);
    Py_DECREF(buf);
    return arr;
}

static PyObject *region_repr(PyObject *self)
{
    spy_region *r = (spy_region *)self;
    return PyUnicode_FromFormat("<%s %R: %llu calls>", Py_TYPE(self)->tp_name, r->name,
                                (unsigned long long)sp_region_num_calls(r->h));
}

static void region_dealloc(PyObject *self)
{
    spy_region *r = (spy_region *)self;
    PyTypeObject *tp = Py_TYPE(self);
    Py_XDECREF(r->name);
    Py_XDECREF(r->functions);
    tp->tp_free(self);
    Py_DECREF(tp); /* heap type */
}

static PyMethodDef region_methods[] = {
    {"__enter__", region_enter, METH_NOARGS, "Begin one call of the region; returns the region."},
    {"__exit__", (PyCFunction)(void (*)(void))region_exit, METH_FASTCALL,
     "End the call (also when the block raised; the exception propagates)."},
    {"get_durations_numpy", region_durations, METH_NOARGS,
     "Durations [ns] of this session's completed calls as a numpy int64 array\n"
     "(empty after finalize(): use its results)."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef region_getset[] = {
    {"name", region_name, NULL, "The region's name.", NULL},
    {"num_calls", region_num_calls, NULL, "Calls recorded in this session (all threads).", NULL},
    {"capacity", region_capacity, NULL,
     "Buffer capacity in calls: buffer_limit, doubled as often as needed\n"
     "(summed over the threads that used the region; 0 before the first call).",
     NULL},
    {"dropped_calls", region_dropped, NULL, "Calls lost because a buffer could not grow.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot base_slots[] = {
    {Py_tp_doc, "A named profiling region: use it as a context manager."},
    {Py_tp_dealloc, region_dealloc},
    {Py_tp_repr, region_repr},
    {Py_tp_methods, region_methods},
    {Py_tp_getset, region_getset},
    {0, NULL}};

static PyType_Spec base_spec = {
    "scope_profiler.ProfileRegion", sizeof(spy_region), 0,
    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION, base_slots};

static PyType_Slot kind_slots[] = {{0, NULL}};
#define KIND_SPEC(name, doc) /* doc: what the class records */                                     \
    {                                                                                              \
        "scope_profiler." name, sizeof(spy_region), 0,                                             \
            Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, kind_slots                     \
    }
static PyType_Spec kind_specs[4] = {
    KIND_SPEC("DisabledProfileRegion", "records nothing"),
    KIND_SPEC("TimeOnlyProfileRegion", "records start/end timestamps"),
    KIND_SPEC("FullProfileRegion", "timestamps plus LIKWID counters"),
    KIND_SPEC("LineProfilerRegion", "timestamps plus line timings"),
};

int spy_region_types_init(PyObject *module)
{
    base_type = (PyTypeObject *)PyType_FromSpec(&base_spec);
    if (!base_type || PyModule_AddObjectRef(module, "ProfileRegion", (PyObject *)base_type) != 0)
        return -1;
    for (int i = 0; i < 4; i++) {
        kind_types[i] =
            (PyTypeObject *)PyType_FromSpecWithBases(&kind_specs[i], (PyObject *)base_type);
        if (!kind_types[i])
            return -1;
        const char *name = strrchr(kind_specs[i].name, '.') + 1;
        if (PyModule_AddObjectRef(module, name, (PyObject *)kind_types[i]) != 0)
            return -1;
    }
    return 0;
}

/* ---- the name -> region cache ---- */

static PyTypeObject *class_for_mode(void)
{
    switch (spy.mode) {
    case SPY_TIME_ONLY:
        return kind_types[1];
    case SPY_FULL:
        return kind_types[2];
    case SPY_LINES:
        return kind_types[3];
    default:
        return kind_types[0];
    }
}

static PyObject *region_create(PyObject *name)
{
    if (!PyUnicode_Check(name))
        return PyErr_Format(PyExc_TypeError, "region name must be str, not %.100s",
                            Py_TYPE(name)->tp_name);
    Py_ssize_t len;
    const char *utf8 = PyUnicode_AsUTF8AndSize(name, &len);
    if (!utf8)
        return NULL;
    if (len == 0 || (size_t)len != strlen(utf8))
        return PyErr_Format(PyExc_ValueError, "region name must be non-empty and contain no NUL");
    PyTypeObject *tp = class_for_mode();
    spy_region *r = PyObject_New(spy_region, tp);
    if (!r)
        return NULL;
    r->h = sp_region_get(utf8);
    r->name = Py_NewRef(name);
    r->functions = NULL;
    r->extra = 0;
    if (PyDict_SetItem(spy.regions, name, (PyObject *)r) != 0) {
        Py_DECREF(r);
        return NULL;
    }
    return (PyObject *)r;
}

PyObject *spy_region_get_or_create(PyObject *name)
{
    PyObject *r = PyDict_GetItemWithError(spy.regions, name); /* borrowed */
    if (r)
        return Py_NewRef(r);
    if (PyErr_Occurred())
        return NULL;
    return region_create(name);
}

/* Register fns for line profiling while region r is open. */
static int add_functions(spy_region *r, PyObject *fns)
{
    PyObject *it = PyObject_GetIter(fns);
    if (!it)
        return -1;
    if (!r->functions && !(r->functions = PyList_New(0))) {
        Py_DECREF(it);
        return -1;
    }
    PyObject *fn;
    while ((fn = PyIter_Next(it))) {
        int rc = spy_lines_register(fn, r->h);
        if (rc == 0)
            rc = PyList_Append(r->functions, fn);
        Py_DECREF(fn);
        if (rc != 0) {
            Py_DECREF(it);
            return -1;
        }
    }
    Py_DECREF(it);
    if (PyErr_Occurred())
        return -1;
    r->extra |= SPY_X_LINES;
    return 0;
}

/* region(name, functions=None): the hot path is one positional str. */
PyObject *spy_fn_region(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs == 1 && kwnames == NULL)
        return spy_region_get_or_create(args[0]);
    static const char *const kwlist[] = {"name", "functions", NULL};
    PyObject *name = NULL, *functions = Py_None;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs > 2)
        return PyErr_Format(PyExc_TypeError, "region() takes at most 2 arguments");
    if (nargs >= 1)
        name = args[0];
    if (nargs == 2)
        functions = args[1];
    for (Py_ssize_t i = 0; i < nkw; i++) {
        const char *k = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, i));
        if (!k)
            return NULL;
        if (strcmp(k, kwlist[0]) == 0 && !name)
            name = args[nargs + i];
        else if (strcmp(k, kwlist[1]) == 0 && nargs < 2)
            functions = args[nargs + i];
        else
            return PyErr_Format(PyExc_TypeError,
                                "region() got an unexpected or repeated "
                                "keyword argument '%s'",
                                k);
    }
    if (!name)
        return PyErr_Format(PyExc_TypeError, "region() missing required argument 'name'");
    PyObject *r = spy_region_get_or_create(name);
    if (!r || functions == Py_None)
        return r;
    if (add_functions((spy_region *)r, functions) != 0) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

/* get_region(name): the region of this session, or None if it was never
 * created nor recorded (regions traced by recursive profiling count). */
PyObject *spy_fn_get_region(PyObject *m, PyObject *name)
{
    PyObject *r = PyDict_GetItemWithError(spy.regions, name);
    if (r)
        return Py_NewRef(r);
    if (PyErr_Occurred())
        return NULL;
    if (!PyUnicode_Check(name))
        return PyErr_Format(PyExc_TypeError, "region name must be str, not %.100s",
                            Py_TYPE(name)->tp_name);
    const char *utf8 = PyUnicode_AsUTF8(name);
    if (!utf8)
        return NULL;
    if (*utf8 && sp_region_num_calls(sp_region_get(utf8)) > 0)
        return region_create(name);
    Py_RETURN_NONE;
}
