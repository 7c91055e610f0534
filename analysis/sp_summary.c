/* SPDX-License-Identifier: MIT */
/*
 * sp_summary.c - the seed's summary: a boxed call tree and the Info panel.
 *
 *   ╭──────────────────────────────────────────╮
 *   │ region                     total [s]     │
 *   ├──────────────────────────────────────────┤
 *   │ entry                      0.002202      │
 *   │ └─ (own)                      0.000022   │
 *   │ └─ __main__.middle            0.002180   │
 *   │ │ └─ (own)                      0.000025 │
 *   │ │ └─ __main__.leaf (2x)         0.002155 │
 *   ╰──────────────────────────────────────────╯
 *
 * One row per tree node in depth-first order (children by inclusive time,
 * descending), an "(own)" row first under every node that has children, and
 * "(Nx)" after a node with more than one call. Layout, as in the seed: the
 * label column is as wide as the widest label; the value sits 4 columns
 * after it, shifted right by the row's tree prefix; the value column is at
 * least as wide as "total [s]" plus 2.
 *
 * Caps, so that a run with 10,000 regions prints a screenful and not a novel:
 * - at most SUMMARY_MAX_CHILDREN children per node; the rest become one
 *   "… N more" row carrying their summed time;
 * - at most SUMMARY_MAX_LEVEL levels; below that one "… N nested nodes" row
 *   carries the children's summed time;
 * - at most SUMMARY_MAX_ROWS node rows; then a last "… N more nodes" row;
 * - region names wider than SUMMARY_NAME_COLS columns end in "…".
 * `scope-profiler inspect` lists every region without caps.
 *
 * Several ranks (or a region run by several threads of a rank): the rank
 * rule of sp_figures.h. Each row shows the time per rank, the mean over the
 * ranks and the max beside it, under "mean [s]  max [s]", and calls per rank
 * ("(200x)", or "(0-3x)" when ranks differ); the Info panel's first line
 * gives the run's wall-clock span and a footnote states the rule. One rank
 * and one thread per region keep the seed's shape above exactly.
 * Estimated figures (stack-sampled regions) read "~0.012000" and "(~12x)",
 * lower bounds (throttled functions) ">=0.003100" and "(>=100000x)".
 */
#include "sp_analysis.h"
#include "sp_analysis_internal.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"
#include "sp_figures.h"
#include "sp_sched.h"

#define SUMMARY_MAX_ROWS SP__SUMMARY_MAX_ROWS
#define SUMMARY_MAX_CHILDREN SP__SUMMARY_MAX_CHILDREN
#define SUMMARY_MAX_LEVEL SP__SUMMARY_MAX_LEVEL
#define SUMMARY_NAME_COLS SP__SUMMARY_NAME_COLS

#define LABEL_BYTES 512 /* prefix (<= 12 x 4 bytes) + name (<= 60 x 4) + suffix */

typedef struct row {
    char label[LABEL_BYTES];
    size_t label_w;  /* display width of label */
    size_t indent;   /* display width of the tree prefix */
    char value[32];  /* "" when the row has no value; the mean with two columns */
    char value2[32]; /* the max with two columns, else "" */
} row;

typedef struct emitter {
    const sp_run *run;
    const sp_tree *tree;
    const sp_figures *fig; /* per-rank figures (two columns) */
    bool two;              /* mean and max columns */
    size_t *subtree;       /* nodes in the subtree of each node, itself included */
    row *rows;
    size_t nrows, cap;
    size_t node_rows; /* rows that show a node (the capped quantity) */
    size_t covered;   /* nodes shown or summarised by a "…" row */
    int stopped;      /* the row cap was hit */
    int oom;
} emitter;

/* Append a row: prefix for `level` ("", "└─ ", "│ └─ ", ...), then text, then
 * the value(s) (NULL: none). */
static void add_row(emitter *e, int level, const char *text, const char *value, const char *value2)
{
    if (e->nrows == e->cap) {
        size_t cap = e->cap ? 2 * e->cap : 64;
        row *rows = realloc(e->rows, cap * sizeof *rows);
        if (!rows) {
            e->oom = 1;
            return;
        }
        e->rows = rows;
        e->cap = cap;
    }
    row *r = &e->rows[e->nrows++];
    size_t o = 0;
    r->indent = 0;
    for (int l = 1; l < level; l++) {
        o += (size_t)snprintf(r->label + o, sizeof r->label - o, "│ ");
        r->indent += 2;
    }
    if (level > 0) {
        o += (size_t)snprintf(r->label + o, sizeof r->label - o, "└─ ");
        r->indent += 3;
    }
    snprintf(r->label + o, sizeof r->label - o, "%s", text);
    r->label_w = sp__utf8_width(r->label);
    snprintf(r->value, sizeof r->value, "%s", value ? value : "");
    snprintf(r->value2, sizeof r->value2, "%s", value2 ? value2 : "");
}

/* A row of a node's time: one column (the seed's), or mean and max. */
static void add_time_row(emitter *e, int level, const char *text, double one_s, const sp_fig *fig,
                         sp_fig_kind kind)
{
    char a[32], b[32];
    if (!e->two) {
        add_row(e, level, text, sp_fig_format_s(one_s, kind, a, sizeof a), NULL);
        return;
    }
    add_row(e, level, text, sp_fig_format_s(fig->mean_s, kind, a, sizeof a),
            sp_fig_format_s(fig->max_s, kind, b, sizeof b));
}

/* A row summarising hidden nodes: their summed time (mean per rank with two
 * columns; no max, which does not add up). */
static void add_sum_row(emitter *e, int level, const char *text, double one_s, double mean_s)
{
    char a[32];
    snprintf(a, sizeof a, "%.6f", e->two ? mean_s : one_s);
    add_row(e, level, text, a, NULL);
}

static sp_fig_kind node_kind(const emitter *e, int32_t node)
{
    return sp_region_fig_kind(e->run, e->tree->nodes[node].region);
}

typedef struct kid {
    double mean_s;
    size_t order; /* position in the tree's order: ties keep it */
    int32_t node;
} kid;

static int cmp_kid(const void *pa, const void *pb)
{
    const kid *a = pa, *b = pb;
    if (a->mean_s != b->mean_s)
        return a->mean_s > b->mean_s ? -1 : 1;
    return a->order < b->order ? -1 : a->order > b->order;
}

/* Sibling nodes by mean per rank, descending. 0 or SP_ENOMEM. */
static int sort_by_mean(int32_t *kids, size_t n, const sp_figures *fig)
{
    kid *k = malloc((n ? n : 1) * sizeof *k);
    if (!k)
        return SP_ENOMEM;
    for (size_t i = 0; i < n; i++)
        k[i] = (kid){fig->node_incl[kids[i]].mean_s, i, kids[i]};
    qsort(k, n, sizeof *k, cmp_kid);
    for (size_t i = 0; i < n; i++)
        kids[i] = k[i].node;
    free(k);
    return 0;
}

/* The children of one node being listed (the tree is walked with an
 * explicit stack of these, at most SUMMARY_MAX_LEVEL + 1 deep). */
typedef struct kids_frame {
    int32_t *kids; /* in the order shown */
    size_t n, next;
    int level;
} kids_frame;

/* Start listing the rows under `parent`: its "(own)" row (none for the
 * root), then, unless the level cap summarises them in one row, a frame of
 * its children (false when nothing is left to list). */
static bool open_children(emitter *e, int32_t parent, int level, kids_frame *f)
{
    const sp_tree_node *nodes = e->tree->nodes;
    char text[64];
    if (parent != 0)
        add_time_row(e, level, "(own)", nodes[parent].own_s, &e->fig->node_own[parent],
                     node_kind(e, parent));
    if (level >= SUMMARY_MAX_LEVEL) {
        size_t hidden = e->subtree[parent] - 1;
        snprintf(text, sizeof text, "… %zu nested node%s", hidden, hidden == 1 ? "" : "s");
        add_sum_row(e, level, text, nodes[parent].incl_s - nodes[parent].own_s,
                    e->fig->node_incl[parent].mean_s - e->fig->node_own[parent].mean_s);
        e->covered += hidden;
        return false;
    }
    /* Children by the time shown: the tree's order (summed time) for one
     * column, the mean per rank for two. */
    size_t nkids = 0;
    for (int32_t c = nodes[parent].first_child; c >= 0; c = nodes[c].next_sibling)
        nkids++;
    int32_t *kids = malloc((nkids ? nkids : 1) * sizeof *kids);
    if (!kids) {
        e->oom = 1;
        return false;
    }
    nkids = 0;
    for (int32_t c = nodes[parent].first_child; c >= 0; c = nodes[c].next_sibling)
        kids[nkids++] = c;
    if (e->two && sort_by_mean(kids, nkids, e->fig))
        e->oom = 1;
    *f = (kids_frame){kids, nkids, 0, level};
    return true;
}

/* The "… N more" row for the children of f past the cap. */
static void more_row(emitter *e, const kids_frame *f)
{
    const sp_tree_node *nodes = e->tree->nodes;
    double incl = 0.0, mean = 0.0;
    char text[64];
    for (size_t j = f->next; j < f->n; j++) {
        incl += nodes[f->kids[j]].incl_s;
        mean += e->fig->node_incl[f->kids[j]].mean_s;
        e->covered += e->subtree[f->kids[j]];
    }
    snprintf(text, sizeof text, "… %zu more", f->n - f->next);
    add_sum_row(e, f->level, text, incl, mean);
}

/* "(12x)", "(~12x)", "(>=100000x)", per rank "(0-3x)"; "" for one exact call. */
static void calls_text(const emitter *e, int32_t node, char *buf, size_t n)
{
    const sp_tree_node *nd = &e->tree->nodes[node];
    sp_fig_kind kind = node_kind(e, node);
    char c[48];
    if (e->two) {
        const sp_fig_calls *fc = &e->fig->node_calls[node];
        if (fc->max <= 1 && fc->min == fc->max && kind == SP_FIG_EXACT) {
            buf[0] = '\0';
            return;
        }
        snprintf(buf, n, " (%sx)", sp_fig_format_calls_range(fc, kind, c, sizeof c));
        return;
    }
    if (nd->calls <= 1 && kind == SP_FIG_EXACT) {
        buf[0] = '\0';
        return;
    }
    snprintf(buf, n, " (%sx)", sp_fig_format_calls(nd->calls, kind, c, sizeof c));
}

/* Every row of the tree, depth first, without recursion: a node's row, then
 * the rows under it, then its next sibling's. */
static void emit_tree(emitter *e)
{
    kids_frame stack[SUMMARY_MAX_LEVEL + 2];
    size_t top = 0;
    if (open_children(e, 0, 0, &stack[0]))
        top = 1;
    while (top > 0) {
        kids_frame *f = &stack[top - 1];
        if (e->stopped || f->next >= f->n) {
            free(f->kids);
            top--;
            continue;
        }
        if (f->next == SUMMARY_MAX_CHILDREN) {
            more_row(e, f);
            f->next = f->n;
            continue;
        }
        int32_t node = f->kids[f->next++];
        const sp_tree_node *nd = &e->tree->nodes[node];
        if (e->node_rows == SUMMARY_MAX_ROWS) {
            e->stopped = 1;
            continue;
        }
        char name[LABEL_BYTES / 2], text[LABEL_BYTES / 2 + 64], calls[64];
        sp__label_copy(name, sizeof name, e->run->region_names[nd->region], SUMMARY_NAME_COLS);
        calls_text(e, node, calls, sizeof calls);
        snprintf(text, sizeof text, "%s%s", name, calls);
        add_time_row(e, f->level, text, nd->incl_s, &e->fig->node_incl[node], node_kind(e, node));
        e->node_rows++;
        e->covered++;
        /* levels are capped, so the stack is too */
        if (nd->first_child >= 0 && open_children(e, node, f->level + 1, &stack[top]))
            top++;
    }
}

/* Pad a row into one box line of `content` columns. */
static char *table_line(const char *label, size_t label_w, size_t value_col, const char *value,
                        size_t content)
{
    size_t vw = strlen(value);
    size_t gap = value_col - label_w;
    size_t tail = content - value_col - vw;
    return sp__strdup_printf("%s%*s%s%*s", label, (int)gap, "", value, (int)tail, "");
}

static int print_table(FILE *out, const emitter *e, const char *title)
{
    static const char head_name[] = "region", head_value[] = "total [s]";
    static const char head_mean[] = "mean [s]", head_max[] = "max [s]";
    /* Two columns: every mean padded to the widest, so the max column
     * lines up within each level (the seed shifts values with the level). */
    size_t w1 = sizeof head_mean - 1;
    for (size_t i = 0; e->two && i < e->nrows; i++)
        if (e->rows[i].value2[0] && strlen(e->rows[i].value) > w1)
            w1 = strlen(e->rows[i].value);
    char head2[64], v[80];
    if (e->two)
        snprintf(head2, sizeof head2, "%-*s  %s", (int)w1, head_mean, head_max);
    const char *head = e->two ? head2 : head_value;
    size_t col1 = sizeof head_name - 1, col2 = strlen(head) + 2;
    for (size_t i = 0; i < e->nrows; i++) {
        const row *r = &e->rows[i];
        size_t vw =
            strlen(r->value) + (r->value2[0] ? w1 - strlen(r->value) + 2 + strlen(r->value2) : 0);
        if (r->label_w > col1)
            col1 = r->label_w;
        if (r->indent + vw > col2)
            col2 = r->indent + vw;
    }
    size_t content = col1 + 4 + col2;
    size_t nlines = e->nrows + 2;
    char **lines = calloc(nlines, sizeof *lines);
    if (!lines)
        return SP_ENOMEM;
    int rc = 0;
    lines[0] = table_line(head_name, sizeof head_name - 1, col1 + 4, head, content);
    lines[1] = NULL; /* the separator */
    if (!lines[0])
        rc = SP_ENOMEM;
    for (size_t i = 0; rc == 0 && i < e->nrows; i++) {
        const row *r = &e->rows[i];
        if (r->value2[0])
            snprintf(v, sizeof v, "%-*s  %s", (int)w1, r->value, r->value2);
        else
            snprintf(v, sizeof v, "%s", r->value);
        lines[i + 2] = table_line(r->label, r->label_w, col1 + 4 + r->indent, v, content);
        if (!lines[i + 2])
            rc = SP_ENOMEM;
    }
    if (rc == 0)
        sp__print_box(out, title, (const char *const *)lines, nlines);
    for (size_t i = 0; i < nlines; i++)
        free(lines[i]);
    free(lines);
    return rc;
}

/* Quote path for a POSIX shell when it holds anything but safe characters. */
static char *shell_quote(const char *path)
{
    static const char safe[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                               "0123456789_-+=./,:@%";
    if (*path && strspn(path, safe) == strlen(path))
        return sp__display_dup(path);
    size_t n = 2;
    for (const char *p = path; *p; p++)
        n += *p == '\'' ? 4 : 1;
    char *raw = malloc(n + 1), *o = raw;
    if (!raw)
        return NULL;
    *o++ = '\'';
    for (const char *p = path; *p; p++) {
        if (*p == '\'') {
            memcpy(o, "'\\''", 4);
            o += 4;
        } else {
            *o++ = *p;
        }
    }
    *o++ = '\'';
    *o = '\0';
    char *shown = sp__display_dup(raw); /* control characters still become '?' */
    free(raw);
    return shown;
}

#define INFO_LINES 48
#define INFO_WRAP 76 /* footnotes wrap here (the box is as wide as its widest line) */

/* Append text to lines[], wrapped at INFO_WRAP columns on spaces. */
static void add_wrapped(char **lines, size_t *n, const char *text)
{
    const char *p = text;
    while (*p && *n < INFO_LINES) {
        size_t len = strlen(p), cut = len;
        if (len > INFO_WRAP) {
            cut = INFO_WRAP;
            while (cut > 0 && p[cut] != ' ')
                cut--;
            if (cut == 0)
                cut = INFO_WRAP;
        }
        lines[(*n)++] = sp__strdup_printf("%.*s", (int)cut, p);
        p += cut;
        while (*p == ' ')
            p++;
    }
}

static int print_info(FILE *out, const sp_run *run, const sp_figures *fig, const char *path,
                      int nested)
{
    char *shown = sp__display_dup(path), *q = shell_quote(path);
    char *lines[INFO_LINES] = {0};
    char buf[512], ranks[64];
    size_t n = 0;
    int rc = 0;
    if (!shown || !q) {
        rc = SP_ENOMEM;
        goto done;
    }
    sp_figures_ranks_text(fig, ranks, sizeof ranks);
    if (fig->two_columns && fig->has_span) /* the headline: the run's wall-clock span */
        lines[n++] = sp__strdup_printf("Summary: %s (%s, wall-clock span %.6f s)", shown, ranks,
                                       fig->span_s);
    else
        lines[n++] = sp__strdup_printf("Summary: %s (%s)", shown, ranks);
    if (sp_run_is_incomplete(run)) { /* killed, or still recording: what is missing */
        char lost[1024];
        add_wrapped(lines, &n, sp_run_incomplete_text(run, lost, sizeof lost));
    }
    /* How disturbed the run was (other processes on its cores), when the
     * file says (older files and the tutorial's runs do not). */
    sp_sched_summary sched;
    sp_sched_run_summary(run, &sched, NULL);
    if (sched.measured)
        lines[n++] = sp__strdup_printf("CPU wait: %s", sp_sched_run_text(run, buf, sizeof buf));
    lines[n++] = sp__strdup_printf("%s", "");
    lines[n++] = sp__strdup_printf("Explore:");
    lines[n++] = sp__strdup_printf("  Inspect: scope-profiler inspect %s", q);
    lines[n++] = sp__strdup_printf("  TUI:     scope-profiler tui %s", q);
    if (run->nranks > 1) /* MPI: who is slow, how imbalanced (sp_ranks.h) */
        lines[n++] = sp__strdup_printf("  Ranks:   scope-profiler ranks %s", q);
    lines[n++] = sp__strdup_printf("%s", "");
    lines[n++] = sp__strdup_printf("Visualize and export:");
    lines[n++] = sp__strdup_printf("  Plot:    scope-profiler plot default %s -o plots --show", q);
    lines[n++] = sp__strdup_printf("  Report:  scope-profiler report %s -o report.html", q);
    lines[n++] = sp__strdup_printf("  Export:  scope-profiler export plot-data %s -o data", q);
    lines[n++] = sp__strdup_printf("  Lines:   scope-profiler line-profile %s", q);
    lines[n++] = sp__strdup_printf("%s", "");
    lines[n++] = sp__strdup_printf("Compare runs:");
    lines[n++] = sp__strdup_printf("  Diff:    scope-profiler diff BASE.h5 CANDIDATE.h5");
    lines[n++] = sp__strdup_printf("  Check:   scope-profiler check BASE.h5 CANDIDATE.h5");
    lines[n++] = sp__strdup_printf("%s", "");
    lines[n++] = sp__strdup_printf("Durations are in seconds.");
    if (fig->two_columns) {
        add_wrapped(lines, &n, sp_figures_rule_text(fig, buf, sizeof buf));
        add_wrapped(lines, &n,
                    fig->nranks > 1 ? "Calls are per rank. Each rank's totals: scope-profiler "
                                      "ranks."
                                    : "Calls are summed over the threads.");
    }
    /* Recording modes (recorder/core/sp_mode_*.c): say which figures are
     * estimates from call-stack samples and which are lower bounds. */
    if (fig->nsampled) {
        char period[64] = "";
        if (fig->sample_period_s > 0)
            snprintf(period, sizeof period, " taken every %.3g ms of CPU time",
                     fig->sample_period_s * 1e3);
        snprintf(buf, sizeof buf,
                 "Sampled (~): calls and times of %zu region%s are estimates from call-stack "
                 "samples%s; a sampled call's duration is known to about one sampling period.",
                 fig->nsampled, fig->nsampled == 1 ? "" : "s", period);
        add_wrapped(lines, &n, buf);
    }
    if (fig->nthrottled) {
        snprintf(buf, sizeof buf,
                 "Throttled (>=): tracing stopped for %zu very short, very frequent function%s; "
                 "their calls and times are lower bounds.",
                 fig->nthrottled, fig->nthrottled == 1 ? "" : "s");
        add_wrapped(lines, &n, buf);
    }
    if (nested)
        lines[n++] = sp__strdup_printf(
            "Regions may nest, so the summed total can exceed the wall-clock time.");
    for (size_t i = 0; i < n; i++)
        if (!lines[i])
            rc = SP_ENOMEM;
    if (rc == 0)
        sp__print_box(out, "Info", (const char *const *)lines, n);
done:
    for (size_t i = 0; i < n; i++)
        free(lines[i]);
    free(shown);
    free(q);
    return rc;
}

int sp_print_summary(sp_run *run, const char *path, FILE *out)
{
    if (!run || !out)
        return sp__error(SP_EINVAL, "sp_print_summary: run and out must not be NULL");
    int rc = sp_run_analyze(run);
    if (rc)
        return rc;
    if (!path)
        path = run->source_path ? run->source_path : "FILE";

    sp_figures *fig = sp_figures_new(run);
    if (!fig)
        return sp__error(SP_ENOMEM, "out of memory printing the summary");
    emitter e = {.run = run, .tree = &run->tree, .fig = fig, .two = fig->two_columns};
    e.subtree = sp_tree_subtree_sizes(&run->tree);
    if (!e.subtree) {
        sp_figures_free(fig);
        return sp__error(SP_ENOMEM, "out of memory printing the summary");
    }
    emit_tree(&e);
    size_t total_nodes = run->tree.nnodes - 1;
    if (e.stopped && total_nodes > e.covered) {
        char text[64];
        snprintf(text, sizeof text, "… %zu more nodes", total_nodes - e.covered);
        add_row(&e, 0, text, NULL, NULL);
    }
    if (total_nodes == 0)
        add_row(&e, 0, "(no calls recorded)", NULL, NULL);
    int nested = 0;
    for (size_t i = 1; i < run->tree.nnodes && !nested; i++)
        nested = run->tree.nodes[i].depth >= 2;

    char title[96], ranks[64];
    if (fig->nranks > 1)
        snprintf(title, sizeof title, "time per rank, %s",
                 sp_figures_ranks_text(fig, ranks, sizeof ranks));
    else
        snprintf(title, sizeof title, "time per thread");
    if (sp_run_is_incomplete(run))
        snprintf(title + strlen(title), sizeof title - strlen(title), " · incomplete run");
    rc = e.oom ? SP_ENOMEM : print_table(out, &e, fig->two_columns ? title : NULL);
    if (rc == 0) {
        fputc('\n', out);
        rc = print_info(out, run, fig, path, nested);
    }
    free(e.rows);
    free(e.subtree);
    sp_figures_free(fig);
    if (rc == SP_ENOMEM)
        return sp__error(SP_ENOMEM, "out of memory printing the summary");
    if (fflush(out) != 0 || ferror(out))
        return sp__error(SP_EIO, "cannot write the summary");
    return 0;
}
