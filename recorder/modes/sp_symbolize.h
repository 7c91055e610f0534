/* SPDX-License-Identifier: MIT */
/*
 * sp_symbolize.h - addresses of this process to function, module, source
 * file and line (internal). Used at finalize only, never on the hot path.
 *
 * libdw (elfutils) is loaded with dlopen the first time it is needed, so the
 * library has no link-time dependency on it; without it, dladdr() gives the
 * object and the nearest dynamic symbol (no file or line).
 */
#ifndef SP_SYMBOLIZE_H
#define SP_SYMBOLIZE_H

#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

typedef struct sp__sym {
    const char *function; /* symbol name (demangled), or "0x<offset>" */
    const char *module;   /* stem of the file defining the function (line table at
                             its entry; a header for an inline accessor), else of
                             its compilation unit, else of its object */
    const char *def_file; /* that defining file, NULL when unknown */
    const char *file;     /* source file of the address, NULL when unknown */
    int line;             /* its line, 0 when unknown */
    const char *object;   /* path of the loaded object, "" when unknown */
    uintptr_t start;      /* start address of the function, 0 when unknown */
    bool system;          /* libc, the loader, /lib, /usr/lib, vdso */
    bool self;            /* scope-profiler's own code */
} sp__sym;

typedef struct sp__symbolizer sp__symbolizer;

/* A symbolizer for this process's current mappings. NULL on ENOMEM. */
sp__symbolizer *sp__symbolizer_new(void);

/* Resolve addr (cached; strings owned by s). Never NULL except on ENOMEM. */
const sp__sym *sp__symbolize(sp__symbolizer *s, uintptr_t addr);

/* Whether libdw was loaded (file and line available). */
bool sp__symbolizer_has_dwarf(const sp__symbolizer *s);

void sp__symbolizer_free(sp__symbolizer *s);

/* Whether an object path belongs to the system (libc, loader, /lib,
 * /usr/lib, vdso). */
bool sp__object_is_system(const char *path);

#pragma GCC visibility pop

#endif
