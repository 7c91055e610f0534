/* SPDX-License-Identifier: MIT */
/*
 * sp_symbolize.h - addresses of this process to function, module, source
 * file and line (internal), with the functions inlined at the address.
 * Used at finalize only, never on the hot path.
 *
 * libdw (elfutils) is loaded with dlopen the first time it is needed, so the
 * library has no link-time dependency on it; without it, dladdr() gives the
 * object and the nearest dynamic symbol (no file or line, no inlining).
 */
#ifndef SP_SYMBOLIZE_H
#define SP_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* One function at an address. An address inside code the compiler inlined
 * resolves to a chain: the innermost inlined function first, each `caller`
 * the function it was inlined into, the last (caller NULL) the function the
 * code really belongs to (its symbol). Strings are owned by the symbolizer. */
typedef struct sp__sym {
    const char *function; /* name (demangled), or "0x<offset>" */
    const char *module;   /* stem of the file declaring the function (DWARF
                             DW_AT_decl_file: a header for an inline accessor,
                             the .cpp of an out-of-class definition); else of
                             its compilation unit; else of its shared object;
                             "" for the executable without debug information */
    const char *def_file; /* that declaring file, NULL when unknown */
    const char *file;     /* source file of the address (for a caller: of the
                             call into the inlined function), NULL if unknown */
    int line;             /* its line, 0 when unknown */
    const char *object;   /* path of the loaded object, "" when unknown */
    uintptr_t start;      /* start of the real function's symbol, 0 if unknown */
    bool system;          /* libc, the loader, /lib, /usr/lib, vdso; or
                             inlined from a system header (/usr/include) */
    bool self;            /* scope-profiler's own code */
    bool no_debug;        /* the object has no DWARF: named from its symbol
                             table alone (compiled without -g) */
    const struct sp__sym *caller; /* see above; NULL for the real function */
} sp__sym;

#define SP__SYM_MAX_LEVELS 32 /* functions kept per address (inlined + real) */

typedef struct sp__symbolizer sp__symbolizer;

/* A symbolizer for this process's current mappings. NULL on ENOMEM. */
sp__symbolizer *sp__symbolizer_new(void);

/* Resolve addr (cached; strings owned by s): the innermost function at addr
 * (follow ->caller outwards). Never NULL except on ENOMEM. */
const sp__sym *sp__symbolize(sp__symbolizer *s, uintptr_t addr);

/* The real (outermost) function of a chain. */
const sp__sym *sp__sym_outermost(const sp__sym *sym);

/* "<module>.<function>", or "<function>" when the module is unknown. */
void sp__sym_name(const sp__sym *sym, char *buf, size_t size);

/* Whether libdw was loaded (file, line and inlining available). */
bool sp__symbolizer_has_dwarf(const sp__symbolizer *s);

/* Addresses resolved so far that lie in inlined code. */
uint64_t sp__symbolizer_inlined(const sp__symbolizer *s);

/* Append (after a newline if buf is not empty) why names lack their source
 * file, when they do: libdw missing, or user objects (neither the system's
 * nor scope-profiler's) without debug information, and how to fix it. */
void sp__symbolizer_note(const sp__symbolizer *s, char *buf, size_t size);

void sp__symbolizer_free(sp__symbolizer *s);

/* Whether an object path belongs to the system (libc, loader, /lib,
 * /usr/lib, vdso). */
bool sp__object_is_system(const char *path);

#pragma GCC visibility pop

#endif
