/* SPDX-License-Identifier: MIT */
/* sp_strpool: strings copied one after another into large blocks, freed
 * all at once. For tables of up to millions of names (a colour map, a
 * comparison's keys), where one malloc and free per name dominated. */
#ifndef SP_STRPOOL_H
#define SP_STRPOOL_H

typedef struct sp_strpool_block sp_strpool_block;

/* Zero-initialise ({0}) before use; owns every copy it handed out. */
typedef struct sp_strpool {
    sp_strpool_block *head;
} sp_strpool;

/* A copy of s, NUL-terminated, owned by pool and valid until
 * sp_strpool_free; NULL when out of memory (pool unchanged). */
char *sp_strpool_copy(sp_strpool *pool, const char *s);

/* Frees every copy; pool is empty ({0}) again. */
void sp_strpool_free(sp_strpool *pool);

#endif
