/* SPDX-License-Identifier: MIT */
/*
 * tui.h - the state of `scope-profiler tui` shared by its screens:
 * tui_app.c (loop, header, footer, keys common to all screens),
 * tui_regions.c, tui_tree.c, tui_ranks.c, tui_info.c (one screen each) and
 * tui_text.c (text fitting for UTF-8 or plain ASCII terminals).
 */
#ifndef SP_TUI_H
#define SP_TUI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sp_analysis.h"
#include "sp_model.h"

typedef enum sp__tui_view {
    SP__TUI_REGIONS = 0,
    SP__TUI_TREE,
    SP__TUI_RANKS,
    SP__TUI_INFO,
    SP__TUI_NVIEWS
} sp__tui_view;

/* A scrolled list: cursor row and first visible row. */
typedef struct sp__tui_list {
    long cursor, top;
} sp__tui_list;

typedef struct sp__tui {
    sp_run *run;
    struct sp_figures *fig; /* the rank rule's figures (sp_figures.h) */
    const char *path;
    bool utf8; /* the terminal's locale is UTF-8 */
    sp__tui_view view;
    int32_t region; /* selected region (shared by the screens), -1 none */
    bool quit;

    /* Regions screen */
    sp_sort_key sort;
    char filter[128]; /* case-insensitive substring; "" = all */
    bool editing;     /* typing a filter after '/' */
    char edit[128];
    int32_t *rows; /* region ids shown, in order */
    long nrows;
    sp__tui_list rl;

    /* Call tree screen */
    bool *expanded;   /* per tree node */
    int32_t *visible; /* nodes shown, depth-first */
    long nvisible;
    sp__tui_list tl;

    /* Ranks and info screens */
    sp__tui_list kl, il;
} sp__tui;

/* ---- tui_text.c ---- */

/* Copy src into dst (size n) for display in at most cols columns: control
 * characters become '?', non-ASCII too on a non-UTF-8 terminal, and longer
 * text ends in "…" (or "~"). Returns the display width. */
size_t sp__tui_fit(const sp__tui *t, char *dst, size_t n, const char *src, size_t cols);

/* Write s at (y, x) padded or cut to exactly cols columns. */
void sp__tui_put(const sp__tui *t, int y, int x, const char *s, size_t cols);

/* A duration with 3 significant digits and a unit (µs or us). */
char *sp__tui_dur(const sp__tui *t, double seconds, char *buf, size_t n);

/* Keep l's cursor in [0, n) and visible in a window of h rows. */
void sp__tui_list_clamp(sp__tui_list *l, long n, long h);

/* Move l by a key (arrows, page up/down, home/end). True if the key was one. */
bool sp__tui_list_key(sp__tui_list *l, int key, long n, long h);

/* ---- screens: draw in rows [y0, y1), handle a key (true if used) ---- */
int sp__tui_regions_rebuild(sp__tui *t);
void sp__tui_regions_draw(sp__tui *t, int y0, int y1);
bool sp__tui_regions_key(sp__tui *t, int key, int h);

int sp__tui_tree_init(sp__tui *t);
int sp__tui_tree_rebuild(sp__tui *t);
void sp__tui_tree_draw(sp__tui *t, int y0, int y1);
bool sp__tui_tree_key(sp__tui *t, int key, int h);

void sp__tui_ranks_draw(sp__tui *t, int y0, int y1);
bool sp__tui_ranks_key(sp__tui *t, int key, int h);

void sp__tui_info_draw(sp__tui *t, int y0, int y1);
bool sp__tui_info_key(sp__tui *t, int key, int h);

/* ---- tui_app.c ---- */

/* Run the browser until q. 0, or SP_EIO when the terminal cannot be set
 * up (not a terminal, unknown TERM), SP_ENOMEM. */
int sp__tui_run(sp_run *run, const char *path);
void sp__tui_free(sp__tui *t);

#endif
