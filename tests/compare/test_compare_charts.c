/* SPDX-License-Identifier: MIT */
/*
 * test_compare_charts.c - the comparison chart (sp_plot_comparison) and the
 * scaling chart (sp_plot_scaling) drawn from the models of synthetic runs
 * with known answers: the slower region is drawn in the "slower" colour and
 * nothing in the "faster" one, a filtered chart keeps the whole tally,
 * empty and tiny sizes draw a message, bad arguments are refused. The PNGs
 * are written to the binary dir for looking at.
 */
#include <cairo.h>
#include <math.h>

#include "sp_analysis.h"
#include "sp_compare.h"
#include "sp_plot_internal.h"
#include "sp_plots.h"
#include "sp_scaling.h"
#include "sp_test.h"
#include "synth_runs.h"

typedef struct img {
    cairo_surface_t *s;
    cairo_t *cr;
    int w, h;
} img;

static void img_new(img *im, int w, int h)
{
    im->w = w;
    im->h = h;
    im->s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
    im->cr = cairo_create(im->s);
}

static void img_free(img *im, const char *save_as)
{
    if (save_as) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", SP_TEST_BINARY_DIR, save_as);
        cairo_surface_write_to_png(im->s, path);
    }
    cairo_destroy(im->cr);
    cairo_surface_destroy(im->s);
}

/* Pixels within tol of colour c. */
static size_t count_color(img *im, sp_rgba c, int tol)
{
    cairo_surface_flush(im->s);
    const unsigned char *px = cairo_image_surface_get_data(im->s);
    int stride = cairo_image_surface_get_stride(im->s);
    int r = (int)lround(c.r * 255), g = (int)lround(c.g * 255), b = (int)lround(c.b * 255);
    size_t n = 0;
    for (int y = 0; y < im->h; y++)
        for (int x = 0; x < im->w; x++) {
            uint32_t p = *(const uint32_t *)(const void *)(px + y * stride + 4 * x);
            int pr = (p >> 16) & 255, pg = (p >> 8) & 255, pb = p & 255;
            n += abs(pr - r) <= tol && abs(pg - g) <= tol && abs(pb - b) <= tol;
        }
    return n;
}

static sp_run *make(uint64_t seed, double kernel)
{
    sy_spec s;
    sy_spec_init(&s, seed);
    s.kernel_factor = kernel;
    sp_run *run = sy_make(&s);
    if (run)
        sp_run_analyze(run);
    return run;
}

static void test_comparison_chart(void)
{
    sp_run *b = make(1, 1.0), *c = make(2, 1.25);
    const sp_run *bb = b, *cc = c;
    sp_compare *cmp = sp_compare_runs(&bb, 1, &cc, 1, NULL);
    ASSERT(cmp);
    sp__theme th;
    sp__theme_get(false, &th);
    img im;
    img_new(&im, 1200, 420);
    ASSERT_EQ_I(sp_plot_comparison(im.cr, 1200, 420, cmp, NULL, 0, "base", "slower", NULL), 0);
    /* kernel is slower: its dot, interval and label in the "bad" colour. */
    size_t red_all = count_color(&im, th.bad, 20);
    ASSERT(red_all > 40);
    /* nothing faster: green only in the legend swatch */
    ASSERT(count_color(&im, th.good, 12) < 150);
    ASSERT(count_color(&im, th.bad, 20) > 2 * count_color(&im, th.good, 12));
    img_free(&im, "compare-chart.png");

    /* Only the "io" row: no slower row drawn, the subtitle (tally) is the
     * whole comparison's, so the chart still names 1 slower in text. */
    size_t io = cmp->n;
    for (size_t i = 0; i < cmp->n; i++)
        if (strcmp(cmp->entries[i].name, "io") == 0)
            io = i;
    ASSERT(io < cmp->n);
    img_new(&im, 700, 300);
    ASSERT_EQ_I(sp_plot_comparison(im.cr, 700, 300, cmp, &io, 1, NULL, NULL, NULL), 0);
    ASSERT(count_color(&im, th.bad, 20) < red_all / 2); /* the legend swatch only */
    img_free(&im, "compare-chart-filtered.png");

    /* Dark, narrow, empty, tiny, bad. */
    sp_plot_style st;
    sp_plot_style_init(&st);
    st.dark = true;
    img_new(&im, 520, 360);
    ASSERT_EQ_I(sp_plot_comparison(im.cr, 520, 360, cmp, NULL, 0, NULL, NULL, &st), 0);
    sp__theme_get(true, &th);
    ASSERT(count_color(&im, th.bad, 20) > 20);
    img_free(&im, "compare-chart-dark-narrow.png");
    img_new(&im, 400, 200);
    ASSERT_EQ_I(sp_plot_comparison(im.cr, 400, 200, cmp, &io, 0, NULL, NULL, NULL), 0);
    ASSERT_EQ_I(sp_plot_comparison(im.cr, 40, 30, cmp, NULL, 0, NULL, NULL, NULL), 0);
    size_t bad_row = cmp->n + 3;
    ASSERT(sp_plot_comparison(im.cr, 400, 200, cmp, &bad_row, 1, NULL, NULL, NULL) == SP_EINVAL);
    ASSERT(sp_plot_comparison(im.cr, 400, 200, NULL, NULL, 0, NULL, NULL, NULL) == SP_EINVAL);
    img_free(&im, NULL);
    sp_compare_free(cmp);
    sp_run_free(b);
    sp_run_free(c);
}

/* A region 2700 times slower: its change reads "×2700 slower" in full (the
 * percentage ran off the chart) and its interval, wholly past the axis,
 * stays a mark at the axis end (it was drawn across the labels). */
static void test_comparison_chart_huge_change(void)
{
    sp_run *b = make(1, 1.0), *c = make(2, 2700.0);
    const sp_run *bb = b, *cc = c;
    sp_compare *cmp = sp_compare_runs(&bb, 1, &cc, 1, NULL);
    ASSERT(cmp);
    const sp_cmp_entry *k = NULL;
    for (size_t i = 0; i < cmp->n; i++)
        if (strcmp(cmp->entries[i].name, "kernel") == 0)
            k = &cmp->entries[i];
    ASSERT(k && k->verdict == SP_CMP_SLOWER && k->change_lo_pct > 300);
    char pct[48];
    sp__format_percent(k->change_pct, pct, sizeof pct);
    ASSERT(strncmp(pct, "×", strlen("×")) == 0);
    sp__theme th;
    sp__theme_get(false, &th);
    img im;
    img_new(&im, 1000, 420);
    sp__plot_stats st = {0};
    sp__plot_stats_capture(&st);
    ASSERT_EQ_I(sp_plot_comparison(im.cr, 1000, 420, cmp, NULL, 0, "base", "cand", NULL), 0);
    sp__plot_stats_capture(NULL);
    ASSERT_EQ_U(st.text_ellipsized, 0);
    /* Red in the label column is the label's text only: no interval line
     * runs under it (a line across 160 px would add hundreds of pixels). */
    cairo_surface_flush(im.s);
    const unsigned char *px = cairo_image_surface_get_data(im.s);
    int stride = cairo_image_surface_get_stride(im.s);
    size_t row_red = 0;
    for (int y = 0; y < im.h; y++) {
        size_t n = 0;
        for (int x = im.w - 120; x < im.w; x++) {
            uint32_t p = *(const uint32_t *)(const void *)(px + y * stride + 4 * x);
            int r = (p >> 16) & 255, g = (p >> 8) & 255, bl = p & 255;
            n += r > 150 && g < 110 && bl < 110;
        }
        row_red = n > row_red ? n : row_red;
    }
    ASSERT_MSG(row_red < 60, "%zu red pixels in one row of the label column", row_red);
    img_free(&im, "compare-chart-huge.png");
    sp_compare_free(cmp);
    sp_run_free(b);
    sp_run_free(c);
}

static sp_run *scaled(size_t nranks)
{
    sy_calls l = {0};
    for (size_t r = 0; r < nranks; r++) {
        int64_t at = 0;
        for (int i = 0; i < 10; i++) {
            int64_t d = (int64_t)(8 * SY_MS / (double)nranks);
            sy_add(&l, (int)r, 0, "divided", at, at + d);
            at += d;
            sy_add(&l, (int)r, 0, "replicated", at, at + (int64_t)(2 * SY_MS));
            at += (int64_t)(2 * SY_MS);
        }
    }
    sp_run *run = sy_build(&l, nranks);
    free(l.c);
    return run;
}

static void test_scaling_chart(void)
{
    sp_run *r[4] = {scaled(1), scaled(2), scaled(4), scaled(8)};
    sp_scaling *s = sp_scaling_study((const sp_run *const *)r, 4, NULL);
    ASSERT(s);
    img im;
    img_new(&im, 1200, 560);
    ASSERT_EQ_I(sp_plot_scaling(im.cr, 1200, 560, s, 8, NULL), 0);
    ASSERT(count_color(&im, sp_plot_region_color("divided", false), 10) > 200);
    ASSERT(count_color(&im, sp_plot_region_color("replicated", false), 10) > 200);
    img_free(&im, "scaling-chart.png");
    img_new(&im, 300, 150);
    ASSERT_EQ_I(sp_plot_scaling(im.cr, 300, 150, s, 8, NULL), 0); /* "Too small" */
    ASSERT(sp_plot_scaling(im.cr, 300, 150, NULL, 8, NULL) == SP_EINVAL);
    img_free(&im, NULL);
    sp_scaling_free(s);
    for (int i = 0; i < 4; i++)
        sp_run_free(r[i]);
}

int main(void)
{
    RUN(test_comparison_chart);
    RUN(test_comparison_chart_huge_change);
    RUN(test_scaling_chart);
    return sp_test_summary();
}
