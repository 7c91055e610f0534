/* SPDX-License-Identifier: MIT */
/*
 * tui_app.c - the TUI's terminal setup, main loop, header (screen tabs),
 * footer (the keys of the current screen) and the keys every screen shares:
 * Tab / Shift-Tab and 1-4 switch screens, q (or Ctrl-C) quits. A resize
 * just redraws: ncurses updates LINES / COLS and every screen lays itself
 * out from them on each draw.
 */
#ifdef SP_HAVE_NCURSES
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "sp_error.h"
#include "tui.h"
#include "sp_figures.h"

#define MIN_COLS 40
#define MIN_LINES 8

static const char *const view_names[SP__TUI_NVIEWS] = {"Regions", "Call tree", "Ranks", "Info"};

static const char *footer(const sp__tui *t)
{
    if (t->view == SP__TUI_REGIONS && t->editing)
        return " type a filter  Enter apply  Esc cancel  Backspace delete";
    switch (t->view) {
    case SP__TUI_REGIONS:
        return t->utf8
                   ? " \xe2\x86\x91\xe2\x86\x93 move  / filter  t o c m x p n sort  Enter ranks  "
                     "Tab screen  q quit"
                   : " up/down move  / filter  t o c m x p n sort  Enter ranks  Tab screen  q quit";
    case SP__TUI_TREE:
        return t->utf8
                   ? " \xe2\x86\x91\xe2\x86\x93 move  Enter/space expand/collapse  "
                     "\xe2\x86\x92\xe2\x86\x90 "
                     "open/close  + - all  Tab screen  q quit"
                   : " up/down move  Enter/space expand/collapse  right/left open/close  + - all  "
                     "Tab screen  q quit";
    default:
        return t->utf8 ? " \xe2\x86\x91\xe2\x86\x93 scroll  Tab screen  1-4 jump  q quit"
                       : " up/down scroll  Tab screen  1-4 jump  q quit";
    }
}

static void draw_header(const sp__tui *t)
{
    attron(A_REVERSE);
    move(0, 0);
    for (int x = 0; x < COLS; x++)
        addch(' ');
    int x = 1;
    for (int v = 0; v < SP__TUI_NVIEWS && x < COLS - 4; v++) {
        char tab[64];
        snprintf(tab, sizeof tab, " %d %s ", v + 1, view_names[v]);
        if (v == (int)t->view)
            attroff(A_REVERSE), attron(A_BOLD);
        mvaddnstr(0, x, tab, COLS - x);
        if (v == (int)t->view)
            attroff(A_BOLD), attron(A_REVERSE);
        x += (int)strlen(tab) + 1;
    }
    if (x < COLS - 10) {
        char title[512];
        snprintf(title, sizeof title, " %s ", t->path);
        size_t room = (size_t)(COLS - x - 1);
        sp__tui_put(t, 0, x, title, room);
    }
    attroff(A_REVERSE);
}

static void draw(sp__tui *t)
{
    erase();
    if (COLS < MIN_COLS || LINES < MIN_LINES) {
        mvaddstr(0, 0, "Terminal too small for scope-profiler tui; q quits.");
        refresh();
        return;
    }
    draw_header(t);
    int y0 = 1, y1 = LINES - 1;
    switch (t->view) {
    case SP__TUI_REGIONS:
        sp__tui_regions_draw(t, y0, y1);
        break;
    case SP__TUI_TREE:
        sp__tui_tree_draw(t, y0, y1);
        break;
    case SP__TUI_RANKS:
        sp__tui_ranks_draw(t, y0, y1);
        break;
    default:
        sp__tui_info_draw(t, y0, y1);
        break;
    }
    attron(A_REVERSE);
    sp__tui_put(t, LINES - 1, 0, footer(t), (size_t)COLS);
    attroff(A_REVERSE);
    refresh();
}

static void handle_key(sp__tui *t, int key)
{
    int h = LINES - 2;
    bool editing = t->view == SP__TUI_REGIONS && t->editing;
    if (!editing) {
        if (key == 'q' || key == 'Q' || key == 3 /* Ctrl-C in raw mode */) {
            t->quit = true;
            return;
        }
        if (key == '\t') {
            t->view = (sp__tui_view)((t->view + 1) % SP__TUI_NVIEWS);
            return;
        }
        if (key == KEY_BTAB) {
            t->view = (sp__tui_view)((t->view + SP__TUI_NVIEWS - 1) % SP__TUI_NVIEWS);
            return;
        }
        if (key >= '1' && key < '1' + SP__TUI_NVIEWS) {
            t->view = (sp__tui_view)(key - '1');
            return;
        }
        if (key == 27 && t->view == SP__TUI_REGIONS && *t->filter) {
            t->filter[0] = '\0'; /* Esc clears the filter */
            sp__tui_regions_rebuild(t);
            return;
        }
    }
    switch (t->view) {
    case SP__TUI_REGIONS:
        sp__tui_regions_key(t, key, h);
        break;
    case SP__TUI_TREE:
        sp__tui_tree_key(t, key, h);
        break;
    case SP__TUI_RANKS:
        sp__tui_ranks_key(t, key, h);
        break;
    default:
        sp__tui_info_key(t, key, h);
        break;
    }
}

void sp__tui_free(sp__tui *t)
{
    free(t->rows);
    free(t->expanded);
    free(t->visible);
    sp_figures_free(t->fig);
}

int sp__tui_run(sp_run *run, const char *path)
{
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
        return sp__error(SP_EIO, "tui needs a terminal (standard input and output)");
    setlocale(LC_ALL, "");
    sp__tui t = {.run = run, .path = path, .region = -1, .sort = SP_SORT_TOTAL};
    const char *cs = nl_langinfo(CODESET);
    t.utf8 = cs && (strcasecmp(cs, "UTF-8") == 0 || strcasecmp(cs, "utf8") == 0);
    t.fig = sp_figures_new(run);
    if (!t.fig || sp__tui_regions_rebuild(&t) || sp__tui_tree_init(&t)) {
        sp__tui_free(&t);
        return sp__error(SP_ENOMEM, "out of memory");
    }
    if (t.nrows)
        t.region = t.rows[0];
    SCREEN *scr = newterm(NULL, stdout, stdin);
    if (!scr) {
        sp__tui_free(&t);
        const char *term = getenv("TERM");
        return sp__error(SP_EIO, "cannot use the terminal (TERM=%s)", term ? term : "unset");
    }
    set_term(scr);
    raw();
    noecho();
    keypad(stdscr, TRUE);
    set_escdelay(25);
    curs_set(0);
    while (!t.quit) {
        draw(&t);
        int key = getch();
        if (key == ERR)
            break; /* input closed */
        if (key != KEY_RESIZE)
            handle_key(&t, key);
    }
    endwin();
    delscreen(scr);
    sp__tui_free(&t);
    return 0;
}
#endif
