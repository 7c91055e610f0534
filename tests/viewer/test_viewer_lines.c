/* SPDX-License-Identifier: MIT */
/*
 * test_viewer_lines.c - the viewer's Lines page on a real line-sampled run
 * (examples/line_example): the hot line leads the table with most of the
 * region's samples, rows are ranked by samples, the source text is read, one
 * rank shows the same as all ranks merged on a one-rank run; a run without
 * line samples shows the empty state; a line tracer's table (hits, measured
 * times) shows each line's share of the time; the page never offers a chart
 * export.
 *
 * usage (under xvfb-run): test_viewer_lines LINE.h5 NO_LINES.h5
 */
#include <glib/gstdio.h>
#include <gtk/gtk.h>

#include "sp-line-item.h"
#include "sp-lines-page.h"
#include "sp-viewer-application.h"
#include "sp-viewer-settings.h"
#include "sp-viewer-window.h"
#include "sp_test.h"

static const char *line_path, *plain_path;

static gboolean on_timeout(gpointer data)
{
    *(gboolean *)data = TRUE;
    return G_SOURCE_REMOVE;
}

static void on_load_finished(SpViewerWindow *win, gboolean ok, gboolean *done) { *done = TRUE; }

static SpViewerWindow *open_window(const char *path)
{
    SpViewerWindow *win = sp_viewer_window_new(NULL);
    gboolean done = FALSE, timed_out = FALSE;
    gulong id = g_signal_connect(win, "load-finished", G_CALLBACK(on_load_finished), &done);
    guint timer = g_timeout_add(30000, on_timeout, &timed_out);
    g_autoptr(GFile) file = g_file_new_for_path(path);
    sp_viewer_window_open(win, file, NULL);
    while (!done && !timed_out)
        g_main_context_iteration(NULL, TRUE);
    if (!timed_out)
        g_source_remove(timer);
    g_signal_handler_disconnect(win, id);
    return win;
}

static SpLinesPage *lines_page(SpViewerWindow *win)
{
    return SP_LINES_PAGE(sp_viewer_window_get_page_widget(win, "lines"));
}

/* The (file, line) of region with the most samples over all ranks, straight
 * from the run model: what the page must rank first. */
static void expected_hot_line(const sp_run *run, int region, const char **file, int *lineno,
                              guint64 *samples, guint64 *total)
{
    g_autoptr(GHashTable) sums = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    *samples = *total = 0;
    for (size_t r = 0; r < run->nranks; r++)
        for (size_t i = 0; i < run->ranks[r].nlines; i++) {
            const sp_rank_data *rk = &run->ranks[r];
            if (rk->line_region[i] != region)
                continue;
            char *key = g_strdup_printf("%s:%d", rk->line_file[i], rk->line_lineno[i]);
            guint64 s = GPOINTER_TO_SIZE(g_hash_table_lookup(sums, key)) + rk->line_samples[i];
            *total += rk->line_samples[i];
            if (s > *samples) {
                *samples = s;
                *file = rk->line_file[i];
                *lineno = rk->line_lineno[i];
            }
            g_hash_table_replace(sums, key, GSIZE_TO_POINTER(s));
        }
}

/* The example's source lies outside the run's working directory and the
 * run file is not there either: not shown, with the reason, until the
 * source directory is allowed (--source-dir, settings). */
static void test_source_not_shown_outside_roots(void)
{
    SpViewerWindow *win = open_window(line_path);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    GListModel *rows = sp_lines_page_get_rows(lines_page(win));
    ASSERT(g_list_model_get_n_items(rows) >= 1);
    g_autoptr(SpLineItem) first = g_list_model_get_item(rows, 0);
    gboolean timed_out = FALSE;
    guint timer = g_timeout_add(10000, on_timeout, &timed_out);
    while (sp_line_item_get_source_state(first) == SP_LINE_SOURCE_LOADING && !timed_out)
        g_main_context_iteration(NULL, TRUE);
    if (!timed_out)
        g_source_remove(timer);
    ASSERT_EQ_I(sp_line_item_get_source_state(first), SP_LINE_SOURCE_MISSING);
    ASSERT_CONTAINS(sp_line_item_get_source(first), "outside the run's working directory");
    gtk_window_destroy(GTK_WINDOW(win));
}

static void test_hot_line_first(void)
{
    SpViewerWindow *win = open_window(line_path);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    SpRunDocument *doc = sp_session_get_base(sp_viewer_window_get_session(win));
    const sp_run *run = sp_run_document_get_run(doc);
    SpLinesPage *page = lines_page(win);
    /* Nothing selected: the page shows the most sampled region. */
    int region = sp_run_document_find_region(doc, "hot_function");
    ASSERT(region >= 0);
    ASSERT_EQ_I(sp_lines_page_get_region(page), region);
    ASSERT(sp_lines_page_has_table(page));

    const char *file = NULL;
    int lineno = 0;
    guint64 hot = 0, total = 0;
    expected_hot_line(run, region, &file, &lineno, &hot, &total);
    ASSERT(hot > 0 && file != NULL);

    GListModel *rows = sp_lines_page_get_rows(page);
    guint n = g_list_model_get_n_items(rows);
    ASSERT(n >= 1);
    g_autoptr(SpLineItem) first = g_list_model_get_item(rows, 0);
    ASSERT_STREQ(sp_line_item_get_file(first), file);
    ASSERT_EQ_I(sp_line_item_get_lineno(first), lineno);
    ASSERT_EQ_U(sp_line_item_get_samples(first), hot);
    ASSERT_STREQ(sp_line_item_get_function(first), "hot_function");
    ASSERT(sp_line_item_get_fraction(first) > 0.5);
    ASSERT_NEAR(sp_line_item_get_fraction(first), (double)hot / (double)total, 1e-9);
    /* Ranked by samples, and the shares add up to the whole region. */
    double sum = 0;
    guint64 prev = G_MAXUINT64;
    for (guint i = 0; i < n; i++) {
        g_autoptr(SpLineItem) item = g_list_model_get_item(rows, i);
        ASSERT(sp_line_item_get_samples(item) <= prev);
        prev = sp_line_item_get_samples(item);
        sum += sp_line_item_get_fraction(item);
    }
    ASSERT_NEAR(sum, 1.0, 1e-9);

    /* The source file is read in a worker thread: the hot line's text. */
    gboolean timed_out = FALSE;
    guint timer = g_timeout_add(10000, on_timeout, &timed_out);
    while (sp_line_item_get_source_state(first) == SP_LINE_SOURCE_LOADING && !timed_out)
        g_main_context_iteration(NULL, TRUE);
    if (!timed_out)
        g_source_remove(timer);
    ASSERT_EQ_I(sp_line_item_get_source_state(first), SP_LINE_SOURCE_FOUND);
    ASSERT_CONTAINS(sp_line_item_get_source(first), "the hot line");

    /* Rank 0 of a one-rank run: the same ranking. */
    sp_lines_page_set_rank(page, 0);
    g_autoptr(SpLineItem) first0 = g_list_model_get_item(rows, 0);
    ASSERT(first0 != NULL);
    ASSERT_EQ_I(sp_line_item_get_lineno(first0), lineno);
    ASSERT_EQ_U(sp_line_item_get_samples(first0), hot);
    sp_lines_page_set_rank(page, -1);
    ASSERT_EQ_U(g_list_model_get_n_items(rows), n);
    gtk_window_destroy(GTK_WINDOW(win));
}

static void test_no_line_data(void)
{
    SpViewerWindow *win = open_window(plain_path);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    SpLinesPage *page = lines_page(win);
    ASSERT(!sp_lines_page_has_table(page));
    ASSERT_EQ_U(g_list_model_get_n_items(sp_lines_page_get_rows(page)), 0);
    gtk_window_destroy(GTK_WINDOW(win));
}

/* A line tracer's table (the Python module's): hits are executions, so the
 * share of a line is its share of the time, not of the hits. */
static void test_traced_lines(void)
{
    g_autofree char *dir = g_dir_make_tmp("sp-traced-XXXXXX", NULL);
    g_autofree char *path = g_build_filename(dir, "traced.h5", NULL);
    sp_options o;
    sp_options_init(&o);
    o.file_path = path;
    ASSERT_EQ_I(sp_setup(&o), 0);
    sp_region *r = sp_region_get("solve");
    sp_region_begin(r);
    sp_region_end(r);
    /* Many cheap hits against few expensive ones. */
    ASSERT_EQ_I(sp_lines_add(r, "solver.py", 10, "solve", 1000, 1000000), 0);
    ASSERT_EQ_I(sp_lines_add(r, "solver.py", 11, "solve", 10, 9000000), 0);
    ASSERT_EQ_I(sp_metadata_set("line_tracer", "python line tracer (PyEval_SetTrace)"), 0);
    ASSERT_EQ_I(sp_finalize(false, NULL), 0);

    SpViewerWindow *win = open_window(path);
    ASSERT_EQ_I(sp_viewer_window_get_state(win), SP_VIEWER_WINDOW_READY);
    SpLinesPage *page = lines_page(win);
    ASSERT(sp_lines_page_has_table(page));
    GListModel *rows = sp_lines_page_get_rows(page);
    ASSERT_EQ_U(g_list_model_get_n_items(rows), 2);
    for (guint i = 0; i < 2; i++) {
        g_autoptr(SpLineItem) item = g_list_model_get_item(rows, i);
        int line = sp_line_item_get_lineno(item);
        ASSERT_EQ_U(sp_line_item_get_samples(item), line == 10 ? 1000 : 10);
        ASSERT_NEAR(sp_line_item_get_fraction(item), line == 10 ? 0.1 : 0.9, 1e-9);
    }
    gtk_window_destroy(GTK_WINDOW(win));
    g_unlink(path);
    g_rmdir(dir);
}

static void test_no_export_on_lines(void)
{
    SpViewerWindow *win = open_window(line_path);
    gtk_window_present(GTK_WINDOW(win));
    ASSERT(sp_viewer_window_set_page(win, "lines"));
    /* No chart: Export is disabled, and activating it anyway does nothing. */
    ASSERT(sp_page_get_chart(SP_PAGE(lines_page(win))) == NULL);
    gtk_widget_activate_action(GTK_WIDGET(win), "win.export", NULL);
    for (int i = 0; i < 10; i++)
        g_main_context_iteration(NULL, FALSE);
    ASSERT_STREQ(sp_viewer_window_get_page(win), "lines");
    gtk_window_destroy(GTK_WINDOW(win));
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: test_viewer_lines LINE.h5 NO_LINES.h5\n");
        return 2;
    }
    line_path = argv[1];
    plain_path = argv[2];
    int gtk_argc = 1;
    char **gtk_argv = argv;
    gtk_test_init(&gtk_argc, &gtk_argv, NULL);
    sp_viewer_ensure_resources();
    sp_viewer_settings_set_enabled(FALSE);

    RUN(test_source_not_shown_outside_roots);
    sp_viewer_settings_add_source_dir(SP_EXAMPLES_DIR);
    RUN(test_hot_line_first);
    RUN(test_no_line_data);
    RUN(test_traced_lines);
    RUN(test_no_export_on_lines);
    return sp_test_summary();
}
