/* SPDX-License-Identifier: MIT */
/*
 * sp_colors.h - region colours that stay apart (internal API shared by the
 * exports, plots, the report and the viewer; no drawing library needed).
 *
 * A colour map is built for the runs shown together (one run, or the base
 * and candidate of a comparison): regions are ranked by time (the largest
 * per-rank mean total over the runs first, then by name) and the first
 * SP_PALETTE_SIZE get the palette's colours in order; the palette is ordered
 * so that every prefix is as far apart as possible (greedy max-min CIE76
 * distance, light and dark variants both: the first 12 are >= 31 apart, all
 * 22 >= 18). Regions further down get a stable fallback: a hash of the name
 * into the palette (they may repeat a colour, but only among small regions).
 * The same name gets the same colour in every run of one map, so a
 * comparison colours a region alike on both sides.
 */
#ifndef SP_COLORS_H
#define SP_COLORS_H

#include <stddef.h>
#include <stdint.h>

#include "sp_model.h"

#ifdef __cplusplus
extern "C" {
#endif

#define SP_PALETTE_SIZE 22

/* Palette colour `slot` (0 .. SP_PALETTE_SIZE-1) as 0xRRGGBB, light theme;
 * a slot out of range gives the neutral grey 0xB4B9C0. */
uint32_t sp_palette_rgb(int slot);

/* The fallback slot of a name: a stable hash (FNV-1a + murmur3 finaliser,
 * never changes between releases). -1 for NULL. */
int sp_palette_hash_slot(const char *name);

typedef struct sp_color_map sp_color_map;

/* A map for runs[0..nruns) (NULL entries are skipped). An analyzed run
 * gives its region totals; any other run is only read (its calls summed),
 * never analyzed. NULL with sp_last_error() on SP_ENOMEM. */
sp_color_map *sp_color_map_new(const sp_run *const *runs, size_t nruns);

/* Shorthand for one run. */
sp_color_map *sp_color_map_for_run(const sp_run *run);

void sp_color_map_free(sp_color_map *m);

/* Palette slot of name: its rank when it is among the first
 * SP_PALETTE_SIZE of the map, else the hash fallback. m NULL: the fallback. */
int sp_color_map_slot(const sp_color_map *m, const char *name);

/* Colour of name as 0xRRGGBB (light theme). */
uint32_t sp_color_map_rgb(const sp_color_map *m, const char *name);

/* Position of name in the map's order (0 = the most time), -1 if absent. */
long sp_color_map_rank(const sp_color_map *m, const char *name);

/* Regions of the map in rank order (the most time first): count and the
 * i-th name (NULL out of range). For legends. */
size_t sp_color_map_count(const sp_color_map *m);
const char *sp_color_map_name(const sp_color_map *m, size_t i);

/* The region id of the i-th name in the first of the map's runs that has
 * it with calls (a map of one run: its id in that run), without looking
 * the name up; -1 out of range. */
int32_t sp_color_map_region_at(const sp_color_map *m, size_t i);

/* Colour of the i-th name of the map (sp_color_map_rgb of
 * sp_color_map_name(m, i), without looking the name up); the neutral
 * colour out of range. */
uint32_t sp_color_map_rgb_at(const sp_color_map *m, size_t i);

/* "#rrggbb" into buf (8 bytes). Returns buf. */
char *sp_color_hex(uint32_t rgb, char buf[8]);

/* CIE76 colour distance (Euclidean in CIELAB, D65) of two sRGB colours. */
double sp_color_cie76(uint32_t a, uint32_t b);

#ifdef __cplusplus
}
#endif

#endif /* SP_COLORS_H */
