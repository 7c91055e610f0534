/* SPDX-License-Identifier: MIT */
/* tui_ranks.c - the selected region per rank: calls, total, mean, min, max,
 * own and a bar of the total against the slowest rank; the imbalance on top. */
#ifdef SP_HAVE_NCURSES
#include <curses.h>
#include <inttypes.h>
#include <string.h>

#include "sp_diff.h"
#include "tui.h"

void sp__tui_ranks_draw(sp__tui *t, int y0, int y1)
{
    const sp_run *run = t->run;
    if (t->region < 0 || (size_t)t->region >= run->nregions) {
        mvaddstr(y0 + 1, 1, "No region selected (pick one on the Regions or Call tree screen).");
        return;
    }
    const sp_run_region *reg = &run->regions[t->region];
    char title[512], b[32];
    snprintf(title, sizeof title,
             " %s: %zu rank%s, imbalance %.2f (max / mean of the per-rank totals)", reg->name,
             run->nranks, run->nranks == 1 ? "" : "s", sp_region_imbalance(run, t->region));
    attron(A_BOLD);
    sp__tui_put(t, y0, 0, title, (size_t)COLS);
    attroff(A_BOLD);
    int h = y1 - y0 - 2;
    sp__tui_list_clamp(&t->kl, (long)run->nranks, h);
    static const char *const heads[] = {"  rank",     "     calls", "     total", "      mean",
                                        "       min", "       max", "       own"};
    int cw = 10;
    attron(A_BOLD | A_UNDERLINE);
    sp__tui_put(t, y0 + 1, 0, heads[0], 7);
    for (int c = 1; c < 7; c++)
        sp__tui_put(t, y0 + 1, 7 + (c - 1) * cw, heads[c], (size_t)cw);
    int barx = 7 + 6 * cw + 2, barw = COLS - barx - 1;
    if (barw > 0)
        sp__tui_put(t, y0 + 1, barx - 2, "  total", (size_t)barw + 2);
    attroff(A_BOLD | A_UNDERLINE);
    double max = 0;
    for (size_t r = 0; r < run->nranks; r++)
        max = reg->per_rank[r].total_s > max ? reg->per_rank[r].total_s : max;
    for (int row = 0; row < h; row++) {
        long r = t->kl.top + row;
        int y = y0 + 2 + row;
        move(y, 0);
        clrtoeol();
        if (r >= (long)run->nranks)
            continue;
        const sp_stats *st = &reg->per_rank[r];
        bool cur = r == t->kl.cursor;
        if (cur)
            attron(A_REVERSE);
        char v[64];
        snprintf(v, sizeof v, "%6ld ", r);
        sp__tui_put(t, y, 0, v, 7);
        snprintf(v, sizeof v, "%9" PRIu64 " ", st->calls);
        sp__tui_put(t, y, 7, v, (size_t)cw);
        double d[] = {st->total_s, st->mean_s, st->min_s, st->max_s, st->own_s};
        for (int c = 0; c < 5; c++) {
            snprintf(v, sizeof v, "%9s ", st->calls ? sp__tui_dur(t, d[c], b, sizeof b) : "-");
            sp__tui_put(t, y, 7 + (c + 1) * cw, v, (size_t)cw);
        }
        if (cur)
            attroff(A_REVERSE);
        if (barw > 0) {
            int len = max > 0 ? (int)(st->total_s / max * barw + 0.5) : 0;
            move(y, barx);
            for (int i = 0; i < len; i++)
                addstr(t->utf8 ? "\xe2\x96\x88" : "#");
        }
    }
}

bool sp__tui_ranks_key(sp__tui *t, int key, int h)
{
    return sp__tui_list_key(&t->kl, key, (long)t->run->nranks, h - 2);
}
#endif
