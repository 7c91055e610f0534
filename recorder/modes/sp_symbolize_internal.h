/* SPDX-License-Identifier: MIT */
/*
 * sp_symbolize_internal.h - what sp_symbolize.c (the cache, dladdr) and
 * sp_symbolize_dwarf.c (libdw: symbols, lines, inlined functions) share.
 */
#ifndef SP_SYMBOLIZE_INTERNAL_H
#define SP_SYMBOLIZE_INTERNAL_H

#include "sp_symbolize.h"

#pragma GCC visibility push(hidden)

/* A copy of str owned by s (freed with it); NULL on ENOMEM or NULL str. */
const char *sp__sym_keep(sp__symbolizer *s, const char *str);

/* raw without GCC's clone suffixes (.constprop.0, .isra.0, .cold, ...),
 * demangled when it is a C++ name; owned by s. */
const char *sp__sym_demangle(sp__symbolizer *s, const char *raw);

/* "dir/name.c" -> "name"; "libm.so.6" -> "libm". */
void sp__sym_stem(const char *path, char *out, size_t size);

/* Whether object is this process's executable (named without a module when
 * it has no debug information: its file name is no source file). */
bool sp__sym_is_main(const sp__symbolizer *s, const char *object);

/* Whether object is scope-profiler's own shared library. */
bool sp__sym_is_self(const sp__symbolizer *s, const char *object);

/* Record that object has no debug information (for sp__symbolizer_note). */
void sp__sym_saw_no_debug(sp__symbolizer *s, const char *object);

/* ---- libdw (sp_symbolize_dwarf.c) ---- */

typedef struct sp__dwarf sp__dwarf;

/* This process's modules through libdw, or NULL when libdw is missing. */
sp__dwarf *sp__dwarf_open(void);
void sp__dwarf_close(sp__dwarf *d);

/* Resolve addr into levels[0..n-1], innermost first (callers not linked).
 * Returns n >= 1, 0 when no module holds addr (try dladdr), -1 on ENOMEM. */
int sp__dwarf_resolve(sp__dwarf *d, sp__symbolizer *s, uintptr_t addr, sp__sym *levels, int max);

#pragma GCC visibility pop

#endif
