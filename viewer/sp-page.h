/* SPDX-License-Identifier: MIT */
/*
 * sp-page.h - what the window asks of every page of its stack: take the
 * session (runs + selection), name the chart to export, focus its search.
 */
#ifndef SP_PAGE_H
#define SP_PAGE_H

#include "sp-chart.h"
#include "sp-session.h"

G_BEGIN_DECLS

#define SP_TYPE_PAGE (sp_page_get_type())
G_DECLARE_INTERFACE(SpPage, sp_page, SP, PAGE, GtkWidget)

struct _SpPageInterface {
    GTypeInterface parent_iface;

    /* Show the runs of session (called once, before the runs are loaded;
     * pages follow session's notify signals from then on). */
    void (*set_session)(SpPage *self, SpSession *session);
    /* The chart "Export Chart…" writes: the one the user last clicked, or the
     * page's main chart. NULL when the page has none. */
    SpChart *(*get_chart)(SpPage *self);
    /* Move the keyboard focus to the page's search entry; FALSE if none. */
    gboolean (*focus_search)(SpPage *self);
};

void sp_page_set_session(SpPage *self, SpSession *session);
SpChart *sp_page_get_chart(SpPage *self);
gboolean sp_page_focus_search(SpPage *self);

/* Make chart the page's "current chart" when it is clicked: pages call this
 * for each of their charts and keep the pointer in *slot (charts are
 * children of the page, so they live as long as the slot). */
void sp_page_track_chart(GtkWidget *chart, SpChart **slot);

/* Unparent every child of widget: a page's dispose calls it after
 * gtk_widget_dispose_template(), which only clears the bound children. */
void sp_page_unparent_children(GtkWidget *widget);

/* Refreshing a page when it is first shown, not when runs arrive: loading
 * two runs of 10^6 regions for the Compare page rebuilt every hidden page
 * too (call tree roots, Regions top-k, ...), about 1 s of the main thread.
 * Only a page that shows no run yet waits (so a hidden page never keeps an
 * earlier run alive); once filled, it refreshes as runs arrive. A page
 * calls sp_page_lazy_skip() first thing in its refresh (TRUE: return, the
 * refresh is owed), and sp_page_lazy_owed() when it is mapped and in every
 * public getter (TRUE: refresh now), so nothing outside sees a stale page. */
typedef struct {
    gboolean owed;   /* a refresh was skipped */
    gboolean filled; /* refreshed once: never skip again */
} SpPageLazy;

gboolean sp_page_lazy_skip(GtkWidget *page, SpPageLazy *lazy);
gboolean sp_page_lazy_owed(SpPageLazy *lazy);

G_END_DECLS

#endif
