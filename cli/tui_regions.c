/* SPDX-License-Identifier: MIT */
/*
 * tui_regions.c - the region table: one row per region with calls, sorted
 * by a key (t total, o own, c calls, m mean, x max, p p95, n name) and
 * filtered by a case-insensitive substring typed after '/'.
 */
#ifdef SP_HAVE_NCURSES
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "sp_diff.h"
#include "sp_figures.h"
#include "tui.h"

static bool matches(const char *name, const char *filter)
{
    if (!*filter)
        return true;
    size_t n = strlen(filter);
    for (const char *p = name; *p; p++)
        if (strncasecmp(p, filter, n) == 0)
            return true;
    return false;
}

int sp__tui_regions_rebuild(sp__tui *t)
{
    int32_t *ids = NULL;
    long n = sp_run_sorted_regions(t->run, t->sort, NULL, &ids);
    if (n < 0)
        return -1;
    long k = 0;
    for (long i = 0; i < n; i++)
        if (t->run->regions[ids[i]].all.calls && matches(t->run->region_names[ids[i]], t->filter))
            ids[k++] = ids[i];
    free(t->rows);
    t->rows = ids;
    t->nrows = k;
    /* Keep the selected region under the cursor when it is still listed. */
    for (long i = 0; i < k; i++)
        if (ids[i] == t->region)
            t->rl.cursor = i;
    if (t->rl.cursor >= k)
        t->rl.cursor = k ? k - 1 : 0;
    return 0;
}

static const char *sort_name(sp_sort_key k)
{
    static const char *const names[] = {"total", "own", "calls", "mean", "min",
                                        "max",   "std", "p95",   "name"};
    return (unsigned)k < sizeof names / sizeof *names ? names[k] : "?";
}

void sp__tui_regions_draw(sp__tui *t, int y0, int y1)
{
    int h = y1 - y0 - 2; /* heading and status line */
    sp__tui_list_clamp(&t->rl, t->nrows, h);
    /* Columns: name, calls, total, own, mean, max, p95, imbalance. */
    /* Several ranks (or threads): calls, total and own per rank (the rank
     * rule, sp_figures.h); mean, max and p95 of one call. */
    static const char *const heads1[] = {"calls", "total", "own", "mean", "max", "p95", "imbal."};
    static const char *const heads2[] = {"calls/rk", "total/rk", "own/rk", "call mean",
                                         "call max", "call p95", "imbal."};
    bool two = t->fig && t->fig->two_columns;
    const char *const *heads = two ? heads2 : heads1;
    int cw = 10, ncols = (COLS - 16) / cw; /* drop columns from the right when narrow */
    ncols = ncols < 1 ? 1 : ncols > 7 ? 7 : ncols;
    int namew = COLS - 2 - cw * ncols;
    if (namew < 14)
        namew = 14;
    attron(A_BOLD | A_UNDERLINE);
    sp__tui_put(t, y0, 0, " region", (size_t)namew + 1);
    for (int c = 0; c < ncols; c++) {
        char hb[16];
        bool sorted = (c == 0 && t->sort == SP_SORT_CALLS) ||
                      (c == 1 && t->sort == SP_SORT_TOTAL) || (c == 2 && t->sort == SP_SORT_OWN) ||
                      (c == 3 && t->sort == SP_SORT_MEAN) || (c == 4 && t->sort == SP_SORT_MAX) ||
                      (c == 5 && t->sort == SP_SORT_P95);
        snprintf(hb, sizeof hb, "%9s%s", heads[c], sorted ? (t->utf8 ? "\xe2\x96\xbc" : "v") : " ");
        sp__tui_put(t, y0, namew + 1 + c * cw, hb, (size_t)cw);
    }
    attroff(A_BOLD | A_UNDERLINE);
    for (int row = 0; row < h; row++) {
        long i = t->rl.top + row;
        int y = y0 + 1 + row;
        move(y, 0);
        clrtoeol();
        if (i >= t->nrows)
            continue;
        int32_t g = t->rows[i];
        const sp_stats *st = &t->run->regions[g].all;
        bool cur = i == t->rl.cursor;
        if (cur)
            attron(A_REVERSE);
        char name[512];
        snprintf(name, sizeof name, " %s", t->run->region_names[g]);
        sp__tui_put(t, y, 0, name, (size_t)namew + 1);
        char v[7][48], b[32], cb[32];
        sp_fig_kind kind = sp_region_fig_kind(t->run, g);
        const char *mk = kind == SP_FIG_ESTIMATE ? "~" : kind == SP_FIG_LOWER_BOUND ? ">" : "";
        if (two)
            sp_fig_format_calls_range(&t->fig->region_calls[g], kind, cb, sizeof cb);
        else
            sp_fig_format_calls(st->calls, kind, cb, sizeof cb);
        snprintf(v[0], sizeof v[0], "%9s ", cb);
        double d[] = {two ? t->fig->region_total[g].mean_s : st->total_s,
                      two ? t->fig->region_own[g].mean_s : st->own_s, st->mean_s, st->max_s,
                      st->p95_s};
        for (int c = 0; c < 5; c++) {
            if (kind == SP_FIG_ESTIMATE && c >= 3) { /* resolution: the sampling period */
                snprintf(v[c + 1], sizeof v[c + 1], "%9s ", "-");
                continue;
            }
            char m[40];
            snprintf(m, sizeof m, "%s%s", c < 3 ? mk : "", sp__tui_dur(t, d[c], b, sizeof b));
            snprintf(v[c + 1], sizeof v[c + 1], "%9s ", m);
        }
        snprintf(v[6], sizeof v[6], "%9.2f ", sp_region_imbalance(t->run, g));
        for (int c = 0; c < ncols; c++)
            sp__tui_put(t, y, namew + 1 + c * cw, v[c], (size_t)cw);
        if (cur) {
            attroff(A_REVERSE);
            t->region = g;
        }
    }
    char status[256];
    if (t->editing)
        snprintf(status, sizeof status, " filter: %s_", t->edit);
    else
        snprintf(status, sizeof status, " %ld of %zu regions  sorted by %s%s%s%s", t->nrows,
                 t->run->nregions, sort_name(t->sort), *t->filter ? "  filter: \"" : "", t->filter,
                 *t->filter ? "\"" : "");
    attron(A_DIM);
    sp__tui_put(t, y1 - 1, 0, status, (size_t)COLS);
    attroff(A_DIM);
}

/* Typing a filter: printable bytes append, Backspace deletes, Enter
 * applies, Escape cancels. */
static bool edit_key(sp__tui *t, int key)
{
    size_t n = strlen(t->edit);
    if (key == '\n' || key == KEY_ENTER || key == '\r') {
        snprintf(t->filter, sizeof t->filter, "%s", t->edit);
        t->editing = false;
        t->rl.cursor = 0;
        sp__tui_regions_rebuild(t);
    } else if (key == 27) {
        t->editing = false;
    } else if (key == KEY_BACKSPACE || key == 127 || key == 8) {
        while (n > 0 && ((unsigned char)t->edit[n - 1] & 0xC0) == 0x80)
            n--; /* a whole UTF-8 sequence */
        if (n > 0)
            t->edit[n - 1] = '\0';
        else
            t->edit[0] = '\0';
    } else if (key >= 0x20 && key < 0x100 && key != 0x7f && n + 1 < sizeof t->edit) {
        t->edit[n] = (char)key;
        t->edit[n + 1] = '\0';
    }
    return true;
}

bool sp__tui_regions_key(sp__tui *t, int key, int h)
{
    if (t->editing)
        return edit_key(t, key);
    sp_sort_key k;
    switch (key) {
    case '/':
        t->editing = true;
        snprintf(t->edit, sizeof t->edit, "%s", t->filter);
        return true;
    case 't':
        k = SP_SORT_TOTAL;
        break;
    case 'o':
        k = SP_SORT_OWN;
        break;
    case 'c':
        k = SP_SORT_CALLS;
        break;
    case 'm':
        k = SP_SORT_MEAN;
        break;
    case 'x':
        k = SP_SORT_MAX;
        break;
    case 'p':
        k = SP_SORT_P95;
        break;
    case 'n':
        k = SP_SORT_NAME;
        break;
    case '\n':
    case '\r':
    case KEY_ENTER:
        if (t->nrows) {
            t->region = t->rows[t->rl.cursor];
            t->view = SP__TUI_RANKS;
        }
        return true;
    default:
        return sp__tui_list_key(&t->rl, key, t->nrows, h - 2);
    }
    t->sort = k;
    sp__tui_regions_rebuild(t);
    return true;
}
#endif
