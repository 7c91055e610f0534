/* SPDX-License-Identifier: MIT */
/*
 * check_png.c - check a viewer screenshot the way a glance would: it is the
 * expected size, not blank, shows text, and shows the given regions in their
 * chart colours: the colour map of the runs shown (--colors-of FILE, once per
 * file the viewer opened: the viewer's sp_session map), else the hash colours.
 *
 * usage: check_png IMAGE.png [--dark] [--size WxH] [--min-size WxH] [--header PX]
 *                  [--colors-of FILE]... [--region NAME]... [--no-region NAME]...
 *                  [--palette INDEX]...
 * --palette: the colour of that index of the charts' palette is shown (the
 * waiting chart colours its patterns so: sp_plot_waits.c).
 * The blank and text checks look below the header bar (--header, default 56
 * px), so a window whose content failed to draw does not pass on the
 * header's text alone.
 * Prints what it measured; exits 1 at the first failed check.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cairo.h>

#include "sp_plot_internal.h"
#include "sp_plots.h"

#define COLOR_TOLERANCE 6    /* per channel, of 255: anti-aliasing aside */
#define MIN_REGION_PIXELS 40 /* a region is "shown" with at least this many */

typedef struct {
    const unsigned char *data;
    int w, h, stride;
    int y0; /* first row of the content (below the header bar) */
} image;

static void pixel(const image *im, int x, int y, int *r, int *g, int *b)
{
    uint32_t p = *(const uint32_t *)(const void *)(im->data + y * im->stride + 4 * x);
    *r = (p >> 16) & 255;
    *g = (p >> 8) & 255;
    *b = p & 255;
}

/* Distinct colours after quantising to 5 bits per channel, and the share of
 * the most common one. */
static void colour_stats(const image *im, int *distinct, double *dominant)
{
    static unsigned counts[1 << 15];
    memset(counts, 0, sizeof counts);
    for (int y = im->y0; y < im->h; y++)
        for (int x = 0; x < im->w; x++) {
            int r, g, b;
            pixel(im, x, y, &r, &g, &b);
            counts[((r >> 3) << 10) | ((g >> 3) << 5) | (b >> 3)]++;
        }
    unsigned max = 0;
    *distinct = 0;
    for (int i = 0; i < (1 << 15); i++) {
        if (counts[i])
            (*distinct)++;
        if (counts[i] > max)
            max = counts[i];
    }
    *dominant = (double)max / ((double)im->w * (im->h - im->y0));
}

static long count_colour(const image *im, sp_rgba c)
{
    int cr = (int)lround(c.r * 255), cg = (int)lround(c.g * 255), cb = (int)lround(c.b * 255);
    long n = 0;
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++) {
            int r, g, b;
            pixel(im, x, y, &r, &g, &b);
            if (abs(r - cr) <= COLOR_TOLERANCE && abs(g - cg) <= COLOR_TOLERANCE &&
                abs(b - cb) <= COLOR_TOLERANCE)
                n++;
        }
    return n;
}

/* Text: glyph pixels are high-contrast against their background with
 * anti-aliased edges. Count pixels of strong contrast to the right-hand
 * neighbour inside short runs, and the distinct grey levels of grey pixels
 * (anti-aliasing makes many). */
static void text_stats(const image *im, long *edges, int *greys)
{
    unsigned char seen[256] = {0};
    *edges = 0;
    *greys = 0;
    for (int y = im->y0; y < im->h; y++)
        for (int x = 0; x + 1 < im->w; x++) {
            int r, g, b, r2, g2, b2;
            pixel(im, x, y, &r, &g, &b);
            pixel(im, x + 1, y, &r2, &g2, &b2);
            int l = (r * 3 + g * 6 + b) / 10, l2 = (r2 * 3 + g2 * 6 + b2) / 10;
            if (abs(l - l2) > 90)
                (*edges)++;
            if (abs(r - g) < 4 && abs(g - b) < 4 && !seen[l]) {
                seen[l] = 1;
                (*greys)++;
            }
        }
}

static int fail(const char *what)
{
    fprintf(stderr, "check_png: FAIL: %s\n", what);
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: check_png IMAGE.png [--dark] [--min-size WxH] "
                        "[--region NAME]... [--no-region NAME]...\n");
        return 2;
    }
    const char *path = argv[1];
    cairo_surface_t *s = cairo_image_surface_create_from_png(path);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        fprintf(stderr, "check_png: cannot read %s: %s\n", path,
                cairo_status_to_string(cairo_surface_status(s)));
        return 1;
    }
    /* Work in opaque RGB24 so alpha never matters. */
    image im = {.w = cairo_image_surface_get_width(s), .h = cairo_image_surface_get_height(s)};
    cairo_surface_t *rgb = cairo_image_surface_create(CAIRO_FORMAT_RGB24, im.w, im.h);
    cairo_t *cr = cairo_create(rgb);
    cairo_set_source_rgb(cr, 1, 0, 1); /* magenta shows where the window was transparent */
    cairo_paint(cr);
    cairo_set_source_surface(cr, s, 0, 0);
    cairo_paint(cr);
    cairo_destroy(cr);
    cairo_surface_flush(rgb);
    im.data = cairo_image_surface_get_data(rgb);
    im.stride = cairo_image_surface_get_stride(rgb);

    /* The runs whose colour map the viewer uses. */
    const sp_run *runs[4] = {0};
    size_t nruns = 0;
    for (int i = 2; i + 1 < argc; i++)
        if (strcmp(argv[i], "--colors-of") == 0 && nruns < 4) {
            runs[nruns] = sp_read_h5(argv[++i]);
            if (!runs[nruns]) {
                fprintf(stderr, "check_png: cannot read %s: %s\n", argv[i], sp_last_error());
                return 1;
            }
            nruns++;
        }
    sp_color_map *map = nruns ? sp_color_map_new(runs, nruns) : NULL;

    int dark = 0, rc = 0, header = 56;
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--dark") == 0)
            dark = 1;
        else if (strcmp(argv[i], "--header") == 0 && i + 1 < argc)
            header = atoi(argv[++i]);
    }
    im.y0 = header >= 0 && header < im.h - 1 ? header : 0;

    int distinct;
    double dominant;
    colour_stats(&im, &distinct, &dominant);
    long edges;
    int greys;
    text_stats(&im, &edges, &greys);
    printf("%s: %dx%d; below y=%d: %d colours, dominant %.1f %%, %ld text edges, "
           "%d grey levels\n", path, im.w, im.h, im.y0, distinct, 100 * dominant, edges, greys);
    if (distinct < 12 || dominant > 0.98)
        rc |= fail("the image is (nearly) blank");
    if (edges < 300 || greys < 24)
        rc |= fail("no text seems to be drawn");

    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--header") == 0 || strcmp(argv[i], "--colors-of") == 0) {
            i++;
        } else if (strcmp(argv[i], "--size") == 0 && i + 1 < argc) {
            int w = 0, h = 0; /* exactly: what --size asked the viewer for */
            if (sscanf(argv[++i], "%dx%d", &w, &h) != 2 || im.w != w || im.h != h)
                rc |= fail("the image is not exactly --size");
        } else if (strcmp(argv[i], "--min-size") == 0 && i + 1 < argc) {
            int w = 0, h = 0;
            if (sscanf(argv[++i], "%dx%d", &w, &h) != 2 || im.w < w || im.h < h)
                rc |= fail("the image is smaller than --min-size");
        } else if ((strcmp(argv[i], "--region") == 0 || strcmp(argv[i], "--no-region") == 0) &&
                   i + 1 < argc) {
            int want = strcmp(argv[i], "--region") == 0;
            const char *name = argv[++i];
            sp_rgba c = sp_plot_color_in(map, name, dark);
            long n = count_colour(&im, c);
            printf("  region %-16s colour #%02x%02x%02x: %ld pixels\n", name,
                   (int)lround(c.r * 255), (int)lround(c.g * 255), (int)lround(c.b * 255), n);
            if (want && n < MIN_REGION_PIXELS) {
                char msg[256];
                snprintf(msg, sizeof msg, "region '%s' is not shown in its colour", name);
                rc |= fail(msg);
            } else if (!want && n >= MIN_REGION_PIXELS) {
                char msg[256];
                snprintf(msg, sizeof msg, "region '%s' is shown but should not be", name);
                rc |= fail(msg);
            }
        } else if (strcmp(argv[i], "--palette") == 0 && i + 1 < argc) {
            int k = atoi(argv[++i]);
            sp_rgba c = sp__palette_color(k, dark);
            long n = count_colour(&im, c);
            printf("  palette colour %d #%02x%02x%02x: %ld pixels\n", k, (int)lround(c.r * 255),
                   (int)lround(c.g * 255), (int)lround(c.b * 255), n);
            if (n < MIN_REGION_PIXELS)
                rc |= fail("a palette colour asked for is not shown");
        }
    }
    cairo_surface_destroy(rgb);
    cairo_surface_destroy(s);
    sp_color_map_free(map);
    for (size_t k = 0; k < nruns; k++)
        sp_run_free((sp_run *)runs[k]);
    return rc;
}
