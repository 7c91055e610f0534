/* SPDX-License-Identifier: MIT */
/*
 * spy_run.c - read_h5(path) and the results of finalize(): a Run (regions by
 * name, rank count, metadata, the boxed summary) and RegionResult (name,
 * num_calls, total_duration in seconds). Files of the Python package's
 * layouts read too (sp_read_h5).
 */
#define _GNU_SOURCE /* open_memstream */
#include "spy.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <structmember.h>
#include <unistd.h>

typedef struct spy_run {
    PyObject_HEAD sp_run *run;
    PyObject *path; /* str, or None for an in-memory run */
} spy_run;

typedef struct spy_result {
    PyObject_HEAD PyObject *name;
    unsigned long long num_calls;
    double total_duration;
} spy_result;

static PyTypeObject *run_type, *result_type;

int spy_write(PyObject *file, const char *text, size_t len)
{
    PyObject *f = file && file != Py_None ? Py_NewRef(file) : PySys_GetObject("stdout");
    if (f == NULL || f == Py_None) /* no stdout (pythonw): drop the text */
        return 0;
    if (!file || file == Py_None)
        Py_INCREF(f);
    PyObject *s = PyUnicode_DecodeUTF8(text, (Py_ssize_t)len, "replace");
    PyObject *r = s ? PyObject_CallMethod(f, "write", "O", s) : NULL;
    Py_XDECREF(s);
    Py_DECREF(f);
    if (!r)
        return -1;
    Py_DECREF(r);
    return 0;
}

/* ---- RegionResult ---- */

static PyObject *result_new(const sp_run_region *rr)
{
    spy_result *r = PyObject_New(spy_result, result_type);
    if (!r)
        return NULL;
    r->name = PyUnicode_FromString(sp_run_region_name(rr));
    r->num_calls = (unsigned long long)sp_run_region_num_calls(rr);
    /* Calls are whole nanoseconds: round the sum to the nanosecond so it
     * prints as the package's ns / 1e9 does (0.006212669, not ...0001). */
    r->total_duration = nearbyint(sp_run_region_total_s(rr) * 1e9) / 1e9;
    if (!r->name) {
        Py_DECREF(r);
        return NULL;
    }
    return (PyObject *)r;
}

static PyObject *result_average(PyObject *self, void *closure)
{
    spy_result *r = (spy_result *)self;
    return PyFloat_FromDouble(r->num_calls ? r->total_duration / (double)r->num_calls : 0.0);
}

static PyObject *result_repr(PyObject *self)
{
    spy_result *r = (spy_result *)self;
    char total[64];
    snprintf(total, sizeof total, "%.9f", r->total_duration);
    return PyUnicode_FromFormat("<RegionResult %R: num_calls=%llu, total_duration=%s s>", r->name,
                                r->num_calls, total);
}

static void result_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    Py_XDECREF(((spy_result *)self)->name);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyMemberDef result_members[] = {
    {"name", T_OBJECT, offsetof(spy_result, name), READONLY, "The region's name."},
    {"num_calls", T_ULONGLONG, offsetof(spy_result, num_calls), READONLY,
     "Calls recorded (all ranks)."},
    {"total_duration", T_DOUBLE, offsetof(spy_result, total_duration), READONLY,
     "Summed duration of the calls [s] (all ranks)."},
    {NULL, 0, 0, 0, NULL}};

static PyGetSetDef result_getset[] = {
    {"average_duration", result_average, NULL, "Mean duration of a call [s].", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot result_slots[] = {{Py_tp_doc, "One region of a finished or read run."},
                                     {Py_tp_dealloc, result_dealloc},
                                     {Py_tp_repr, result_repr},
                                     {Py_tp_members, result_members},
                                     {Py_tp_getset, result_getset},
                                     {0, NULL}};

static PyType_Spec result_spec = {"scope_profiler.RegionResult", sizeof(spy_result), 0,
                                  Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
                                  result_slots};

/* ---- Run ---- */

PyObject *spy_run_wrap(sp_run *run, PyObject *path)
{
    spy_run *r = PyObject_New(spy_run, run_type);
    if (!r) {
        sp_run_free(run);
        return NULL;
    }
    r->run = run;
    r->path = Py_NewRef(path ? path : Py_None);
    return (PyObject *)r;
}

static PyObject *run_getitem(PyObject *self, PyObject *key)
{
    spy_run *r = (spy_run *)self;
    if (!PyUnicode_Check(key))
        return PyErr_Format(PyExc_TypeError, "region names are str, not %.100s",
                            Py_TYPE(key)->tp_name);
    const char *name = PyUnicode_AsUTF8(key);
    if (!name)
        return NULL;
    const sp_run_region *rr = sp_run_find(r->run, name);
    if (!rr) {
        PyErr_SetObject(PyExc_KeyError, key);
        return NULL;
    }
    return result_new(rr);
}

static int run_contains(PyObject *self, PyObject *key)
{
    spy_run *r = (spy_run *)self;
    const char *name = PyUnicode_Check(key) ? PyUnicode_AsUTF8(key) : NULL;
    if (!name) {
        PyErr_Clear();
        return 0;
    }
    return sp_run_find(r->run, name) != NULL;
}

static Py_ssize_t run_len(PyObject *self)
{
    return (Py_ssize_t)sp_run_num_regions(((spy_run *)self)->run);
}

static PyObject *run_keys(PyObject *self, PyObject *Py_UNUSED(unused))
{
    spy_run *r = (spy_run *)self;
    size_t n = sp_run_num_regions(r->run);
    PyObject *out = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; out && i < n; i++) {
        PyObject *s = PyUnicode_FromString(sp_run_region_name(sp_run_region_at(r->run, i)));
        if (!s)
            Py_CLEAR(out);
        else
            PyList_SET_ITEM(out, (Py_ssize_t)i, s);
    }
    return out;
}

static PyObject *run_iter(PyObject *self)
{
    PyObject *keys = run_keys(self, NULL);
    PyObject *it = keys ? PyObject_GetIter(keys) : NULL;
    Py_XDECREF(keys);
    return it;
}

/* regions: {name: RegionResult} in the run's order. */
static PyObject *run_regions(PyObject *self, void *closure)
{
    spy_run *r = (spy_run *)self;
    PyObject *d = PyDict_New();
    size_t n = sp_run_num_regions(r->run);
    for (size_t i = 0; d && i < n; i++) {
        const sp_run_region *rr = sp_run_region_at(r->run, i);
        PyObject *v = result_new(rr);
        if (!v || PyDict_SetItem(d, ((spy_result *)v)->name, v) != 0)
            Py_CLEAR(d);
        Py_XDECREF(v);
    }
    return d;
}

static PyObject *run_num_ranks(PyObject *self, void *closure)
{
    return PyLong_FromSize_t(sp_run_num_ranks(((spy_run *)self)->run));
}

static PyObject *run_path(PyObject *self, void *closure)
{
    return Py_NewRef(((spy_run *)self)->path);
}

static PyObject *run_metadata(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2 || !PyUnicode_Check(args[0]))
        return PyErr_Format(PyExc_TypeError, "metadata(key: str, default=None)");
    const char *key = PyUnicode_AsUTF8(args[0]);
    if (!key)
        return NULL;
    const char *v = sp_run_metadata(((spy_run *)self)->run, key);
    if (v)
        return PyUnicode_FromString(v);
    return Py_NewRef(nargs == 2 ? args[1] : Py_None);
}

/* print_summary(file=None): the boxed tree and the Info panel, to file
 * (default sys.stdout). */
static PyObject *run_print_summary(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"file", NULL};
    PyObject *file = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:print_summary", kwlist, &file))
        return NULL;
    char *text = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&text, &len);
    if (!mem)
        return PyErr_NoMemory();
    int rc = sp_run_print_summary(((spy_run *)self)->run, mem);
    fclose(mem);
    if (rc != 0) {
        free(text);
        return spy_raise(rc);
    }
    int wrc = spy_write(file, text, len);
    free(text);
    if (wrc != 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyObject *run_repr(PyObject *self)
{
    spy_run *r = (spy_run *)self;
    size_t nr = sp_run_num_ranks(r->run);
    return PyUnicode_FromFormat("<scope_profiler.Run %R: %zu regions, %zu rank%s>", r->path,
                                sp_run_num_regions(r->run), nr, nr == 1 ? "" : "s");
}

static void run_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    spy_run *r = (spy_run *)self;
    sp_run_free(r->run);
    Py_XDECREF(r->path);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyMethodDef run_methods[] = {
    {"keys", run_keys, METH_NOARGS, "The region names."},
    {"metadata", (PyCFunction)(void (*)(void))run_metadata, METH_FASTCALL,
     "metadata(key, default=None): a run fact (hostname, mpi_size, ...)."},
    {"print_summary", (PyCFunction)(void (*)(void))run_print_summary, METH_VARARGS | METH_KEYWORDS,
     "print_summary(file=None): print the summary tree and the Info panel."},
    {NULL, NULL, 0, NULL}};

static PyGetSetDef run_getset[] = {
    {"regions", run_regions, NULL, "{name: RegionResult}", NULL},
    {"num_ranks", run_num_ranks, NULL, "MPI ranks in the run (1 without MPI).", NULL},
    {"path", run_path, NULL, "The file, or None for an in-memory run.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyType_Slot run_slots[] = {{Py_tp_doc, "A recorded run: run[name] is a RegionResult."},
                                  {Py_tp_dealloc, run_dealloc},
                                  {Py_tp_repr, run_repr},
                                  {Py_tp_iter, run_iter},
                                  {Py_tp_methods, run_methods},
                                  {Py_tp_getset, run_getset},
                                  {Py_mp_subscript, run_getitem},
                                  {Py_mp_length, run_len},
                                  {Py_sq_contains, run_contains},
                                  {0, NULL}};

static PyType_Spec run_spec = {"scope_profiler.Run", sizeof(spy_run), 0,
                               Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, run_slots};

int spy_run_types_init(PyObject *module)
{
    run_type = (PyTypeObject *)PyType_FromSpec(&run_spec);
    result_type = (PyTypeObject *)PyType_FromSpec(&result_spec);
    if (!run_type || !result_type)
        return -1;
    if (PyModule_AddObjectRef(module, "Run", (PyObject *)run_type) != 0 ||
        PyModule_AddObjectRef(module, "RegionResult", (PyObject *)result_type) != 0)
        return -1;
    return 0;
}

/* read_h5(path): a Run read from an HDF5 file (str or os.PathLike). */
PyObject *spy_fn_read_h5(PyObject *m, PyObject *path)
{
    PyObject *bytes = NULL;
    if (!PyUnicode_FSConverter(path, &bytes))
        return NULL;
    const char *p = PyBytes_AS_STRING(bytes);
    if (access(p, R_OK) != 0) { /* FileNotFoundError, PermissionError, ... */
        PyErr_SetFromErrnoWithFilenameObject(PyExc_OSError, path);
        Py_DECREF(bytes);
        return NULL;
    }
    /* The GIL stays held: h5py serialises its HDF5 calls under the GIL, and
     * HDF5 must not be entered from two threads at once. */
    sp_run *run = sp_read_h5(p);
    if (!run) {
        PyObject *msg = PyUnicode_DecodeFSDefault(sp_last_error());
        PyErr_SetObject(PyExc_OSError, msg);
        Py_XDECREF(msg);
        Py_DECREF(bytes);
        return NULL;
    }
    PyObject *spath = PyUnicode_DecodeFSDefault(p);
    Py_DECREF(bytes);
    if (!spath) {
        sp_run_free(run);
        return NULL;
    }
    PyObject *r = spy_run_wrap(run, spath);
    Py_DECREF(spath);
    return r;
}
