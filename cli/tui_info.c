/* SPDX-License-Identifier: MIT */
/* tui_info.c - the run's facts and metadata, scrollable. */
#ifdef SP_HAVE_NCURSES
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sp_analysis_internal.h"
#include "tui.h"

/* The lines of the screen, built on every draw (few and cheap). */
static long info_lines(const sp__tui *t, char lines[][512], long max)
{
    const sp_run *run = t->run;
    long n = 0;
    size_t calls = (size_t)sp_run_total_calls(run), threads = 0;
    for (size_t r = 0; r < run->nranks; r++)
        threads += run->ranks[r].nthreads;
    int64_t t0 = 0, t1 = 0;
    char b[32];
    bool span = sp_run_time_span(run, &t0, &t1) == 0;
#define LINE(...)                                                                                  \
    if (n < max)                                                                                   \
    snprintf(lines[n++], 512, __VA_ARGS__)
    LINE("file            %s", t->path);
    LINE("layout          %s (schema %d)", run->layout ? run->layout : "-", run->schema_version);
    LINE("ranks           %zu", run->nranks);
    LINE("threads         %zu", threads);
    LINE("regions         %zu", run->nregions);
    LINE("calls           %zu", calls);
    LINE("time span       %s", span ? sp__tui_dur(t, (double)(t1 - t0) * 1e-9, b, sizeof b) : "-");
    LINE("%s", "");
    LINE("%s", "metadata:");
    size_t kw = 0;
    for (size_t i = 0; i < run->meta.n; i++)
        kw = strlen(run->meta.items[i].key) > kw ? strlen(run->meta.items[i].key) : kw;
    for (size_t i = 0; i < run->meta.n; i++)
        LINE("  %-*s  %s", (int)kw, run->meta.items[i].key, run->meta.items[i].value);
    if (!run->meta.n)
        LINE("%s", "  (none)");
#undef LINE
    return n;
}

#define MAX_LINES 4096

void sp__tui_info_draw(sp__tui *t, int y0, int y1)
{
    char(*lines)[512] = malloc(MAX_LINES * sizeof *lines);
    if (!lines)
        return;
    long n = info_lines(t, lines, MAX_LINES);
    int h = y1 - y0;
    if (t->il.top > n - h)
        t->il.top = n - h;
    if (t->il.top < 0)
        t->il.top = 0;
    for (int row = 0; row < h; row++) {
        move(y0 + row, 0);
        clrtoeol();
        long i = t->il.top + row;
        if (i < n) {
            char line[520];
            snprintf(line, sizeof line, " %s", lines[i]);
            sp__tui_put(t, y0 + row, 0, line, (size_t)COLS);
        }
    }
    free(lines);
}

bool sp__tui_info_key(sp__tui *t, int key, int h)
{
    switch (key) {
    case KEY_UP:
    case 'k':
        t->il.top--;
        break;
    case KEY_DOWN:
    case 'j':
        t->il.top++;
        break;
    case KEY_PPAGE:
        t->il.top -= h;
        break;
    case KEY_NPAGE:
        t->il.top += h;
        break;
    case KEY_HOME:
    case 'g':
        t->il.top = 0;
        break;
    default:
        return false;
    }
    if (t->il.top < 0)
        t->il.top = 0;
    return true;
}
#endif
