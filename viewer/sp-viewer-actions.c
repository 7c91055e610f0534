/* SPDX-License-Identifier: MIT */
/* sp-viewer-actions.c - the window's actions (win.*) and their shortcuts:
 * open, compare, export, page switching, zoom, search. */
#include "sp-viewer-window-private.h"

#include "sp-page.h"
#include "sp-timeline-page.h"
#include "sp-compare-page.h"
#include "sp_plots.h"

/* ---- open ---- */

static GtkFileFilter *h5_filter(void)
{
    GtkFileFilter *filter = gtk_file_filter_new();
    gtk_file_filter_set_name(filter, "Scope Profiler runs (*.h5)");
    gtk_file_filter_add_pattern(filter, "*.h5");
    gtk_file_filter_add_pattern(filter, "*.hdf5");
    return filter;
}

static GtkFileChooserNative *open_chooser(SpViewerWindow *self, const char *title,
                                          gboolean multiple)
{
    GtkFileChooserNative *chooser = gtk_file_chooser_native_new(
        title, GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_OPEN, "_Open", "_Cancel");
    gtk_native_dialog_set_modal(GTK_NATIVE_DIALOG(chooser), TRUE);
    gtk_file_chooser_set_select_multiple(GTK_FILE_CHOOSER(chooser), multiple);
    g_autoptr(GtkFileFilter) filter = h5_filter();
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(chooser), filter);
    GtkFileFilter *all = gtk_file_filter_new();
    gtk_file_filter_set_name(all, "All files");
    gtk_file_filter_add_pattern(all, "*");
    gtk_file_chooser_add_filter(GTK_FILE_CHOOSER(chooser), all);
    g_object_unref(all);
    gtk_file_chooser_set_filter(GTK_FILE_CHOOSER(chooser), filter);
    return chooser;
}

static void on_open_response(GtkNativeDialog *dialog, int response, SpViewerWindow *self)
{
    if (response == GTK_RESPONSE_ACCEPT) {
        g_autoptr(GListModel) files = gtk_file_chooser_get_files(GTK_FILE_CHOOSER(dialog));
        guint n = g_list_model_get_n_items(files);
        g_autoptr(GFile) a = n > 0 ? g_list_model_get_item(files, 0) : NULL;
        g_autoptr(GFile) b = n > 1 ? g_list_model_get_item(files, 1) : NULL;
        if (n > 2)
            sp_viewer_window_show_banner(self, "Choose one run to explore, or two to compare: "
                                               "the first two were opened.");
        if (a)
            sp_viewer_window_open_files(self, a, b);
    }
    g_object_unref(dialog);
}

/* File > Follow: a run that is recording (`--follow FILE` also waits for a
 * file that does not exist yet). */
static void on_follow_response(GtkNativeDialog *dialog, int response, SpViewerWindow *self)
{
    if (response == GTK_RESPONSE_ACCEPT) {
        g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
        if (file) {
            SpViewerWindow *win = self;
            if (self->state == SP_VIEWER_WINDOW_READY || self->state == SP_VIEWER_WINDOW_LOADING) {
                win = sp_viewer_window_new(gtk_window_get_application(GTK_WINDOW(self)));
                gtk_window_present(GTK_WINDOW(win));
            }
            sp_viewer_window_follow(win, file, 1.0);
        }
    }
    g_object_unref(dialog);
}

static void action_follow(GtkWidget *widget, const char *name, GVariant *param)
{
    SpViewerWindow *self = SP_VIEWER_WINDOW(widget);
    GtkFileChooserNative *chooser = gtk_file_chooser_native_new(
        "Follow a Run While It Records", GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_OPEN,
        "_Follow", "_Cancel");
    gtk_native_dialog_set_modal(GTK_NATIVE_DIALOG(chooser), TRUE);
    g_signal_connect(chooser, "response", G_CALLBACK(on_follow_response), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(chooser));
}

static void action_open(GtkWidget *widget, const char *name, GVariant *param)
{
    SpViewerWindow *self = SP_VIEWER_WINDOW(widget);
    GtkFileChooserNative *chooser = open_chooser(self, "Open a Run", TRUE);
    g_signal_connect(chooser, "response", G_CALLBACK(on_open_response), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(chooser));
}

/* Compare: with a run shown, pick the candidate; otherwise pick the base
 * first, then the candidate. */
static void pick_candidate(SpViewerWindow *self, GFile *base);

static void on_candidate_response(GtkNativeDialog *dialog, int response, SpViewerWindow *self)
{
    GFile *base = g_object_get_data(G_OBJECT(dialog), "base");
    if (response == GTK_RESPONSE_ACCEPT) {
        g_autoptr(GFile) cand = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
        if (cand) {
            /* The current window becomes the comparison (its base is kept). */
            sp_viewer_window_open(self, base, cand);
        }
    }
    g_object_unref(dialog);
}

static void pick_candidate(SpViewerWindow *self, GFile *base)
{
    g_autofree char *bname = g_file_get_basename(base);
    g_autofree char *title = g_strdup_printf("Compare %s With…", bname);
    GtkFileChooserNative *chooser = open_chooser(self, title, FALSE);
    g_object_set_data_full(G_OBJECT(chooser), "base", g_object_ref(base), g_object_unref);
    g_signal_connect(chooser, "response", G_CALLBACK(on_candidate_response), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(chooser));
}

static void on_base_response(GtkNativeDialog *dialog, int response, SpViewerWindow *self)
{
    if (response == GTK_RESPONSE_ACCEPT) {
        g_autoptr(GFile) base = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
        if (base)
            pick_candidate(self, base);
    }
    g_object_unref(dialog);
}

static void action_open_compare(GtkWidget *widget, const char *name, GVariant *param)
{
    SpViewerWindow *self = SP_VIEWER_WINDOW(widget);
    SpRunDocument *base = sp_session_get_base(self->session);
    const char *path = base ? sp_run_document_get_path(base) : NULL;
    if (path && self->state == SP_VIEWER_WINDOW_READY) {
        g_autoptr(GFile) file = g_file_new_for_path(path);
        pick_candidate(self, file);
        return;
    }
    GtkFileChooserNative *chooser = open_chooser(self, "Choose the Base Run", FALSE);
    g_signal_connect(chooser, "response", G_CALLBACK(on_base_response), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(chooser));
}

/* ---- export ---- */

static SpChart *current_chart(SpViewerWindow *self)
{
    if (self->state != SP_VIEWER_WINDOW_READY)
        return NULL;
    GtkWidget *page = gtk_stack_get_visible_child(self->pages);
    return page && SP_IS_PAGE(page) ? sp_page_get_chart(SP_PAGE(page)) : NULL;
}

static const char *const export_sizes[] = {"current", "1280x720", "1920x1080", "3840x2160"};
static const char *const export_size_labels[] = {"As on screen", "1280 × 720", "1920 × 1080",
                                                 "3840 × 2160"};

/* The file name with its extension replaced by the chosen format's. */
static char *with_extension(const char *path, const char *ext)
{
    sp_plot_format f;
    const char *dot = strrchr(path, '.');
    const char *slash = strrchr(path, '/');
    if (dot && (!slash || dot > slash) && sp_plot_format_from_path(path, &f) == 0)
        return g_strdup_printf("%.*s.%s", (int)(dot - path), path, ext);
    return g_strdup_printf("%s.%s", path, ext);
}

static void on_export_response(GtkNativeDialog *dialog, int response, SpViewerWindow *self)
{
    SpChart *chart = current_chart(self);
    if (response == GTK_RESPONSE_ACCEPT && chart) {
        g_autoptr(GFile) file = gtk_file_chooser_get_file(GTK_FILE_CHOOSER(dialog));
        g_autofree char *path = file ? g_file_get_path(file) : NULL;
        const char *fmt = gtk_file_chooser_get_choice(GTK_FILE_CHOOSER(dialog), "format");
        const char *size = gtk_file_chooser_get_choice(GTK_FILE_CHOOSER(dialog), "size");
        int w = 0, h = 0;
        if (size && strcmp(size, "current") != 0 && sscanf(size, "%dx%d", &w, &h) != 2)
            w = h = 0;
        g_autoptr(GError) error = NULL;
        if (path) {
            g_autofree char *out = with_extension(path, fmt ? fmt : "png");
            if (!sp_chart_export(chart, out, w, h, &error))
                sp_viewer_window_show_banner(self, error->message);
        }
    }
    g_object_unref(dialog);
}

static void action_export(GtkWidget *widget, const char *name, GVariant *param)
{
    SpViewerWindow *self = SP_VIEWER_WINDOW(widget);
    SpChart *chart = current_chart(self);
    if (!chart)
        return;
    GtkFileChooserNative *chooser = gtk_file_chooser_native_new(
        "Export Chart", GTK_WINDOW(self), GTK_FILE_CHOOSER_ACTION_SAVE, "_Export", "_Cancel");
    gtk_native_dialog_set_modal(GTK_NATIVE_DIALOG(chooser), TRUE);
    static const char *const formats[] = {"png", "svg", "pdf", NULL};
    static const char *const format_labels[] = {"PNG image", "SVG drawing", "PDF document", NULL};
    gtk_file_chooser_add_choice(GTK_FILE_CHOOSER(chooser), "format", "Format",
                                (const char **)formats, (const char **)format_labels);
    gtk_file_chooser_set_choice(GTK_FILE_CHOOSER(chooser), "format", "png");
    const char *sizes[G_N_ELEMENTS(export_sizes) + 1] = {0};
    const char *labels[G_N_ELEMENTS(export_sizes) + 1] = {0};
    for (guint i = 0; i < G_N_ELEMENTS(export_sizes); i++) {
        sizes[i] = export_sizes[i];
        labels[i] = export_size_labels[i];
    }
    gtk_file_chooser_add_choice(GTK_FILE_CHOOSER(chooser), "size", "Size", sizes, labels);
    gtk_file_chooser_set_choice(GTK_FILE_CHOOSER(chooser), "size", "current");
    g_autofree char *suggested = g_strdup_printf("%s.png", sp_chart_get_name(chart));
    gtk_file_chooser_set_current_name(GTK_FILE_CHOOSER(chooser), suggested);
    g_signal_connect(chooser, "response", G_CALLBACK(on_export_response), self);
    gtk_native_dialog_show(GTK_NATIVE_DIALOG(chooser));
}

/* ---- pages, zoom, search ---- */

static void action_page(GtkWidget *widget, const char *name, GVariant *param)
{
    SpViewerWindow *self = SP_VIEWER_WINDOW(widget);
    if (self->state == SP_VIEWER_WINDOW_READY)
        sp_viewer_window_set_page(self, g_variant_get_string(param, NULL));
}

static void action_zoom(GtkWidget *widget, const char *name, GVariant *param)
{
    SpViewerWindow *self = SP_VIEWER_WINDOW(widget);
    double factor = g_str_equal(name, "win.zoom-in") ? 1.5
                    : g_str_equal(name, "win.zoom-out") ? 1 / 1.5 : 0;
    /* Zoom acts on the page's timeline(s); other pages have none. */
    const char *page = sp_viewer_window_get_page(self);
    if (g_strcmp0(page, "compare") == 0)
        sp_compare_page_zoom(SP_COMPARE_PAGE(self->compare_page), factor);
    else if (g_strcmp0(page, "timeline") == 0)
        sp_timeline_page_zoom(SP_TIMELINE_PAGE(self->timeline_page), factor);
}

static void action_find(GtkWidget *widget, const char *name, GVariant *param)
{
    SpViewerWindow *self = SP_VIEWER_WINDOW(widget);
    GtkWidget *page = gtk_stack_get_visible_child(self->pages);
    if (page && sp_page_focus_search(SP_PAGE(page)))
        return;
    sp_viewer_window_set_page(self, "regions");
    sp_page_focus_search(SP_PAGE(self->regions_page));
}

static void action_dismiss_banner(GtkWidget *widget, const char *name, GVariant *param)
{
    gtk_revealer_set_reveal_child(SP_VIEWER_WINDOW(widget)->banner_revealer, FALSE);
}

static void action_close(GtkWidget *widget, const char *name, GVariant *param)
{
    gtk_window_close(GTK_WINDOW(widget));
}

void sp_viewer_window_update_actions(SpViewerWindow *self)
{
    GtkWidget *w = GTK_WIDGET(self);
    gboolean ready = self->state == SP_VIEWER_WINDOW_READY;
    gboolean chart = current_chart(self) != NULL;
    gtk_widget_action_set_enabled(w, "win.export", chart);
    gtk_widget_set_visible(self->export_button, ready);
    const char *page = ready ? sp_viewer_window_get_page(self) : NULL;
    gboolean zoomable = g_strcmp0(page, "timeline") == 0 || g_strcmp0(page, "compare") == 0;
    gtk_widget_action_set_enabled(w, "win.zoom-in", zoomable);
    gtk_widget_action_set_enabled(w, "win.zoom-out", zoomable);
    gtk_widget_action_set_enabled(w, "win.zoom-fit", zoomable);
    gtk_widget_action_set_enabled(w, "win.find", ready);
    gtk_widget_action_set_enabled(w, "win.page", ready);
    gtk_widget_action_set_enabled(w, "win.cancel-load", self->state == SP_VIEWER_WINDOW_LOADING);
}

void sp_viewer_window_class_install_actions(GtkWidgetClass *wc)
{
    gtk_widget_class_install_action(wc, "win.open", NULL, action_open);
    gtk_widget_class_install_action(wc, "win.open-compare", NULL, action_open_compare);
    gtk_widget_class_install_action(wc, "win.follow", NULL, action_follow);
    gtk_widget_class_install_action(wc, "win.export", NULL, action_export);
    gtk_widget_class_install_action(wc, "win.page", "s", action_page);
    gtk_widget_class_install_action(wc, "win.zoom-in", NULL, action_zoom);
    gtk_widget_class_install_action(wc, "win.zoom-out", NULL, action_zoom);
    gtk_widget_class_install_action(wc, "win.zoom-fit", NULL, action_zoom);
    gtk_widget_class_install_action(wc, "win.find", NULL, action_find);
    gtk_widget_class_install_action(wc, "win.dismiss-banner", NULL, action_dismiss_banner);
    gtk_widget_class_install_action(wc, "win.close", NULL, action_close);

    gtk_widget_class_add_binding_action(wc, GDK_KEY_o, GDK_CONTROL_MASK, "win.open", NULL);
    gtk_widget_class_add_binding_action(wc, GDK_KEY_o, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                        "win.open-compare", NULL);
    gtk_widget_class_add_binding_action(wc, GDK_KEY_e, GDK_CONTROL_MASK, "win.export", NULL);
    gtk_widget_class_add_binding_action(wc, GDK_KEY_f, GDK_CONTROL_MASK, "win.find", NULL);
    gtk_widget_class_add_binding_action(wc, GDK_KEY_w, GDK_CONTROL_MASK, "win.close", NULL);
    gtk_widget_class_add_binding_action(wc, GDK_KEY_plus, GDK_CONTROL_MASK, "win.zoom-in", NULL);
    gtk_widget_class_add_binding_action(wc, GDK_KEY_equal, GDK_CONTROL_MASK, "win.zoom-in", NULL);
    gtk_widget_class_add_binding_action(wc, GDK_KEY_KP_Add, GDK_CONTROL_MASK, "win.zoom-in", NULL);
    gtk_widget_class_add_binding_action(wc, GDK_KEY_minus, GDK_CONTROL_MASK, "win.zoom-out", NULL);
    gtk_widget_class_add_binding_action(wc, GDK_KEY_KP_Subtract, GDK_CONTROL_MASK,
                                        "win.zoom-out", NULL);
    gtk_widget_class_add_binding_action(wc, GDK_KEY_0, GDK_CONTROL_MASK, "win.zoom-fit", NULL);
    static const char *const pages[] = {"timeline", "regions", "calltree", "ranks",
                                        "lines",    "compare", "info"};
    for (guint i = 0; i < G_N_ELEMENTS(pages); i++)
        gtk_widget_class_add_binding_action(wc, GDK_KEY_1 + i, GDK_ALT_MASK, "win.page", "s",
                                            pages[i]);
}
