/* SPDX-License-Identifier: MIT */
/*
 * report_tree.c - the merged call tree as nested <details> elements (no
 * script needed to expand and collapse). The first two levels start open.
 * To keep the page light, at most MAX_NODES nodes and MAX_DEPTH levels are
 * written; the rest is counted in a note.
 */
#include "report.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdlib.h>

#include "sp_error.h"
#include "sp_figures.h"

#define MAX_NODES 3000
#define MAX_DEPTH 64
#define OPEN_LEVELS 2

typedef struct tree_ctx {
    const sp_run *run;
    const sp_figures *fg; /* per-rank figures (the rank rule) */
    FILE *f;
    size_t written, skipped;
    size_t *subtree; /* nodes per subtree, computed when a node is first skipped */
    bool oom;
    double root_s;
} tree_ctx;

static void node_line(tree_ctx *t, int32_t node)
{
    const sp_tree_node *nd = &t->run->tree.nodes[node];
    sp_fig_kind k = sp_region_fig_kind(t->run, nd->region);
    const char *mark = k == SP_FIG_ESTIMATE ? "~" : k == SP_FIG_LOWER_BOUND ? "&ge;" : "";
    char a[32], b[32], c[32], calls[48];
    fprintf(t->f, "<span class=\"name%s\"%s>", k == SP_FIG_ESTIMATE ? " est" : "",
            k == SP_FIG_ESTIMATE ? " title=\"estimated from call-stack samples\"" : "");
    sp__html(t->f, t->run->region_names[nd->region]);
    fputs("</span> ", t->f);
    double pct = t->root_s > 0 ? 100 * nd->incl_s / t->root_s : 0;
    if (t->fg->two_columns) {
        const sp_fig_calls *fc = &t->fg->node_calls[node];
        sp_fig_format_calls_range(fc, SP_FIG_EXACT, calls, sizeof calls);
        fprintf(t->f,
                "<span class=\"t\">%s%s per %s</span> <span class=\"own\">max %s%s</span> "
                "<span class=\"pct\">%.1f%%</span> <span class=\"calls\">%s%s call%s per %s</span> "
                "<span class=\"own\">own %s%s</span>",
                mark, sp__fmt_dur(t->fg->node_incl[node].mean_s, a, sizeof a),
                t->fg->nranks > 1 ? "rank" : "thread", mark,
                sp__fmt_dur(t->fg->node_incl[node].max_s, c, sizeof c), pct, mark, calls,
                fc->max == 1 ? "" : "s", "rank", mark,
                sp__fmt_dur(t->fg->node_own[node].mean_s, b, sizeof b));
        return;
    }
    fprintf(t->f,
            "<span class=\"t\">%s%s</span> <span class=\"pct\">%.1f%%</span> "
            "<span class=\"calls\">%s%" PRIu64 " call%s</span> <span class=\"own\">own %s%s</span>",
            mark, sp__fmt_dur(nd->incl_s, a, sizeof a), pct, mark, nd->calls,
            nd->calls == 1 ? "" : "s", mark, sp__fmt_dur(nd->own_s, b, sizeof b));
}

/* Write node's line; true when it was opened as a <details> whose children
 * come next (else it is a leaf, or skipped with its subtree). */
static bool write_node(tree_ctx *t, int32_t node)
{
    const sp_tree_node *nd = &t->run->tree.nodes[node];
    if (t->written >= MAX_NODES || nd->depth > MAX_DEPTH) {
        if (!t->subtree && !t->oom && !(t->subtree = sp_tree_subtree_sizes(&t->run->tree)))
            t->oom = true;
        t->skipped += t->subtree ? t->subtree[node] : 1;
        return false;
    }
    t->written++;
    if (nd->first_child < 0) {
        fputs("<div class=\"leaf\">", t->f);
        node_line(t, node);
        fputs("</div>\n", t->f);
        return false;
    }
    fprintf(t->f, "<details%s><summary>", nd->depth <= OPEN_LEVELS ? " open" : "");
    node_line(t, node);
    fputs("</summary>\n", t->f);
    return true;
}

/* Every node in depth-first order, without recursion (2^20 nested calls
 * overflowed the stack): down to the first child of an opened node, else
 * to the next sibling, climbing (and closing each <details>) when a node
 * is its parent's last child. */
static void write_tree(tree_ctx *t)
{
    const sp_tree_node *nodes = t->run->tree.nodes;
    int32_t node = nodes[0].first_child;
    while (node > 0) {
        if (write_node(t, node)) {
            node = nodes[node].first_child;
            continue;
        }
        while (node > 0 && nodes[node].next_sibling < 0) {
            node = nodes[node].parent;
            if (node > 0)
                fputs("</details>\n", t->f);
        }
        if (node > 0)
            node = nodes[node].next_sibling;
    }
}

int sp__report_tree(const sp__report *r, FILE *f)
{
    const sp_run *run = r->run;
    sp_figures *own = NULL, *fg = sp__report_figures(r, &own);
    if (!fg)
        return SP_ENOMEM;
    tree_ctx t = {.run = run, .fg = fg, .f = f};
    if (fg->two_columns)
        fprintf(f,
                "<section id=\"calltree\"><h2>Call tree</h2>\n"
                "<p class=\"hint\">Merged over ranks and threads by call path: inclusive time "
                "per %s (the mean over %zu %s) and the max, share of all top-level time, calls "
                "per rank, own time per %s. Click a row to expand or collapse.</p>\n"
                "<div class=\"tree\">\n",
                fg->nranks > 1 ? "rank" : "thread", fg->nranks > 1 ? fg->nranks : 1,
                fg->nranks > 1 ? "ranks" : "rank's threads", fg->nranks > 1 ? "rank" : "thread");
    else
        fputs("<section id=\"calltree\"><h2>Call tree</h2>\n"
              "<p class=\"hint\">By call path: inclusive time, share of all top-level time, "
              "calls, own time. Click a row to expand or collapse.</p>\n"
              "<div class=\"tree\">\n",
              f);
    if (run->tree.nnodes > 0) {
        for (int32_t c = run->tree.nodes[0].first_child; c >= 0;
             c = run->tree.nodes[c].next_sibling)
            t.root_s += run->tree.nodes[c].incl_s;
        write_tree(&t);
    }
    if (!t.written)
        fputs("<p class=\"note\">No calls recorded.</p>\n", f);
    if (t.skipped)
        fprintf(f,
                "<p class=\"note\">&hellip; %zu more nodes not shown (the page shows at most "
                "%d nodes and %d levels).</p>\n",
                t.skipped, MAX_NODES, MAX_DEPTH);
    fputs("</div></section>\n", f);
    sp_figures_free(own);
    free(t.subtree);
    return t.oom ? sp__error(SP_ENOMEM, "out of memory writing the call tree") : 0;
}
