/* SPDX-License-Identifier: MIT */
/* test_plots_export.c - PNG / SVG / PDF files, format names, atomic writes. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plot_fixture.h"
#include "sp_test.h"

static char g_dir[4096];

static void make_dir(void)
{
    snprintf(g_dir, sizeof g_dir, "%s/export-%d", SP_TEST_BINARY_DIR, (int)getpid());
    mkdir(g_dir, 0755);
}

/* Entries in g_dir other than . and .. */
static int dir_entries(void)
{
    DIR *d = opendir(g_dir);
    int n = 0;
    struct dirent *e;
    while (d && (e = readdir(d)))
        n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
    if (d)
        closedir(d);
    return n;
}

static long read_head(const char *path, char *buf, size_t n)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return -1;
    size_t got = fread(buf, 1, n, f);
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fclose(f);
    buf[got < n ? got : n - 1] = 0;
    return size;
}

static int draw_bars(cairo_t *cr, double w, double h, void *data)
{
    const sp_run *run = data;
    return sp_plot_rank_bars(cr, w, h, run, sp_run_region_id(run, "solve"), SP_RANK_TOTAL, NULL);
}

static int draw_fail(cairo_t *cr, double w, double h, void *data)
{
    cairo_paint(cr);
    return SP_ENOMEM;
}

static void test_formats(void)
{
    sp_plot_format f;
    ASSERT_EQ_I(sp_plot_format_parse("png", &f), 0);
    ASSERT_EQ_I(f, SP_PLOT_PNG);
    ASSERT_EQ_I(sp_plot_format_parse("SVG", &f), 0);
    ASSERT_EQ_I(f, SP_PLOT_SVG);
    ASSERT_EQ_I(sp_plot_format_parse("pdf", &f), 0);
    ASSERT_EQ_I(f, SP_PLOT_PDF);
    ASSERT(sp_plot_format_parse("jpg", &f) == SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "'jpg'");
    ASSERT(sp_plot_format_parse(NULL, &f) == SP_EINVAL);
    ASSERT_EQ_I(sp_plot_format_from_path("out/chart.PNG", &f), 0);
    ASSERT_EQ_I(f, SP_PLOT_PNG);
    ASSERT_EQ_I(sp_plot_format_from_path("a.b.svg", &f), 0);
    ASSERT_EQ_I(f, SP_PLOT_SVG);
    ASSERT_EQ_I(sp_plot_format_from_path("report.pdf", &f), 0);
    ASSERT_EQ_I(f, SP_PLOT_PDF);
    ASSERT(sp_plot_format_from_path("noext", &f) == SP_EINVAL);
    ASSERT_CONTAINS(sp_last_error(), "noext");
    ASSERT(sp_plot_format_from_path("dir.png/file", &f) == SP_EINVAL);
    ASSERT(sp_plot_format_from_path("x.jpeg", &f) == SP_EINVAL);
    ASSERT_STREQ(sp_plot_format_name(SP_PLOT_SVG), "svg");
    ASSERT_STREQ(sp_plot_format_name((sp_plot_format)7), "?");
}

static void test_export_files(void)
{
    sp_run *run = fixture_mock_run(3, 5, 0.3, true);
    ASSERT(run);
    static const struct {
        sp_plot_format fmt;
        const char *name, *magic;
    } cases[] = {{SP_PLOT_PNG, "bars.png", "\x89PNG\r\n\x1a\n"},
                 {SP_PLOT_SVG, "bars.svg", NULL},
                 {SP_PLOT_PDF, "bars.pdf", "%PDF-"}};
    for (size_t i = 0; i < 3; i++) {
        char path[4200], head[512];
        snprintf(path, sizeof path, "%s/%s", g_dir, cases[i].name);
        ASSERT_EQ_I(sp_plot_export(path, cases[i].fmt, 640, 400, draw_bars, run), 0);
        long size = read_head(path, head, sizeof head);
        ASSERT_MSG(size > 1000, "%s: %ld bytes", path, size);
        if (cases[i].magic)
            ASSERT(memcmp(head, cases[i].magic, strlen(cases[i].magic)) == 0);
        else
            ASSERT_CONTAINS(head, "<svg");
        struct stat sb;
        ASSERT_EQ_I(stat(path, &sb), 0);
        ASSERT(sb.st_mode & S_IRUSR);
    }
    /* PNG size follows w x h. */
    char path[4200];
    snprintf(path, sizeof path, "%s/bars.png", g_dir);
    cairo_surface_t *img = cairo_image_surface_create_from_png(path);
    ASSERT_EQ_I(cairo_surface_status(img), CAIRO_STATUS_SUCCESS);
    ASSERT_EQ_I(cairo_image_surface_get_width(img), 640);
    ASSERT_EQ_I(cairo_image_surface_get_height(img), 400);
    cairo_surface_destroy(img);
    /* Nothing else (no temporary files) is left in the directory. */
    ASSERT_EQ_I(dir_entries(), 3);
    sp_run_free(run);
}

static void test_export_errors(void)
{
    char path[4200], head[64];
    /* A failing callback: its code comes back, the old file is untouched,
     * no temporary file remains. */
    snprintf(path, sizeof path, "%s/bars.png", g_dir);
    long before = read_head(path, head, sizeof head);
    ASSERT(before > 0);
    ASSERT(sp_plot_export(path, SP_PLOT_PNG, 100, 100, draw_fail, NULL) == SP_ENOMEM);
    ASSERT_EQ_I(read_head(path, head, sizeof head), before);
    ASSERT_EQ_I(dir_entries(), 3);
    /* A directory that does not exist. */
    snprintf(path, sizeof path, "%s/missing/x.svg", g_dir);
    ASSERT(sp_plot_export(path, SP_PLOT_SVG, 100, 100, draw_fail, NULL) == SP_EIO);
    ASSERT_CONTAINS(sp_last_error(), "missing");
    /* Bad arguments. */
    ASSERT(sp_plot_export(NULL, SP_PLOT_PNG, 100, 100, draw_fail, NULL) == SP_EINVAL);
    ASSERT(sp_plot_export(path, SP_PLOT_PNG, 0, 100, draw_fail, NULL) == SP_EINVAL);
    ASSERT(sp_plot_export(path, SP_PLOT_PNG, 100, 100, NULL, NULL) == SP_EINVAL);
    ASSERT(sp_plot_export(path, (sp_plot_format)9, 100, 100, draw_fail, NULL) == SP_EINVAL);
}

static void cleanup(void)
{
    const char *names[] = {"bars.png", "bars.svg", "bars.pdf"};
    char path[4200];
    for (int i = 0; i < 3; i++) {
        snprintf(path, sizeof path, "%s/%s", g_dir, names[i]);
        unlink(path);
    }
    rmdir(g_dir);
}

int main(void)
{
    make_dir();
    RUN(test_formats);
    RUN(test_export_files);
    RUN(test_export_errors);
    cleanup();
    return sp_test_summary();
}
