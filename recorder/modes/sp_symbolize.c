/* SPDX-License-Identifier: MIT */
/*
 * sp_symbolize.c - addresses to function / module / file:line, cached per
 * address: libdw (sp_symbolize_dwarf.c: symbols, lines, inlined functions)
 * when it loads, else dladdr() (the object and its nearest dynamic symbol).
 *
 * Names never use the executable's file name as a module: without debug
 * information (no -g) a function of the program is named by its symbol
 * alone ("HPC_sparsemv", not "hpccg.HPC_sparsemv"), and
 * sp__symbolizer_note() says why and how to get file names.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_symbolize_internal.h"

typedef struct entry {
    uintptr_t addr;
    sp__sym *levels; /* innermost first, linked through caller */
} entry;

#define NO_DEBUG_KEPT 4 /* objects without debug information named in the note */

struct sp__symbolizer {
    sp__dwarf *dwarf;
    entry **slots; /* open addressing on addr */
    size_t nslots, count;
    uint64_t inlined;
    char self_object[PATH_MAX];
    char main_object[PATH_MAX];
    const char *no_debug[NO_DEBUG_KEPT]; /* user objects without DWARF */
    size_t nno_debug;
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

const char *sp__sym_keep(sp__symbolizer *s, const char *str)
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

void sp__sym_stem(const char *path, char *out, size_t size)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    snprintf(out, size, "%s", b);
    char *dot = strchr(out, '.');
    if (dot && dot != out)
        *dot = '\0';
}

/* C++ names: __cxa_demangle when the process has it (a C++ program). */
const char *sp__sym_demangle(sp__symbolizer *s, const char *raw)
{
    if (!raw)
        return NULL;
    /* GCC's clones (f.constprop.0, f.isra.0, f.part.0, f.cold) are f, and a
     * versioned symbol is its name. */
    char name[1024];
    snprintf(name, sizeof name, "%s", raw);
    static const char *const clones[] = {".constprop.", ".isra.",     ".part.",
                                         ".cold",       ".lto_priv.", ".localalias"};
    for (size_t i = 0; i < sizeof clones / sizeof *clones; i++) {
        char *c = strstr(name, clones[i]);
        if (c && c != name)
            *c = '\0';
    }
    char *version = strchr(name, '@'); /* memcpy@@GLIBC_2.14 is memcpy */
    if (version && version != name)
        *version = '\0';
    if (strncmp(name, "_Z", 2) != 0)
        return sp__sym_keep(s, name);
    typedef char *(*demangle_fn)(const char *, char *, size_t *, int *);
    demangle_fn fn = (demangle_fn)dlsym(RTLD_DEFAULT, "__cxa_demangle");
    int status = -1;
    char *d = fn ? fn(name, NULL, NULL, &status) : NULL;
    const char *r = sp__sym_keep(s, status == 0 && d ? d : name);
    free(d);
    return r;
}

bool sp__sym_is_main(const sp__symbolizer *s, const char *object)
{
    /* /proc/self/exe and /proc/self/maps (libdw's module names) both give
     * the resolved path. */
    return object && *s->main_object && strcmp(object, s->main_object) == 0;
}

/* The object of the executable itself is only "self" when scope-profiler is
 * a shared library of its own (linked statically it shares the program's). */
bool sp__sym_is_self(const sp__symbolizer *s, const char *object)
{
    return object && *s->self_object && strcmp(object, s->self_object) == 0 &&
           strstr(object, "scope_profiler") != NULL;
}

void sp__sym_saw_no_debug(sp__symbolizer *s, const char *object)
{
    for (size_t i = 0; i < s->nno_debug && i < NO_DEBUG_KEPT; i++)
        if (strcmp(s->no_debug[i], object) == 0)
            return;
    if (s->nno_debug < NO_DEBUG_KEPT) {
        const char *k = sp__sym_keep(s, object);
        if (!k)
            return; /* the note is a courtesy: ENOMEM drops it */
        s->no_debug[s->nno_debug] = k;
    }
    s->nno_debug++;
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
    ssize_t n = readlink("/proc/self/exe", s->main_object, sizeof s->main_object - 1);
    s->main_object[n > 0 ? n : 0] = '\0';
    s->dwarf = sp__dwarf_open();
    return s;
}

bool sp__symbolizer_has_dwarf(const sp__symbolizer *s)
{
    return s && s->dwarf;
}

uint64_t sp__symbolizer_inlined(const sp__symbolizer *s)
{
    return s ? s->inlined : 0;
}

static void resolve_dladdr(sp__symbolizer *s, uintptr_t addr, sp__sym *out)
{
    Dl_info info;
    char buf[256];
    memset(&info, 0, sizeof info);
    if (!dladdr((void *)addr, &info)) {
        snprintf(buf, sizeof buf, "0x%lx", (unsigned long)addr);
        out->function = sp__sym_keep(s, buf);
        out->module = sp__sym_keep(s, "");
        out->object = sp__sym_keep(s, "");
        return;
    }
    const char *object = info.dli_fname ? info.dli_fname : "";
    out->object = sp__sym_keep(s, object);
    out->system = sp__object_is_system(object);
    out->self = sp__sym_is_self(s, object);
    out->no_debug = true;
    /* dladdr only knows dynamic symbols: name the address by its offset
     * unless it is the symbol's own start. */
    if (info.dli_sname && info.dli_saddr) {
        out->function = sp__sym_demangle(s, info.dli_sname);
        out->start = (uintptr_t)info.dli_saddr;
    } else {
        snprintf(buf, sizeof buf, "0x%lx", (unsigned long)(addr - (uintptr_t)info.dli_fbase));
        out->function = sp__sym_keep(s, buf);
    }
    /* dladdr names the executable as it was started (argv[0]). */
    char real[PATH_MAX];
    buf[0] = '\0';
    if (*object && !sp__sym_is_main(s, realpath(object, real) ? real : object))
        sp__sym_stem(object, buf, sizeof buf);
    out->module = sp__sym_keep(s, buf);
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

/* The levels of addr, innermost first and linked; NULL on ENOMEM. */
static sp__sym *resolve(sp__symbolizer *s, uintptr_t addr)
{
    sp__sym tmp[SP__SYM_MAX_LEVELS];
    memset(tmp, 0, sizeof tmp);
    int n = s->dwarf ? sp__dwarf_resolve(s->dwarf, s, addr, tmp, SP__SYM_MAX_LEVELS) : 0;
    if (n < 0)
        return NULL;
    if (n == 0) {
        resolve_dladdr(s, addr, &tmp[0]);
        n = 1;
    }
    if (!tmp[0].function || !tmp[0].module || !tmp[0].object)
        return NULL;
    sp__sym *levels = malloc((size_t)n * sizeof *levels);
    if (!levels)
        return NULL;
    memcpy(levels, tmp, (size_t)n * sizeof *levels);
    for (int i = 0; i < n; i++)
        levels[i].caller = i + 1 < n ? &levels[i + 1] : NULL;
    if (n > 1)
        s->inlined++;
    return levels;
}

const sp__sym *sp__symbolize(sp__symbolizer *s, uintptr_t addr)
{
    if (2 * (s->count + 1) > s->nslots && grow(s) != 0)
        return NULL;
    size_t j = (addr * UINT64_C(0x9E3779B97F4A7C15) >> 20) & (s->nslots - 1);
    while (s->slots[j]) {
        if (s->slots[j]->addr == addr)
            return s->slots[j]->levels;
        j = (j + 1) & (s->nslots - 1);
    }
    entry *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->addr = addr;
    if (!(e->levels = resolve(s, addr))) {
        free(e);
        return NULL;
    }
    s->slots[j] = e;
    s->count++;
    return e->levels;
}

const sp__sym *sp__sym_outermost(const sp__sym *sym)
{
    while (sym && sym->caller)
        sym = sym->caller;
    return sym;
}

void sp__sym_name(const sp__sym *sym, char *buf, size_t size)
{
    if (*sym->module)
        snprintf(buf, size, "%s.%s", sym->module, sym->function);
    else
        snprintf(buf, size, "%s", sym->function);
}

void sp__symbolizer_note(const sp__symbolizer *s, char *buf, size_t size)
{
    size_t n = strlen(buf);
    if (!s->dwarf) {
        snprintf(buf + n, size - n,
                 "%slibdw (libdw.so.1) not found: functions are named from the dynamic symbol "
                 "table alone, without source files or lines (Debian: apt install libdw1)",
                 n ? "\n" : "");
        return;
    }
    if (!s->nno_debug)
        return;
    char list[1024] = "";
    for (size_t i = 0; i < s->nno_debug && i < NO_DEBUG_KEPT; i++) {
        size_t l = strlen(list);
        snprintf(list + l, sizeof list - l, "%s%s", i ? ", " : "", s->no_debug[i]);
    }
    snprintf(buf + n, size - n,
             "%sno debug information in %s%s (compiled without -g): its functions are named "
             "from the symbol table alone, without their source file; compile with -g for "
             "<file>.<function> names and inlined functions (-g does not change the "
             "optimisation; CMake: scope_profiler_instrument() adds it)",
             n ? "\n" : "", list, s->nno_debug > NO_DEBUG_KEPT ? ", ..." : "");
}

void sp__symbolizer_free(sp__symbolizer *s)
{
    if (!s)
        return;
    sp__dwarf_close(s->dwarf);
    for (size_t i = 0; i < s->nslots; i++) {
        if (s->slots[i])
            free(s->slots[i]->levels);
        free(s->slots[i]);
    }
    free(s->slots);
    for (size_t i = 0; i < s->nstrings; i++)
        free(s->strings[i]);
    free(s->strings);
    free(s);
}
