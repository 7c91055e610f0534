/* SPDX-License-Identifier: MIT */
/* sp-viewer-application.c - the application: command line, windows, app
 * actions, and the screenshot / benchmark modes. */
#include "sp-viewer-application.h"

#include "sp-viewer-benchmark.h"
#include "sp-viewer-resources.h"
#include "sp-viewer-screenshot.h"
#include "sp-viewer-settings.h"
#include "sp-viewer-style.h"
#include "sp-viewer-window.h"

#include "scope_profiler.h"

struct _SpViewerApplication {
    GtkApplication parent_instance;
    gboolean ephemeral;
    int exit_status;

    /* --screenshot / --page / --size / --benchmark */
    char *screenshot_path;
    char *page;
    int width, height;
    gboolean benchmark;

    /* --follow FILE [--interval SEC]; with --screenshot, --follow-shots N:
     * a screenshot each time more calls are shown (OUT-1.png, OUT-2.png...). */
    char *follow_path;
    double follow_interval;
    int follow_shots, shots_taken;
    guint64 shot_calls;
    gboolean shot_in_flight;
};

G_DEFINE_FINAL_TYPE(SpViewerApplication, sp_viewer_application, GTK_TYPE_APPLICATION)

void sp_viewer_ensure_resources(void)
{
    static gsize done;
    if (g_once_init_enter(&done)) {
        sp_viewer_register_resource();
        g_once_init_leave(&done, 1);
    }
}

gboolean sp_viewer_application_is_ephemeral(SpViewerApplication *self) { return self->ephemeral; }

void sp_viewer_application_set_ephemeral(SpViewerApplication *self, gboolean ephemeral)
{
    self->ephemeral = ephemeral;
    sp_viewer_settings_set_enabled(!ephemeral);
}

int sp_viewer_application_get_exit_status(SpViewerApplication *self) { return self->exit_status; }

static const GOptionEntry option_entries[] = {
    {"screenshot", 0, 0, G_OPTION_ARG_FILENAME, NULL,
     "Render the window offscreen to a PNG file once loaded, then exit", "OUT.png"},
    {"page", 0, 0, G_OPTION_ARG_STRING, NULL,
     "Page to show: timeline, regions, calltree, ranks, lines, compare, info", "NAME"},
    {"size", 0, 0, G_OPTION_ARG_STRING, NULL, "Window size for --screenshot (default 1280x820)",
     "WxH"},
    {"benchmark", 0, 0, G_OPTION_ARG_NONE, NULL,
     "Load FILE, replay zooms and pans on the timeline, print load and frame times", NULL},
    {"source-dir", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, NULL,
     "Show source files below DIR on the Lines page (repeatable; the run's own working "
     "directory needs none)",
     "DIR"},
    {"follow", 0, 0, G_OPTION_ARG_FILENAME, NULL,
     "Show FILE while it is being recorded, refreshed every second until the run completes "
     "(waits for FILE to appear)",
     "FILE"},
    {"interval", 0, 0, G_OPTION_ARG_DOUBLE, NULL, "Seconds between refreshes with --follow "
     "(default 1)", "SEC"},
    {"follow-shots", 0, 0, G_OPTION_ARG_INT, NULL,
     "With --follow and --screenshot OUT.png: save OUT-1.png, OUT-2.png, ... each time more "
     "calls are shown (N shots, default 2; also at completion), print each shot's call count, "
     "then exit",
     "N"},
    {"version", 0, 0, G_OPTION_ARG_NONE, NULL, "Print the version and exit", NULL},
    {NULL},
};

static int sp_viewer_application_handle_local_options(GApplication *app, GVariantDict *options)
{
    SpViewerApplication *self = SP_VIEWER_APPLICATION(app);
    if (g_variant_dict_contains(options, "version")) {
        g_print("scope-profiler-viewer %s (library %s, GTK %u.%u.%u)\n", SP_VIEWER_VERSION,
                sp_version(), gtk_get_major_version(), gtk_get_minor_version(),
                gtk_get_micro_version());
        return 0;
    }
    g_variant_dict_lookup(options, "screenshot", "^ay", &self->screenshot_path);
    g_variant_dict_lookup(options, "page", "s", &self->page);
    g_autofree char **dirs = NULL; /* the strings stay in the dict's variant */
    if (g_variant_dict_lookup(options, "source-dir", "^a&ay", &dirs))
        for (char **d = dirs; d && *d; d++)
            sp_viewer_settings_add_source_dir(*d);
    self->benchmark = g_variant_dict_contains(options, "benchmark");
    g_variant_dict_lookup(options, "follow", "^ay", &self->follow_path);
    if (g_variant_dict_lookup(options, "interval", "d", &self->follow_interval) &&
        !(self->follow_interval >= 0.05 && self->follow_interval <= 3600)) {
        g_printerr("scope-profiler-viewer: invalid --interval %g (seconds, 0.05 to 3600)\n",
                   self->follow_interval);
        return 2;
    }
    self->follow_shots = 2;
    if (g_variant_dict_lookup(options, "follow-shots", "i", &self->follow_shots) &&
        (self->follow_shots < 1 || self->follow_shots > 100)) {
        g_printerr("scope-profiler-viewer: invalid --follow-shots %d (1 to 100)\n",
                   self->follow_shots);
        return 2;
    }
    if ((g_variant_dict_contains(options, "interval") ||
         g_variant_dict_contains(options, "follow-shots")) && !self->follow_path) {
        g_printerr("scope-profiler-viewer: --interval and --follow-shots need --follow FILE\n");
        return 2;
    }
    if (self->follow_path && self->benchmark) {
        g_printerr("scope-profiler-viewer: --follow and --benchmark cannot be combined\n");
        return 2;
    }
    const char *size = NULL;
    if (g_variant_dict_lookup(options, "size", "&s", &size)) {
        if (sscanf(size, "%dx%d", &self->width, &self->height) != 2 || self->width < 200 ||
            self->height < 150 || self->width > 8192 || self->height > 8192) {
            g_printerr("scope-profiler-viewer: invalid --size '%s' (expected WxH, e.g. 1280x800)\n",
                       size);
            return 2;
        }
    }
    if (self->screenshot_path || self->benchmark) {
        /* One-shot modes: their own process, nothing remembered. */
        g_application_set_flags(app, g_application_get_flags(app) | G_APPLICATION_NON_UNIQUE);
        sp_viewer_application_set_ephemeral(self, TRUE);
    } else if (self->follow_path) {
        /* Its own process: a running instance would not see the option. */
        g_application_set_flags(app, g_application_get_flags(app) | G_APPLICATION_NON_UNIQUE);
    }
    return -1;
}

static void sp_viewer_application_startup(GApplication *app)
{
    SpViewerApplication *self = SP_VIEWER_APPLICATION(app);
    G_APPLICATION_CLASS(sp_viewer_application_parent_class)->startup(app);
    sp_viewer_style_init(!self->ephemeral);
    /* Screenshots and benchmarks must not catch a page mid-transition. */
    if (self->screenshot_path || self->benchmark)
        g_object_set(gtk_settings_get_default(), "gtk-enable-animations", FALSE, NULL);
    gtk_window_set_default_icon_name(SP_VIEWER_APP_ID);
    static const char *const quit[] = {"<Control>q", NULL};
    static const char *const new_window[] = {"<Control>n", NULL};
    gtk_application_set_accels_for_action(GTK_APPLICATION(app), "app.quit", quit);
    gtk_application_set_accels_for_action(GTK_APPLICATION(app), "app.new-window", new_window);
}

static SpViewerWindow *new_window(SpViewerApplication *self)
{
    SpViewerWindow *win = sp_viewer_window_new(GTK_APPLICATION(self));
    if (self->width > 0)
        gtk_window_set_default_size(GTK_WINDOW(win), self->width, self->height);
    return win;
}

/* ---- --screenshot ---- */

static void on_screenshot_done(gboolean ok, gpointer data)
{
    SpViewerApplication *self = data;
    if (!ok && self->exit_status == 0)
        self->exit_status = 1;
    g_application_quit(G_APPLICATION(self));
}

/*
 * --size is the size of the PNG: the window's default size is what the
 * window manager and client-side decorations start from, so the content can
 * come out a few pixels smaller (shadows) or clamped to the screen. After the
 * first frames, resize by the difference and look again (a few times).
 * Every shot goes through this, --follow's too (they came out 1590x990 for
 * --size 1600x1000). If the size still differs (a screen smaller than
 * --size) say how to fix it and fail without writing: a PNG of another size
 * than asked for is not written.
 */
#define SIZE_ATTEMPTS 4

typedef void (*SizedFn)(SpViewerApplication *self, GtkWidget *win, gboolean exact, gpointer data);

typedef struct {
    SpViewerApplication *self;
    int attempts;
    int want_w, want_h;
    SizedFn done;
    gpointer data;
} SizeFit;

static void on_size_settled(GtkWidget *win, gboolean drawn, gpointer data)
{
    SizeFit *fit = data;
    SpViewerApplication *self = fit->self;
    int w = gtk_widget_get_width(win), h = gtk_widget_get_height(win);
    gboolean exact = w == fit->want_w && h == fit->want_h;
    if (!drawn || exact || ++fit->attempts >= SIZE_ATTEMPTS) {
        if (drawn && !exact)
            g_printerr("scope-profiler-viewer: the window is %dx%d, not the %dx%d asked for: "
                       "the screen is too small (under xvfb-run, give it a big enough screen: "
                       "xvfb-run -a -s \"-screen 0 %dx%dx24\" ...); no screenshot written\n",
                       w, h, fit->want_w, fit->want_h, fit->want_w + 320, fit->want_h + 200);
        /* Not drawn: the shot itself reports that no frame came. */
        fit->done(self, win, !drawn || exact, fit->data);
        g_free(fit);
        return;
    }
    int dw, dh;
    gtk_window_get_default_size(GTK_WINDOW(win), &dw, &dh);
    gtk_window_set_default_size(GTK_WINDOW(win), dw + (fit->want_w - w), dh + (fit->want_h - h));
    gtk_widget_queue_resize(win);
    sp_viewer_after_frames(win, on_size_settled, fit);
}

/* Bring win to --size (when given), then call done with whether it is. */
static void fit_size(SpViewerApplication *self, GtkWidget *win, SizedFn done, gpointer data)
{
    if (self->width <= 0) {
        done(self, win, TRUE, data);
        return;
    }
    SizeFit *fit = g_new0(SizeFit, 1);
    *fit = (SizeFit){self, 0, self->width, self->height, done, data};
    sp_viewer_after_frames(win, on_size_settled, fit);
}

static void shoot_when_sized(SpViewerApplication *self, GtkWidget *win, gboolean exact,
                             gpointer data)
{
    (void)data;
    if (!exact) { /* said why; nothing written */
        if (self->exit_status == 0)
            self->exit_status = 1;
        g_application_quit(G_APPLICATION(self));
        return;
    }
    sp_viewer_screenshot_after_frames(win, self->screenshot_path, on_screenshot_done, self);
}

static void screenshot_when_sized(SpViewerApplication *self, GtkWidget *win)
{
    fit_size(self, win, shoot_when_sized, NULL);
}

static void take_screenshot(SpViewerApplication *self, SpViewerWindow *win, gboolean loaded)
{
    if (!loaded) {
        const char *why = sp_viewer_window_get_error(win);
        g_printerr("scope-profiler-viewer: %s\n", why ? why : "loading failed");
        self->exit_status = 2; /* still write the screenshot: it shows the error */
    } else if (self->page && !sp_viewer_window_set_page(win, self->page)) {
        g_printerr("scope-profiler-viewer: no page '%s' (timeline, regions, calltree, ranks, "
                   "lines, compare with two runs, info)\n", self->page);
        self->exit_status = 2;
        g_application_quit(G_APPLICATION(self));
        return;
    }
    screenshot_when_sized(self, GTK_WIDGET(win));
}

static void on_load_finished(SpViewerWindow *win, gboolean ok, SpViewerApplication *self)
{
    if (self->screenshot_path)
        take_screenshot(self, win, ok);
    else if (ok && self->page && !sp_viewer_window_set_page(win, self->page))
        g_printerr("scope-profiler-viewer: no page '%s'\n", self->page);
}

static void on_benchmark_done(int status, gpointer data)
{
    SpViewerApplication *self = data;
    self->exit_status = status;
    g_application_quit(G_APPLICATION(self));
}

/* ---- --follow with --screenshot: shots as more calls arrive ---- */

static void follow_shot_path(SpViewerApplication *self, int k, char *buf, size_t n)
{
    const char *p = self->screenshot_path;
    const char *dot = g_str_has_suffix(p, ".png") ? p + strlen(p) - 4 : p + strlen(p);
    g_snprintf(buf, n, "%.*s-%d.png", (int)(dot - p), p, k);
}

typedef struct {
    SpViewerApplication *self;
    guint64 calls;
    gboolean complete;
    int attempts;
    GtkWidget *win;
    char path[4096];
} FollowShot;

#define FOLLOW_SHOT_ATTEMPTS 5

static void on_follow_shot_done(gboolean ok, gpointer data)
{
    FollowShot *fs = data;
    SpViewerApplication *self = fs->self;
    if (!ok && ++fs->attempts < FOLLOW_SHOT_ATTEMPTS) {
        /* A refresh can land between layout and drawing (seen on slow,
         * sanitized builds): the snapshot comes out empty. Draw again. */
        sp_viewer_screenshot_after_frames(fs->win, fs->path, on_follow_shot_done, fs);
        return;
    }
    self->shot_in_flight = FALSE;
    if (!ok && self->exit_status == 0)
        self->exit_status = 1;
    g_print("follow shot %s: %" G_GUINT64_FORMAT " calls, %s\n", fs->path, fs->calls,
            fs->complete ? "complete" : "in progress");
    if (self->shots_taken >= self->follow_shots || fs->complete)
        g_application_quit(G_APPLICATION(self));
    g_free(fs);
}

static void follow_shoot_when_sized(SpViewerApplication *self, GtkWidget *win, gboolean exact,
                                    gpointer data)
{
    FollowShot *fs = data;
    if (!exact) { /* said why; nothing written */
        self->shot_in_flight = FALSE;
        self->exit_status = 1;
        g_free(fs);
        g_application_quit(G_APPLICATION(self));
        return;
    }
    sp_viewer_screenshot_after_frames(win, fs->path, on_follow_shot_done, fs);
}

static void on_follow_updated(SpViewerWindow *win, guint64 calls, gboolean complete,
                              SpViewerApplication *self)
{
    if (!self->screenshot_path || self->shot_in_flight || self->shots_taken >= self->follow_shots)
        return;
    /* A shot shows more calls than the last one (or the end of the run). */
    if (calls == 0 || (self->shots_taken > 0 && calls <= self->shot_calls && !complete))
        return;
    if (self->shots_taken == 0 && self->page)
        sp_viewer_window_set_page(win, self->page);
    FollowShot *fs = g_new0(FollowShot, 1);
    fs->self = self;
    fs->calls = calls;
    fs->complete = complete;
    fs->win = GTK_WIDGET(win);
    follow_shot_path(self, ++self->shots_taken, fs->path, sizeof fs->path);
    self->shot_calls = calls;
    self->shot_in_flight = TRUE;
    fit_size(self, GTK_WIDGET(win), follow_shoot_when_sized, fs);
}

static void start_follow(SpViewerApplication *self)
{
    SpViewerWindow *win = new_window(self);
    g_signal_connect(win, "follow-updated", G_CALLBACK(on_follow_updated), self);
    gtk_window_present(GTK_WINDOW(win));
    g_autoptr(GFile) file = g_file_new_for_path(self->follow_path);
    if (!self->screenshot_path && self->page)
        sp_viewer_window_set_page(win, self->page);
    sp_viewer_window_follow(win, file, self->follow_interval);
}

/* ---- GApplication ---- */

static void sp_viewer_application_activate(GApplication *app)
{
    SpViewerApplication *self = SP_VIEWER_APPLICATION(app);
    if (self->benchmark) {
        g_printerr("scope-profiler-viewer: --benchmark needs a FILE\n");
        self->exit_status = 2;
        return;
    }
    if (self->follow_path) {
        start_follow(self);
        return;
    }
    SpViewerWindow *win = new_window(self);
    gtk_window_present(GTK_WINDOW(win));
    if (self->screenshot_path)
        screenshot_when_sized(self, GTK_WIDGET(win));
}

static void sp_viewer_application_open(GApplication *app, GFile **files, int n_files,
                                       const char *hint)
{
    SpViewerApplication *self = SP_VIEWER_APPLICATION(app);
    if (self->benchmark) {
        g_autofree char *path = g_file_get_path(files[0]);
        sp_viewer_benchmark_start(GTK_APPLICATION(app), path, on_benchmark_done, self);
        return;
    }
    if (self->follow_path) {
        g_printerr("scope-profiler-viewer: --follow takes one FILE; the other files are not "
                   "opened\n");
        start_follow(self);
        return;
    }
    SpViewerWindow *win = new_window(self);
    g_signal_connect(win, "load-finished", G_CALLBACK(on_load_finished), self);
    gtk_window_present(GTK_WINDOW(win));
    sp_viewer_window_open_list(win, files, (guint)n_files);
}

/* ---- app actions ---- */

static void action_quit(GSimpleAction *action, GVariant *param, gpointer app)
{
    /* Close (not destroy) so every window remembers its size; copy the list
     * as closing a window removes it. */
    GList *windows = g_list_copy(gtk_application_get_windows(GTK_APPLICATION(app)));
    for (GList *it = windows; it; it = it->next)
        gtk_window_close(GTK_WINDOW(it->data));
    g_list_free(windows);
}

static void action_new_window(GSimpleAction *action, GVariant *param, gpointer app)
{
    gtk_window_present(GTK_WINDOW(new_window(SP_VIEWER_APPLICATION(app))));
}

static void action_about(GSimpleAction *action, GVariant *param, gpointer app)
{
    static const char *const authors[] = {"The scope-profiler authors", NULL};
    GtkWindow *parent = gtk_application_get_active_window(GTK_APPLICATION(app));
    g_autofree char *comments = g_strdup_printf(
        "Explore and compare region profiles of HPC codes recorded by scope-profiler.\n"
        "Library %s · GTK %u.%u.%u", sp_version(), gtk_get_major_version(),
        gtk_get_minor_version(), gtk_get_micro_version());
    gtk_show_about_dialog(parent, "program-name", "Scope Profiler", "version", SP_VIEWER_VERSION,
                          "comments", comments, "license-type", GTK_LICENSE_MIT_X11,
                          "logo-icon-name", SP_VIEWER_APP_ID, "authors", authors,
                          NULL);
}

static const GActionEntry app_actions[] = {
    {.name = "quit", .activate = action_quit},
    {.name = "new-window", .activate = action_new_window},
    {.name = "about", .activate = action_about},
};

static void sp_viewer_application_finalize(GObject *object)
{
    SpViewerApplication *self = SP_VIEWER_APPLICATION(object);
    g_free(self->screenshot_path);
    g_free(self->page);
    g_free(self->follow_path);
    G_OBJECT_CLASS(sp_viewer_application_parent_class)->finalize(object);
}

static void sp_viewer_application_class_init(SpViewerApplicationClass *klass)
{
    GApplicationClass *ac = G_APPLICATION_CLASS(klass);
    G_OBJECT_CLASS(klass)->finalize = sp_viewer_application_finalize;
    ac->handle_local_options = sp_viewer_application_handle_local_options;
    ac->startup = sp_viewer_application_startup;
    ac->activate = sp_viewer_application_activate;
    ac->open = sp_viewer_application_open;
    sp_viewer_ensure_resources();
}

static void sp_viewer_application_init(SpViewerApplication *self)
{
    g_application_add_main_option_entries(G_APPLICATION(self), option_entries);
    g_application_set_option_context_parameter_string(G_APPLICATION(self), "[FILE [FILE2...]]");
    g_application_set_option_context_summary(
        G_APPLICATION(self),
        "Explore a scope-profiler run (one FILE), compare two runs (base FILE, candidate FILE2),\n"
        "or study the scaling of three or more runs (one per rank or thread count);\n"
        "--follow FILE shows a run while it is being recorded.");
    g_action_map_add_action_entries(G_ACTION_MAP(self), app_actions, G_N_ELEMENTS(app_actions),
                                    self);
}

SpViewerApplication *sp_viewer_application_new(void)
{
    return g_object_new(SP_TYPE_VIEWER_APPLICATION, "application-id", SP_VIEWER_APP_ID, "flags",
                        G_APPLICATION_HANDLES_OPEN, "resource-base-path",
                        "/org/scopeprofiler/Viewer", NULL);
}
