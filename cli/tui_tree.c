/* SPDX-License-Identifier: MIT */
/*
 * tui_tree.c - the merged call tree with expand / collapse: Enter or space
 * toggles a node (Enter on a leaf shows its region per rank), Right opens it (or steps to its first
 * child), Left closes it (or steps to its parent), + / - open or close everything.
 */
#ifdef SP_HAVE_NCURSES
#include <curses.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "sp_figures.h"
#include "tui.h"

int sp__tui_tree_init(sp__tui *t)
{
    size_t n = t->run->tree.nnodes;
    t->expanded = calloc(n ? n : 1, sizeof *t->expanded);
    t->visible = malloc((n ? n : 1) * sizeof *t->visible);
    if (!t->expanded || !t->visible)
        return -1;
    /* Start with the top-level regions open: two levels are visible. */
    for (size_t k = 0; k < n; k++)
        t->expanded[k] = t->run->tree.nodes[k].depth <= 1;
    return sp__tui_tree_rebuild(t);
}

/* Depth-first list of the nodes whose ancestors are all expanded. */
int sp__tui_tree_rebuild(sp__tui *t)
{
    const sp_tree *tr = &t->run->tree;
    t->nvisible = 0;
    if (tr->nnodes == 0)
        return 0;
    int32_t keep = (t->tl.cursor < t->nvisible && t->nvisible) ? t->visible[t->tl.cursor] : -1;
    int32_t *stack = malloc(tr->nnodes * sizeof *stack);
    if (!stack)
        return -1;
    size_t top = 0;
    /* Push children in reverse so the first child is visited first. */
    for (int32_t c = tr->nodes[0].first_child; c >= 0; c = tr->nodes[c].next_sibling)
        stack[top++] = c;
    for (size_t i = 0; i < top / 2; i++) {
        int32_t x = stack[i];
        stack[i] = stack[top - 1 - i];
        stack[top - 1 - i] = x;
    }
    while (top) {
        int32_t k = stack[--top];
        t->visible[t->nvisible++] = k;
        if (!t->expanded[k])
            continue;
        size_t first = top;
        for (int32_t c = tr->nodes[k].first_child; c >= 0; c = tr->nodes[c].next_sibling)
            stack[top++] = c;
        for (size_t i = 0; i < (top - first) / 2; i++) {
            int32_t x = stack[first + i];
            stack[first + i] = stack[top - 1 - i];
            stack[top - 1 - i] = x;
        }
    }
    free(stack);
    for (long i = 0; keep >= 0 && i < t->nvisible; i++)
        if (t->visible[i] == keep)
            t->tl.cursor = i;
    return 0;
}

void sp__tui_tree_draw(sp__tui *t, int y0, int y1)
{
    const sp_tree *tr = &t->run->tree;
    int h = y1 - y0 - 1;
    sp__tui_list_clamp(&t->tl, t->nvisible, h);
    double root = 0;
    if (tr->nnodes)
        for (int32_t c = tr->nodes[0].first_child; c >= 0; c = tr->nodes[c].next_sibling)
            root += tr->nodes[c].incl_s;
    int cw = 11;
    int namew = COLS - 4 * cw;
    if (namew < 16)
        namew = 16;
    attron(A_BOLD | A_UNDERLINE);
    sp__tui_put(t, y0, 0, " call path", (size_t)namew);
    bool per = t->fig && t->fig->two_columns;
    sp__tui_put(t, y0, namew, per ? " incl./rank" : "  inclusive", (size_t)cw);
    sp__tui_put(t, y0, namew + cw, per ? "   own/rank" : "        own", (size_t)cw);
    sp__tui_put(t, y0, namew + 2 * cw, per ? " calls/rank" : "      calls", (size_t)cw);
    sp__tui_put(t, y0, namew + 3 * cw, "     % time", (size_t)cw);
    attroff(A_BOLD | A_UNDERLINE);
    for (int row = 0; row < h; row++) {
        long i = t->tl.top + row;
        int y = y0 + 1 + row;
        move(y, 0);
        clrtoeol();
        if (i >= t->nvisible)
            continue;
        int32_t k = t->visible[i];
        const sp_tree_node *nd = &tr->nodes[k];
        bool cur = i == t->tl.cursor;
        if (cur)
            attron(A_REVERSE);
        const char *mark = nd->first_child < 0 ? "  "
                           : t->expanded[k]    ? (t->utf8 ? "\xe2\x96\xbe " : "- ")
                                               : (t->utf8 ? "\xe2\x96\xb8 " : "+ ");
        char line[1024];
        int indent = 1 + 2 * (nd->depth - 1);
        if (indent > namew / 2)
            indent = namew / 2;
        snprintf(line, sizeof line, "%*s%s%s", indent, "", mark, t->run->region_names[nd->region]);
        sp__tui_put(t, y, 0, line, (size_t)namew);
        char b[32], v[48], m[40];
        /* the rank rule: per rank (or thread) with several; ~ estimates */
        bool two = t->fig && t->fig->two_columns;
        sp_fig_kind kind = sp_region_fig_kind(t->run, nd->region);
        const char *mk = kind == SP_FIG_ESTIMATE ? "~" : kind == SP_FIG_LOWER_BOUND ? ">" : "";
        snprintf(m, sizeof m, "%s%s", mk,
                 sp__tui_dur(t, two ? t->fig->node_incl[k].mean_s : nd->incl_s, b, sizeof b));
        snprintf(v, sizeof v, "%10s ", m);
        sp__tui_put(t, y, namew, v, (size_t)cw);
        snprintf(m, sizeof m, "%s%s", mk,
                 sp__tui_dur(t, two ? t->fig->node_own[k].mean_s : nd->own_s, b, sizeof b));
        snprintf(v, sizeof v, "%10s ", m);
        sp__tui_put(t, y, namew + cw, v, (size_t)cw);
        if (two)
            sp_fig_format_calls_range(&t->fig->node_calls[k], kind, m, sizeof m);
        else
            sp_fig_format_calls(nd->calls, kind, m, sizeof m);
        snprintf(v, sizeof v, "%10s ", m);
        sp__tui_put(t, y, namew + 2 * cw, v, (size_t)cw);
        snprintf(v, sizeof v, "%9.1f%% ", root > 0 ? 100 * nd->incl_s / root : 0);
        sp__tui_put(t, y, namew + 3 * cw, v, (size_t)cw);
        if (cur) {
            attroff(A_REVERSE);
            t->region = nd->region;
        }
    }
    if (!t->nvisible)
        mvaddstr(y0 + 1, 1, "No calls recorded.");
}

static void set_all(sp__tui *t, bool open)
{
    for (size_t k = 0; k < t->run->tree.nnodes; k++)
        t->expanded[k] = open;
    sp__tui_tree_rebuild(t);
}

bool sp__tui_tree_key(sp__tui *t, int key, int h)
{
    if (!t->nvisible)
        return false;
    int32_t k = t->visible[t->tl.cursor];
    const sp_tree_node *nd = &t->run->tree.nodes[k];
    switch (key) {
    case '\n':
    case '\r':
    case KEY_ENTER:
    case ' ':
        if (nd->first_child >= 0) {
            t->expanded[k] = !t->expanded[k];
            sp__tui_tree_rebuild(t);
        } else if (key != ' ') { /* Enter on a leaf: the region per rank */
            t->region = nd->region;
            t->view = SP__TUI_RANKS;
        }
        return true;
    case KEY_RIGHT:
    case 'l':
        if (nd->first_child >= 0 && !t->expanded[k]) {
            t->expanded[k] = true;
            sp__tui_tree_rebuild(t);
        } else if (nd->first_child >= 0) {
            t->tl.cursor++;
        }
        sp__tui_list_clamp(&t->tl, t->nvisible, h - 1);
        return true;
    case KEY_LEFT:
    case 'h':
        if (nd->first_child >= 0 && t->expanded[k]) {
            t->expanded[k] = false;
            sp__tui_tree_rebuild(t);
        } else if (nd->parent > 0) {
            for (long i = t->tl.cursor; i >= 0; i--) {
                if (t->visible[i] == nd->parent) {
                    t->tl.cursor = i;
                    break;
                }
            }
        }
        sp__tui_list_clamp(&t->tl, t->nvisible, h - 1);
        return true;
    case '+':
        set_all(t, true);
        return true;
    case '-':
        set_all(t, false);
        return true;
    default:
        return sp__tui_list_key(&t->tl, key, t->nvisible, h - 1);
    }
}
#endif
