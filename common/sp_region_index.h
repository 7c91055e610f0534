/* SPDX-License-Identifier: MIT */
/*
 * sp_region_index.h - region name -> region id in O(1) (internal).
 *
 * An open-addressing hash table over a run's region_names array, so that
 * looking a name up or interning one costs the same for 2^19 regions as
 * for ten (a linear strcmp scan made `export plot-data` on 2^19 regions
 * quadratic: over 300 s). The table stores ids only; names stay in the
 * array it indexes, which every call passes in.
 *
 * A run owns one (sp_run.region_index, see sp_model.h: sp_run_region_id,
 * sp_run_intern_region and sp_run_rename_region keep it in sync); a caller
 * may also build one of its own over any array (duplicate checks).
 */
#ifndef SP_REGION_INDEX_H
#define SP_REGION_INDEX_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sp_region_index sp_region_index;

/* A new index over names[0..n) (each non-NULL). *dup (may be NULL)
 * receives -1, or the first id whose name repeats an earlier one (then the
 * name maps to the earlier id). NULL on out of memory (the error is set). */
sp_region_index *sp_region_index_new(char *const *names, size_t n, int32_t *dup);

/* Free an index (NULL is fine). The names are not the index's. */
void sp_region_index_free(sp_region_index *ix);

/* Id of name among the indexed names, or -1. names: the array indexed. */
int32_t sp_region_index_find(const sp_region_index *ix, char *const *names, const char *name);

/* Room for n names in all without growing (interning a table of known
 * size rehashes nothing). 0 or SP_ENOMEM (the error is set). */
int sp_region_index_reserve(sp_region_index *ix, size_t n);

/* Index id under names[id] (any id not indexed yet). Returns -1 when
 * added, the id of an equal name already indexed (then nothing is added),
 * or SP_ENOMEM (the error is set). */
int32_t sp_region_index_put(sp_region_index *ix, char *const *names, int32_t id);

/* Remove id, indexed under names[id] (which must still hold the name it was
 * indexed with). Nothing happens when it is not indexed. */
void sp_region_index_remove(sp_region_index *ix, char *const *names, int32_t id);

/* Whether names[0..n) repeat: *dup receives -1 or the first id whose name
 * repeats an earlier one. 0 or SP_ENOMEM. */
int sp_region_names_first_duplicate(char *const *names, size_t n, int32_t *dup);

#ifdef __cplusplus
}
#endif

#endif /* SP_REGION_INDEX_H */
