/* SPDX-License-Identifier: MIT */
/*
 * spy_codeinfo.c - a small struct cached on every code object the tracers
 * meet, through the interpreter's per-code "extra" slots (PEP 523): the
 * traced region's handle, the `scope-profiler run` filter decision and the
 * line timings. A lookup is an index into the code object: no dict, no hash.
 */
#include "spy.h"

#include <stdlib.h>

#if PY_VERSION_HEX >= 0x030C0000
#define SPY_REQUEST_EXTRA PyUnstable_Eval_RequestCodeExtraIndex
#define SPY_GET_EXTRA PyUnstable_Code_GetExtra
#define SPY_SET_EXTRA PyUnstable_Code_SetExtra
#else
#define SPY_REQUEST_EXTRA _PyEval_RequestCodeExtraIndex
#define SPY_GET_EXTRA _PyCode_GetExtra
#define SPY_SET_EXTRA _PyCode_SetExtra
#endif

static Py_ssize_t extra_index = -1;

/* Called by the interpreter when the code object is freed. */
static void codeinfo_free(void *p)
{
    spy_codeinfo *ci = p;
    if (!ci)
        return;
    spy_linestats_free(ci->lines);
    free(ci);
}

int spy_codeinfo_init(void)
{
    extra_index = SPY_REQUEST_EXTRA(codeinfo_free);
    if (extra_index < 0) {
        PyErr_SetString(PyExc_RuntimeError, "scope_profiler: no free code-object extra slot");
        return -1;
    }
    return 0;
}

spy_codeinfo *spy_codeinfo_get(PyObject *code, bool create)
{
    void *p = NULL;
    if (SPY_GET_EXTRA(code, extra_index, &p) != 0) {
        PyErr_Clear();
        return NULL;
    }
    if (p || !create)
        return p;
    spy_codeinfo *ci = calloc(1, sizeof *ci);
    if (!ci)
        return NULL;
    ci->run_skip = -1;
    ci->run_group = -1;
    if (SPY_SET_EXTRA(code, extra_index, ci) != 0) {
        PyErr_Clear();
        free(ci);
        return NULL;
    }
    return ci;
}
