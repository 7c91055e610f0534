/* SPDX-License-Identifier: MIT */
/*
 * sp_timeline_overview.c - every lane on one screen: one thin row per lane
 * (a pixel row per several lanes when they outnumber the pixel rows), each
 * pixel coloured by the innermost region that covers at least half of it
 * (a region covering less shows only where nothing covers half). Rows are
 * painted depth by depth into one region per pixel column, from the lane's
 * window or index (sp_timeline_walk.c); lanes sharing a pixel row vote per
 * pixel. The rows' runs of equal colour are written into an image of the
 * data area (a few thousand rectangles through cairo cost more than the
 * painting), drawn with one paint, pixels kept sharp when scaled. A frame
 * costs O(rows x depths x pixels) whatever the calls.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_timeline_private.h"

/* Depths painted: deeper calls hardly ever cover half a pixel of an
 * overview, and a 2^20-deep lane must not cost 2^20 walks per frame. */
#define OVERVIEW_MAX_DEPTH 64

typedef struct paint {
    const sp__tl_draw *d;
    int32_t *col;       /* region per pixel column, -1 none */
    uint8_t *strong;    /* 1: a region covers at least half of it */
    size_t ncol;
    size_t entries;
} paint;

/* Paint column c with region g covering ov of it (0..1). */
static inline void paint_one(paint *pt, size_t c, int32_t g, double ov)
{
    bool strong = ov >= 0.5;
    if (strong || (!pt->strong[c] && pt->col[c] < 0)) {
        pt->col[c] = g;
        pt->strong[c] = strong;
    }
}

static bool visit_paint(void *ud, const sp__tl_entry *e)
{
    paint *pt = ud;
    pt->entries++;
    if (e->region < 0)
        return true;
    double t0 = pt->d->lay.t0, p = pt->d->p;
    double x0 = (e->s - t0) / p, x1 = (e->e - t0) / p;
    if (x1 <= 0 || x0 >= (double)pt->ncol)
        return true;
    double len = e->e - e->s;
    /* How much of its own span the entry's region fills. */
    double frac = e->calls == 1 && !e->from_index ? 1.0 : len > 0 ? e->dom / len : 1.0;
    frac = frac > 1.0 ? 1.0 : frac;
    size_t c0 = x0 < 0 ? 0 : (size_t)x0;
    size_t c1 = x1 >= (double)pt->ncol ? pt->ncol : (size_t)ceil(x1);
    if (c1 <= c0 + 2) { /* a pixel or two: the overlap of each */
        for (size_t c = c0; c < c1; c++) {
            double lo = x0 > (double)c ? x0 : (double)c;
            double hi = x1 < (double)c + 1 ? x1 : (double)c + 1;
            paint_one(pt, c, e->region, (hi - lo) * frac);
        }
        return true;
    }
    /* Wide: partial end columns, whole ones between (a call across the
     * view must not cost an overlap per pixel). */
    paint_one(pt, c0, e->region, ((double)c0 + 1 - (x0 > (double)c0 ? x0 : (double)c0)) * frac);
    paint_one(pt, c1 - 1, e->region, (x1 < (double)c1 ? x1 - (double)(c1 - 1) : 1.0) * frac);
    int32_t *restrict col = pt->col;
    uint8_t *restrict strong = pt->strong;
    const int32_t g = e->region;
    if (frac >= 0.5) {
        for (size_t c = c0 + 1; c + 1 < c1; c++)
            col[c] = g;
        memset(strong + c0 + 1, 1, c1 - c0 - 2);
    } else {
        for (size_t c = c0 + 1; c + 1 < c1; c++)
            if (!strong[c] && col[c] < 0)
                col[c] = g;
    }
    return true;
}

/* The region most of m lanes show in a pixel (those a region fills at
 * least half of first), -1 when none shows one. */
static int32_t elect(const int32_t *vote, const uint8_t *strong, size_t m)
{
    int32_t best = -1;
    size_t best_n = 0;
    for (int pass = 1; pass >= 0 && best < 0; pass--)
        for (size_t i = 0; i < m; i++) {
            if (vote[i] < 0 || strong[i] != pass)
                continue;
            size_t n = 0;
            for (size_t j = 0; j < m; j++)
                n += vote[j] == vote[i] && strong[j] == pass;
            if (n > best_n) {
                best_n = n;
                best = vote[i];
            }
        }
    return best;
}

/* Grow the timeline's column scratch to n columns: regions and flags of
 * the lane painted, and of the SP__TL_OV_MERGE lanes that vote. */
static bool columns(sp_timeline *tl, size_t n)
{
    size_t need = (n * sizeof(int32_t) + n) * (1 + SP__TL_OV_MERGE) + sizeof(int32_t);
    if (tl->capcolumn >= need)
        return true;
    int32_t *v = realloc(tl->column, need);
    if (!v)
        return false;
    tl->column = v;
    tl->capcolumn = need;
    return true;
}

/* Paint lane ln over the row's columns. */
static void paint_lane(sp__tl_draw *d, const sp__tl_lane *ln, paint *pt)
{
    const sp__tl_layout *lay = &d->lay;
    switch (sp__tl_lane_source(ln, lay->t0, lay->t1)) {
    case SP__TL_FROM_WINDOW:
    case SP__TL_FROM_PART:
        d->st.window_rows++;
        for (int32_t dep = 0; dep < ln->calls->depths && dep < OVERVIEW_MAX_DEPTH; dep++)
            sp__tl_walk_calls(ln->calls, dep, lay->t0, lay->t1, d->p, visit_paint, pt);
        break;
    case SP__TL_FROM_INDEX:
        d->st.index_rows++;
        for (uint32_t dep = 0; dep < ln->lod->ndepth; dep++)
            sp__tl_walk_index(ln->lod, d->tl->origin, (int32_t)dep, lay->t0, lay->t1, d->p,
                              visit_paint, pt);
        break;
    case SP__TL_FROM_NONE:
        break;
    }
}

/* Rank names down the label column, as many as fit without overlapping. */
static void draw_rank_labels(sp__tl_draw *d, size_t rows)
{
    sp__canvas *c = d->c;
    const sp__tl_layout *lay = &d->lay;
    double pad = 8 * c->s, maxw = lay->data_x - 2 * pad, lh = c->line_h[SP__FONT_SMALL];
    double last_y = -1e300;
    int32_t prev_rank = -1;
    for (size_t k = 0; k < rows; k++) {
        double y0, y1;
        size_t l = sp__tl_overview_row(d->tl, lay, k, &y0, &y1);
        const sp__tl_lane *ln = &d->tl->lanes[l];
        bool new_rank = ln->rank != prev_rank;
        prev_rank = ln->rank;
        double y = fmax(lay->data_y + (y0 + y1) / 2, lay->data_y + lh / 2);
        if (!new_rank || y - last_y < lh * 1.15 || y + lh / 2 > lay->data_y + lay->data_h)
            continue;
        char text[48];
        snprintf(text, sizeof text, "Rank %d", ln->rank);
        sp__text_draw(c, SP__FONT_SMALL, text, pad, y, 0, 0.5, maxw, c->th.fg);
        last_y = y;
    }
    /* How many ranks and lanes the rows stand for, above the labels. */
    size_t nranks = 0;
    int32_t r = -1;
    for (size_t l = 0; l < d->tl->nlanes; l++)
        if (d->tl->lanes[l].rank != r) {
            r = d->tl->lanes[l].rank;
            nranks++;
        }
    char what[96];
    snprintf(what, sizeof what, "%zu rank%s", nranks, nranks == 1 ? "" : "s");
    if (nranks != d->tl->nlanes) /* threads too, when the column has room */
        snprintf(what + strlen(what), sizeof what - strlen(what), " · %zu lanes", d->tl->nlanes);
    if (nranks != d->tl->nlanes && sp__text_width(c, SP__FONT_SMALL, what) > maxw)
        snprintf(what, sizeof what, "%zu rank%s", nranks, nranks == 1 ? "" : "s");
    if (lay->axis_h > 0)
        sp__text_draw(c, SP__FONT_SMALL, what, pad, lay->axis_y + lay->axis_h / 2, 0, 0.5, maxw,
                      c->th.muted);
}

/* The overview's image of w x h pixels, cleared (kept in the timeline
 * while its size holds). NULL on out of memory. */
static cairo_surface_t *overview_image(sp_timeline *tl, int w, int h)
{
    cairo_surface_t *img = tl->ov_image;
    if (!img || cairo_image_surface_get_width(img) != w ||
        cairo_image_surface_get_height(img) != h) {
        if (img)
            cairo_surface_destroy(img);
        img = tl->ov_image = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, w, h);
        if (cairo_surface_status(img) != CAIRO_STATUS_SUCCESS) {
            cairo_surface_destroy(img);
            tl->ov_image = NULL;
            return NULL;
        }
    }
    cairo_surface_flush(img);
    memset(cairo_image_surface_get_data(img), 0,
           (size_t)cairo_image_surface_get_stride(img) * (size_t)h);
    return img;
}

/* A slot's colour as a premultiplied ARGB32 pixel. */
static uint32_t pixel_of(sp_rgba c)
{
    double a = c.a < 0 ? 0 : c.a > 1 ? 1 : c.a;
    uint32_t A = (uint32_t)lround(a * 255), R = (uint32_t)lround(c.r * a * 255),
             G = (uint32_t)lround(c.g * a * 255), B = (uint32_t)lround(c.b * a * 255);
    return A << 24 | R << 16 | G << 8 | B;
}

/* Pixels [x0, x1) of rows [y0, y1) of the image set to px. */
static void fill_pixels(cairo_surface_t *img, int x0, int x1, int y0, int y1, uint32_t px)
{
    int w = cairo_image_surface_get_width(img), h = cairo_image_surface_get_height(img);
    int stride = cairo_image_surface_get_stride(img);
    unsigned char *data = cairo_image_surface_get_data(img);
    x0 = x0 < 0 ? 0 : x0;
    x1 = x1 > w ? w : x1;
    y1 = y1 > h ? h : y1;
    for (int y = y0 < 0 ? 0 : y0; y < y1; y++) {
        uint32_t *row = (uint32_t *)(void *)(data + (size_t)y * (size_t)stride);
        for (int x = x0; x < x1; x++)
            row[x] = px;
    }
}

/* Paint the lanes of overview row k into pt.col (voting when several). */
static bool paint_row(sp__tl_draw *d, paint *pt, size_t k, int32_t *vote, uint8_t *vstrong,
                      size_t *first)
{
    sp_timeline *tl = (sp_timeline *)d->tl;
    size_t ncol = pt->ncol;
    size_t lanes[SP__TL_OV_MERGE];
    size_t m = sp__tl_overview_lanes(tl, &d->lay, k, lanes);
    *first = lanes[0];
    d->st.lanes_drawn += m;
    bool any = false;
    for (size_t i = 0; i < m; i++) {
        const sp__tl_lane *ln = &tl->lanes[lanes[i]];
        memset(pt->col, 0xff, ncol * sizeof *pt->col); /* -1: nothing */
        memset(pt->strong, 0, ncol);
        any |= ln->lod != NULL || ln->calls != NULL;
        paint_lane(d, ln, pt);
        if (m == 1)
            return any;
        int32_t *restrict v = vote;
        uint8_t *restrict vs = vstrong;
        for (size_t c = 0; c < ncol; c++) {
            v[c * SP__TL_OV_MERGE + i] = pt->col[c];
            vs[c * SP__TL_OV_MERGE + i] = pt->strong[c];
        }
    }
    for (size_t c = 0; c < ncol; c++)
        pt->col[c] = elect(vote + c * SP__TL_OV_MERGE, vstrong + c * SP__TL_OV_MERGE, m);
    return any;
}

void sp__tl_draw_overview(sp__tl_draw *d)
{
    sp_timeline *tl = (sp_timeline *)d->tl;
    const sp__tl_layout *lay = &d->lay;
    cairo_t *cr = d->c->cr;
    size_t ncol = (size_t)ceil(lay->data_w);
    size_t rows = sp__tl_overview_rows(tl, lay);
    cairo_surface_t *img = NULL;
    if (!columns(tl, ncol) || !(img = overview_image(tl, (int)ncol, (int)ceil(lay->data_h)))) {
        d->oom = true;
        cairo_restore(cr);
        return;
    }
    uint32_t px[SP__TL_NSLOTS];
    for (int k = 0; k < SP__TL_NSLOTS; k++)
        px[k] = pixel_of(sp__tl_slot_color(d, k));
    paint pt = {d, tl->column, (uint8_t *)(tl->column + ncol), ncol, 0};
    /* The votes of the lanes sharing a pixel row. */
    int32_t *vote = tl->column + ncol + (ncol + sizeof(int32_t) - 1) / sizeof(int32_t);
    uint8_t *vstrong = (uint8_t *)(vote + ncol * SP__TL_OV_MERGE);
    for (size_t k = 0; k < rows; k++) {
        double y0, y1;
        sp__tl_overview_row(tl, lay, k, &y0, &y1);
        size_t l0;
        bool any = paint_row(d, &pt, k, vote, vstrong, &l0);
        d->st.rows_drawn++;
        int iy0 = (int)y0, iy1 = (int)y1;
        if (!any) { /* still loading: a band over the lane's span */
            const sp__tl_lane *ln = &tl->lanes[l0];
            double x0 = ((double)ln->first - lay->t0) / d->p;
            double x1 = ((double)ln->last - lay->t0) / d->p;
            if (x1 > 0 && x0 < (double)ncol)
                fill_pixels(img, (int)fmax(x0, 0), (int)ceil(fmin(fmax(x1, x0 + 1), (double)ncol)),
                            iy0, iy1, px[SP__TL_SLOT_PENDING]);
            d->st.pending_rows++;
            continue;
        }
        /* Runs of one region become one box. */
        for (size_t c = 0; c < ncol;) {
            int32_t g = pt.col[c];
            size_t e = c + 1;
            while (e < ncol && pt.col[e] == g)
                e++;
            if (g >= 0) {
                fill_pixels(img, (int)c, (int)e, iy0, iy1, px[sp__tl_region_slot(d, g)]);
                d->st.boxes++;
            }
            c = e;
        }
    }
    d->st.entries += pt.entries;
    cairo_surface_mark_dirty(img);
    cairo_save(cr);
    cairo_translate(cr, lay->data_x, lay->data_y);
    cairo_set_source_surface(cr, img, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_NEAREST);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_restore(cr);
    if (lay->data_x > 0) {
        cairo_save(cr);
        cairo_rectangle(cr, 0, lay->axis_y, lay->data_x, lay->data_y + lay->data_h - lay->axis_y);
        cairo_clip(cr);
        draw_rank_labels(d, rows);
        cairo_restore(cr);
    }
}
