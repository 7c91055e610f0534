/* SPDX-License-Identifier: MIT */
/* test_plots_format.c - durations, ticks, numbers, colours: the shared helpers. */
#include <math.h>
#include <string.h>

#include "plot_fixture.h"
#include "sp_plot_internal.h"
#include "sp_test.h"

static const char *dur(double s)
{
    static char buf[64];
    return sp_plot_format_duration(s, buf, sizeof buf);
}

static void test_durations(void)
{
    ASSERT_STREQ(dur(0), "0 s");
    ASSERT_STREQ(dur(42e-9), "42.0 ns");
    ASSERT_STREQ(dur(1.5e-3), "1.50 ms");
    ASSERT_STREQ(dur(12.345e-6), "12.3 µs");
    ASSERT_STREQ(dur(999.7e-6), "1.00 ms"); /* rounds up into the next unit */
    ASSERT_STREQ(dur(2.5), "2.50 s");
    ASSERT_STREQ(dur(123.4), "2m 03s");
    ASSERT_STREQ(dur(7325), "2h 02m");
    ASSERT_STREQ(dur(-2e-3), "-2.00 ms");
    ASSERT_STREQ(dur(NAN), "n/a");
}

static void test_ticks(void)
{
    ASSERT_NEAR(sp__nice_step(10, 5), 2, 1e-12);
    ASSERT_NEAR(sp__nice_step(7.3, 4), 2, 1e-12);
    ASSERT_NEAR(sp__nice_step(0.023, 5), 0.005, 1e-15);
    ASSERT_NEAR(sp__nice_step(1000, 3), 200, 1e-9); /* 333: thresholds 1.5, 3.5, 7.5 */
    double lo = 0.3, hi = 9.2;
    sp__nice_range(&lo, &hi, 5);
    ASSERT_NEAR(lo, 0, 1e-12);
    ASSERT_NEAR(hi, 10, 1e-12);

    sp__axis a = {.lo = 0, .hi = 0.023, .kind = SP__AXIS_TIME, .p0 = 0, .p1 = 500};
    sp__ticks t;
    sp__axis_ticks(&a, 5, &t);
    ASSERT_EQ_I(t.n, 5); /* 0, 5, 10, 15, 20 ms */
    ASSERT_STREQ(t.label[0], "0");
    ASSERT_STREQ(t.label[1], "5 ms");
    ASSERT_STREQ(t.label[4], "20 ms");
    /* Far from zero with a fine step: enough decimals to tell ticks apart. */
    sp__axis b = {.lo = 12.3452, .hi = 12.3460, .kind = SP__AXIS_TIME};
    sp__axis_ticks(&b, 4, &t);
    ASSERT(t.n >= 3);
    for (int i = 1; i < t.n; i++)
        ASSERT(strcmp(t.label[i], t.label[i - 1]) != 0);
    ASSERT_CONTAINS(t.label[0], " s");
    /* Log axis: decades labelled, minors not. */
    sp__axis l = {.lo = 1e-6, .hi = 1e-2, .log = true, .kind = SP__AXIS_TIME, .p0 = 0, .p1 = 400};
    sp__axis_ticks(&l, 6, &t);
    int labelled = 0;
    for (int i = 0; i < t.n; i++)
        labelled += t.label[i][0] != 0;
    ASSERT_EQ_I(labelled, 5);
    ASSERT_STREQ(t.label[0], "1 µs");
    ASSERT_NEAR(sp__axis_map(&l, 1e-4), 200, 1e-9);
    ASSERT_NEAR(sp__axis_unmap(&l, 300), 1e-3, 1e-12);
    /* Integer axes never get fractional ticks. */
    sp__axis c = {.lo = 0, .hi = 3.3, .kind = SP__AXIS_NUMBER, .integer = true};
    sp__axis_ticks(&c, 10, &t);
    for (int i = 0; i < t.n; i++)
        ASSERT(t.v[i] == floor(t.v[i]));
}

static void test_numbers(void)
{
    char b[32];
    sp__format_number(1500, 500, b, sizeof b);
    ASSERT_STREQ(b, "1500");
    sp__format_number(25000, 5000, b, sizeof b);
    ASSERT_STREQ(b, "25k");
    sp__format_number(2.5e6, 0, b, sizeof b);
    ASSERT_STREQ(b, "2.50M");
    sp__format_number(0.25, 0.05, b, sizeof b);
    ASSERT_STREQ(b, "0.25");
    sp__format_percent(12.34, b, sizeof b);
    ASSERT_STREQ(b, "+12.3%");
    sp__format_percent(-4, b, sizeof b);
    ASSERT_STREQ(b, "-4.0%");
    sp__format_percent(0.01, b, sizeof b);
    ASSERT_STREQ(b, "0.0%");
    sp__format_percent(INFINITY, b, sizeof b);
    ASSERT_STREQ(b, "new");
    sp__format_percent(899, b, sizeof b);
    ASSERT_STREQ(b, "+899%");
    sp__format_percent(900, b, sizeof b);
    ASSERT_STREQ(b, "×10.0");
    sp__format_percent(27157211, b, sizeof b); /* ran off the compare chart */
    ASSERT_STREQ(b, "×271573");
    sp__format_percent(-99.99, b, sizeof b);
    ASSERT_STREQ(b, "-100%");
}

static bool same(sp_rgba a, sp_rgba b)
{
    return a.r == b.r && a.g == b.g && a.b == b.b && a.a == b.a;
}

static void test_colours(void)
{
    /* Stable: same name, same colour; the theme variants differ. */
    ASSERT(same(sp_plot_region_color("solve", false), sp_plot_region_color("solve", false)));
    ASSERT(!same(sp_plot_region_color("solve", false), sp_plot_region_color("solve", true)));
    /* Pinned: the hash fallback (regions beyond the colour map's first 22)
     * must not change between releases. */
    ASSERT_EQ_I(sp__palette_index("solve"), 0);
    ASSERT_EQ_I(sp__palette_index("main"), 18);
    /* The README's regions get distinct colours. */
    const char *names[] = {"main", "setup", "refine_mesh", "solve", "assemble_matrix",
                           "apply_bc"};
    for (int i = 0; i < 6; i++)
        for (int j = i + 1; j < 6; j++)
            ASSERT_MSG(!same(sp_plot_region_color(names[i], false),
                             sp_plot_region_color(names[j], false)),
                       "%s and %s share a colour", names[i], names[j]);
    /* Spread: 1000 names use every palette entry. */
    int used[SP__PALETTE_N] = {0};
    for (int i = 0; i < 1000; i++) {
        char n[32];
        snprintf(n, sizeof n, "region_%d", i);
        int k = sp__palette_index(n);
        ASSERT(k >= 0 && k < SP__PALETTE_N);
        used[k]++;
    }
    for (int k = 0; k < SP__PALETTE_N; k++)
        ASSERT_MSG(used[k] > 20, "palette entry %d used %d times", k, used[k]);
    /* NULL is the neutral colour; neutral is not a palette colour. */
    ASSERT(same(sp_plot_region_color(NULL, false), sp_plot_neutral_color(false)));
    for (int k = 0; k < SP__PALETTE_N; k++)
        ASSERT(!same(sp__palette_color(k, false), sp_plot_neutral_color(false)));
    /* Readable text on light and dark boxes. */
    sp_rgba on_white = sp_plot_text_color_on((sp_rgba){1, 1, 1, 1});
    sp_rgba on_black = sp_plot_text_color_on((sp_rgba){0, 0, 0, 1});
    ASSERT(on_white.r < 0.2 && on_black.r > 0.8);
    ASSERT(sp_plot_text_color_on((sp_rgba){0.1, 0.1, 0.45, 1}).r > 0.8); /* navy */
    ASSERT(sp_plot_text_color_on((sp_rgba){1.0, 0.85, 0.4, 1}).r < 0.2);  /* amber */
    sp_plot_style st;
    sp_plot_style_init(&st);
    ASSERT_NEAR(st.scale, 1, 0);
    ASSERT_NEAR(st.font_size, 12, 0);
    ASSERT(!st.dark && !st.no_background && !st.title && !st.font_family);
}

/* Text helpers: ellipsizing keeps within the width, tiny widths draw nothing. */
static void test_text(void)
{
    fx_image im;
    fx_image_new(&im, 400, 100);
    sp__canvas c;
    ASSERT_EQ_I(sp__canvas_begin(&c, im.cr, 400, 100, NULL), 0);
    const char *longname = "a_very_long_region_name_that_will_not_fit";
    double full = sp__text_width(&c, SP__FONT_BODY, longname);
    ASSERT(full > 150);
    double drawn = sp__text_draw(&c, SP__FONT_BODY, longname, 10, 10, 0, 0, 120, c.th.fg);
    ASSERT(drawn > 0 && drawn <= 120);
    ASSERT_EQ_I(sp__text_draw(&c, SP__FONT_BODY, longname, 10, 50, 0, 0, 8, c.th.fg), 0);
    ASSERT(sp__text_draw(&c, SP__FONT_BODY, "ok", 10, 50, 0, 0, 0, c.th.fg) > 0);
    sp__canvas_end(&c);
    /* Nothing drawn past x = 130 by the ellipsized label (row 10..30). */
    ASSERT_EQ_I(fx_count_dark(&im, 131, 5, 400, 35, 200), 0);
    ASSERT(fx_count_dark(&im, 10, 5, 130, 35, 200) > 30);
    /* Scale doubles the text. */
    sp_plot_style st;
    sp_plot_style_init(&st);
    st.scale = 2;
    ASSERT_EQ_I(sp__canvas_begin(&c, im.cr, 400, 100, &st), 0);
    double w2 = sp__text_width(&c, SP__FONT_BODY, longname);
    sp__canvas_end(&c);
    ASSERT_NEAR(w2 / full, 2, 0.15);
    fx_image_free(&im);
}

int main(void)
{
    RUN(test_durations);
    RUN(test_ticks);
    RUN(test_numbers);
    RUN(test_colours);
    RUN(test_text);
    return sp_test_summary();
}
