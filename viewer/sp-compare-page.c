/* SPDX-License-Identifier: MIT */
/* sp-compare-page.c - the Compare page: the comparison model of the base
 * and candidate runs (analysis/sp_compare.h, the same verdicts and tally as
 * `scope-profiler diff`), stacked timelines, and with more than two runs a
 * Scaling view (analysis/sp_scaling.h). */
#include "sp-compare-page.h"

#include <math.h>

#include "sp_error.h"
#include "sp_scaling.h"

#include "sp-chart-view.h"
#include "sp-diff-item.h"
#include "sp-list-columns.h"
#include "sp-timeline-chart.h"
#include "sp-viewer-format.h"
#include "sp-viewer-screenshot.h"
#include "sp-viewer-text.h"

/* Each row in one quantity, named in its own column: the one its verdict
 * rests on (sp_cmp_entry_quantity: the typical time per rank, or the total
 * for a tail change), its two sides, change and interval; the other
 * quantity is in the change cell's tooltip (`diff` prints both). */
typedef enum { FIELD_NAME, FIELD_QUANTITY, FIELD_BASE, FIELD_CAND, FIELD_CHANGE, FIELD_IMPACT,
               FIELD_VERDICT, N_FIELDS } Field;
typedef enum { SHOW_ALL, SHOW_CHANGED, SHOW_SLOWER, SHOW_FASTER, SHOW_SAME,
               SHOW_NOT_COMPARABLE } Show;

#define MAX_BARS 60 /* regions handed to the bar chart (it says "+ N more") */

struct _SpComparePage {
    GtkWidget parent_instance;
    SpSession *session;
    SpRunDocument *base, *cand;
    char *needle;
    Show show;
    gboolean syncing, syncing_view;
    guint diff_generation; /* of the comparison being computed */
    SpChart *current_chart;
    SpCompareBox *cmp;     /* the comparison shown (NULL while computing) */
    sp_scaling *scaling;   /* with more than two runs */
    char *scaling_error;   /* why there is no study of the runs open, or NULL */
    char *summary_text;    /* the tally as plain text (for tests) */
    guint nruns_seen;      /* the session's runs when last shown */
    gpointer runs_seen;

    GListStore *store;
    GtkCustomFilter *filter;
    GtkFilterListModel *filtered;
    GtkSortListModel *sorted;
    GtkSingleSelection *selection;

    SpTimelineChart *base_chart, *cand_chart;
    GtkScrollbar *base_vscrollbar, *cand_vscrollbar;
    GtkLabel *base_label, *cand_label, *summary_label;
    GtkSearchEntry *search_entry;
    GtkDropDown *verdict_dropdown;
    GtkColumnView *column_view;
    GtkColumnViewColumn *columns[N_FIELDS];
    SpChartView *bars;
    GtkWidget *view_bar;
    GtkLabel *view_label;
    GtkStack *views;
    SpChartView *scaling_chart;
    GtkGrid *scaling_grid;
    GtkDropDown *scaling_kind; /* detected, strong, weak (sp_scaling_kind order) */
};

static void page_iface_init(SpPageInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(SpComparePage, sp_compare_page, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(SP_TYPE_PAGE, page_iface_init))

/* ---- table ---- */

static double field_value(const sp_cmp_entry *e, Field f)
{
    sp_cmp_quantity q;
    sp_cmp_entry_quantity(e, &q);
    switch (f) {
    case FIELD_QUANTITY: return q.name[1]; /* 'y' typical, 'o' total */
    case FIELD_BASE: return e->verdict == SP_CMP_NEW ? -1 : q.base_s;
    case FIELD_CAND: return e->verdict == SP_CMP_REMOVED ? -1 : q.cand_s;
    case FIELD_CHANGE: return isfinite(q.change_pct) ? q.change_pct : 1e300;
    case FIELD_IMPACT: return fabs(e->impact_s);
    case FIELD_VERDICT: return e->verdict;
    default: return 0;
    }
}

/* The same words and numbers as `scope-profiler diff` (analysis' text). */
static char *cell_text(gpointer item, gpointer data)
{
    const sp_cmp_entry *e = sp_diff_item_get_entry(item);
    char buf[96];
    gboolean is_new = e->verdict == SP_CMP_NEW, gone = e->verdict == SP_CMP_REMOVED;
    sp_cmp_quantity q;
    sp_cmp_entry_quantity(e, &q);
    bool total = q.name[1] == 'o';
    switch ((Field)GPOINTER_TO_INT(data)) {
    case FIELD_QUANTITY: return g_strdup(is_new || gone ? "total" : q.name);
    case FIELD_BASE:
        return g_strdup(is_new ? "—" : sp_cmp_fmt_time(q.base_s, buf, sizeof buf));
    case FIELD_CAND:
        return g_strdup(gone ? "—" : sp_cmp_fmt_time(q.cand_s, buf, sizeof buf));
    case FIELD_CHANGE:
        return g_strdup(total ? sp_cmp_total_text(e, buf, sizeof buf)
                              : sp_cmp_change_text(e, buf, sizeof buf));
    case FIELD_IMPACT:
        sp_cmp_fmt_time(e->impact_s, buf, sizeof buf);
        return g_strdup_printf("%s%s", e->impact_s > 0 ? "+" : "", buf);
    case FIELD_VERDICT: return g_strdup(sp_cmp_verdict_name(e->verdict));
    default: return NULL;
    }
}

static gboolean is_slower(const sp_cmp_entry *e)
{
    return e->verdict == SP_CMP_SLOWER || e->verdict == SP_CMP_NEW;
}

static gboolean is_faster(const sp_cmp_entry *e)
{
    return e->verdict == SP_CMP_FASTER || e->verdict == SP_CMP_REMOVED;
}

static const char *cell_class(gpointer item, gpointer data)
{
    const sp_cmp_entry *e = sp_diff_item_get_entry(item);
    if (is_slower(e))
        return "sp-slower";
    if (is_faster(e))
        return "sp-faster";
    return "dim-label";
}

static const char *cell_name(gpointer item, gpointer data)
{
    return sp_diff_item_get_entry(item)->name;
}

static int compare_items(gconstpointer a, gconstpointer b, gpointer data)
{
    Field f = GPOINTER_TO_INT(data);
    const sp_cmp_entry *x = sp_diff_item_get_entry((SpDiffItem *)a);
    const sp_cmp_entry *y = sp_diff_item_get_entry((SpDiffItem *)b);
    if (f != FIELD_NAME) {
        double u = field_value(x, f), v = field_value(y, f);
        if (u != v)
            return u < v ? -1 : 1;
    }
    return g_utf8_collate(x->name, y->name);
}

static gboolean filter_item(gpointer item, gpointer data)
{
    SpComparePage *self = data;
    const sp_cmp_entry *e = sp_diff_item_get_entry(item);
    gboolean slower = is_slower(e), faster = is_faster(e);
    if ((self->show == SHOW_CHANGED && !slower && !faster) ||
        (self->show == SHOW_SLOWER && !slower) || (self->show == SHOW_FASTER && !faster) ||
        (self->show == SHOW_SAME && e->verdict != SP_CMP_SAME) ||
        (self->show == SHOW_NOT_COMPARABLE && e->verdict != SP_CMP_NOT_COMPARABLE))
        return FALSE;
    if (!self->needle)
        return TRUE;
    g_autofree char *name = g_utf8_casefold(e->name, -1);
    return strstr(name, self->needle) != NULL;
}

/* The verdict and change cells say why in a tooltip (the reason `diff`
 * prints in its note column, and a changed call count). */
static void note_tooltip_bind(GtkSignalListItemFactory *f, GtkListItem *li, gpointer data)
{
    GtkWidget *label = gtk_list_item_get_child(li);
    SpDiffItem *item = gtk_list_item_get_item(li);
    if (!label || !item)
        return;
    const sp_cmp_entry *e = sp_diff_item_get_entry(item);
    char why[320], calls[96], method[512];
    const char *w = sp_cmp_why_text(sp_diff_item_get_compare(item), e, why, sizeof why);
    const char *basis = sp_cmp_basis_text(e);
    sp_cmp_calls_text(e, calls, sizeof calls);
    /* Both quantities, as `diff` prints them. */
    char tb[32], tc[32], ch[96], bb[32], bc[32], tot[96];
    g_autofree char *both = g_strdup_printf(
        "typical time per rank %s → %s, %s\ntotal time per rank %s → %s, %s",
        sp_cmp_fmt_time(e->base.typical_time_s, tb, sizeof tb),
        sp_cmp_fmt_time(e->cand.typical_time_s, tc, sizeof tc), sp_cmp_change_text(e, ch, sizeof ch),
        sp_cmp_fmt_time(e->base.time_mean_s, bb, sizeof bb),
        sp_cmp_fmt_time(e->cand.time_mean_s, bc, sizeof bc), sp_cmp_total_text(e, tot, sizeof tot));
    g_autofree char *tip = g_strdup_printf(
        "%s%s%s%s%s%s%s", basis ? basis : "", basis && (w || *calls) ? "; " : "", w ? w : "",
        w && *calls ? "; " : "", calls, basis || w || *calls ? "\n" : "",
        e->verdict == SP_CMP_NEW || e->verdict == SP_CMP_REMOVED ? "" : both);
    if (!*tip && (e->verdict == SP_CMP_SLOWER || e->verdict == SP_CMP_FASTER))
        g_free(tip), tip = g_strdup(sp_compare_method_text(sp_diff_item_get_compare(item), method,
                                                           sizeof method));
    gtk_widget_set_tooltip_text(label, *tip ? tip : NULL);
}

static void refilter(SpComparePage *self)
{
    gtk_filter_changed(GTK_FILTER(self->filter), GTK_FILTER_CHANGE_DIFFERENT);
    gtk_widget_queue_draw(GTK_WIDGET(self->bars));
}

static void on_search_changed(GtkSearchEntry *entry, SpComparePage *self)
{
    const char *text = gtk_editable_get_text(GTK_EDITABLE(entry));
    g_clear_pointer(&self->needle, g_free);
    if (text && *text)
        self->needle = g_utf8_casefold(text, -1);
    refilter(self);
}

static void on_show_changed(GtkDropDown *dropdown, GParamSpec *pspec, SpComparePage *self)
{
    self->show = (Show)gtk_drop_down_get_selected(dropdown);
    refilter(self);
}

/* ---- bars ---- */

/* The comparison chart of the rows the table shows, in its order; its
 * subtitle is the tally of the whole comparison (as the summary label). */
static int draw_bars(cairo_t *cr, double w, double h, const sp_plot_style *st, gpointer data)
{
    SpComparePage *self = data;
    if (!self->base || !self->cand)
        return sp_plot_draw_empty(cr, w, h, st, "Open two runs to compare them");
    if (!self->cmp)
        return sp_plot_draw_empty(cr, w, h, st, "Comparing…");
    GListModel *rows = G_LIST_MODEL(self->sorted);
    guint n = MIN(g_list_model_get_n_items(rows), MAX_BARS);
    size_t *idx = g_new0(size_t, n + 1);
    for (guint i = 0; i < n; i++) {
        g_autoptr(SpDiffItem) item = g_list_model_get_item(rows, i);
        idx[i] = sp_diff_item_get_index(item);
    }
    int rc = sp_plot_comparison(cr, w, h, *self->cmp, idx, n,
                                sp_run_document_get_display_name(self->base),
                                sp_run_document_get_display_name(self->cand), st);
    g_free(idx);
    return rc;
}

/* ---- runs ---- */

/* The tally every surface prints (sp_compare_tally_text), slower and
 * faster coloured, and the mode. */
/* Rows of the table at most (the report's 2,000). */
#define COMPARE_ROWS_MAX 2000

static void update_summary(SpComparePage *self, const sp_compare *cmp)
{
    sp_cmp_tally t;
    sp_compare_tally(cmp, &t);
    char tally[256], mode[160];
    sp_compare_tally_text(&t, tally, sizeof tally);
    sp_compare_mode_text(cmp, mode, sizeof mode);
    g_free(self->summary_text);
    self->summary_text = g_strdup(tally);
    g_autofree char *esc = g_markup_escape_text(tally, -1);
    g_autofree char *slower = g_strdup_printf("%zu slower", t.n[SP_CMP_SLOWER]);
    g_autofree char *faster = g_strdup_printf("%zu faster", t.n[SP_CMP_FASTER]);
    /* The text starts "N slower · M faster": colour those two. */
    const char *rest = esc + strlen(slower) + strlen(" · ") + strlen(faster);
    /* How disturbed each side was (measured), and an undecided comparison. */
    char wait[160] = "", shown[96] = "";
    if (cmp->n > COMPARE_ROWS_MAX)
        snprintf(shown, sizeof shown, " · the table shows the first %d of %zu rows",
                 COMPARE_ROWS_MAX, cmp->n);
    if (cmp->base_sched.measured || cmp->cand_sched.measured)
        snprintf(wait, sizeof wait, " · waited for a CPU: base %.0f %%, candidate %.0f %%",
                 100 * cmp->base_sched.wait_share, 100 * cmp->cand_sched.wait_share);
    g_autofree char *markup = g_strdup_printf(
        "<span foreground='#c01c28'><b>%s</b></span> · <span foreground='#26a269'><b>%s</b></span>%s"
        "  <span alpha='60%%'>· %s%s%s</span>%s",
        slower, faster, rest, mode, wait, shown,
        cmp->undecided ? "  <b>· undecided: every region changed alike, repeat the runs</b>" : "");
    gtk_label_set_markup(self->summary_label, markup);
    char method[512], sched[400], common[400];
    g_autofree char *tip = g_strdup_printf(
        "%s\nCPU wait: %s\nCommon change: %s", sp_compare_method_text(cmp, method, sizeof method),
        sp_compare_sched_text(cmp, sched, sizeof sched),
        sp_compare_common_text(cmp, common, sizeof common));
    gtk_widget_set_tooltip_text(GTK_WIDGET(self->summary_label), tip);
}

static void on_selected_region(SpSession *session, GParamSpec *pspec, SpComparePage *self);

typedef struct {
    SpRunDocument *base, *cand;
    guint generation;
} DiffJob;

static void diff_job_free(gpointer p)
{
    DiffJob *job = p;
    g_object_unref(job->base);
    g_object_unref(job->cand);
    g_free(job);
}

/* The run a comparison reads (flags: the aggregates it needs,
 * SP_COMPARE_AGG_FLAGS; 0 for a scaling study). A document read with
 * calls in memory, or whose aggregates hold those, serves as it is; else
 * its file is read again aggregate-first with them (in the helper
 * process; no calls). *owned: to free. */
static const sp_run *compare_input(SpRunDocument *doc, unsigned flags, sp_run **owned,
                                   GError **error)
{
    const sp_run *run = sp_run_document_get_run(doc);
    *owned = NULL;
    bool calls = false;
    for (size_t r = 0; r < run->nranks && !calls; r++)
        calls = run->ranks[r].ncalls > 0;
    if (calls || (run->agg && (run->agg->flags & flags) == flags) ||
        sp_run_total_calls(run) == 0 || !sp_run_document_get_path(doc))
        return run;
    *owned = sp_run_document_read_aggregates(doc, flags, error);
    return *owned;
}

/* The comparison model with its defaults, as `scope-profiler diff BASE
 * CAND` computes it. */
static void diff_thread(GTask *task, gpointer source, gpointer data, GCancellable *cancellable)
{
    DiffJob *job = data;
    GError *error = NULL;
    sp_run *own_b = NULL, *own_c = NULL;
    const sp_run *b = compare_input(job->base, SP_COMPARE_AGG_FLAGS(false), &own_b, &error);
    const sp_run *c =
        b ? compare_input(job->cand, SP_COMPARE_AGG_FLAGS(false), &own_c, &error) : NULL;
    sp_compare *cmp = b && c ? sp_compare_runs(&b, 1, &c, 1, NULL) : NULL;
    if (!cmp && error)
        g_task_return_error(task, error);
    else if (!cmp)
        g_task_return_new_error(task, G_IO_ERROR, G_IO_ERROR_FAILED, "%s", sp_last_error());
    else
        g_task_return_pointer(task, cmp, (GDestroyNotify)sp_compare_free);
    sp_run_free(own_b);
    sp_run_free(own_c);
}

static void on_diff_done(GObject *source, GAsyncResult *result, gpointer data)
{
    SpComparePage *self = SP_COMPARE_PAGE(source);
    DiffJob *job = g_task_get_task_data(G_TASK(result));
    g_autoptr(GError) error = NULL;
    sp_compare *cmp = g_task_propagate_pointer(G_TASK(result), &error);
    sp_viewer_work_end();
    /* Replaced by a newer comparison, or the page is gone. */
    if (job->generation != self->diff_generation || !self->base) {
        sp_compare_free(cmp);
        return;
    }
    if (!cmp) {
        gtk_label_set_text(self->summary_label, error->message);
        return;
    }
    g_clear_pointer(&self->cmp, sp_compare_box_unref);
    self->cmp = sp_compare_box_new(cmp);
    GPtrArray *items = g_ptr_array_new_with_free_func(g_object_unref);
    /* The first rows (by impact, or the tree's first nodes) like the other
     * tables: GTK's list models took tens of seconds over 10^6 rows. */
    for (size_t i = 0; i < cmp->n && i < COMPARE_ROWS_MAX; i++)
        g_ptr_array_add(items, sp_diff_item_new(self->cmp, i));
    g_list_store_splice(self->store, 0, 0, items->pdata, items->len);
    g_ptr_array_unref(items);
    update_summary(self, cmp);
    gtk_widget_queue_draw(GTK_WIDGET(self->bars));
    /* Rows arrived after the selection: show it. */
    on_selected_region(self->session, NULL, self);
}

/* ---- scaling ---- */

static int draw_scaling(cairo_t *cr, double w, double h, const sp_plot_style *st, gpointer data)
{
    SpComparePage *self = data;
    if (!self->scaling) /* three runs that make no study say why, not "open three" */
        return sp_plot_draw_empty(cr, w, h, st,
                                  self->scaling_error ? self->scaling_error
                                                      : "Open three or more runs for a scaling "
                                                        "study");
    return sp_plot_scaling(cr, w, h, self->scaling, 8, st);
}

static void grid_cell(GtkGrid *g, int col, int row, const char *text, gboolean numeric,
                      const char *css)
{
    g_autofree char *owned = NULL;
    GtkWidget *l = gtk_label_new(sp_viewer_text(text, &owned)); /* region names */
    gtk_label_set_xalign(GTK_LABEL(l), numeric ? 1 : 0);
    if (numeric)
        gtk_widget_add_css_class(l, "numeric");
    if (css)
        gtk_widget_add_css_class(l, css);
    gtk_grid_attach(g, l, col, row, 1, 1);
}

#define SCALING_ROWS 30 /* regions listed in the table */

/* The study as a table: per region and run the count, time per rank,
 * speedup and efficiency; where it stops scaling in red. */
static void fill_scaling_grid(SpComparePage *self)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->scaling_grid))))
        gtk_grid_remove(self->scaling_grid, child);
    const sp_scaling *s = self->scaling;
    if (!s)
        return;
    const char *heads[] = {"Region",     sp_scaling_axis_name(s->opts.axis), "Time / rank",
                           "Max / rank", s->weak ? "Scaled speedup" : "Speedup", "Efficiency"};
    for (int c = 0; c < 6; c++)
        grid_cell(self->scaling_grid, c, 0, heads[c], c > 0, "heading");
    int row = 1;
    size_t nreg = MIN(s->nregions, SCALING_ROWS);
    for (size_t g = 0; g <= nreg; g++) {
        const sp_scaling_point *pt = g == 0 ? s->whole : s->regions[g - 1].pt;
        for (size_t j = 0; j < s->nruns; j++, row++) {
            char a[32] = "—", b[32] = "—", num[32];
            if (pt[j].present) {
                sp_cmp_fmt_time(pt[j].time_mean_s, a, sizeof a);
                sp_cmp_fmt_time(pt[j].time_max_s, b, sizeof b);
            }
            bool stop = g > 0 && s->regions[g - 1].stops && j >= s->regions[g - 1].stop_at;
            grid_cell(self->scaling_grid, 0, row,
                      j ? "" : g == 0 ? "(whole run)" : s->regions[g - 1].name, FALSE,
                      j ? NULL : "heading");
            snprintf(num, sizeof num, "%g", s->p[j]);
            grid_cell(self->scaling_grid, 1, row, num, TRUE, NULL);
            grid_cell(self->scaling_grid, 2, row, a, TRUE, NULL);
            grid_cell(self->scaling_grid, 3, row, b, TRUE, NULL);
            snprintf(num, sizeof num, isfinite(pt[j].speedup) ? "%.2f" : "—", pt[j].speedup);
            grid_cell(self->scaling_grid, 4, row, num, TRUE, NULL);
            snprintf(num, sizeof num, isfinite(pt[j].efficiency) ? "%.2f" : "—",
                     pt[j].efficiency);
            grid_cell(self->scaling_grid, 5, row, num, TRUE, stop ? "sp-slower" : NULL);
        }
    }
    if (s->nregions > nreg) {
        g_autofree char *more = g_strdup_printf("+ %zu more regions (scope-profiler scaling "
                                                "lists them all)",
                                                s->nregions - nreg);
        grid_cell(self->scaling_grid, 0, row, more, FALSE, "dim-label");
    }
}

/* With more than two runs: the study of all of them, shown first. */
static void update_scaling(SpComparePage *self, SpSession *session)
{
    g_clear_pointer(&self->scaling, sp_scaling_free);
    g_clear_pointer(&self->scaling_error, g_free);
    guint n = sp_session_get_n_runs(session);
    gtk_widget_set_visible(self->view_bar, n > 2);
    if (n > 2) {
        /* The study reads the runs' aggregates (sp_compare_keys.h): the
         * documents' own serve. */
        const sp_run **runs = g_new0(const sp_run *, n);
        sp_run **owned = g_new0(sp_run *, n);
        g_autoptr(GError) error = NULL;
        for (guint i = 0; i < n && !error; i++)
            runs[i] = compare_input(sp_session_get_run(session, i), 0, &owned[i], &error);
        sp_scaling_options o;
        sp_scaling_options_init(&o);
        o.kind = (sp_scaling_kind)gtk_drop_down_get_selected(self->scaling_kind);
        if (error)
            (void)sp__error(SP_EIO, "%s", error->message);
        else
            self->scaling = sp_scaling_study(runs, n, &o);
        for (guint i = 0; i < n; i++)
            sp_run_free(owned[i]);
        g_free(owned);
        g_free(runs);
        if (!self->scaling) {
            const char *why = sp_last_error();
            if (g_str_has_prefix(why, "scaling: "))
                why += strlen("scaling: ");
            self->scaling_error = g_strdup_printf("No scaling study: %s", why);
        }
        char stops[512] = "";
        if (self->scaling)
            sp_scaling_stops_text(self->scaling, stops, sizeof stops);
        const sp_scaling *s = self->scaling;
        g_autofree char *text =
            !s       ? g_strdup(self->scaling_error)
            : *stops ? g_strdup_printf("%s scaling (%s) · %u runs · stop scaling (efficiency < "
                                       "%.2f): %s",
                                       s->weak ? "Weak" : "Strong", s->kind_why, n,
                                       s->opts.min_efficiency, stops)
                     : g_strdup_printf("%s scaling (%s) · %u runs · every region keeps "
                                       "efficiency ≥ %.2f",
                                       s->weak ? "Weak" : "Strong", s->kind_why, n,
                                       s->opts.min_efficiency);
        gtk_label_set_text(self->view_label, text);
        gtk_stack_set_visible_child_name(self->views, "scaling");
    } else {
        gtk_stack_set_visible_child_name(self->views, "comparison");
    }
    fill_scaling_grid(self);
    gtk_widget_queue_draw(GTK_WIDGET(self->scaling_chart));
}

static void on_scaling_kind(GtkDropDown *dropdown, GParamSpec *pspec, SpComparePage *self)
{
    if (self->session)
        update_scaling(self, self->session);
}

static void on_runs(SpSession *session, GParamSpec *pspec, SpComparePage *self)
{
    /* base, candidate and runs are notified together: act once per change. */
    guint n = sp_session_get_n_runs(session);
    if (pspec && self->base == sp_session_get_base(session) &&
        self->cand == sp_session_get_candidate(session) && self->nruns_seen == n &&
        self->runs_seen == (gpointer)sp_session_get_run(session, n ? n - 1 : 0))
        return;
    self->nruns_seen = n;
    self->runs_seen = sp_session_get_run(session, n ? n - 1 : 0);
    update_scaling(self, session);
    g_set_object(&self->base, sp_session_get_base(session));
    g_set_object(&self->cand, sp_session_get_candidate(session));
    g_list_store_remove_all(self->store);
    g_clear_pointer(&self->cmp, sp_compare_box_unref);
    self->diff_generation++; /* drop any comparison in flight */
    sp_timeline_chart_set_document(self->base_chart, self->base);
    sp_timeline_chart_set_document(self->cand_chart, self->cand);
    if (!self->base || !self->cand)
        return;
    /* One window for both: the longer run bounds pan and zoom. */
    gint64 limit = MAX(sp_timeline_duration_ns(sp_timeline_chart_get_timeline(self->base_chart)),
                       sp_timeline_duration_ns(sp_timeline_chart_get_timeline(self->cand_chart)));
    sp_timeline_chart_set_time_limit(self->base_chart, limit);
    sp_timeline_chart_set_time_limit(self->cand_chart, limit);
    sp_compare_page_zoom(self, 0);

    g_autofree char *bl = g_strdup_printf("Base: %s", sp_run_document_get_display_name(self->base));
    g_autofree char *cl = g_strdup_printf("Candidate: %s",
                                          sp_run_document_get_display_name(self->cand));
    gtk_label_set_text(self->base_label, bl);
    gtk_label_set_text(self->cand_label, cl);

    /* The model sorts every call of both runs: off the main thread. */
    gtk_label_set_text(self->summary_label, "Comparing…");
    DiffJob *job = g_new0(DiffJob, 1);
    job->base = g_object_ref(self->base);
    job->cand = g_object_ref(self->cand);
    job->generation = ++self->diff_generation;
    GTask *task = g_task_new(self, NULL, on_diff_done, NULL);
    g_task_set_task_data(task, job, diff_job_free);
    sp_viewer_work_begin();
    g_task_run_in_thread(task, diff_thread);
    g_object_unref(task);
}

/* ---- selection ---- */

static void on_selection_changed(GtkSelectionModel *m, guint pos, guint n, SpComparePage *self)
{
    if (self->syncing)
        return;
    SpDiffItem *item = gtk_single_selection_get_selected_item(self->selection);
    if (item)
        sp_session_set_selected_region(self->session, sp_diff_item_get_entry(item)->name);
}

static void on_selected_region(SpSession *session, GParamSpec *pspec, SpComparePage *self)
{
    sp_timeline_chart_set_highlight_region(self->base_chart,
                                           sp_session_get_selected_id(session, self->base));
    sp_timeline_chart_set_highlight_region(self->cand_chart,
                                           sp_session_get_selected_id(session, self->cand));
    const char *name = sp_session_get_selected_region(session);
    GListModel *rows = G_LIST_MODEL(self->selection);
    guint found = GTK_INVALID_LIST_POSITION;
    for (guint i = 0; name && i < g_list_model_get_n_items(rows); i++) {
        g_autoptr(SpDiffItem) item = g_list_model_get_item(rows, i);
        if (g_strcmp0(sp_diff_item_get_entry(item)->name, name) == 0) {
            found = i;
            break;
        }
    }
    self->syncing = TRUE;
    gtk_single_selection_set_selected(self->selection, found);
    self->syncing = FALSE;
    if (found != GTK_INVALID_LIST_POSITION && gtk_widget_get_mapped(GTK_WIDGET(self)))
        sp_column_view_scroll_to(self->column_view, found);
}

static void on_call_activated(SpTimelineChart *chart, gboolean selected, SpComparePage *self)
{
    SpRunDocument *doc = sp_timeline_chart_get_document(chart);
    int region = -1;
    if (!doc || !selected || !sp_timeline_chart_get_selected(chart, NULL, &region) || region < 0) {
        sp_session_set_selected_region(self->session, NULL);
        return;
    }
    const sp_run *run = sp_run_document_get_run(doc);
    sp_session_set_selected_region(self->session, run->region_names[region]);
}

/* ---- shared time window ---- */

static void on_view_changed(SpTimelineChart *chart, SpComparePage *self)
{
    if (self->syncing_view)
        return;
    gint64 t0, t1;
    sp_timeline_chart_get_window(chart, &t0, &t1);
    self->syncing_view = TRUE;
    sp_timeline_chart_set_window(chart == self->base_chart ? self->cand_chart : self->base_chart,
                                 t0, t1);
    self->syncing_view = FALSE;
}

void sp_compare_page_zoom(SpComparePage *self, double factor)
{
    if (factor <= 0)
        sp_timeline_chart_zoom_to_fit(self->base_chart);
    else
        sp_timeline_chart_zoom(self->base_chart, factor);
}

static void action_zoom(GtkWidget *widget, const char *name, GVariant *param)
{
    sp_compare_page_zoom(SP_COMPARE_PAGE(widget), g_str_equal(name, "compare.zoom-in")    ? 1.5
                                                  : g_str_equal(name, "compare.zoom-out") ? 1 / 1.5
                                                                                          : 0);
}

/* ---- page interface ---- */

static void set_session(SpPage *page, SpSession *session)
{
    SpComparePage *self = SP_COMPARE_PAGE(page);
    g_set_object(&self->session, session);
    g_signal_connect_object(session, "notify::base", G_CALLBACK(on_runs), self, 0);
    g_signal_connect_object(session, "notify::candidate", G_CALLBACK(on_runs), self, 0);
    g_signal_connect_object(session, "notify::runs", G_CALLBACK(on_runs), self, 0);
    g_signal_connect_object(session, "notify::selected-region", G_CALLBACK(on_selected_region),
                            self, 0);
    on_runs(session, NULL, self);
}

static SpChart *get_chart(SpPage *page)
{
    SpComparePage *self = SP_COMPARE_PAGE(page);
    return self->current_chart ? self->current_chart : SP_CHART(self->bars);
}

static gboolean focus_search(SpPage *page)
{
    return gtk_widget_grab_focus(GTK_WIDGET(SP_COMPARE_PAGE(page)->search_entry));
}

static void page_iface_init(SpPageInterface *iface)
{
    iface->set_session = set_session;
    iface->get_chart = get_chart;
    iface->focus_search = focus_search;
}

GListModel *sp_compare_page_get_rows(SpComparePage *self) { return G_LIST_MODEL(self->sorted); }

const char *sp_compare_page_get_summary(SpComparePage *self) { return self->summary_text; }

const sp_compare *sp_compare_page_get_compare(SpComparePage *self)
{
    return self->cmp ? *self->cmp : NULL;
}

const sp_scaling *sp_compare_page_get_scaling(SpComparePage *self) { return self->scaling; }
const char *sp_compare_page_get_scaling_error(SpComparePage *self) { return self->scaling_error; }

void sp_compare_page_show_view(SpComparePage *self, const char *name)
{
    gtk_stack_set_visible_child_name(self->views, name);
}

/* ---- object ---- */

static void sp_compare_page_dispose(GObject *object)
{
    SpComparePage *self = SP_COMPARE_PAGE(object);
    sp_column_page_dispose(GTK_WIDGET(self), SP_TYPE_COMPARE_PAGE, self->column_view);
    g_clear_object(&self->selection);
    g_clear_object(&self->session);
    g_clear_object(&self->base);
    g_clear_object(&self->cand);
    g_clear_pointer(&self->needle, g_free);
    g_clear_pointer(&self->cmp, sp_compare_box_unref);
    g_clear_pointer(&self->scaling_error, g_free);
    g_clear_pointer(&self->scaling, sp_scaling_free);
    g_clear_pointer(&self->summary_text, g_free);
    G_OBJECT_CLASS(sp_compare_page_parent_class)->dispose(object);
}

static void sp_compare_page_class_init(SpComparePageClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = sp_compare_page_dispose;
    g_type_ensure(SP_TYPE_TIMELINE_CHART);
    g_type_ensure(SP_TYPE_CHART_VIEW);
    gtk_widget_class_set_template_from_resource(wc, "/org/scopeprofiler/Viewer/sp-compare-page.ui");
    gtk_widget_class_bind_template_child(wc, SpComparePage, base_chart);
    gtk_widget_class_bind_template_child(wc, SpComparePage, cand_chart);
    gtk_widget_class_bind_template_child(wc, SpComparePage, base_vscrollbar);
    gtk_widget_class_bind_template_child(wc, SpComparePage, cand_vscrollbar);
    gtk_widget_class_bind_template_child(wc, SpComparePage, base_label);
    gtk_widget_class_bind_template_child(wc, SpComparePage, cand_label);
    gtk_widget_class_bind_template_child(wc, SpComparePage, summary_label);
    gtk_widget_class_bind_template_child(wc, SpComparePage, search_entry);
    gtk_widget_class_bind_template_child(wc, SpComparePage, verdict_dropdown);
    gtk_widget_class_bind_template_child(wc, SpComparePage, column_view);
    gtk_widget_class_bind_template_child(wc, SpComparePage, bars);
    gtk_widget_class_bind_template_child(wc, SpComparePage, view_bar);
    gtk_widget_class_bind_template_child(wc, SpComparePage, view_label);
    gtk_widget_class_bind_template_child(wc, SpComparePage, views);
    gtk_widget_class_bind_template_child(wc, SpComparePage, scaling_chart);
    gtk_widget_class_bind_template_child(wc, SpComparePage, scaling_grid);
    gtk_widget_class_bind_template_child(wc, SpComparePage, scaling_kind);
#define COL(id, field) SP_BIND_COLUMN(wc, SpComparePage, id, field)
    COL("col_name", FIELD_NAME);
    COL("col_quantity", FIELD_QUANTITY);
    COL("col_base", FIELD_BASE);
    COL("col_cand", FIELD_CAND);
    COL("col_change", FIELD_CHANGE);
    COL("col_impact", FIELD_IMPACT);
    COL("col_verdict", FIELD_VERDICT);
#undef COL
    gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
    gtk_widget_class_install_action(wc, "compare.zoom-in", NULL, action_zoom);
    gtk_widget_class_install_action(wc, "compare.zoom-out", NULL, action_zoom);
    gtk_widget_class_install_action(wc, "compare.zoom-fit", NULL, action_zoom);
}

static void sp_compare_page_init(SpComparePage *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    for (int f = 0; f < N_FIELDS; f++) {
        if (f == FIELD_NAME)
            sp_column_set_region(self->columns[f], cell_name, NULL, FALSE);
        else
            sp_column_set_text_full(self->columns[f], cell_text,
                                    f >= FIELD_CHANGE ? cell_class : NULL, GINT_TO_POINTER(f),
                                    f != FIELD_VERDICT && f != FIELD_QUANTITY);
        sp_column_set_compare(self->columns[f], compare_items, GINT_TO_POINTER(f));
        if (f == FIELD_VERDICT || f == FIELD_CHANGE)
            g_signal_connect(gtk_column_view_column_get_factory(self->columns[f]), "bind",
                             G_CALLBACK(note_tooltip_bind), NULL);
    }
    self->store = g_list_store_new(SP_TYPE_DIFF_ITEM);
    self->filter = gtk_custom_filter_new(filter_item, self, NULL);
    self->filtered = gtk_filter_list_model_new(G_LIST_MODEL(self->store), GTK_FILTER(self->filter));
    self->sorted = gtk_sort_list_model_new(G_LIST_MODEL(self->filtered),
                                           g_object_ref(gtk_column_view_get_sorter(self->column_view)));
    self->selection = sp_column_view_show(self->column_view, G_LIST_MODEL(self->sorted),
                                          self->columns[FIELD_IMPACT]);
    /* The bars follow the table's order and filter. */
    g_signal_connect_swapped(self->sorted, "items-changed", G_CALLBACK(gtk_widget_queue_draw),
                             self->bars);

    g_signal_connect(self->selection, "selection-changed", G_CALLBACK(on_selection_changed), self);
    g_signal_connect(self->search_entry, "search-changed", G_CALLBACK(on_search_changed), self);
    g_signal_connect(self->verdict_dropdown, "notify::selected", G_CALLBACK(on_show_changed), self);
    g_signal_connect(self->scaling_kind, "notify::selected", G_CALLBACK(on_scaling_kind), self);
    g_signal_connect(self->base_chart, "view-changed", G_CALLBACK(on_view_changed), self);
    g_signal_connect(self->cand_chart, "view-changed", G_CALLBACK(on_view_changed), self);
    g_signal_connect(self->base_chart, "call-activated", G_CALLBACK(on_call_activated), self);
    g_signal_connect(self->cand_chart, "call-activated", G_CALLBACK(on_call_activated), self);
    sp_chart_view_set_draw_func(self->bars, draw_bars, self, NULL);
    sp_chart_view_set_draw_func(self->scaling_chart, draw_scaling, self, NULL);
    sp_timeline_chart_attach_scrollbar(self->base_chart, self->base_vscrollbar);
    sp_timeline_chart_attach_scrollbar(self->cand_chart, self->cand_vscrollbar);
    sp_page_track_chart(GTK_WIDGET(self->base_chart), &self->current_chart);
    sp_page_track_chart(GTK_WIDGET(self->cand_chart), &self->current_chart);
    sp_page_track_chart(GTK_WIDGET(self->bars), &self->current_chart);
    sp_page_track_chart(GTK_WIDGET(self->scaling_chart), &self->current_chart);
}
