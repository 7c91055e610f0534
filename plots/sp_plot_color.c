/* SPDX-License-Identifier: MIT */
/* sp_plot_color.c - the region palette, theme colours and colour helpers. */
#include <math.h>
#include <stdint.h>

#include "sp_plot_internal.h"

#define HEX(v) {((v) >> 16 & 0xff) / 255.0, ((v) >> 8 & 0xff) / 255.0, ((v) & 0xff) / 255.0, 1.0}

/* The palette and its order live in analysis/sp_colors.c (no cairo there),
 * so exports name the same colours the charts draw. */
int sp__palette_index(const char *name)
{
    return sp_palette_hash_slot(name);
}

sp_rgba sp__mix(sp_rgba a, sp_rgba b, double t)
{
    sp_rgba r = {a.r + (b.r - a.r) * t, a.g + (b.g - a.g) * t, a.b + (b.b - a.b) * t,
                 a.a + (b.a - a.a) * t};
    return r;
}

sp_rgba sp__palette_color(int index, bool dark)
{
    if (index < 0 || index >= SP__PALETTE_N)
        return sp_plot_neutral_color(dark);
    uint32_t v = sp_palette_rgb(index);
    sp_rgba c = HEX(v);
    if (dark) /* slightly dimmed so boxes do not glare on a dark background */
        c = sp__mix(c, (sp_rgba){0, 0, 0, 1}, 0.18);
    return c;
}

sp_rgba sp_plot_color_in(const sp_color_map *m, const char *name, bool dark)
{
    return sp__palette_color(sp_color_map_slot(m, name), dark);
}

sp_rgba sp_plot_region_color(const char *name, bool dark)
{
    return sp__palette_color(sp__palette_index(name), dark);
}

sp_rgba sp__region_color(sp__canvas *c, const sp_run *run, const char *name)
{
    if (!c->style.colors && run && !c->own_colors && !c->colors_failed) {
        c->own_colors = sp_color_map_for_run(run); /* NULL: the hash fallback */
        c->colors_failed = c->own_colors == NULL;
    }
    const sp_color_map *m = c->style.colors ? c->style.colors : c->own_colors;
    return sp_plot_color_in(m, name, c->style.dark);
}

sp_rgba sp_plot_neutral_color(bool dark)
{
    return dark ? (sp_rgba)HEX(0x6B6F76) : (sp_rgba)HEX(0xB4B9C0);
}

static double lin(double v)
{
    return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4);
}

sp_rgba sp_plot_text_color_on(sp_rgba bg)
{
    /* WCAG relative luminance; the threshold where black and white text have
     * equal contrast is about 0.18. */
    double y = 0.2126 * lin(bg.r) + 0.7152 * lin(bg.g) + 0.0722 * lin(bg.b);
    return y > 0.18 ? (sp_rgba)HEX(0x1A1A1A) : (sp_rgba)HEX(0xFAFAFA);
}

void sp__set_color(cairo_t *cr, sp_rgba c)
{
    cairo_set_source_rgba(cr, c.r, c.g, c.b, c.a);
}

void sp__theme_get(bool dark, sp__theme *th)
{
    if (dark) {
        *th = (sp__theme){
            .bg = HEX(0x1E1F22), .fg = HEX(0xE3E5E8), .muted = HEX(0x9DA3AB),
            .grid = HEX(0x33363B), .axis = HEX(0x6B7079), .band = HEX(0x25272B),
            .select = HEX(0xFFFFFF), .good = HEX(0x4CAF6A), .bad = HEX(0xE5534B),
            .neutral = sp_plot_neutral_color(true)};
    } else {
        *th = (sp__theme){
            .bg = HEX(0xFFFFFF), .fg = HEX(0x1F2328), .muted = HEX(0x5F6670),
            .grid = HEX(0xE7E9EC), .axis = HEX(0x9AA1AA), .band = HEX(0xF6F7F9),
            .select = HEX(0x111111), .good = HEX(0x2E9E5B), .bad = HEX(0xD1453B),
            .neutral = sp_plot_neutral_color(false)};
    }
}
