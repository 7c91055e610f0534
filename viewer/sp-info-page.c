/* SPDX-License-Identifier: MIT */
/* sp-info-page.c - the Info page. */
#include "sp-info-page.h"

#include "sp-viewer-format.h"
#include "sp-viewer-text.h"

struct _SpInfoPage {
    GtkWidget parent_instance;
    SpSession *session;
    SpPageLazy lazy; /* refreshed when first shown (sp-page.h) */
    GtkBox *content;
};

static void page_iface_init(SpPageInterface *iface);

G_DEFINE_FINAL_TYPE_WITH_CODE(SpInfoPage, sp_info_page, GTK_TYPE_WIDGET,
                              G_IMPLEMENT_INTERFACE(SP_TYPE_PAGE, page_iface_init))

static void refresh_if_owed(SpInfoPage *self);

/* A file may carry 100,000 metadata entries or ranks, or a value of 16 MB:
 * the page shows the first rows and the start of each value, and says how
 * to see the rest, so it is built in milliseconds whatever the file. A
 * wrapping label's measuring grows faster than its text when the text has
 * no space to break at (2,000 such characters: 70 s, 400: 2 s), so a value
 * shows its first VALUE_SHOWN_CHARS characters, the rest behind a copy
 * button. */
#define MAX_ROWS 200
#define MAX_VALUE_CHARS 2000 /* per-rank facts, joined */
#define VALUE_SHOWN_CHARS 240

static void add_heading(SpInfoPage *self, const char *text)
{
    g_autofree char *owned = NULL;
    GtkWidget *label = gtk_label_new(sp_viewer_text(text, &owned));
    gtk_label_set_xalign(GTK_LABEL(label), 0);
    gtk_widget_add_css_class(label, "heading");
    gtk_widget_set_margin_top(label, gtk_widget_get_first_child(GTK_WIDGET(self->content)) ? 18 : 0);
    gtk_box_append(self->content, label);
}

static GtkWidget *add_list(SpInfoPage *self)
{
    GtkWidget *list = gtk_list_box_new();
    gtk_list_box_set_selection_mode(GTK_LIST_BOX(list), GTK_SELECTION_NONE);
    gtk_widget_add_css_class(list, "sp-boxed-list");
    gtk_box_append(self->content, list);
    return list;
}

static void on_copy_clicked(GtkButton *button, gpointer data)
{
    (void)data;
    const char *full = g_object_get_data(G_OBJECT(button), "sp-full-value");
    gdk_clipboard_set_text(gtk_widget_get_clipboard(GTK_WIDGET(button)), full ? full : "");
    gtk_widget_set_tooltip_text(GTK_WIDGET(button), "Copied");
}

/* A button that puts the whole of a cut value (as shown: escaped) on the
 * clipboard; `chars` of it, `raw_bytes` in the file. */
static GtkWidget *copy_button(char *shown_full, glong chars, size_t raw_bytes)
{
    GtkWidget *b = gtk_button_new_from_icon_name("edit-copy-symbolic");
    g_autofree char *size = g_format_size_full(raw_bytes, G_FORMAT_SIZE_IEC_UNITS);
    g_autofree char *count = sp_format_count((guint64)chars);
    g_autofree char *tip = g_strdup_printf("Copy the whole value (%s characters, %s)", count,
                                           size);
    gtk_widget_set_tooltip_text(b, tip);
    gtk_widget_set_valign(b, GTK_ALIGN_START);
    gtk_widget_add_css_class(b, "flat");
    gtk_accessible_update_property(GTK_ACCESSIBLE(b), GTK_ACCESSIBLE_PROPERTY_LABEL,
                                   "Copy the whole value", -1);
    g_object_set_data_full(G_OBJECT(b), "sp-full-value", shown_full, g_free);
    g_signal_connect(b, "clicked", G_CALLBACK(on_copy_clicked), NULL);
    return b;
}

/* A key and its value; both may come from the file: escaped
 * (sp-viewer-text.h) before the value is cut, so the cut lands on a
 * character of valid UTF-8. A cut value ends in "… (N characters)" and
 * gets a copy button for the whole. */
static void add_row(GtkWidget *list, const char *key, const char *value)
{
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 24);
    g_autofree char *key_owned = NULL, *value_owned = NULL;
    GtkWidget *k = gtk_label_new(sp_viewer_text(key, &key_owned));
    size_t raw_bytes = value ? strlen(value) : 0;
    value = sp_viewer_text(value, &value_owned);
    g_autofree char *cut = NULL;
    GtkWidget *copy = NULL;
    /* Counting stops a little past the cut: a 16 MB value is counted once,
     * for the button, not here. */
    if (value && g_utf8_strlen(value, VALUE_SHOWN_CHARS * 4 + 4) > VALUE_SHOWN_CHARS) {
        glong chars = g_utf8_strlen(value, -1);
        char *end = g_utf8_offset_to_pointer(value, VALUE_SHOWN_CHARS);
        g_autofree char *count = sp_format_count((guint64)chars);
        cut = g_strdup_printf("%.*s… (%s characters)", (int)(end - value), value, count);
        copy = copy_button(value_owned ? g_steal_pointer(&value_owned) : g_strdup(value), chars,
                           raw_bytes);
        value = cut;
    }
    GtkWidget *v = gtk_label_new(value && *value ? value : "—");
    gtk_label_set_xalign(GTK_LABEL(k), 0);
    gtk_label_set_xalign(GTK_LABEL(v), 1);
    gtk_label_set_wrap(GTK_LABEL(v), TRUE);
    gtk_label_set_wrap_mode(GTK_LABEL(v), PANGO_WRAP_WORD_CHAR);
    gtk_label_set_selectable(GTK_LABEL(v), TRUE);
    gtk_label_set_justify(GTK_LABEL(v), GTK_JUSTIFY_RIGHT);
    gtk_widget_set_hexpand(v, TRUE);
    gtk_widget_set_size_request(k, 180, -1);
    gtk_widget_add_css_class(k, "dim-label");
    gtk_box_append(GTK_BOX(box), k);
    gtk_box_append(GTK_BOX(box), v);
    if (copy)
        gtk_box_append(GTK_BOX(box), copy);
    gtk_widget_add_css_class(box, "sp-info-row");
    gtk_list_box_append(GTK_LIST_BOX(list), box);
    GtkWidget *row = gtk_widget_get_parent(box);
    gtk_list_box_row_set_activatable(GTK_LIST_BOX_ROW(row), FALSE);
    gtk_widget_set_focusable(row, FALSE);
}

static void add_run(SpInfoPage *self, SpRunDocument *doc, const char *role)
{
    const sp_run *run = sp_run_document_get_run(doc);
    g_autofree char *title = role ? g_strdup_printf("%s: %s", role,
                                                    sp_run_document_get_display_name(doc))
                                  : g_strdup(sp_run_document_get_display_name(doc));
    add_heading(self, title);
    GtkWidget *list = add_list(self);
    size_t threads = 0;
    for (size_t k = 0; k < run->nranks; k++)
        threads += run->ranks[k].nthreads;
    g_autofree char *schema = g_strdup_printf("%d", run->schema_version);
    g_autofree char *ranks = g_strdup_printf("%zu", run->nranks);
    g_autofree char *nthreads = g_strdup_printf("%zu", threads);
    g_autofree char *regions = g_strdup_printf("%zu", run->nregions);
    g_autofree char *calls = sp_format_count(sp_run_document_get_total_calls(doc));
    g_autofree char *span = sp_format_duration(
        (double)(sp_run_document_get_t1_ns(doc) - sp_run_document_get_t0_ns(doc)) * 1e-9);
    g_autofree char *load = sp_format_duration(sp_run_document_get_load_seconds(doc));
    const char *path = sp_run_document_get_path(doc);
    const sp_figures *fg = sp_run_document_get_figures(doc);
    char rule[512];
    add_row(list, "Wall-clock span", span); /* the headline of a run */
    add_row(list, "File", path ? path : "(in memory)");
    add_row(list, "Layout", run->layout);
    add_row(list, "Schema version", schema);
    add_row(list, "Ranks", ranks);
    add_row(list, "Threads", nthreads);
    add_row(list, "Regions", regions);
    add_row(list, "Calls", calls);
    if (fg && fg->two_columns)
        add_row(list, "Times shown", sp_figures_rule_text(fg, rule, sizeof rule));
    if (fg && fg->nsampled) {
        g_autofree char *period = fg->sample_period_s > 0
                                      ? sp_format_duration(fg->sample_period_s)
                                      : g_strdup("unknown");
        g_autofree char *est = g_strdup_printf(
            "%zu region%s from call-stack samples, one every %s of CPU time: calls and times "
            "are estimates (~, italic); no min, max, std or p95",
            fg->nsampled, fg->nsampled == 1 ? "" : "s", period);
        add_row(list, "Estimates", est);
    }
    if (fg && fg->nthrottled) {
        g_autofree char *lb = g_strdup_printf(
            "tracing stopped for %zu very short, very frequent function%s: calls and times are "
            "lower bounds (≥)",
            fg->nthrottled, fg->nthrottled == 1 ? "" : "s");
        add_row(list, "Lower bounds", lb);
    }
    add_row(list, "Loaded in", load);

    g_autofree char *meta_title = role ? g_strdup_printf("%s metadata", role)
                                       : g_strdup("Run metadata");
    add_heading(self, meta_title);
    list = add_list(self);
    for (size_t i = 0; i < run->meta.n && i < MAX_ROWS; i++)
        add_row(list, run->meta.items[i].key, run->meta.items[i].value);
    if (run->meta.n == 0)
        add_row(list, "(none)", "This file carries no run metadata");
    if (run->meta.n > MAX_ROWS) {
        g_autofree char *more = g_strdup_printf("… %zu more", run->meta.n - MAX_ROWS);
        add_row(list, more, "scope-profiler inspect or export json shows every entry");
    }

    /* Per-rank facts only when they say something (MPI runs, offsets). */
    gboolean any = FALSE;
    for (size_t k = 0; k < run->nranks; k++)
        any |= run->ranks[k].meta.n > 0 || run->ranks[k].clock_offset_ns != 0;
    if (!any)
        return;
    g_autofree char *ranks_title = role ? g_strdup_printf("%s ranks", role) : g_strdup("Ranks");
    add_heading(self, ranks_title);
    list = add_list(self);
    for (size_t k = 0; k < run->nranks && k < MAX_ROWS; k++) {
        const sp_rank_data *rk = &run->ranks[k];
        GString *v = g_string_new(NULL);
        for (size_t i = 0; i < rk->meta.n && v->len < MAX_VALUE_CHARS; i++)
            g_string_append_printf(v, "%s%s %s", v->len ? " · " : "", rk->meta.items[i].key,
                                   rk->meta.items[i].value);
        g_autofree char *off = sp_format_duration_delta((double)rk->clock_offset_ns * 1e-9);
        g_autofree char *err = sp_format_duration((double)rk->clock_offset_err_ns * 1e-9);
        g_string_append_printf(v, "%sclock offset %s ± %s · %zu thread%s", v->len ? " · " : "",
                               off, err, rk->nthreads, rk->nthreads == 1 ? "" : "s");
        g_autofree char *key = g_strdup_printf("Rank %d", rk->rank);
        add_row(list, key, v->str);
        g_string_free(v, TRUE);
    }
    if (run->nranks > MAX_ROWS) {
        g_autofree char *more = g_strdup_printf("… %zu more ranks", run->nranks - MAX_ROWS);
        add_row(list, more, "scope-profiler ranks or export json shows every rank");
    }
}

static void rebuild(SpInfoPage *self)
{
    if (sp_page_lazy_skip(GTK_WIDGET(self), &self->lazy))
        return;
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->content))))
        gtk_box_remove(self->content, child);
    SpRunDocument *base = sp_session_get_base(self->session);
    SpRunDocument *cand = sp_session_get_candidate(self->session);
    if (base)
        add_run(self, base, cand ? "Base" : NULL);
    if (cand)
        add_run(self, cand, "Candidate");
}

/* The refresh a hidden page skipped (sp-page.h): on map, and before a
 * getter answers. */
static void refresh_if_owed(SpInfoPage *self)
{
    if (sp_page_lazy_owed(&self->lazy))
        rebuild(self);
}

static void set_session(SpPage *page, SpSession *session)
{
    SpInfoPage *self = SP_INFO_PAGE(page);
    g_signal_connect(self, "map", G_CALLBACK(refresh_if_owed), NULL);
    g_set_object(&self->session, session);
    g_signal_connect_object(session, "notify::base", G_CALLBACK(rebuild), self, G_CONNECT_SWAPPED);
    g_signal_connect_object(session, "notify::candidate", G_CALLBACK(rebuild), self,
                            G_CONNECT_SWAPPED);
    rebuild(self);
}

static void page_iface_init(SpPageInterface *iface) { iface->set_session = set_session; }

static void sp_info_page_dispose(GObject *object)
{
    SpInfoPage *self = SP_INFO_PAGE(object);
    gtk_widget_dispose_template(GTK_WIDGET(self), SP_TYPE_INFO_PAGE);
    sp_page_unparent_children(GTK_WIDGET(self));
    g_clear_object(&self->session);
    G_OBJECT_CLASS(sp_info_page_parent_class)->dispose(object);
}

static void sp_info_page_class_init(SpInfoPageClass *klass)
{
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    G_OBJECT_CLASS(klass)->dispose = sp_info_page_dispose;
    gtk_widget_class_set_template_from_resource(wc, "/org/scopeprofiler/Viewer/sp-info-page.ui");
    gtk_widget_class_bind_template_child(wc, SpInfoPage, content);
    gtk_widget_class_set_layout_manager_type(wc, GTK_TYPE_BIN_LAYOUT);
}

static void sp_info_page_init(SpInfoPage *self) { gtk_widget_init_template(GTK_WIDGET(self)); }
