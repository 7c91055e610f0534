/* SPDX-License-Identifier: MIT */
/*
 * sp_symbolize.c - addresses to function / module / file:line with libdw's
 * dwfl (dwfl_linux_proc_report over /proc/self/maps, dwfl_module_addrinfo,
 * dwfl_module_getsrc, dwfl_module_addrdie), loaded with dlopen; dladdr() when
 * libdw is missing. Results are cached per address.
 */
#include "sp_symbolize.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if defined(__has_include)
#if __has_include(<elfutils/libdwfl.h>)
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#define SP__HAVE_DWFL_H 1
#endif
#endif
#ifndef SP__HAVE_DWFL_H
#define SP__HAVE_DWFL_H 0
#endif

/* ---- libdw, loaded once per process ---- */

#if SP__HAVE_DWFL_H
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
    __typeof__(&dwarf_diename) diename;
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
                SYM(addrdie, "dwfl_module_addrdie") && SYM(diename, "dwarf_diename") &&
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
#endif

/* ---- the cache ---- */

typedef struct entry {
    uintptr_t addr;
    sp__sym sym;
} entry;

struct sp__symbolizer {
#if SP__HAVE_DWFL_H
    Dwfl *dwfl;
#endif
    entry **slots; /* open addressing on addr */
    size_t nslots, count;
    char self_object[512];
    char **strings; /* every string handed out, freed with s */
    size_t nstrings, cap_strings;
};

bool sp__object_is_system(const char *p)
{
    if (!p || !*p)
        return false;
    /* /dev/: executable shared-memory segments (Open MPI's vader), not code
     * anyone wrote. */
    static const char *const prefixes[] = {"/lib/",       "/lib64/",       "/usr/lib/",
                                           "/usr/lib64/", "/usr/libexec/", "/dev/"};
    for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
        if (strncmp(p, prefixes[i], strlen(prefixes[i])) == 0)
            return true;
    return strstr(p, "vdso") != NULL || strstr(p, "/ld-linux") != NULL;
}

static const char *keep(sp__symbolizer *s, const char *str)
{
    if (!str)
        return NULL;
    if (s->nstrings == s->cap_strings) {
        size_t cap = s->cap_strings ? 2 * s->cap_strings : 64;
        char **n = realloc(s->strings, cap * sizeof *n);
        if (!n)
            return NULL;
        s->strings = n;
        s->cap_strings = cap;
    }
    char *d = strdup(str);
    if (d)
        s->strings[s->nstrings++] = d;
    return d;
}

/* "dir/name.c" -> "name"; "libm.so.6" -> "libm". */
static void stem(const char *path, char *out, size_t size)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, size, "%s", b);
    char *dot = strchr(out, '.');
    if (dot && dot != out)
        *dot = '\0';
}

/* C++ names: __cxa_demangle when the process has it (a C++ program). */
static const char *demangle(sp__symbolizer *s, const char *raw)
{
    /* GCC's clones (f.constprop.0, f.isra.0, f.part.0, f.cold) are f. */
    char name[1024];
    snprintf(name, sizeof name, "%s", raw ? raw : "");
    static const char *const clones[] = {".constprop.", ".isra.",     ".part.",
                                         ".cold",       ".lto_priv.", ".localalias"};
    for (size_t i = 0; i < sizeof clones / sizeof *clones; i++) {
        char *c = strstr(name, clones[i]);
        if (c && c != name)
            *c = '\0';
    }
    if (!raw || strncmp(name, "_Z", 2) != 0)
        return raw ? keep(s, name) : NULL;
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    demangle_fn fn = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    int status = -1;
    char *d = fn ? fn(name, NULL, NULL, &status) : NULL;
    const char *r = keep(s, status == 0 && d ? d : name);
    free(d);
    return r;
}

sp__symbolizer *sp__symbolizer_new(void)
{
    sp__symbolizer *s = calloc(1, sizeof *s);
    if (!s)
        return NULL;
    s->nslots = 256;
    s->slots = calloc(s->nslots, sizeof *s->slots);
    if (!s->slots) {
        free(s);
        return NULL;
    }
    Dl_info self;
    if (dladdr((void *)sp__symbolizer_new, &self) && self.dli_fname)
        snprintf(s->self_object, sizeof s->self_object, "%s", self.dli_fname);
#if SP__HAVE_DWFL_H
    if (dw_load() && (s->dwfl = dw.begin(&dw.callbacks)) != NULL) {
        dw.report_begin(s->dwfl);
        if (dw.proc_report(s->dwfl, getpid()) != 0 || dw.report_end(s->dwfl, NULL, NULL) != 0) {
            dw.end(s->dwfl);
            s->dwfl = NULL;
        }
    }
#endif
    return s;
}

bool sp__symbolizer_has_dwarf(const sp__symbolizer *s)
{
#if SP__HAVE_DWFL_H
    return s && s->dwfl;
#else
    (void)s;
    return false;
#endif
}

/* The object of the executable itself is only "self" when scope-profiler is
 * a shared library of its own (linked statically it shares the program's). */
static bool is_self(const sp__symbolizer *s, const char *object)
{
    return object && *s->self_object && strcmp(object, s->self_object) == 0 &&
           strstr(object, "scope_profiler") != NULL;
}

#if SP__HAVE_DWFL_H
static bool resolve_dwfl(sp__symbolizer *s, uintptr_t addr, sp__sym *out)
{
    Dwfl_Module *mod = s->dwfl ? dw.addrmodule(s->dwfl, addr) : NULL;
    if (!mod)
        return false;
    const char *mainfile = NULL, *debugfile = NULL;
    Dwarf_Addr low = 0;
    const char *mname = dw.module_info(mod, NULL, &low, NULL, NULL, NULL, &mainfile, &debugfile);
    const char *object = mainfile ? mainfile : mname ? mname : "";
    out->object = keep(s, object);
    out->system = sp__object_is_system(object) || (mname && strstr(mname, "vdso"));
    out->self = is_self(s, object);

    GElf_Off off = 0;
    GElf_Sym sym;
    const char *name = dw.addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
    char buf[64];
    if (name) {
        out->function = demangle(s, name);
        out->start = addr - off;
    } else {
        snprintf(buf, sizeof buf, "0x%lx", (unsigned long)(addr - low));
        out->function = keep(s, buf);
    }
    Dwfl_Line *ln = dw.getsrc(mod, addr);
    if (ln) {
        int line = 0;
        const char *file = dw.lineinfo(ln, NULL, &line, NULL, NULL, NULL);
        if (file) {
            out->file = keep(s, file);
            out->line = line;
        }
    }
    /* The module is the file that defines the function: the line table at
     * the function's entry (a C++ accessor defined in domain.hpp and
     * compiled into solver.cpp is "domain", not "solver"); else the
     * compilation unit; else the object. */
    char st[256] = "";
    const char *deffile = NULL;
    Dwfl_Line *eln = out->start ? dw.getsrc(mod, out->start) : ln;
    if (eln)
        deffile = dw.lineinfo(eln, NULL, NULL, NULL, NULL, NULL);
    if (deffile) {
        out->def_file = keep(s, deffile);
    } else {
        Dwarf_Addr bias = 0;
        Dwarf_Die *cu = dw.addrdie(mod, addr, &bias);
        deffile = cu ? dw.diename(cu) : NULL;
    }
    stem(deffile ? deffile : object, st, sizeof st);
    out->module = keep(s, st);
    return true;
}
#endif

static void resolve_dladdr(sp__symbolizer *s, uintptr_t addr, sp__sym *out)
{
    Dl_info info;
    char buf[256];
    memset(&info, 0, sizeof info);
    if (!dladdr((void *)addr, &info)) {
        snprintf(buf, sizeof buf, "0x%lx", (unsigned long)addr);
        out->function = keep(s, buf);
        out->module = keep(s, "?");
        out->object = keep(s, "");
        return;
    }
    const char *object = info.dli_fname ? info.dli_fname : "";
    out->object = keep(s, object);
    out->system = sp__object_is_system(object);
    out->self = is_self(s, object);
    /* dladdr only knows dynamic symbols: name the address by its offset
     * unless it is the symbol's own start. */
    if (info.dli_sname && info.dli_saddr) {
        out->function = demangle(s, info.dli_sname);
        out->start = (uintptr_t)info.dli_saddr;
    } else {
        snprintf(buf, sizeof buf, "0x%lx", (unsigned long)(addr - (uintptr_t)info.dli_fbase));
        out->function = keep(s, buf);
    }
    stem(object, buf, sizeof buf);
    out->module = keep(s, buf);
}

static int grow(sp__symbolizer *s)
{
    size_t n = 2 * s->nslots;
    entry **ns = calloc(n, sizeof *ns);
    if (!ns)
        return -1;
    for (size_t i = 0; i < s->nslots; i++) {
        if (!s->slots[i])
            continue;
        size_t j = (s->slots[i]->addr * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (n - 1);
        while (ns[j])
            j = (j + 1) & (n - 1);
        ns[j] = s->slots[i];
    }
    free(s->slots);
    s->slots = ns;
    s->nslots = n;
    return 0;
}

const sp__sym *sp__symbolize(sp__symbolizer *s, uintptr_t addr)
{
    if (2 * (s->count + 1) > s->nslots && grow(s) != 0)
        return NULL;
    size_t j = (addr * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (s->nslots - 1);
    while (s->slots[j]) {
        if (s->slots[j]->addr == addr)
            return &s->slots[j]->sym;
        j = (j + 1) & (s->nslots - 1);
    }
    entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->addr = addr;
    bool done = false;
#if SP__HAVE_DWFL_H
    done = resolve_dwfl(s, addr, &e->sym);
#endif
    if (!done)
        resolve_dladdr(s, addr, &e->sym);
    if (!e->sym.function || !e->sym.module || !e->sym.object) {
        free(e);
        return NULL;
    }
    s->slots[j] = e;
    s->count++;
    return &e->sym;
}

void sp__symbolizer_free(sp__symbolizer *s)
{
    if (!s)
        return;
#if SP__HAVE_DWFL_H
    if (s->dwfl)
        dw.end(s->dwfl);
#endif
    for (size_t i = 0; i < s->nslots; i++)
        free(s->slots[i]);
    free(s->slots);
    for (size_t i = 0; i < s->nstrings; i++)
        free(s->strings[i]);
    free(s->strings);
    free(s);
}
