/* SPDX-License-Identifier: MIT */
/* sp-viewer-window.c - the window: loading runs, the welcome / loading /
 * error states, and the pages. */
#include "sp-viewer-window-private.h"

#include "sp-calltree-page.h"
#include "sp-compare-page.h"
#include "sp-info-page.h"
#include "sp-lines-page.h"
#include "sp-page.h"
#include "sp-ranks-page.h"
#include "sp-regions-page.h"
#include "sp-timeline-page.h"
#include "sp-viewer-application.h"
#include "sp-viewer-format.h"
#include "sp_sched.h"
#include "sp-viewer-settings.h"
#include "sp-viewer-text.h"

G_DEFINE_FINAL_TYPE(SpViewerWindow, sp_viewer_window, GTK_TYPE_APPLICATION_WINDOW)

enum { SIGNAL_LOAD_FINISHED, SIGNAL_FOLLOW_UPDATED, N_SIGNALS };
static guint signals[N_SIGNALS];

#define RECENT_MAX 8

static const char *const page_names[] = {"timeline", "regions", "calltree", "ranks",
                                         "lines",    "compare", "info"};

static GtkWidget *page_widget(SpViewerWindow *self, guint i)
{
    GtkWidget *w[] = {self->timeline_page, self->regions_page, self->calltree_page,
                      self->ranks_page,    self->lines_page,   self->compare_page,
                      self->info_page};
    return w[i];
}

/* ---- state ---- */

static void stop_pulse(SpViewerWindow *self)
{
    g_clear_handle_id(&self->pulse_source, g_source_remove);
    gtk_spinner_stop(self->loading_spinner);
}

static void set_state(SpViewerWindow *self, SpViewerWindowState state)
{
    static const char *const stack_names[] = {"welcome", "loading", "content", "error"};
    self->state = state;
    gtk_stack_set_visible_child_name(self->main_stack, stack_names[state]);
    gtk_stack_set_visible_child_name(self->title_stack,
                                     state == SP_VIEWER_WINDOW_READY ? "switcher" : "title");
    gtk_widget_set_visible(self->run_title_box, state == SP_VIEWER_WINDOW_READY);
    if (state != SP_VIEWER_WINDOW_LOADING)
        stop_pulse(self);
    sp_viewer_window_update_actions(self);
}

SpViewerWindowState sp_viewer_window_get_state(SpViewerWindow *self) { return self->state; }
const char *sp_viewer_window_get_error(SpViewerWindow *self) { return self->error; }
SpSession *sp_viewer_window_get_session(SpViewerWindow *self) { return self->session; }

void sp_viewer_window_show_banner(SpViewerWindow *self, const char *message)
{
    g_autofree char *owned = NULL;
    gtk_label_set_text(self->banner_label, sp_viewer_text(message, &owned));
    gtk_revealer_set_reveal_child(self->banner_revealer, TRUE);
}

static gboolean is_ephemeral(SpViewerWindow *self)
{
    GtkApplication *app = gtk_window_get_application(GTK_WINDOW(self));
    return !app || !SP_IS_VIEWER_APPLICATION(app) ||
           sp_viewer_application_is_ephemeral(SP_VIEWER_APPLICATION(app));
}

/* ---- titles ---- */

static void update_titles(SpViewerWindow *self)
{
    SpRunDocument *base = sp_session_get_base(self->session);
    SpRunDocument *cand = sp_session_get_candidate(self->session);
    if (!base) {
        gtk_window_set_title(GTK_WINDOW(self), "Scope Profiler");
        return;
    }
    const sp_run *run = sp_run_document_get_run(base);
    g_autofree char *title = NULL, *subtitle = NULL;
    guint nruns = sp_session_get_n_runs(self->session);
    if (nruns > 2) {
        title = g_strdup_printf("Scaling study: %u runs", nruns);
        GString *names = g_string_new(NULL);
        for (guint i = 0; i < nruns; i++)
            g_string_append_printf(names, "%s%s", i ? ", " : "",
                                   sp_run_document_get_display_name(sp_session_get_run(self->session, i)));
        subtitle = g_string_free(names, FALSE);
    } else if (cand) {
        /* The names go in the subtitle: its smaller font fits both. */
        title = g_strdup("Comparison");
        subtitle = g_strdup_printf(
            "%s%s → %s%s", sp_run_document_get_display_name(base),
            sp_run_is_incomplete(run) ? " (incomplete)" : "", sp_run_document_get_display_name(cand),
            sp_run_is_incomplete(sp_run_document_get_run(cand)) ? " (incomplete)" : "");
    } else {
        g_autofree char *span = sp_format_duration(
            (double)(sp_run_document_get_t1_ns(base) - sp_run_document_get_t0_ns(base)) * 1e-9);
        g_autofree char *calls = sp_format_count(sp_run_document_get_total_calls(base));
        title = g_strdup(sp_run_document_get_display_name(base));
        guint64 ncalls = sp_run_document_get_total_calls(base);
        /* The headline of a run: its wall-clock span, then its size, counts
         * whole (a cut "10…" said nothing of 1,024 ranks): the label cuts at
         * the end, where the region count and the disturbance stand. */
        /* How disturbed the run was, when the file says (sp_sched.h). */
        sp_sched_summary sched;
        sp_sched_run_summary(run, &sched, NULL);
        char wait[200] = "";
        if (sched.measured) {
            char text[160];
            snprintf(wait, sizeof wait, " · %s", sp_sched_run_text(run, text, sizeof text));
        }
        /* A killed run says so first (the banner says what it lost). */
        subtitle = g_strdup_printf("%swall clock %s · %zu rank%s · %zu region%s · %s call%s%s",
                                   sp_run_is_incomplete(run) ? "incomplete run · " : "", span,
                                   run->nranks, run->nranks == 1 ? "" : "s", run->nregions,
                                   run->nregions == 1 ? "" : "s", calls, ncalls == 1 ? "" : "s",
                                   wait);
        if (self->follow_status) { /* following: the live state instead */
            g_free(subtitle);
            subtitle = g_strdup(self->follow_status);
            if (!self->follow_complete) {
                g_free(title);
                title = g_strdup_printf("%s · following", sp_run_document_get_display_name(base));
            }
        }
    }
    gtk_label_set_text(self->run_title, title);
    gtk_label_set_text(self->run_subtitle, subtitle);
    const char *path = sp_run_document_get_path(base);
    g_autofree char *path_shown = sp_viewer_text_dup(path ? path : title);
    gtk_widget_set_tooltip_text(self->run_title_box, path_shown);
    g_autofree char *wm_title =
        g_strdup_printf("%s%s — Scope Profiler", cand ? subtitle : title,
                        !cand && nruns <= 2 && sp_run_is_incomplete(run) ? " (incomplete)" : "");
    gtk_window_set_title(GTK_WINDOW(self), wm_title);
}

void sp_viewer_window_update_titles(SpViewerWindow *self)
{
    update_titles(self);
}

/* ---- recent runs ---- */

static void on_recent_activated(GtkListBox *box, GtkListBoxRow *row, SpViewerWindow *self)
{
    const char *uri = g_object_get_data(G_OBJECT(row), "uri");
    g_autoptr(GFile) file = g_file_new_for_uri(uri);
    sp_viewer_window_open_files(self, file, NULL);
}

static GtkWidget *recent_row(GtkRecentInfo *info)
{
    GtkWidget *row = gtk_list_box_row_new();
    GtkWidget *box = gtk_box_new(GTK_ORIENTATION_HORIZONTAL, 12);
    GtkWidget *labels = gtk_box_new(GTK_ORIENTATION_VERTICAL, 2);
    GtkWidget *icon = gtk_image_new_from_icon_name("document-open-recent-symbolic");
    g_autofree char *path = g_filename_from_uri(gtk_recent_info_get_uri(info), NULL, NULL);
    g_autofree char *dir = path ? g_path_get_dirname(path) : g_strdup("");
    g_autofree char *name_shown = sp_viewer_text_dup(gtk_recent_info_get_display_name(info));
    g_autofree char *dir_shown = sp_viewer_text_dup(dir); /* a path may hold any byte */
    GtkWidget *name = gtk_label_new(name_shown);
    GtkWidget *where = gtk_label_new(dir_shown);
    gtk_label_set_xalign(GTK_LABEL(name), 0);
    gtk_label_set_xalign(GTK_LABEL(where), 0);
    gtk_label_set_ellipsize(GTK_LABEL(where), PANGO_ELLIPSIZE_MIDDLE);
    gtk_widget_add_css_class(where, "dim-label");
    gtk_widget_add_css_class(where, "caption");
    gtk_box_append(GTK_BOX(labels), name);
    gtk_box_append(GTK_BOX(labels), where);
    gtk_box_append(GTK_BOX(box), icon);
    gtk_box_append(GTK_BOX(box), labels);
    gtk_widget_set_margin_start(box, 12);
    gtk_widget_set_margin_end(box, 12);
    gtk_widget_set_margin_top(box, 8);
    gtk_widget_set_margin_bottom(box, 8);
    gtk_list_box_row_set_child(GTK_LIST_BOX_ROW(row), box);
    gtk_widget_set_tooltip_text(row, path);
    g_object_set_data_full(G_OBJECT(row), "uri", g_strdup(gtk_recent_info_get_uri(info)), g_free);
    return row;
}

static int by_visit_desc(gconstpointer a, gconstpointer b)
{
    GDateTime *ta = gtk_recent_info_get_visited((GtkRecentInfo *)a);
    GDateTime *tb = gtk_recent_info_get_visited((GtkRecentInfo *)b);
    return ta && tb ? g_date_time_compare(tb, ta) : 0;
}

void sp_viewer_window_update_recent(SpViewerWindow *self)
{
    GtkWidget *child;
    while ((child = gtk_widget_get_first_child(GTK_WIDGET(self->recent_list))))
        gtk_list_box_remove(self->recent_list, child);
    int shown = 0;
    if (!is_ephemeral(self)) {
        GList *items = gtk_recent_manager_get_items(gtk_recent_manager_get_default());
        items = g_list_sort(items, by_visit_desc);
        for (GList *l = items; l && shown < RECENT_MAX; l = l->next) {
            GtkRecentInfo *info = l->data;
            const char *uri = gtk_recent_info_get_uri(info);
            if (!g_str_has_suffix(uri, ".h5") || !gtk_recent_info_is_local(info) ||
                !gtk_recent_info_exists(info))
                continue;
            gtk_list_box_append(self->recent_list, recent_row(info));
            shown++;
        }
        g_list_free_full(items, (GDestroyNotify)gtk_recent_info_unref);
    }
    gtk_widget_set_visible(self->recent_box, shown > 0);
}

static void add_recent(SpViewerWindow *self, SpRunDocument *doc)
{
    const char *path = doc ? sp_run_document_get_path(doc) : NULL;
    if (!path || is_ephemeral(self))
        return;
    g_autofree char *uri = g_filename_to_uri(path, NULL, NULL);
    if (!uri)
        return;
    GtkRecentData data = {
        .display_name = (char *)sp_run_document_get_display_name(doc),
        .mime_type = (char *)"application/x-hdf5",
        .app_name = (char *)"scope-profiler-viewer",
        .app_exec = (char *)"scope-profiler-viewer %f",
    };
    gtk_recent_manager_add_full(gtk_recent_manager_get_default(), uri, &data);
}

/* ---- loading ---- */

static gboolean pulse(gpointer data)
{
    gtk_progress_bar_pulse(SP_VIEWER_WINDOW(data)->loading_progress);
    return G_SOURCE_CONTINUE;
}

/* A run from a file that was never finished (killed): a banner says what
 * it lost (not while following: the header says "in progress" then). */
static void show_incomplete(SpViewerWindow *self, SpRunDocument *const *docs, guint n)
{
    if (sp_viewer_window_is_following(self))
        return;
    GString *text = g_string_new(NULL);
    char lost[1024];
    for (guint i = 0; i < n; i++) {
        const sp_run *run = sp_run_document_get_run(docs[i]);
        if (!sp_run_is_incomplete(run))
            continue;
        if (n > 1)
            g_string_append_printf(text, "%s%s: ", text->len ? "\n" : "",
                                   sp_run_document_get_display_name(docs[i]));
        g_string_append(text, sp_run_incomplete_text(run, lost, sizeof lost));
    }
    if (text->len)
        sp_viewer_window_show_banner(self, text->str);
    g_string_free(text, TRUE);
}

void sp_viewer_window_show_documents(SpViewerWindow *self, SpRunDocument *const *docs, guint n,
                                     gboolean recent)
{
    g_return_if_fail(SP_IS_VIEWER_WINDOW(self));
    g_return_if_fail(n >= 1 && docs[0] != NULL);
    g_clear_pointer(&self->error, g_free);
    sp_session_set_run_list(self->session, docs, n);
    gtk_stack_page_set_visible(self->compare_stack_page, n > 1);
    update_titles(self);
    show_incomplete(self, docs, n);
    for (guint i = 0; recent && i < n; i++)
        add_recent(self, docs[i]);
    /* Compare first, then show the content: pages refresh when first shown
     * (sp-page.h), so the page shown before it would be rebuilt for nothing. */
    if (n > 1)
        gtk_stack_set_visible_child_name(self->pages, "compare");
    set_state(self, SP_VIEWER_WINDOW_READY);
}

void sp_viewer_window_set_document_list(SpViewerWindow *self, SpRunDocument *const *docs,
                                        guint n)
{
    sp_viewer_window_show_documents(self, docs, n, TRUE);
}

void sp_viewer_window_show_waiting(SpViewerWindow *self, const char *message)
{
    gtk_label_set_text(self->loading_label, message);
    gtk_spinner_start(self->loading_spinner);
    if (!self->pulse_source)
        self->pulse_source = g_timeout_add(80, pulse, self);
    if (self->state != SP_VIEWER_WINDOW_LOADING)
        set_state(self, SP_VIEWER_WINDOW_LOADING);
}

void sp_viewer_window_set_documents(SpViewerWindow *self, SpRunDocument *base,
                                    SpRunDocument *candidate)
{
    SpRunDocument *docs[2] = {base, candidate};
    sp_viewer_window_set_document_list(self, docs, candidate ? 2 : 1);
}

/* Drop the files and documents of a load. */
static void clear_pending(SpViewerWindow *self)
{
    for (guint i = 0; i < self->n_pending; i++) {
        g_clear_object(&self->pending_files[i]);
        g_clear_object(&self->pending_docs[i]);
    }
    g_clear_pointer(&self->pending_files, g_free);
    g_clear_pointer(&self->pending_docs, g_free);
    self->n_pending = 0;
}

static void finish_load(SpViewerWindow *self, GError *error)
{
    for (guint i = 0; i < self->n_pending; i++)
        g_clear_object(&self->pending_files[i]);
    if (error) {
        g_free(self->error);
        self->error = g_strdup(error->message);
        /* A reader's message may quote the file: shown escaped. */
        g_autofree char *shown = sp_viewer_text_dup(error->message);
        gtk_label_set_text(self->error_label, shown);
        set_state(self, SP_VIEWER_WINDOW_FAILED);
    } else {
        sp_viewer_window_set_document_list(self, self->pending_docs, self->n_pending);
    }
    clear_pending(self);
    g_clear_object(&self->cancellable);
    g_signal_emit(self, signals[SIGNAL_LOAD_FINISHED], 0, error == NULL);
}

typedef struct {
    SpViewerWindow *self; /* strong ref while loading */
    int slot;
    GCancellable *cancellable;
} LoadData;

static void on_loaded(GObject *source, GAsyncResult *result, gpointer user_data)
{
    LoadData *ld = user_data;
    SpViewerWindow *self = ld->self;
    g_autoptr(GError) error = NULL;
    SpRunDocument *doc = sp_run_document_load_finish(result, &error);
    /* A load replaced by a newer one (or cancelled) is dropped silently. */
    if (ld->cancellable != self->cancellable || g_cancellable_is_cancelled(ld->cancellable)) {
        g_clear_object(&doc);
    } else if (!doc) {
        g_cancellable_cancel(self->cancellable); /* the other file no longer matters */
        finish_load(self, error);
    } else {
        self->pending_docs[ld->slot] = doc;
        if (--self->pending_count == 0)
            finish_load(self, NULL);
    }
    g_object_unref(ld->cancellable);
    g_object_unref(ld->self);
    g_free(ld);
}

void sp_viewer_window_open_list(SpViewerWindow *self, GFile *const *files, guint n)
{
    g_return_if_fail(SP_IS_VIEWER_WINDOW(self));
    g_return_if_fail(n >= 1 && G_IS_FILE(files[0]));
    sp_viewer_window_stop_follow(self); /* another run replaces the followed one */
    if (self->cancellable)
        g_cancellable_cancel(self->cancellable);
    g_clear_object(&self->cancellable);
    clear_pending(self);
    self->cancellable = g_cancellable_new();
    self->pending_files = g_new0(GFile *, n);
    self->pending_docs = g_new0(SpRunDocument *, n);
    self->n_pending = n;
    for (guint i = 0; i < n; i++)
        self->pending_files[i] = g_object_ref(files[i]);
    self->pending_count = (int)n;

    g_autofree char *name0 = g_file_get_basename(files[0]);
    g_autofree char *name1 = n > 1 ? g_file_get_basename(files[1]) : NULL;
    g_autofree char *text = n > 2    ? g_strdup_printf("Loading %u runs…", n)
                            : n == 2 ? g_strdup_printf("Loading %s and %s…", name0, name1)
                                     : g_strdup_printf("Loading %s…", name0);
    gtk_label_set_text(self->loading_label, text);
    gtk_progress_bar_set_fraction(self->loading_progress, 0);
    gtk_spinner_start(self->loading_spinner);
    if (!self->pulse_source)
        self->pulse_source = g_timeout_add(80, pulse, self);
    set_state(self, SP_VIEWER_WINDOW_LOADING);

    for (guint i = 0; i < n; i++) {
        LoadData *ld = g_new0(LoadData, 1);
        ld->self = g_object_ref(self);
        ld->slot = (int)i;
        ld->cancellable = g_object_ref(self->cancellable);
        sp_run_document_load_async(self->pending_files[i], self->cancellable, on_loaded, ld);
    }
}

void sp_viewer_window_open(SpViewerWindow *self, GFile *base, GFile *candidate)
{
    GFile *files[2] = {base, candidate};
    sp_viewer_window_open_list(self, files, candidate ? 2 : 1);
}

/* Called by the cancel action. */
static void cancel_load(SpViewerWindow *self)
{
    if (self->state == SP_VIEWER_WINDOW_LOADING && self->follow_path &&
        !sp_session_get_base(self->session)) {
        /* Waiting for a followed file to appear: stop waiting. */
        sp_viewer_window_stop_follow(self);
        set_state(self, SP_VIEWER_WINDOW_EMPTY);
        return;
    }
    if (self->state != SP_VIEWER_WINDOW_LOADING || !self->cancellable)
        return;
    g_cancellable_cancel(self->cancellable);
    g_clear_object(&self->cancellable);
    set_state(self, sp_session_get_base(self->session) ? SP_VIEWER_WINDOW_READY
                                                       : SP_VIEWER_WINDOW_EMPTY);
    g_signal_emit(self, signals[SIGNAL_LOAD_FINISHED], 0, FALSE);
}

void sp_viewer_window_open_files(SpViewerWindow *self, GFile *base, GFile *candidate)
{
    if (self->state == SP_VIEWER_WINDOW_EMPTY || self->state == SP_VIEWER_WINDOW_FAILED) {
        sp_viewer_window_open(self, base, candidate);
        return;
    }
    SpViewerWindow *win = sp_viewer_window_new(gtk_window_get_application(GTK_WINDOW(self)));
    gtk_window_present(GTK_WINDOW(win));
    sp_viewer_window_open(win, base, candidate);
}

/* ---- pages ---- */

gboolean sp_viewer_window_set_page(SpViewerWindow *self, const char *name)
{
    for (guint i = 0; i < G_N_ELEMENTS(page_names); i++) {
        if (g_strcmp0(name, page_names[i]) != 0)
            continue;
        GtkStackPage *page = gtk_stack_get_page(self->pages, page_widget(self, i));
        if (!gtk_stack_page_get_visible(page))
            return FALSE;
        gtk_stack_set_visible_child(self->pages, page_widget(self, i));
        return TRUE;
    }
    return FALSE;
}

const char *sp_viewer_window_get_page(SpViewerWindow *self)
{
    return gtk_stack_get_visible_child_name(self->pages);
}

GtkWidget *sp_viewer_window_get_page_widget(SpViewerWindow *self, const char *name)
{
    for (guint i = 0; i < G_N_ELEMENTS(page_names); i++)
        if (g_strcmp0(name, page_names[i]) == 0)
            return page_widget(self, i);
    return NULL;
}

static void on_page_changed(GObject *stack, GParamSpec *pspec, SpViewerWindow *self)
{
    sp_viewer_window_update_actions(self);
}

/* ---- window ---- */

static gboolean sp_viewer_window_close_request(GtkWindow *window)
{
    SpViewerWindow *self = SP_VIEWER_WINDOW(window);
    if (!is_ephemeral(self)) {
        int w, h;
        gtk_window_get_default_size(window, &w, &h);
        sp_viewer_settings_set_window_size(w, h, gtk_window_is_maximized(window));
    }
    return GTK_WINDOW_CLASS(sp_viewer_window_parent_class)->close_request(window);
}

static void sp_viewer_window_dispose(GObject *object)
{
    SpViewerWindow *self = SP_VIEWER_WINDOW(object);
    stop_pulse(self);
    sp_viewer_window_stop_follow(self);
    if (self->cancellable)
        g_cancellable_cancel(self->cancellable);
    g_clear_object(&self->cancellable);
    clear_pending(self);
    gtk_widget_dispose_template(GTK_WIDGET(self), SP_TYPE_VIEWER_WINDOW);
    g_clear_object(&self->session);
    G_OBJECT_CLASS(sp_viewer_window_parent_class)->dispose(object);
}

static void sp_viewer_window_finalize(GObject *object)
{
    g_free(SP_VIEWER_WINDOW(object)->error);
    G_OBJECT_CLASS(sp_viewer_window_parent_class)->finalize(object);
}

static void action_cancel_load(GtkWidget *widget, const char *name, GVariant *param)
{
    cancel_load(SP_VIEWER_WINDOW(widget));
}

static void sp_viewer_window_class_init(SpViewerWindowClass *klass)
{
    GObjectClass *oc = G_OBJECT_CLASS(klass);
    GtkWidgetClass *wc = GTK_WIDGET_CLASS(klass);
    GtkWindowClass *winc = GTK_WINDOW_CLASS(klass);
    oc->dispose = sp_viewer_window_dispose;
    oc->finalize = sp_viewer_window_finalize;
    winc->close_request = sp_viewer_window_close_request;

    signals[SIGNAL_LOAD_FINISHED] =
        g_signal_new("load-finished", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                     NULL, NULL, G_TYPE_NONE, 1, G_TYPE_BOOLEAN);
    signals[SIGNAL_FOLLOW_UPDATED] =
        g_signal_new("follow-updated", G_TYPE_FROM_CLASS(klass), G_SIGNAL_RUN_LAST, 0, NULL,
                     NULL, NULL, G_TYPE_NONE, 2, G_TYPE_UINT64, G_TYPE_BOOLEAN);

    g_type_ensure(SP_TYPE_TIMELINE_PAGE);
    g_type_ensure(SP_TYPE_REGIONS_PAGE);
    g_type_ensure(SP_TYPE_CALLTREE_PAGE);
    g_type_ensure(SP_TYPE_RANKS_PAGE);
    g_type_ensure(SP_TYPE_LINES_PAGE);
    g_type_ensure(SP_TYPE_COMPARE_PAGE);
    g_type_ensure(SP_TYPE_INFO_PAGE);

    gtk_widget_class_set_template_from_resource(wc, "/org/scopeprofiler/Viewer/sp-viewer-window.ui");
#define BIND(name) gtk_widget_class_bind_template_child(wc, SpViewerWindow, name)
    BIND(run_title_box);
    BIND(run_title);
    BIND(run_subtitle);
    BIND(title_stack);
    BIND(export_button);
    BIND(banner_revealer);
    BIND(banner_label);
    BIND(main_stack);
    BIND(recent_box);
    BIND(recent_list);
    BIND(loading_spinner);
    BIND(loading_label);
    BIND(loading_progress);
    BIND(error_label);
    BIND(pages);
    BIND(compare_stack_page);
    BIND(timeline_page);
    BIND(regions_page);
    BIND(calltree_page);
    BIND(ranks_page);
    BIND(lines_page);
    BIND(compare_page);
    BIND(info_page);
#undef BIND

    gtk_widget_class_install_action(wc, "win.cancel-load", NULL, action_cancel_load);
    gtk_widget_class_add_binding_action(wc, GDK_KEY_Escape, 0, "win.cancel-load", NULL);
    sp_viewer_window_class_install_actions(wc);
}

static void sp_viewer_window_init(SpViewerWindow *self)
{
    gtk_widget_init_template(GTK_WIDGET(self));
    self->session = sp_session_new();
    for (guint i = 0; i < G_N_ELEMENTS(page_names); i++)
        sp_page_set_session(SP_PAGE(page_widget(self, i)), self->session);
    g_signal_connect(self->recent_list, "row-activated", G_CALLBACK(on_recent_activated), self);
    g_signal_connect(self->pages, "notify::visible-child", G_CALLBACK(on_page_changed), self);
    sp_viewer_window_setup_dnd(self);

    int w, h;
    gboolean maximized;
    if (sp_viewer_settings_get_window_size(&w, &h, &maximized)) {
        gtk_window_set_default_size(GTK_WINDOW(self), w, h);
        if (maximized)
            gtk_window_maximize(GTK_WINDOW(self));
    }
    set_state(self, SP_VIEWER_WINDOW_EMPTY);
}

SpViewerWindow *sp_viewer_window_new(GtkApplication *app)
{
    SpViewerWindow *self = g_object_new(SP_TYPE_VIEWER_WINDOW, "application", app, NULL);
    /* The application is known only now: it decides whether recent runs are
     * shown (not in screenshots and tests). */
    sp_viewer_window_update_recent(self);
    if (!is_ephemeral(self))
        g_signal_connect_object(gtk_recent_manager_get_default(), "changed",
                                G_CALLBACK(sp_viewer_window_update_recent), self,
                                G_CONNECT_SWAPPED);
    return self;
}
