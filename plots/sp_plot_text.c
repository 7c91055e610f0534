/* SPDX-License-Identifier: MIT */
/* sp_plot_text.c - measuring, ellipsizing and drawing text with Pango. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sp_display.h"
#include "sp_error.h"
#include "sp_plot_internal.h"

static void use_font(sp__canvas *c, sp__font f)
{
    if (c->cur_font != (int)f) {
        pango_layout_set_font_description(c->layout, c->fonts[f]);
        c->cur_font = (int)f;
    }
}

/* Every text a chart draws goes into the layout here: region and thread
 * names, file names and metadata come from run files, so they are escaped
 * (sp_display.h: "\x1b", "\r", "\u202e", ...) and measured as drawn. Safe
 * text (nearly all) is set as it is. */
static void set_layout_text(PangoLayout *layout, const char *text)
{
    if (!text)
        text = "";
    if (sp_display_is_safe(text)) {
        pango_layout_set_text(layout, text, -1);
        return;
    }
    size_t len = strlen(text);
    char small[1024];
    char *buf = 4 * len <= sizeof small ? small : malloc(4 * len);
    if (!buf) {
        pango_layout_set_text(layout, "?", -1);
        return;
    }
    size_t n = sp_display_escape_bytes(buf, text, len, 0, NULL);
    pango_layout_set_text(layout, buf, (int)n);
    if (buf != small)
        free(buf);
}

/* Put text in the layout without width limit. */
static void set_plain(sp__canvas *c, sp__font f, const char *text)
{
    use_font(c, f);
    pango_layout_set_width(c->layout, -1);
    pango_layout_set_ellipsize(c->layout, PANGO_ELLIPSIZE_NONE);
    set_layout_text(c->layout, text);
}

void sp__text_size(sp__canvas *c, sp__font f, const char *text, double *w, double *h)
{
    int pw, ph;
    set_plain(c, f, text);
    pango_layout_get_size(c->layout, &pw, &ph);
    if (w)
        *w = (double)pw / PANGO_SCALE;
    if (h)
        *h = (double)ph / PANGO_SCALE;
}

double sp__text_width(sp__canvas *c, sp__font f, const char *text)
{
    double w;
    sp__text_size(c, f, text, &w, NULL);
    return w;
}

/* Fit the layout to max_w (ellipsizing at the end, or in the middle for
 * names); returns false when even a stub with an ellipsis would not fit, so
 * the caller draws nothing. */
static bool fit_mode(sp__canvas *c, double max_w, PangoEllipsizeMode mode, double *tw,
                     double *th)
{
    int pw, ph;
    pango_layout_get_size(c->layout, &pw, &ph);
    *tw = (double)pw / PANGO_SCALE;
    *th = (double)ph / PANGO_SCALE;
    if (max_w <= 0 || *tw <= max_w)
        return true;
    /* Two characters and an ellipsis need about 1.6 em: below that a label
     * is noise, so leave it out. */
    if (max_w < 1.6 * c->fs * (c->cur_font == SP__FONT_SMALL ? 0.9 : 1.0))
        return false;
    pango_layout_set_width(c->layout, (int)(max_w * PANGO_SCALE));
    pango_layout_set_ellipsize(c->layout, mode);
    sp__plot_stats *stats = sp__plot_stats_active();
    if (stats)
        stats->text_ellipsized++;
    pango_layout_get_size(c->layout, &pw, &ph);
    *tw = (double)pw / PANGO_SCALE;
    return true;
}

static double draw_mode(sp__canvas *c, sp__font f, const char *text, double x, double y,
                        double ax, double ay, double max_w, PangoEllipsizeMode mode, sp_rgba col)
{
    if (!text || !*text)
        return 0;
    set_plain(c, f, text);
    double tw, th;
    if (!fit_mode(c, max_w, mode, &tw, &th))
        return 0;
    cairo_t *cr = c->cr;
    sp__set_color(cr, col);
    cairo_move_to(cr, x - ax * tw, y - ay * th);
    pango_cairo_show_layout(cr, c->layout);
    cairo_new_path(cr);
    return tw;
}

double sp__text_draw(sp__canvas *c, sp__font f, const char *text, double x, double y,
                     double ax, double ay, double max_w, sp_rgba col)
{
    return draw_mode(c, f, text, x, y, ax, ay, max_w, PANGO_ELLIPSIZE_END, col);
}

double sp__name_draw(sp__canvas *c, sp__font f, const char *name, double x, double y,
                     double ax, double ay, double max_w, sp_rgba col)
{
    return draw_mode(c, f, name, x, y, ax, ay, max_w, PANGO_ELLIPSIZE_MIDDLE, col);
}

static void draw_vertical_mode(sp__canvas *c, sp__font f, const char *text, double x, double y,
                               double ax, double ay, double max_h, PangoEllipsizeMode mode,
                               sp_rgba col)
{
    if (!text || !*text)
        return;
    set_plain(c, f, text);
    double tw, th;
    if (!fit_mode(c, max_h, mode, &tw, &th))
        return;
    cairo_t *cr = c->cr;
    cairo_save(cr);
    /* On the page the rotated box is th wide and tw tall. */
    double left = x - ax * th, top = y - ay * tw;
    cairo_translate(cr, left, top + tw);
    cairo_rotate(cr, -M_PI / 2);
    sp__set_color(cr, col);
    cairo_move_to(cr, 0, 0);
    pango_cairo_update_layout(cr, c->layout);
    pango_cairo_show_layout(cr, c->layout);
    cairo_restore(cr);
    pango_cairo_update_layout(cr, c->layout);
    cairo_new_path(cr);
}

void sp__text_draw_vertical(sp__canvas *c, sp__font f, const char *text, double x, double y,
                            double ax, double ay, double max_h, sp_rgba col)
{
    draw_vertical_mode(c, f, text, x, y, ax, ay, max_h, PANGO_ELLIPSIZE_END, col);
}

void sp__name_draw_vertical(sp__canvas *c, sp__font f, const char *name, double x, double y,
                            double ax, double ay, double max_h, sp_rgba col)
{
    draw_vertical_mode(c, f, name, x, y, ax, ay, max_h, PANGO_ELLIPSIZE_MIDDLE, col);
}

void sp__draw_empty_msg(sp__canvas *c, const char *message)
{
    cairo_t *cr = c->cr;
    use_font(c, SP__FONT_BODY);
    double maxw = c->w * 0.8;
    pango_layout_set_ellipsize(c->layout, PANGO_ELLIPSIZE_NONE);
    pango_layout_set_width(c->layout, (int)(maxw * PANGO_SCALE));
    pango_layout_set_wrap(c->layout, PANGO_WRAP_WORD_CHAR);
    pango_layout_set_alignment(c->layout, PANGO_ALIGN_CENTER);
    pango_layout_set_single_paragraph_mode(c->layout, FALSE);
    set_layout_text(c->layout, message ? message : "No data"); /* may quote a name */
    int pw, ph;
    pango_layout_get_size(c->layout, &pw, &ph);
    double th = (double)ph / PANGO_SCALE;
    sp__set_color(cr, c->th.muted);
    cairo_move_to(cr, (c->w - maxw) / 2, (c->h - th) / 2);
    pango_cairo_show_layout(cr, c->layout);
    cairo_new_path(cr);
    pango_layout_set_alignment(c->layout, PANGO_ALIGN_LEFT);
    pango_layout_set_single_paragraph_mode(c->layout, TRUE);
}

int sp_plot_draw_empty(cairo_t *cr, double w, double h, const sp_plot_style *st,
                       const char *message)
{
    if (!cr || !(w > 0) || !(h > 0))
        return sp__error(SP_EINVAL, "sp_plot_draw_empty: bad arguments");
    sp__canvas c;
    int rc = sp__canvas_begin(&c, cr, w, h, st);
    if (rc)
        return rc;
    sp__draw_empty_msg(&c, message);
    sp__canvas_end(&c);
    return 0;
}
