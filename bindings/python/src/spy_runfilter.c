/* SPDX-License-Identifier: MIT */
/*
 * spy_runfilter.c - what `scope-profiler run` leaves out of a Python
 * program, and how much it left out.
 *
 * A code object whose file name starts with one of the run's prefixes is not
 * traced: this package and runpy (kind "internal"), the standard library
 * ("stdlib"), site-packages and dist-packages ("package"), code without a
 * file such as namedtuple's "<string>" ("generated"). The longest matching
 * prefix decides. Below a "stdlib" or "package" prefix, the first component
 * of the rest names the package ("pyflakes" for .../dist-packages/pyflakes/
 * checker.py, "six" for .../six.py): a package of the include list is traced
 * after all (--include-package NAME).
 *
 * The decision is cached per code object (spy_codeinfo, per run), with the
 * package's row in a small table whose call counter each skipped call bumps
 * (the GIL serialises them): trace_skipped() tells the run which packages
 * held the calls it did not record, so it can say "add --include-package
 * pyflakes" when the filter left (almost) nothing.
 */
#include "spy.h"

#include <string.h>

#define MAX_GROUPS 256 /* packages counted one by one; the rest share the last */

enum kind { K_INTERNAL, K_STDLIB, K_PACKAGE, K_GENERATED, K_COUNT };
static const char *const kind_names[K_COUNT] = {"internal", "stdlib", "package", "generated"};

static PyObject *prefixes; /* tuple of str */
static enum kind *kinds;   /* per prefix */
static PyObject *include;  /* frozenset of str: package names traced anyway */
static unsigned long gen;  /* counts filters: invalidates cached decisions */

static struct group {
    PyObject *name; /* str */
    enum kind kind;
    unsigned long long calls;
} groups[MAX_GROUPS];
static int ngroups;

static void groups_clear(void)
{
    for (int i = 0; i < ngroups; i++)
        Py_CLEAR(groups[i].name);
    ngroups = 0;
}

void spy_runfilter_clear(void)
{
    Py_CLEAR(prefixes);
    Py_CLEAR(include);
    PyMem_Free(kinds);
    kinds = NULL;
    gen++;
}

int spy_runfilter_set(PyObject *pfx, PyObject *knd, PyObject *inc)
{
    Py_ssize_t n = PyTuple_GET_SIZE(pfx);
    if (!PyTuple_Check(knd) || PyTuple_GET_SIZE(knd) != n) {
        PyErr_SetString(PyExc_TypeError, "kinds must be a tuple as long as skip_prefixes");
        return -1;
    }
    enum kind *k = PyMem_Calloc(n ? (size_t)n : 1, sizeof *k);
    PyObject *set = PyFrozenSet_New(inc);
    if (!k || !set) {
        PyMem_Free(k);
        Py_XDECREF(set);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *p = PyTuple_GET_ITEM(pfx, i), *s = PyTuple_GET_ITEM(knd, i);
        int found = -1;
        for (int j = 0; PyUnicode_Check(s) && j < K_COUNT; j++)
            if (PyUnicode_CompareWithASCIIString(s, kind_names[j]) == 0)
                found = j;
        if (!PyUnicode_Check(p) || found < 0) {
            PyErr_SetString(PyExc_TypeError,
                            "skip_prefixes holds str, kinds internal|stdlib|package|generated");
            PyMem_Free(k);
            Py_DECREF(set);
            return -1;
        }
        k[i] = (enum kind)found;
    }
    spy_runfilter_clear();
    prefixes = Py_NewRef(pfx);
    kinds = k;
    include = set;
    groups_clear();
    return 0;
}

/* The package named by the part of `file` after a prefix of `plen`
 * characters: its first path component without ".py"/".pyc". New ref. */
static PyObject *package_of(PyObject *file, Py_ssize_t plen)
{
    Py_ssize_t len = PyUnicode_GET_LENGTH(file);
    Py_ssize_t slash = PyUnicode_FindChar(file, '/', plen, len, 1);
    Py_ssize_t end = slash >= 0 ? slash : len;
    PyObject *name = PyUnicode_Substring(file, plen, end);
    if (!name || slash >= 0)
        return name;
    /* A module of its own (six.py) or a compiled one (_foo.cpython-311-...). */
    Py_ssize_t dot = PyUnicode_FindChar(name, '.', 0, PyUnicode_GET_LENGTH(name), 1);
    if (dot > 0)
        Py_SETREF(name, PyUnicode_Substring(name, 0, dot));
    return name;
}

/* The row of (name, kind), added when new; -1 when nothing is counted. */
static int group_of(PyObject *name, enum kind kind)
{
    for (int i = 0; i < ngroups; i++)
        if (groups[i].kind == kind && PyUnicode_Compare(groups[i].name, name) == 0)
            return i;
    if (PyErr_Occurred())
        PyErr_Clear();
    if (ngroups == MAX_GROUPS)
        return MAX_GROUPS - 1; /* the last row collects the rest */
    groups[ngroups].name = Py_NewRef(name);
    groups[ngroups].kind = kind;
    groups[ngroups].calls = 0;
    return ngroups++;
}

/* Decide for a code object: 1 skip, 0 trace; ci->run_group set. */
static signed char decide(PyCodeObject *code, spy_codeinfo *ci)
{
    PyObject *file = code->co_filename;
    ci->run_group = -1;
    Py_ssize_t n = prefixes ? PyTuple_GET_SIZE(prefixes) : 0, best = -1, best_len = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *p = PyTuple_GET_ITEM(prefixes, i);
        Py_ssize_t m = PyUnicode_Tailmatch(file, p, 0, PY_SSIZE_T_MAX, -1);
        if (m < 0)
            PyErr_Clear();
        if (m == 1 && PyUnicode_GET_LENGTH(p) > best_len) {
            best = i;
            best_len = PyUnicode_GET_LENGTH(p);
        }
    }
    if (best < 0)
        return 0;
    enum kind kind = kinds[best];
    if (kind == K_INTERNAL)
        return 1;
    PyObject *name = kind == K_GENERATED ? PyUnicode_FromString("<generated>")
                                         : package_of(file, best_len);
    if (!name) {
        PyErr_Clear();
        return 1;
    }
    int traced = kind != K_GENERATED && include ? PySet_Contains(include, name) : 0;
    if (traced < 0) {
        PyErr_Clear();
        traced = 0;
    }
    if (!traced)
        ci->run_group = (short)group_of(name, kind);
    Py_DECREF(name);
    return traced ? 0 : 1;
}

bool spy_runfilter_skips(spy_codeinfo *ci, PyCodeObject *code)
{
    if (ci->run_gen != gen) {
        ci->run_skip = decide(code, ci);
        ci->run_gen = gen;
    }
    if (ci->run_skip && ci->run_group >= 0)
        groups[ci->run_group].calls++;
    return ci->run_skip;
}

/* trace_skipped() -> [(name, kind, calls), ...]: the calls the run's filter left out, by package ("stdlib" for the standard
 * library's modules, "package" for site-packages, "generated"). */
PyObject *spy_fn_trace_skipped(PyObject *m, PyObject *unused)
{
    PyObject *out = PyList_New(0);
    for (int i = 0; out && i < ngroups; i++) {
        if (!groups[i].calls)
            continue;
        PyObject *t = Py_BuildValue("(OsK)", groups[i].name, kind_names[groups[i].kind],
                                    groups[i].calls);
        if (!t || PyList_Append(out, t) != 0)
            Py_CLEAR(out);
        Py_XDECREF(t);
    }
    return out;
}
