/* SPDX-License-Identifier: MIT */
/*
 * spy_decorator.c - ProfileManager.profile: bare (@profile), with a region
 * name (@profile("solve")) and with recursive=True.
 *
 * The wrapper is a C object called through vectorcall: begin, call the
 * function with the same argument vector, end (also when it raises). It is a
 * method descriptor like a Python function (Py_TPFLAGS_METHOD_DESCRIPTOR), so
 * a decorated method is called without a bound-method object, and it carries
 * the function's __name__, __doc__, __wrapped__... (functools.update_wrapper).
 * In a session with deactivate_profiling=True the decorator returns the
 * original function, as the Python package does.
 */
#include "spy.h"

#include <structmember.h>

typedef struct spy_profiled {
    PyObject_HEAD vectorcallfunc vectorcall;
    PyObject *func;
    PyObject *code; /* func.__code__ for a Python function: its frame is the region */
    sp_region *h;
    unsigned extra;    /* SPY_X_RECURSIVE for profile(recursive=True) */
    signed char lines; /* registered for line profiling: 1 yes, -1 cannot be */
    PyObject *dict;
    PyObject *weakreflist;
} spy_profiled;

static PyTypeObject *profiled_type;
static PyObject *update_wrapper, *partial, *decorate_fn;

/* Recursive and/or line-profiled calls. */
static PyObject *call_extra(spy_profiled *p, PyObject *const *args, size_t nargsf,
                            PyObject *kwnames)
{
    bool rec = ((p->extra | spy.extra) & SPY_X_RECURSIVE) != 0;
    bool lines = false;
    if (spy.extra & SPY_X_LINES) {
        if (p->lines == 0) { /* decorated before this line-profiling session */
            p->lines = spy_lines_register(p->func, p->h) == 0 ? 1 : -1;
            if (p->lines < 0)
                PyErr_Clear(); /* not Python code: timed only */
        }
        lines = p->lines > 0;
    }
    sp_region_begin(p->h);
    if (rec && spy_trace_enter(p->code) != 0) {
        PyErr_WriteUnraisable((PyObject *)p);
        rec = false;
    }
    if (lines && spy_lines_enter() != 0) {
        PyErr_WriteUnraisable((PyObject *)p);
        lines = false;
    }
    PyObject *res = PyObject_Vectorcall(p->func, args, nargsf, kwnames);
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb); /* the tracers' removal must not see it */
    if (lines)
        spy_lines_exit();
    if (rec)
        spy_trace_exit();
    PyErr_Restore(et, ev, tb);
    sp_region_end(p->h);
    return res;
}

static PyObject *profiled_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                                     PyObject *kwnames)
{
    spy_profiled *p = (spy_profiled *)self;
    if (__builtin_expect((p->extra | spy.extra) != 0, 0))
        return call_extra(p, args, nargsf, kwnames);
    sp_region_begin(p->h);
    PyObject *res = PyObject_Vectorcall(p->func, args, nargsf, kwnames);
    sp_region_end(p->h);
    return res;
}

/* Bound like a function: instance.method is a method of the wrapper. */
static PyObject *profiled_get(PyObject *self, PyObject *obj, PyObject *type)
{
    if (obj == NULL || obj == Py_None)
        return Py_NewRef(self);
    return PyMethod_New(self, obj);
}

static PyObject *profiled_repr(PyObject *self)
{
    spy_profiled *p = (spy_profiled *)self;
    return PyUnicode_FromFormat("<profiled %R as region '%s'>", p->func, sp_region_name(p->h));
}

static PyObject *profiled_region_name(PyObject *self, void *closure)
{
    return PyUnicode_FromString(sp_region_name(((spy_profiled *)self)->h));
}

static int profiled_traverse(PyObject *self, visitproc visit, void *arg)
{
    spy_profiled *p = (spy_profiled *)self;
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(p->func);
    Py_VISIT(p->dict);
    return 0;
}

static int profiled_clear(PyObject *self)
{
    spy_profiled *p = (spy_profiled *)self;
    Py_CLEAR(p->func);
    Py_CLEAR(p->code);
    Py_CLEAR(p->dict);
    return 0;
}

static void profiled_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    if (((spy_profiled *)self)->weakreflist)
        PyObject_ClearWeakRefs(self);
    profiled_clear(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyMemberDef profiled_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(spy_profiled, dict), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(spy_profiled, weakreflist), READONLY, NULL},
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(spy_profiled, vectorcall), READONLY, NULL},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef profiled_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {"region_name", profiled_region_name, NULL, "The region this function records.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot profiled_slots[] = {
    {Py_tp_doc, "A function whose calls are recorded as calls of a region."},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_descr_get, profiled_get},
    {Py_tp_repr, profiled_repr},
    {Py_tp_traverse, profiled_traverse},
    {Py_tp_clear, profiled_clear},
    {Py_tp_dealloc, profiled_dealloc},
    {Py_tp_members, profiled_members},
    {Py_tp_getset, profiled_getset},
    {0, NULL}};

static PyType_Spec profiled_spec = {"scope_profiler.ProfiledFunction", sizeof(spy_profiled), 0,
                                    Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
                                        Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR |
                                        Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                    profiled_slots};

int spy_decorator_type_init(PyObject *module)
{
    profiled_type = (PyTypeObject *)PyType_FromSpec(&profiled_spec);
    if (!profiled_type ||
        PyModule_AddObjectRef(module, "ProfiledFunction", (PyObject *)profiled_type) != 0)
        return -1;
    PyObject *functools = PyImport_ImportModule("functools");
    if (!functools)
        return -1;
    update_wrapper = PyObject_GetAttrString(functools, "update_wrapper");
    partial = PyObject_GetAttrString(functools, "partial");
    Py_DECREF(functools);
    decorate_fn = PyObject_GetAttrString(module, "_decorate");
    return update_wrapper && partial && decorate_fn ? 0 : -1;
}

/* Wrap func as region `name` (None: func.__name__). */
static PyObject *decorate(PyObject *func, PyObject *name, int recursive)
{
    if (!PyCallable_Check(func))
        return PyErr_Format(PyExc_TypeError, "profile: %R is not callable", func);
    if (spy.mode == SPY_DISABLED)
        return Py_NewRef(func); /* the original function: nothing to strip out */
    PyObject *nm = name != Py_None ? Py_NewRef(name) : PyObject_GetAttrString(func, "__name__");
    if (!nm)
        return NULL;
    PyObject *region = spy_region_get_or_create(nm);
    Py_DECREF(nm);
    if (!region)
        return NULL;
    spy_profiled *p = PyObject_GC_New(spy_profiled, profiled_type);
    if (!p) {
        Py_DECREF(region);
        return NULL;
    }
    p->vectorcall = profiled_vectorcall;
    p->func = Py_NewRef(func);
    p->code = PyFunction_Check(func) ? Py_NewRef(PyFunction_GET_CODE(func)) : NULL;
    p->h = ((spy_region *)region)->h;
    p->extra = recursive ? SPY_X_RECURSIVE : 0;
    p->lines = 0;
    p->dict = NULL;
    p->weakreflist = NULL;
    Py_DECREF(region);
    PyObject_GC_Track(p);
    if (spy.mode == SPY_LINES) {
        p->lines = spy_lines_register(func, p->h) == 0 ? 1 : -1;
        if (p->lines < 0)
            PyErr_Clear();
    }
    PyObject *r = PyObject_CallFunctionObjArgs(update_wrapper, (PyObject *)p, func, NULL);
    if (!r) {
        Py_DECREF(p);
        return NULL;
    }
    Py_DECREF(r);
    return (PyObject *)p;
}

/* _decorate(name, recursive, func): what profile("name", ...) returns,
 * as a functools.partial over the first two. */
PyObject *spy_fn_decorate(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3)
        return PyErr_Format(PyExc_TypeError, "_decorate(name, recursive, func)");
    int rec = PyObject_IsTrue(args[1]);
    if (rec < 0)
        return NULL;
    return decorate(args[2], args[0], rec);
}

/* profile(region_name=None, *, recursive=False): a decorator, or applied
 * directly when given a function (@ProfileManager.profile). */
PyObject *spy_fn_profile(PyObject *m, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"region_name", "recursive", NULL};
    PyObject *target = Py_None;
    int recursive = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O$p:profile", kwlist, &target, &recursive))
        return NULL;
    if (target != Py_None && !PyUnicode_Check(target)) {
        if (PyCallable_Check(target))
            return decorate(target, Py_None, recursive);
        return PyErr_Format(PyExc_TypeError,
                            "profile() takes a region name (str) or a function, not %.100s",
                            Py_TYPE(target)->tp_name);
    }
    return PyObject_CallFunction(partial, "OOO", decorate_fn, target,
                                 recursive ? Py_True : Py_False);
}
