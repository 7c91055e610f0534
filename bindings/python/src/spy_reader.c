/* SPDX-License-Identifier: MIT */
/*
 * spy_reader.c - _core.Reader(path): a run opened aggregate-first for
 * numpy (scope_profiler.open_run in _data.py wraps it). One streaming pass
 * gives the statistics and, per thread, what a window of calls needs; the
 * calls themselves are read a (rank, thread, time window) at a time with
 * sp_window_load, straight into arrays: never a Python object per call.
 *
 * This file uses the library's internal reading API (sp_run_read.h,
 * sp_window.h: "internal API for the CLI, plots, viewer and bindings"),
 * which the shared library exports; the rest of the extension keeps to
 * scope_profiler.h.
 */
#include "spy.h"

#include <unistd.h>

#include "sp_agg.h"
#include "sp_events.h"
#include "sp_model.h"
#include "sp_run_read.h"
#include "sp_window.h"

typedef struct spy_reader {
    PyObject_HEAD sp_event_source *src; /* its run holds the aggregates */
} spy_reader;

static PyTypeObject *reader_type, *block_type;

/* A malloc'ed array handed to numpy without a copy: the object exports it
 * through the buffer protocol and frees it when the last view goes. */
typedef struct spy_block {
    PyObject_HEAD void *data;
    Py_ssize_t len;
} spy_block;

static int block_getbuffer(PyObject *self, Py_buffer *view, int flags)
{
    spy_block *b = (spy_block *)self;
    return PyBuffer_FillInfo(view, self, b->data ? b->data : (void *)"", b->len, 0, flags);
}

static void block_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    free(((spy_block *)self)->data);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot block_slots[] = {{Py_tp_doc, "Memory of a window of calls (a numpy base)."},
                                    {Py_bf_getbuffer, block_getbuffer},
                                    {Py_tp_dealloc, block_dealloc},
                                    {0, NULL}};

static PyType_Spec block_spec = {"scope_profiler._core.CallBlock", sizeof(spy_block), 0,
                                 Py_TPFLAGS_DEFAULT, block_slots};

/* A block taking *data (n items of size bytes); *data is NULL afterwards,
 * and is freed here on failure. */
static PyObject *block_take(void *data, size_t n, size_t size)
{
    spy_block *b = PyObject_New(spy_block, block_type);
    if (!b) {
        free(data);
        return NULL;
    }
    b->data = data;
    b->len = (Py_ssize_t)(n * size);
    return (PyObject *)b;
}

static PyObject *raise_lib(void)
{
    PyObject *msg = PyUnicode_DecodeFSDefault(sp_last_error());
    if (msg) {
        PyErr_SetObject(PyExc_OSError, msg);
        Py_DECREF(msg);
    }
    return NULL;
}

static int reader_init(PyObject *self, PyObject *args, PyObject *kw)
{
    spy_reader *r = (spy_reader *)self;
    static char *kwlist[] = {"path", NULL};
    PyObject *bytes = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O&", kwlist, PyUnicode_FSConverter, &bytes))
        return -1;
    const char *p = PyBytes_AS_STRING(bytes);
    if (access(p, R_OK) != 0) {
        PyErr_SetFromErrnoWithFilename(PyExc_OSError, p);
        Py_DECREF(bytes);
        return -1;
    }
    int status = 0;
    sp_event_source_free(r->src);
    r->src = sp_run_source_open(p, &status);
    Py_DECREF(bytes);
    sp_agg_opts opts = {.flags = SP_AGG_LANES};
    if (!r->src || sp_run_aggregate(r->src, &opts) != 0) {
        sp_event_source_free(r->src);
        r->src = NULL;
        raise_lib();
        return -1;
    }
    return 0;
}

static void reader_dealloc(PyObject *self)
{
    spy_reader *r = (spy_reader *)self;
    PyTypeObject *tp = Py_TYPE(self);
    sp_event_source_free(r->src);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static const sp_run *run_of(PyObject *self)
{
    spy_reader *r = (spy_reader *)self;
    if (!r->src) {
        PyErr_SetString(PyExc_ValueError, "Reader: not open");
        return NULL;
    }
    return r->src->run;
}

static PyObject *get_nranks(PyObject *self, void *c)
{
    (void)c;
    const sp_run *run = run_of(self);
    return run ? PyLong_FromSize_t(run->nranks) : NULL;
}

static PyObject *get_regions(PyObject *self, void *c)
{
    (void)c;
    const sp_run *run = run_of(self);
    if (!run)
        return NULL;
    PyObject *l = PyList_New((Py_ssize_t)run->nregions);
    for (size_t g = 0; l && g < run->nregions; g++) {
        PyObject *s = PyUnicode_DecodeUTF8(run->region_names[g],
                                           (Py_ssize_t)strlen(run->region_names[g]), "replace");
        if (!s) {
            Py_CLEAR(l);
            break;
        }
        PyList_SET_ITEM(l, (Py_ssize_t)g, s);
    }
    return l;
}

static PyObject *kv_dict(const sp_kvlist *kv)
{
    PyObject *d = PyDict_New();
    for (size_t i = 0; d && i < kv->n; i++) {
        PyObject *v = PyUnicode_DecodeUTF8(kv->items[i].value, (Py_ssize_t)strlen(kv->items[i].value),
                                           "replace");
        if (!v || PyDict_SetItemString(d, kv->items[i].key, v) != 0) {
            Py_XDECREF(v);
            Py_CLEAR(d);
            break;
        }
        Py_DECREF(v);
    }
    return d;
}

static PyObject *get_metadata(PyObject *self, void *c)
{
    (void)c;
    const sp_run *run = run_of(self);
    return run ? kv_dict(&run->meta) : NULL;
}

/* (first call's start, last call's end), aligned ns; None without calls. */
static PyObject *get_span(PyObject *self, void *c)
{
    (void)c;
    const sp_run *run = run_of(self);
    if (!run)
        return NULL;
    if (!run->agg || !run->agg->has_span)
        Py_RETURN_NONE;
    return Py_BuildValue("(LL)", (long long)run->agg->first_ns, (long long)run->agg->last_ns);
}

static int check_rank(const sp_run *run, long rank)
{
    if (rank < 0 || (size_t)rank >= run->nranks) {
        PyErr_Format(PyExc_IndexError, "rank %ld: the run has %zu ranks", rank, run->nranks);
        return -1;
    }
    return 0;
}

/* threads(rank) -> [(thread, name or None, calls, os_tid)] */
static PyObject *reader_threads(PyObject *self, PyObject *arg)
{
    const sp_run *run = run_of(self);
    long rank = run ? PyLong_AsLong(arg) : -1;
    if (!run || (rank == -1 && PyErr_Occurred()) || check_rank(run, rank))
        return NULL;
    const sp_rank_data *rk = &run->ranks[rank];
    PyObject *l = PyList_New(0);
    for (size_t t = 0; l && t < rk->nthreads; t++) {
        const sp_agg_lane *lane = sp_agg_find_lane(run->agg, (size_t)rank, (int32_t)t);
        PyObject *name = rk->threads[t].name
                             ? PyUnicode_DecodeUTF8(rk->threads[t].name,
                                                    (Py_ssize_t)strlen(rk->threads[t].name), "replace")
                             : Py_NewRef(Py_None);
        PyObject *item = name ? Py_BuildValue("(nNKL)", (Py_ssize_t)t, name,
                                              (unsigned long long)(lane ? lane->calls : 0),
                                              (long long)rk->threads[t].os_tid)
                              : NULL;
        if (!item || PyList_Append(l, item) != 0)
            Py_CLEAR(l);
        Py_XDECREF(item);
    }
    return l;
}

/* calls(rank, thread, t0_ns, t1_ns, max_calls) -> (start, end, region,
 * parent, depth, truncated): five buffers of int64, int64, int32, int64,
 * uint32, the window's own arrays (numpy views them without a copy). */
static PyObject *reader_calls(PyObject *self, PyObject *args)
{
    spy_reader *r = (spy_reader *)self;
    const sp_run *run = run_of(self);
    long rank, thread;
    long long t0, t1;
    unsigned long long max_calls;
    if (!run || !PyArg_ParseTuple(args, "llLLK", &rank, &thread, &t0, &t1, &max_calls) ||
        check_rank(run, rank))
        return NULL;
    sp_window *w = NULL;
    int rc = sp_window_load(r->src, run->agg, (size_t)rank, (int32_t)thread, t0, t1,
                            (size_t)max_calls, &w);
    if (rc == SP_ENOENT) /* a thread without calls: empty arrays */
        return Py_BuildValue("(NNNNNO)", block_take(NULL, 0, 8), block_take(NULL, 0, 8),
                             block_take(NULL, 0, 4), block_take(NULL, 0, 8),
                             block_take(NULL, 0, 4), Py_False);
    if (rc)
        return raise_lib();
    PyObject *res = Py_BuildValue("(NNNNNO)", block_take(w->start_ns, w->n, 8),
                                  block_take(w->end_ns, w->n, 8), block_take(w->region, w->n, 4),
                                  block_take(w->parent, w->n, 8), block_take(w->depth, w->n, 4),
                                  w->truncated ? Py_True : Py_False);
    w->start_ns = w->end_ns = w->parent = NULL; /* the blocks own them now */
    w->region = NULL;
    w->depth = NULL;
    sp_window_free(w);
    return res;
}

/* region_stats(rank) -> bytearray of nregions x 11 float64: calls, total,
 * own, mean, min, max, std, p50, p95, p99 (seconds; percentiles from the
 * histograms, within 0.8 %), nested calls; rank -1: every rank. */
static PyObject *reader_region_stats(PyObject *self, PyObject *arg)
{
    const sp_run *run = run_of(self);
    long rank = run ? PyLong_AsLong(arg) : -2;
    if (!run || (rank == -1 && PyErr_Occurred()) || (rank != -1 && check_rank(run, rank)))
        return NULL;
    enum { NF = 11 };
    PyObject *buf = PyByteArray_FromStringAndSize(NULL, (Py_ssize_t)(run->nregions * NF * 8));
    if (!buf)
        return NULL;
    double *out = (double *)PyByteArray_AS_STRING(buf);
    for (size_t g = 0; g < run->nregions; g++) {
        const sp_stats *st = rank < 0 ? &run->regions[g].all : &run->regions[g].per_rank[rank];
        uint64_t nested = 0;
        for (size_t q = 0; run->agg && q < run->agg->nranks; q++) {
            const sp_agg_region *ar = (rank < 0 || (size_t)rank == q)
                                          ? sp_agg_rank_region(&run->agg->ranks[q], (int32_t)g)
                                          : NULL;
            if (ar)
                nested += ar->nested;
        }
        double v[NF] = {(double)st->calls, st->total_s, st->own_s, st->mean_s, st->min_s,
                        st->max_s,         st->std_s,   st->p50_s, st->p95_s,  st->p99_s,
                        (double)nested};
        memcpy(out + g * NF, v, sizeof v);
    }
    return buf;
}

static PyGetSetDef reader_getset[] = {
    {"nranks", get_nranks, NULL, "Number of ranks.", NULL},
    {"regions", get_regions, NULL, "Region names, by region id.", NULL},
    {"metadata", get_metadata, NULL, "Run metadata (str -> str).", NULL},
    {"span", get_span, NULL, "(first start, last end) in ns, clocks aligned to rank 0.", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef reader_methods[] = {
    {"threads", reader_threads, METH_O, "threads(rank) -> [(thread, name, calls, os_tid)]"},
    {"calls", reader_calls, METH_VARARGS,
     "calls(rank, thread, t0_ns, t1_ns, max_calls) -> (start, end, region, parent, depth, "
     "truncated) as bytearrays"},
    {"region_stats", reader_region_stats, METH_O,
     "region_stats(rank or -1) -> bytearray of float64 rows (see _data.py)"},
    {NULL, NULL, 0, NULL}};

static PyType_Slot reader_slots[] = {
    {Py_tp_doc, "Reader(path): a run opened aggregate-first (use scope_profiler.open_run)."},
    {Py_tp_new, PyType_GenericNew},
    {Py_tp_init, reader_init},
    {Py_tp_dealloc, reader_dealloc},
    {Py_tp_methods, reader_methods},
    {Py_tp_getset, reader_getset},
    {0, NULL}};

static PyType_Spec reader_spec = {"scope_profiler._core.Reader", sizeof(spy_reader), 0,
                                  Py_TPFLAGS_DEFAULT, reader_slots};

int spy_reader_type_init(PyObject *module)
{
    reader_type = (PyTypeObject *)PyType_FromSpec(&reader_spec);
    block_type = (PyTypeObject *)PyType_FromSpec(&block_spec);
    if (!reader_type || !block_type)
        return -1;
    return PyModule_AddObjectRef(module, "Reader", (PyObject *)reader_type);
}
