/* SPDX-License-Identifier: MIT */
/*
 * sp_plot_calltree.c - the merged call tree as an icicle (or flame) graph of
 * inclusive time. Drawing and hit testing share one layout walk, so a click
 * always finds the box that was drawn under it.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_plot_internal.h"

void sp_calltree_view_init(sp_calltree_view *view)
{
    if (!view)
        return;
    memset(view, 0, sizeof *view);
    view->root_node = 0;
    view->highlight_region = -1;
    view->selected_node = -1;
    view->scroll_y = 0;
    view->flame = false;
    view->show_legend = true;
    view->figures = NULL;
}

/* Geometry shared by drawing and hit testing (no text measuring needed). */
typedef struct ct_layout {
    double x, y, w, h;  /* area of the boxes */
    double row_h;
    double scroll;      /* clamped */
    int32_t zoom;       /* valid zoom root */
    int nanc;           /* ancestors drawn above the zoom root */
    double legend_y, legend_h; /* legend band under the boxes (0: none) */
    double total;       /* inclusive time of the whole tree */
    double ztotal;      /* inclusive time of the zoom root */
    bool flame;
} ct_layout;

static double node_incl(const sp_tree *t, int32_t n)
{
    double v = t->nodes[n].incl_s;
    if (n == 0 && !(v > 0)) { /* a root without its own time: sum of the top level */
        v = 0;
        for (int32_t ch = t->nodes[0].first_child; ch >= 0; ch = t->nodes[ch].next_sibling)
            v += t->nodes[ch].incl_s;
    }
    return v;
}

static int32_t tree_height(const sp_tree *t, int32_t root)
{
    int32_t base = t->nodes[root].depth, maxd = base;
    /* Nodes of a subtree follow no particular index order: walk it. */
    int32_t n = root;
    while (n >= 0) {
        if (t->nodes[n].depth > maxd)
            maxd = t->nodes[n].depth;
        if (t->nodes[n].first_child >= 0) {
            n = t->nodes[n].first_child;
            continue;
        }
        while (n >= 0 && n != root && t->nodes[n].next_sibling < 0)
            n = t->nodes[n].parent;
        if (n < 0 || n == root)
            break;
        n = t->nodes[n].next_sibling;
    }
    return maxd - base + 1;
}

static void ct_layout_get(const sp_run *run, double w, double h, const sp_calltree_view *view,
                          const sp_plot_style *st, ct_layout *L)
{
    sp_plot_style def;
    if (!st) {
        sp_plot_style_init(&def);
        st = &def;
    }
    double s = st->scale > 0 ? st->scale : 1, fs = (st->font_size > 0 ? st->font_size : 12) * s;
    const sp_tree *t = &run->tree;
    /* Fixed ratios of the font size (as the timeline does) so hit testing
     * needs no cairo context; the title band matches sp__draw_title. */
    bool has_title = !(st->title && !*st->title);
    double top = has_title ? round(12 * s + 1.3 * fs * 1.25 + 2 * s + 1.0 * fs * 1.2 + 8 * s + 6 * s)
                           : round(8 * s);
    L->x = round(12 * s);
    L->w = fmax(1, w - 2 * L->x);
    L->y = top;
    L->legend_h = (view ? view->show_legend : true) ? round(2 * 1.45 * fs + 8 * s) : 0;
    L->h = fmax(0, h - top - round(8 * s) - L->legend_h);
    L->legend_y = L->y + L->h + round(4 * s);
    L->row_h = round(1.6 * fs);
    L->flame = view ? view->flame : false;
    int32_t z = view ? view->root_node : 0;
    if (z < 0 || (size_t)z >= t->nnodes)
        z = 0;
    L->zoom = z;
    L->nanc = 0;
    for (int32_t p = t->nodes[z].parent; p >= 0; p = t->nodes[p].parent)
        L->nanc++;
    L->total = node_incl(t, 0);
    L->ztotal = node_incl(t, z);
    double content = (L->nanc + tree_height(t, z)) * L->row_h;
    double sy = view ? view->scroll_y : 0;
    L->scroll = fmin(fmax(isfinite(sy) ? sy : 0, 0), fmax(0, content - L->h));
}

static double row_y(const ct_layout *L, int row)
{
    if (L->flame)
        return L->y + L->h - (row + 1) * L->row_h + L->scroll;
    return L->y + row * L->row_h - L->scroll;
}

typedef bool (*ct_visit)(void *ctx, int32_t node, double x0, double x1, double y, bool ancestor);

/* Walk the visible boxes: ancestors (full width), then the zoom root's
 * subtree depth first. Stops when visit returns true. */
static void ct_walk(const sp_run *run, const ct_layout *L, ct_visit visit, void *ctx)
{
    const sp_tree *t = &run->tree;
    int row = L->nanc - 1;
    for (int32_t p = t->nodes[L->zoom].parent; p >= 0; p = t->nodes[p].parent, row--)
        if (visit(ctx, p, L->x, L->x + L->w, row_y(L, row), true))
            return;
    if (!(L->ztotal > 0))
        return;
    double scale = L->w / L->ztotal;
    /* Explicit stack: (node, x0). Depth below the zoom root gives the row. */
    size_t cap = 64, n = 0;
    struct item {
        int32_t node;
        double x0;
    } *stack = malloc(cap * sizeof *stack);
    if (!stack)
        return;
    stack[n++] = (struct item){L->zoom, L->x};
    int32_t zdepth = t->nodes[L->zoom].depth;
    while (n > 0) {
        struct item it = stack[--n];
        const sp_tree_node *nd = &t->nodes[it.node];
        double wid = (it.node == L->zoom ? L->ztotal : nd->incl_s) * scale;
        int r = L->nanc + (nd->depth - zdepth);
        double y = row_y(L, r);
        bool visible = y + L->row_h > L->y && y < L->y + L->h;
        if (visible && visit(ctx, it.node, it.x0, it.x0 + wid, y, false))
            break;
        /* Children left to right; they are sorted by time, so stop at the
         * first one under half a unit wide. Pushed in reverse for DFS order. */
        double x = it.x0;
        size_t first = n;
        for (int32_t ch = nd->first_child; ch >= 0; ch = t->nodes[ch].next_sibling) {
            double cw = t->nodes[ch].incl_s * scale;
            if (cw < 0.5)
                break;
            if (n == cap) {
                struct item *ns = realloc(stack, cap * 2 * sizeof *stack);
                if (!ns)
                    goto done;
                stack = ns;
                cap *= 2;
            }
            stack[n++] = (struct item){ch, x};
            x += cw;
        }
        for (size_t a = first, b = n; b > a + 1; a++, b--) { /* reverse */
            struct item tmp = stack[a];
            stack[a] = stack[b - 1];
            stack[b - 1] = tmp;
        }
    }
done:
    free(stack);
}

typedef struct draw_ctx {
    sp__canvas *c;
    const sp_run *run;
    const ct_layout *L;
    const sp_calltree_view *view;
    const sp_figures *fig; /* per-rank figures for the labels */
    bool *shown;           /* regions drawn (the legend), or NULL */

    double sel[4];
    bool have_sel;
} draw_ctx;

static bool draw_box(void *vctx, int32_t node, double x0, double x1, double y, bool ancestor)
{
    draw_ctx *d = vctx;
    sp__canvas *c = d->c;
    const sp_tree_node *nd = &d->run->tree.nodes[node];
    const char *name = nd->region >= 0 ? sp__region_name(d->run, nd->region) : "all";
    sp_rgba col = nd->region >= 0 ? sp__region_color(c, d->run, name) : c->th.neutral;
    if (d->shown && nd->region >= 0 && (size_t)nd->region < d->run->nregions)
        d->shown[nd->region] = true;
    int32_t hl = d->view ? d->view->highlight_region : -1;
    bool faded = ancestor || (hl >= 0 && nd->region != hl);
    if (faded)
        col = sp__mix(col, c->th.bg, ancestor ? 0.55 : 0.72);
    double bx0 = round(x0), bx1 = fmax(bx0 + 1, round(x1) - (x1 - x0 >= 3 ? 1 : 0));
    double bh = d->L->row_h - 1;
    sp__set_color(c->cr, col);
    cairo_rectangle(c->cr, bx0, y, bx1 - bx0, bh);
    cairo_fill(c->cr);
    if (d->view && node == d->view->selected_node) {
        d->have_sel = true;
        d->sel[0] = bx0;
        d->sel[1] = y;
        d->sel[2] = bx1 - bx0;
        d->sel[3] = bh;
    }
    double avail = bx1 - bx0 - 8 * c->s;
    if (avail >= 1.6 * c->fs) {
        char label[512], dur[32];
        double incl = node == 0 ? d->L->total : nd->incl_s;
        double pct = d->L->total > 0 ? incl / d->L->total * 100 : 0;
        /* the rank rule: the time per rank (mean over the ranks) */
        bool per_rank = d->fig && d->fig->two_columns;
        sp_fig_kind kind = sp_region_fig_kind(d->run, nd->region);
        const char *mark = kind == SP_FIG_ESTIMATE ? "~" : kind == SP_FIG_LOWER_BOUND ? "≥" : "";
        if (node == 0 && per_rank) { /* the whole run: its wall-clock span */
            sp_plot_format_duration(d->fig->span_s, dur, sizeof dur);
            snprintf(label, sizeof label, "%s  wall clock %s · %.1f%%", name, dur, pct);
        } else {
            sp_plot_format_duration(per_rank ? d->fig->node_incl[node].mean_s : incl, dur,
                                    sizeof dur);
            snprintf(label, sizeof label, "%s  %s%s%s · %.1f%%", name, mark, dur,
                     per_rank ? (d->fig->nranks > 1 ? "/rank" : "/thread") : "", pct);
        }
        sp_rgba fg = sp_plot_text_color_on(col);
        if (faded)
            fg = sp__mix(fg, col, 0.35);
        /* The full label when it fits, else the name alone (ellipsized). */
        const char *txt = sp__text_width(c, SP__FONT_SMALL, label) <= avail ? label : name;
        /* A truncated name needs room for a few characters to help. */
        if (txt == label || avail >= 3.2 * c->fs ||
            sp__text_width(c, SP__FONT_SMALL, name) <= avail)
            sp__text_draw(c, SP__FONT_SMALL, txt, fmax(bx0, 0) + 4 * c->s, y + bh / 2, 0, 0.5,
                          avail, fg);
    }
    return false;
}

int sp_plot_calltree(cairo_t *cr, double w, double h, const sp_run *run,
                     const sp_calltree_view *view, const sp_plot_style *st)
{
    if (!cr || !(w > 0) || !(h > 0))
        return sp__error(SP_EINVAL, "sp_plot_calltree: bad arguments");
    int rc = sp__check_analyzed(run, "sp_plot_calltree");
    if (rc)
        return rc;
    sp__canvas c;
    if ((rc = sp__canvas_begin(&c, cr, w, h, st)) != 0)
        return rc;
    const sp_tree *t = &run->tree;
    if (t->nnodes == 0 || !t->nodes || t->nodes[0].first_child < 0 || !(node_incl(t, 0) > 0)) {
        sp__draw_empty_msg(&c, "No call tree: no calls recorded in this run");
        sp__canvas_end(&c);
        return 0;
    }
    ct_layout L;
    ct_layout_get(run, w, h, view, &c.style, &L);
    /* Per-rank figures: the caller's, else computed for this draw. */
    sp_figures *own_fig = NULL;
    const sp_figures *fig = view ? view->figures : NULL;
    if (!fig)
        fig = own_fig = sp_figures_new(run); /* NULL (ENOMEM): sums, as before */
    char sub[256], dur[32], span[32];
    size_t nthreads = 0;
    for (size_t r = 0; r < run->nranks; r++)
        nthreads += run->ranks[r].nthreads;
    if (fig && fig->two_columns) {
        sp_plot_format_duration(fig->span_s, span, sizeof span);
        if (fig->nranks > 1)
            snprintf(sub, sizeof sub,
                     "wall-clock span %s · times per rank (mean over %zu ranks) · width = share "
                     "of inclusive time",
                     span, fig->nranks);
        else
            snprintf(sub, sizeof sub,
                     "wall-clock span %s · times per thread (mean over the threads running each "
                     "region) · width = share of inclusive time",
                     span);
    } else {
        sp_plot_format_duration(L.total, dur, sizeof dur);
        snprintf(sub, sizeof sub, "%s over %zu rank%s and %zu thread%s · width = inclusive time",
                 dur, run->nranks, run->nranks == 1 ? "" : "s", nthreads,
                 nthreads == 1 ? "" : "s");
    }
    if (!(c.style.title && !*c.style.title)) /* "" = no title band at all */
        sp__draw_title(&c, "Call tree", sub);
    cairo_save(cr);
    cairo_rectangle(cr, 0, L.y, w, L.h);
    cairo_clip(cr);
    bool *shown = L.legend_h > 0 ? calloc(run->nregions ? run->nregions : 1, sizeof *shown) : NULL;
    draw_ctx d = {&c, run, &L, view, fig, shown, {0}, false};
    ct_walk(run, &L, draw_box, &d);
    if (d.have_sel) {
        sp__set_color(cr, c.th.select);
        cairo_set_line_width(cr, 2 * c.s);
        cairo_rectangle(cr, d.sel[0] + c.s, d.sel[1] + c.s, fmax(d.sel[2] - 2 * c.s, 1),
                        d.sel[3] - 2 * c.s);
        cairo_stroke(cr);
    }
    cairo_restore(cr);
    if (shown)
        sp__region_legend(&c, run, shown, c.style.colors ? c.style.colors : c.own_colors, L.x,
                          L.legend_y, L.w, 2);
    free(shown);
    sp_figures_free(own_fig);
    sp__canvas_end(&c);
    return 0;
}

typedef struct hit_ctx {
    double x, y, row_h;
    int32_t found;
} hit_ctx;

static bool hit_box(void *vctx, int32_t node, double x0, double x1, double y, bool ancestor)
{
    hit_ctx *h = vctx;
    if (h->y >= y && h->y < y + h->row_h && h->x >= round(x0) && h->x < fmax(round(x0) + 1, x1)) {
        h->found = node;
        return true;
    }
    return false;
}

int32_t sp_plot_calltree_hit(const sp_run *run, double w, double h, const sp_calltree_view *view,
                             const sp_plot_style *st, double x, double y)
{
    if (!run || !run->analyzed || run->tree.nnodes == 0 || !run->tree.nodes || !(w > 0) ||
        !(h > 0))
        return -1;
    ct_layout L;
    ct_layout_get(run, w, h, view, st, &L);
    if (y < L.y || y >= L.y + L.h)
        return -1;
    hit_ctx hc = {x, y, L.row_h, -1};
    ct_walk(run, &L, hit_box, &hc);
    return hc.found;
}
