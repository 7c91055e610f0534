/* SPDX-License-Identifier: MIT */
/*
 * plot_fixture.h - hand-built runs and pixel probes for the plots tests.
 */
#ifndef PLOT_FIXTURE_H
#define PLOT_FIXTURE_H

#include <cairo.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_model.h"
#include "sp_plots.h"

/*
 * The README's mock solver on nranks ranks with two threads each: thread 0
 * runs main > setup > refine_mesh (recursive, 4 levels), then 3 x solve >
 * assemble_matrix, apply_bc, halo_exchange; thread 1 runs worker_loop >
 * compute_kernel (kernels_per_solve small calls per solve). assemble_matrix
 * gets slower with the rank (imbalance = extra fraction on the last rank).
 * Analysed when analyze is true. NULL on failure.
 */
sp_run *fixture_mock_run(int nranks, int kernels_per_solve, double imbalance, bool analyze);

/* One rank, one thread, n back-to-back calls of region "tiny" (duration
 * dur_ns, gap gap_ns) under one "outer" call. Not analysed. */
sp_run *fixture_flat_run(size_t n, int64_t dur_ns, int64_t gap_ns);

/* A run with ranks and regions but no calls. */
sp_run *fixture_empty_run(int nranks, bool analyze);

/* An ARGB image surface with its context. */
typedef struct fx_image {
    cairo_surface_t *surf;
    cairo_t *cr;
    int w, h;
} fx_image;

void fx_image_new(fx_image *im, int w, int h);
void fx_image_free(fx_image *im);
/* Save as PNG into the look directory ($SP_PLOTS_LOOK_DIR, else the test
 * binary dir) as name; returns the path (static buffer). */
const char *fx_image_save(fx_image *im, const char *name);

/* Pixels within (x0, y0, x1, y1) whose colour is within tol (0..255 per
 * channel) of c. */
size_t fx_count_color(fx_image *im, int x0, int y0, int x1, int y1, sp_rgba c, int tol);

/* The colour the charts give region `name` of run: its colour map
 * (sp_color_map_for_run, as a chart builds when the style has none). */
sp_rgba fx_region_color(const sp_run *run, const char *name, bool dark);
/* Pixels within the rectangle darker than luminance lum (0..255). */
size_t fx_count_dark(fx_image *im, int x0, int y0, int x1, int y1, int lum);
/* Pixels that differ from the top-left pixel (the background). */
size_t fx_count_non_bg(fx_image *im, int x0, int y0, int x1, int y1);

/* The directory charts are written to for looking at. */
const char *fx_look_dir(void);

#endif
