/* SPDX-License-Identifier: MIT */
/* sp_plot_canvas.c - per-draw state: style defaults, theme, fonts, clip. */
#include <math.h>
#include <string.h>

#include "sp_error.h"
#include "sp_plot_internal.h"

void sp_plot_style_init(sp_plot_style *st)
{
    if (!st)
        return;
    memset(st, 0, sizeof *st);
    st->scale = 1.0;
    st->font_family = NULL;
    st->font_size = 12.0;
    st->dark = false;
    st->no_background = false;
    st->title = NULL;
}

static PangoFontDescription *make_font(const char *family, double size, PangoWeight weight)
{
    PangoFontDescription *fd = pango_font_description_new();
    if (!fd)
        return NULL;
    pango_font_description_set_family(fd, family);
    pango_font_description_set_absolute_size(fd, size * PANGO_SCALE);
    pango_font_description_set_weight(fd, weight);
    return fd;
}

int sp__canvas_begin(sp__canvas *c, cairo_t *cr, double w, double h, const sp_plot_style *st)
{
    memset(c, 0, sizeof *c);
    if (st)
        c->style = *st;
    else
        sp_plot_style_init(&c->style);
    if (!(c->style.scale > 0) || !isfinite(c->style.scale))
        c->style.scale = 1.0;
    if (!(c->style.font_size > 0) || !isfinite(c->style.font_size))
        c->style.font_size = 12.0;
    if (!c->style.font_family || !*c->style.font_family)
        c->style.font_family = "Sans";
    c->cr = cr;
    c->w = w;
    c->h = h;
    c->s = c->style.scale;
    c->fs = c->style.font_size * c->s;
    sp__theme_get(c->style.dark, &c->th);
    c->cur_font = -1;

    static const struct {
        double rel;
        PangoWeight weight;
    } spec[SP__FONT_NFONTS] = {
        [SP__FONT_BODY] = {1.0, PANGO_WEIGHT_NORMAL},
        [SP__FONT_SMALL] = {0.9, PANGO_WEIGHT_NORMAL},
        [SP__FONT_BOLD] = {1.0, PANGO_WEIGHT_BOLD},
        [SP__FONT_TITLE] = {1.3, PANGO_WEIGHT_BOLD},
    };
    for (int i = 0; i < SP__FONT_NFONTS; i++) {
        c->fonts[i] = make_font(c->style.font_family, c->fs * spec[i].rel, spec[i].weight);
        if (!c->fonts[i])
            goto oom;
    }
    c->layout = pango_cairo_create_layout(cr);
    if (!c->layout)
        goto oom;
    pango_layout_set_single_paragraph_mode(c->layout, TRUE);
    for (int i = 0; i < SP__FONT_NFONTS; i++) {
        double lw;
        sp__text_size(c, (sp__font)i, "Ag", &lw, &c->line_h[i]);
    }

    cairo_save(cr);
    cairo_new_path(cr);
    cairo_rectangle(cr, 0, 0, w, h);
    cairo_clip(cr);
    if (!c->style.no_background) {
        sp__set_color(cr, c->th.bg);
        cairo_paint(cr);
    }
    cairo_set_line_width(cr, 1.0);
    return 0;
oom:
    for (int i = 0; i < SP__FONT_NFONTS; i++)
        if (c->fonts[i])
            pango_font_description_free(c->fonts[i]);
    if (c->layout)
        g_object_unref(c->layout);
    memset(c, 0, sizeof *c);
    return sp__error(SP_ENOMEM, "out of memory preparing fonts");
}

void sp__canvas_end(sp__canvas *c)
{
    if (!c->cr)
        return;
    cairo_restore(c->cr);
    sp_color_map_free(c->own_colors);
    for (int i = 0; i < SP__FONT_NFONTS; i++)
        pango_font_description_free(c->fonts[i]);
    g_object_unref(c->layout);
    memset(c, 0, sizeof *c);
}

double sp__snap(double v)
{
    return floor(v + 0.5);
}
