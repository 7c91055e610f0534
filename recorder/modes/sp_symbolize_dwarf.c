/* SPDX-License-Identifier: MIT */
/*
 * sp_symbolize_dwarf.c - addresses to functions with libdw (elfutils),
 * loaded with dlopen: the modules of /proc/self/maps (dwfl_linux_proc_report),
 * the function's symbol (dwfl_module_addrinfo), the address's line
 * (dwfl_module_getsrc) and, from the DWARF debug information, the functions
 * inlined at the address (DW_TAG_inlined_subroutine entries), each with the
 * file that declares it and the place it was inlined from, as eu-addr2line -i
 * and perf report them. The functions of a compilation unit are indexed by
 * address in one pass over its entries the first time one of its addresses
 * is resolved (dwarf_getscopes walks the unit again for every address: about
 * 1.6 ms each in LULESH's lulesh.cc).
 *
 * An optimised kernel inlined into main() is thus its own function, with
 * main as its caller, and `Domain::yd(int)` (declared in lulesh.h) is module
 * "lulesh" even where its first instruction is an inlined std::vector
 * operator[] of stl_vector.h.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_symbolize_internal.h"

#if defined(__has_include)
#if __has_include(<elfutils/libdwfl.h>)
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#define SP__HAVE_DWFL_H 1
#endif
#endif
#ifndef SP__HAVE_DWFL_H
#define SP__HAVE_DWFL_H 0
#endif

#if SP__HAVE_DWFL_H

/* ---- libdw, loaded once per process ---- */

typedef struct dw_api {
    __typeof__(&dwfl_begin) begin;
    __typeof__(&dwfl_end) end;
    __typeof__(&dwfl_report_begin) report_begin;
    __typeof__(&dwfl_report_end) report_end;
    __typeof__(&dwfl_linux_proc_report) proc_report;
    __typeof__(&dwfl_addrmodule) addrmodule;
    __typeof__(&dwfl_module_info) module_info;
    __typeof__(&dwfl_module_addrinfo) addrinfo;
    __typeof__(&dwfl_module_getsrc) getsrc;
    __typeof__(&dwfl_lineinfo) lineinfo;
    __typeof__(&dwfl_module_addrdie) addrdie;
    __typeof__(&dwfl_module_getdwarf) getdwarf;
    __typeof__(&dwfl_module_getsymtab) getsymtab;
    __typeof__(&dwfl_module_getsym_info) getsym_info;
    __typeof__(&dwarf_diename) diename;
    __typeof__(&dwarf_child) child;
    __typeof__(&dwarf_siblingof) siblingof;
    __typeof__(&dwarf_ranges) ranges;
    __typeof__(&dwarf_dieoffset) dieoffset;
    __typeof__(&dwarf_tag) tag;
    __typeof__(&dwarf_attr) attr;
    __typeof__(&dwarf_attr_integrate) attr_integrate;
    __typeof__(&dwarf_formstring) formstring;
    __typeof__(&dwarf_formudata) formudata;
    __typeof__(&dwarf_formref_die) formref_die;
    __typeof__(&dwarf_decl_file) decl_file;
    __typeof__(&dwarf_diecu) diecu;
    __typeof__(&dwarf_getsrcfiles) getsrcfiles;
    __typeof__(&dwarf_filesrc) filesrc;
    Dwfl_Callbacks callbacks; /* must outlive every Dwfl */
} dw_api;

static dw_api dw;
static int dw_state; /* 0 not tried, 1 loaded, -1 unavailable */
static pthread_mutex_t dw_lock = PTHREAD_MUTEX_INITIALIZER;

static bool dw_load(void)
{
    pthread_mutex_lock(&dw_lock);
    if (dw_state == 0) {
        dw_state = -1;
        void *h = dlopen("libdw.so.1", RTLD_NOW | RTLD_LOCAL);
        if (h) {
#define SYM(field, name) (dw.field = (__typeof__(dw.field))dlsym(h, name)) != NULL
            bool ok =
                SYM(begin, "dwfl_begin") && SYM(end, "dwfl_end") &&
                SYM(report_begin, "dwfl_report_begin") && SYM(report_end, "dwfl_report_end") &&
                SYM(proc_report, "dwfl_linux_proc_report") && SYM(addrmodule, "dwfl_addrmodule") &&
                SYM(module_info, "dwfl_module_info") && SYM(addrinfo, "dwfl_module_addrinfo") &&
                SYM(getsrc, "dwfl_module_getsrc") && SYM(lineinfo, "dwfl_lineinfo") &&
                SYM(addrdie, "dwfl_module_addrdie") && SYM(getdwarf, "dwfl_module_getdwarf") &&
                SYM(getsymtab, "dwfl_module_getsymtab") &&
                SYM(getsym_info, "dwfl_module_getsym_info") &&
                SYM(diename, "dwarf_diename") && SYM(child, "dwarf_child") &&
                SYM(siblingof, "dwarf_siblingof") && SYM(ranges, "dwarf_ranges") &&
                SYM(dieoffset, "dwarf_dieoffset") && SYM(tag, "dwarf_tag") &&
                SYM(attr, "dwarf_attr") && SYM(attr_integrate, "dwarf_attr_integrate") &&
                SYM(formstring, "dwarf_formstring") && SYM(formudata, "dwarf_formudata") &&
                SYM(formref_die, "dwarf_formref_die") &&
                SYM(decl_file, "dwarf_decl_file") && SYM(diecu, "dwarf_diecu") &&
                SYM(getsrcfiles, "dwarf_getsrcfiles") && SYM(filesrc, "dwarf_filesrc") &&
                SYM(callbacks.find_elf, "dwfl_linux_proc_find_elf") &&
                SYM(callbacks.find_debuginfo, "dwfl_standard_find_debuginfo");
#undef SYM
            if (ok)
                dw_state = 1;
            /* The handle stays open: the callbacks point into it. */
        }
    }
    bool ok = dw_state == 1;
    pthread_mutex_unlock(&dw_lock);
    return ok;
}

/* A C++ function of a module's symbol table: its demangled name and, inside
 * it, the bare identifier before its parameters ("CalcForce" in
 * "CalcForce(Domain&, double)"). */
typedef struct named {
    const char *full, *key;
    size_t keylen;
} named;

typedef struct modnames {
    Dwfl_Module *mod;
    named *v; /* sorted by key */
    size_t n;
} modnames;

/* The functions of a compilation unit that have code: subprograms and the
 * inlined subroutines in them, each with the function it is inlined into;
 * and their address ranges, sorted by start. Ranges nest (an inlined call
 * lies inside its caller), so the innermost function at an address is the
 * one of the last range starting at or before it that contains it. */
typedef struct fnode {
    Dwarf_Die die;
    int parent; /* index of the enclosing function, -1 for a subprogram */
} fnode;

typedef struct frange {
    Dwarf_Addr lo, hi;
    int fn, depth;
} frange;

typedef struct cuindex {
    Dwfl_Module *mod;
    Dwarf_Off cu;
    fnode *fns;
    frange *rs;
    size_t nfns, nrs, capf, capr;
    bool oom;
} cuindex;

struct sp__dwarf {
    Dwfl *dwfl;
    modnames *mods; /* built when first needed, per module */
    size_t nmods;
    cuindex *cus; /* built when first needed, per compilation unit */
    size_t ncus;
};

sp__dwarf *sp__dwarf_open(void)
{
    if (!dw_load())
        return NULL;
    sp__dwarf *d = calloc(1, sizeof *d);
    if (!d)
        return NULL;
    if ((d->dwfl = dw.begin(&dw.callbacks)) != NULL) {
        dw.report_begin(d->dwfl);
        if (dw.proc_report(d->dwfl, getpid()) == 0 && dw.report_end(d->dwfl, NULL, NULL) == 0)
            return d;
        dw.end(d->dwfl);
    }
    free(d);
    return NULL;
}

void sp__dwarf_close(sp__dwarf *d)
{
    if (d) {
        dw.end(d->dwfl);
        for (size_t i = 0; i < d->nmods; i++)
            free(d->mods[i].v);
        free(d->mods);
        for (size_t i = 0; i < d->ncus; i++) {
            free(d->cus[i].fns);
            free(d->cus[i].rs);
        }
        free(d->cus);
        free(d);
    }
}

/* ---- names of inlined static functions ---- */

/* The identifier before the parameter list of a demangled name, in
 * [*key, *key + *len); false for names without one (templates, operators
 * and members have DWARF linkage names and never get here). */
static bool name_key(const char *full, const char **key, size_t *len)
{
    static const char anon[] = "(anonymous namespace)";
    const char *p = full;
    int angle = 0;
    for (; *p; p++) {
        if (strncmp(p, anon, sizeof anon - 1) == 0)
            p += sizeof anon - 2;
        else if (*p == '<')
            angle++;
        else if (*p == '>')
            angle--;
        else if (*p == '(' && angle == 0)
            break;
    }
    const char *end = p, *b = p;
    while (b > full && (b[-1] == '_' || (b[-1] >= '0' && b[-1] <= '9') ||
                        ((b[-1] | 0x20) >= 'a' && (b[-1] | 0x20) <= 'z')))
        b--;
    *key = b;
    *len = (size_t)(end - b);
    return *end == '(' && *len > 0;
}

static int named_order(const void *pa, const void *pb)
{
    const named *a = pa, *b = pb;
    size_t n = a->keylen < b->keylen ? a->keylen : b->keylen;
    int c = strncmp(a->key, b->key, n);
    return c ? c : a->keylen < b->keylen ? -1 : a->keylen > b->keylen;
}

/* The mangled functions of mod's symbol table, by bare name. */
static modnames *module_names(sp__dwarf *d, sp__symbolizer *s, Dwfl_Module *mod)
{
    for (size_t i = 0; i < d->nmods; i++)
        if (d->mods[i].mod == mod)
            return &d->mods[i];
    modnames *m = realloc(d->mods, (d->nmods + 1) * sizeof *m);
    if (!m)
        return NULL;
    d->mods = m;
    m = &d->mods[d->nmods];
    memset(m, 0, sizeof *m);
    int nsyms = dw.getsymtab(mod);
    if (nsyms > 0 && !(m->v = malloc((size_t)nsyms * sizeof *m->v)))
        return NULL;
    d->nmods++;
    m->mod = mod;
    for (int i = 0; i < nsyms; i++) {
        GElf_Sym sym;
        GElf_Addr addr;
        const char *raw = dw.getsym_info(mod, i, &sym, &addr, NULL, NULL, NULL);
        if (!raw || strncmp(raw, "_Z", 2) != 0 || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
            continue;
        named *e = &m->v[m->n];
        if ((e->full = sp__sym_demangle(s, raw)) && name_key(e->full, &e->key, &e->keylen))
            m->n++;
    }
    qsort(m->v, m->n, sizeof *m->v, named_order);
    return m;
}

/* Parameters in a demangled signature: top-level commas of the list that
 * follows the key, plus one ("f()" has none). */
static int signature_params(const named *e)
{
    const char *p = e->key + e->keylen;
    int depth = 0, n = 0;
    bool any = false;
    for (; *p; p++) {
        if (*p == '(' || *p == '<')
            depth++;
        else if (*p == ')' || *p == '>') {
            if (--depth == 0)
                break;
        } else if (depth == 1 && *p == ',')
            n++;
        else if (depth >= 1 && *p != ' ')
            any = true;
    }
    return any ? n + 1 : 0;
}

/* Parameters of a function entry (of its abstract definition), or -1 when
 * variadic or unknown. */
static int die_params(Dwarf_Die *die)
{
    Dwarf_Die cur = *die, next;
    Dwarf_Attribute a;
    for (int hop = 0; hop < 4 && dw.attr(&cur, DW_AT_abstract_origin, &a); hop++) {
        if (!dw.formref_die(&a, &next))
            return -1;
        cur = next;
    }
    int n = 0;
    Dwarf_Die c;
    if (dw.child(&cur, &c) != 0)
        return 0;
    do {
        int tag = dw.tag(&c);
        if (tag == DW_TAG_unspecified_parameters)
            return -1;
        n += tag == DW_TAG_formal_parameter;
    } while (dw.siblingof(&c, &c) == 0);
    return n;
}

/* The symbol-table name of the C++ function whose DWARF name is bare (a
 * static function: no linkage name), when exactly one function has it and
 * its parameter count: an inlined copy is then named as its out-of-line
 * copy is ("CalcForce(Domain&, double)"), one function, one region. NULL
 * if none (an overload never compiled out of line keeps its bare name). */
static const char *symbol_named(sp__dwarf *d, sp__symbolizer *s, Dwfl_Module *mod,
                                Dwarf_Die *die, const char *bare)
{
    modnames *m = module_names(d, s, mod);
    if (!m || !m->n)
        return NULL;
    named probe = {bare, bare, strlen(bare)};
    named *hit = bsearch(&probe, m->v, m->n, sizeof *m->v, named_order);
    if (!hit)
        return NULL;
    const named *lo = hit, *hi = hit, *end = m->v + m->n;
    while (lo > m->v && named_order(lo - 1, &probe) == 0)
        lo--;
    while (hi + 1 < end && named_order(hi + 1, &probe) == 0)
        hi++;
    for (const named *e = lo; e <= hi; e++)
        if (strcmp(e->full, lo->full) != 0)
            return NULL; /* overloads or two static functions of that name */
    int np = die_params(die);
    return np >= 0 && np == signature_params(lo) ? lo->full : NULL;
}

/* ---- DWARF entries ---- */

/* A function entry's name, following DW_AT_abstract_origin and
 * DW_AT_specification: its linkage name (C++), else the symbol table's name
 * of that bare name (a static C++ function), else the bare name; demangled. */
static const char *die_name(sp__dwarf *d, sp__symbolizer *s, Dwfl_Module *mod, Dwarf_Die *die)
{
    Dwarf_Attribute a;
    const char *name = dw.formstring(dw.attr_integrate(die, DW_AT_linkage_name, &a));
    if (!name)
        name = dw.formstring(dw.attr_integrate(die, DW_AT_MIPS_linkage_name, &a));
    if (name)
        return sp__sym_demangle(s, name);
    const char *bare = dw.diename(die), *full = bare ? symbol_named(d, s, mod, die, bare) : NULL;
    return full ? full : sp__sym_demangle(s, bare);
}

/* The source file of an inlined call (DW_AT_call_file of its entry). */
static const char *call_file(Dwarf_Die *inlined)
{
    Dwarf_Attribute a;
    Dwarf_Word idx;
    Dwarf_Die cu;
    Dwarf_Files *files;
    size_t nfiles;
    if (dw.formudata(dw.attr(inlined, DW_AT_call_file, &a), &idx) != 0 ||
        !dw.diecu(inlined, &cu, NULL, NULL) || dw.getsrcfiles(&cu, &files, &nfiles) != 0 ||
        idx >= nfiles)
        return NULL;
    return dw.filesrc(files, idx, NULL, NULL);
}

static int call_line(Dwarf_Die *inlined)
{
    Dwarf_Attribute a;
    Dwarf_Word line;
    return dw.formudata(dw.attr(inlined, DW_AT_call_line, &a), &line) == 0 ? (int)line : 0;
}

/* ---- the functions of a compilation unit ---- */

/* Room for one more element of `size` bytes in *v (n used, *cap allocated,
 * doubling). false on ENOMEM. */
static bool reserve_one(void **v, size_t n, size_t *cap, size_t size)
{
    if (n < *cap)
        return true;
    size_t c = *cap ? 2 * *cap : 256;
    void *p = realloc(*v, c * size);
    if (!p)
        return false;
    *v = p;
    *cap = c;
    return true;
}

static void index_add(cuindex *x, Dwarf_Die *die, int parent, int depth, int *fn, Dwarf_Addr lo,
                      Dwarf_Addr hi)
{
    if (*fn < 0) {
        if (!reserve_one((void **)&x->fns, x->nfns, &x->capf, sizeof *x->fns)) {
            x->oom = true;
            return;
        }
        x->fns[x->nfns] = (fnode){*die, parent};
        *fn = (int)x->nfns++;
    }
    if (!reserve_one((void **)&x->rs, x->nrs, &x->capr, sizeof *x->rs)) {
        x->oom = true;
        return;
    }
    x->rs[x->nrs++] = (frange){lo, hi, *fn, depth};
}

/* Every function with code below die (one pass over the unit's entries;
 * types are skipped: GCC and Clang put member function definitions at the
 * unit's or namespace's level). */
static void index_walk(cuindex *x, Dwarf_Die *die, int parent, int depth)
{
    Dwarf_Die c;
    if (depth > 256 || dw.child(die, &c) != 0)
        return;
    do {
        int tag = dw.tag(&c);
        if (tag == DW_TAG_subprogram || tag == DW_TAG_inlined_subroutine ||
            tag == DW_TAG_entry_point) {
            /* Declarations and abstract instances have no ranges: no code. */
            int fn = -1;
            Dwarf_Addr base, lo, hi;
            for (ptrdiff_t off = 0; (off = dw.ranges(&c, off, &base, &lo, &hi)) > 0;)
                if (hi > lo)
                    index_add(x, &c, parent, depth, &fn, lo, hi);
            if (fn >= 0)
                index_walk(x, &c, fn, depth + 1);
        } else if (tag == DW_TAG_lexical_block || tag == DW_TAG_namespace ||
                   tag == DW_TAG_module) {
            index_walk(x, &c, parent, depth);
        }
    } while (!x->oom && dw.siblingof(&c, &c) == 0);
}

static int range_order(const void *pa, const void *pb)
{
    const frange *a = pa, *b = pb;
    if (a->lo != b->lo)
        return a->lo < b->lo ? -1 : 1;
    return a->depth < b->depth ? -1 : a->depth > b->depth; /* the deeper last */
}

static cuindex *cu_index(sp__dwarf *d, Dwfl_Module *mod, Dwarf_Die *cu)
{
    Dwarf_Off off = dw.dieoffset(cu);
    for (size_t i = 0; i < d->ncus; i++)
        if (d->cus[i].mod == mod && d->cus[i].cu == off)
            return &d->cus[i];
    cuindex *n = realloc(d->cus, (d->ncus + 1) * sizeof *n);
    if (!n)
        return NULL;
    d->cus = n;
    cuindex *x = &d->cus[d->ncus];
    memset(x, 0, sizeof *x);
    x->mod = mod;
    x->cu = off;
    index_walk(x, cu, -1, 0);
    if (x->oom) {
        free(x->fns);
        free(x->rs);
        return NULL;
    }
    qsort(x->rs, x->nrs, sizeof *x->rs, range_order);
    d->ncus++;
    return x;
}

/* The functions at pc (an address of the unit, without the module's
 * bias), innermost first, in fn[0..max-1]; their count. */
static int functions_at(const cuindex *x, Dwarf_Addr pc, Dwarf_Die *fn, int max)
{
    size_t lo = 0, hi = x->nrs; /* the first range starting after pc */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (x->rs[mid].lo <= pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    int f = -1;
    for (size_t i = lo; i-- > 0;)
        if (pc < x->rs[i].hi) {
            f = x->rs[i].fn;
            break;
        }
    int k = 0;
    for (; f >= 0 && k < max; f = x->fns[f].parent)
        fn[k++] = x->fns[f].die;
    return k;
}

/* A header of the system (the C and C++ standard libraries): code inlined
 * from it counts as the system's, like the system's libraries. */
static bool system_header(const char *file)
{
    return file && (strncmp(file, "/usr/include/", 13) == 0 ||
                    strncmp(file, "/usr/lib/gcc/", 13) == 0 || strstr(file, "/include/c++/"));
}

/* The module of a function declared in def_file (NULL: unknown): its stem,
 * else the compilation unit's, else the shared object's; the executable
 * without any of these has none (its file name is no source file). */
static const char *module_of(sp__symbolizer *s, Dwfl_Module *mod, const sp__sym *base,
                             const char *def_file, Dwarf_Addr start)
{
    char st[256];
    const char *src = def_file;
    if (!src && start) { /* the line table at the function's entry */
        Dwfl_Line *ln = dw.getsrc(mod, start);
        src = ln ? dw.lineinfo(ln, NULL, NULL, NULL, NULL, NULL) : NULL;
    }
    if (!src && start) {
        Dwarf_Addr bias = 0;
        Dwarf_Die *cu = dw.addrdie(mod, start, &bias);
        src = cu ? dw.diename(cu) : NULL;
    }
    if (!src && !sp__sym_is_main(s, base->object))
        src = base->object;
    if (!src)
        return sp__sym_keep(s, "");
    sp__sym_stem(src, st, sizeof st);
    return sp__sym_keep(s, st);
}

int sp__dwarf_resolve(sp__dwarf *d, sp__symbolizer *s, uintptr_t addr, sp__sym *lv, int max)
{
    Dwfl_Module *mod = dw.addrmodule(d->dwfl, addr);
    if (!mod)
        return 0;
    const char *mainfile = NULL, *debugfile = NULL;
    Dwarf_Addr low = 0;
    const char *mname = dw.module_info(mod, NULL, &low, NULL, NULL, NULL, &mainfile, &debugfile);
    const char *object = mainfile ? mainfile : mname ? mname : "";
    sp__sym base;
    memset(&base, 0, sizeof base);
    base.object = sp__sym_keep(s, object);
    base.system = sp__object_is_system(object) || (mname && strstr(mname, "vdso"));
    base.self = sp__sym_is_self(s, object);
    Dwarf_Addr bias = 0;
    Dwarf *dwarf = dw.getdwarf(mod, &bias);
    base.no_debug = dwarf == NULL;
    if (base.no_debug && !base.system && !base.self)
        sp__sym_saw_no_debug(s, object);

    /* The real function: the symbol table. */
    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = dw.addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
    if (name) {
        base.function = sp__sym_demangle(s, name);
        base.start = addr - off;
    }
    Dwfl_Line *ln = dw.getsrc(mod, addr);
    const char *file = ln ? dw.lineinfo(ln, NULL, &base.line, NULL, NULL, NULL) : NULL;
    base.file = file ? sp__sym_keep(s, file) : NULL;
    if (!file)
        base.line = 0;

    /* The functions at addr, innermost first. */
    Dwarf_Die fn[SP__SYM_MAX_LEVELS];
    Dwarf_Die *cu = dwarf ? dw.addrdie(mod, addr, &bias) : NULL;
    const cuindex *x = cu ? cu_index(d, mod, cu) : NULL;
    if (max > SP__SYM_MAX_LEVELS)
        max = SP__SYM_MAX_LEVELS;
    int n = x ? functions_at(x, addr - bias, fn, max) : 0;
    int levels = n > 0 ? n : 1;
    for (int i = 0; i < levels; i++) {
        sp__sym *l = &lv[i];
        *l = base;
        const char *def = n ? dw.decl_file(&fn[i]) : NULL;
        bool outer = i == levels - 1;
        l->function = outer && name ? sp__sym_demangle(s, name)
                      : n            ? die_name(d, s, mod, &fn[i])
                                     : NULL;
        if (!l->function) {
            char buf[64];
            snprintf(buf, sizeof buf, "0x%lx", (unsigned long)(addr - low));
            l->function = sp__sym_keep(s, buf);
        }
        l->def_file = def ? sp__sym_keep(s, def) : NULL;
        l->module = module_of(s, mod, &base, def, outer ? base.start : 0);
        l->system = base.system || system_header(def);
        if (i > 0) { /* a caller: where it calls the inlined function */
            const char *cf = call_file(&fn[i - 1]);
            l->file = cf ? sp__sym_keep(s, cf) : NULL;
            l->line = cf ? call_line(&fn[i - 1]) : 0;
        }
        if (!l->function || !l->module || (def && !l->def_file))
            return -1;
    }
    return levels;
}

#else /* no libdw headers: dladdr only */

sp__dwarf *sp__dwarf_open(void)
{
    return NULL;
}

void sp__dwarf_close(sp__dwarf *d)
{
    (void)d;
}

int sp__dwarf_resolve(sp__dwarf *d, sp__symbolizer *s, uintptr_t addr, sp__sym *lv, int max)
{
    (void)d;
    (void)s;
    (void)addr;
    (void)lv;
    (void)max;
    return 0;
}

#endif
