/* SPDX-License-Identifier: MIT */
/*
 * sp_strtab.h - a table of unique strings with a hash index: each string
 * gets the next id on first use and keeps it (internal, shared by the MPI
 * tables' region names and the waits' call paths and cause names).
 */
#ifndef SP_STRTAB_H
#define SP_STRTAB_H

#include <stddef.h>
#include <stdint.h>

typedef struct sp_strtab {
    size_t n;
    char **s;         /* owned; id = index */
    size_t cap;       /* entries allocated in s */
    size_t hcap;      /* slots of the index, a power of two */
    int32_t *slot;    /* id + 1 per slot, 0 = empty */
} sp_strtab;

/* The id of s, added (copied) when new. -1 on out of memory or past
 * INT32_MAX / 2 strings. */
int32_t sp_strtab_intern(sp_strtab *t, const char *s);

/* The id of s, or -1. */
int32_t sp_strtab_find(const sp_strtab *t, const char *s);

/* Free every string and the index (the table is empty afterwards). */
void sp_strtab_free(sp_strtab *t);

#endif
