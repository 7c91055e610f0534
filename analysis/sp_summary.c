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
 */
#include "sp_analysis.h"
#include "sp_analysis_internal.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

#define SUMMARY_MAX_ROWS SP__SUMMARY_MAX_ROWS
#define SUMMARY_MAX_CHILDREN SP__SUMMARY_MAX_CHILDREN
#define SUMMARY_MAX_LEVEL SP__SUMMARY_MAX_LEVEL
#define SUMMARY_NAME_COLS SP__SUMMARY_NAME_COLS

#define LABEL_BYTES 512 /* prefix (<= 12 x 4 bytes) + name (<= 60 x 4) + suffix */

typedef struct row {
    char label[LABEL_BYTES];
    size_t label_w; /* display width of label */
    size_t indent;  /* display width of the tree prefix */
    char value[32]; /* "" when the row has no value */
} row;

typedef struct emitter {
    const sp_run *run;
    const sp_tree *tree;
    size_t *subtree; /* nodes in the subtree of each node, itself included */
    row *rows;
    size_t nrows, cap;
    size_t node_rows; /* rows that show a node (the capped quantity) */
    size_t covered;   /* nodes shown or summarised by a "…" row */
    int stopped;      /* the row cap was hit */
    int oom;
} emitter;

/* Append a row: prefix for `level` ("", "└─ ", "│ └─ ", ...), then text. */
static void add_row(emitter *e, int level, const char *text, double value, int has_value)
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
    if (has_value)
        snprintf(r->value, sizeof r->value, "%.6f", value);
    else
        r->value[0] = '\0';
}

static void emit_node(emitter *e, int32_t node, int level);

/* The rows under `parent`: its "(own)" row (none for the root), then its children. */
static void emit_children(emitter *e, int32_t parent, int level)
{
    const sp_tree_node *nodes = e->tree->nodes;
    char text[64];
    if (parent != 0)
        add_row(e, level, "(own)", nodes[parent].own_s, 1);
    if (level >= SUMMARY_MAX_LEVEL) {
        size_t hidden = e->subtree[parent] - 1;
        snprintf(text, sizeof text, "… %zu nested node%s", hidden, hidden == 1 ? "" : "s");
        add_row(e, level, text, nodes[parent].incl_s - nodes[parent].own_s, 1);
        e->covered += hidden;
        return;
    }
    size_t shown = 0;
    for (int32_t c = nodes[parent].first_child; c >= 0 && !e->stopped; c = nodes[c].next_sibling) {
        if (shown == SUMMARY_MAX_CHILDREN) {
            size_t more = 0;
            double incl = 0.0;
            for (; c >= 0; c = nodes[c].next_sibling) {
                more++;
                incl += nodes[c].incl_s;
                e->covered += e->subtree[c];
            }
            snprintf(text, sizeof text, "… %zu more", more);
            add_row(e, level, text, incl, 1);
            return;
        }
        emit_node(e, c, level);
        shown++;
    }
}

static void emit_node(emitter *e, int32_t node, int level)
{
    const sp_tree_node *nd = &e->tree->nodes[node];
    if (e->node_rows == SUMMARY_MAX_ROWS) {
        e->stopped = 1;
        return;
    }
    char name[LABEL_BYTES / 2], text[LABEL_BYTES / 2 + 32];
    sp__label_copy(name, sizeof name, e->run->region_names[nd->region], SUMMARY_NAME_COLS);
    if (nd->calls > 1)
        snprintf(text, sizeof text, "%s (%llux)", name, (unsigned long long)nd->calls);
    else
        snprintf(text, sizeof text, "%s", name);
    add_row(e, level, text, nd->incl_s, 1);
    e->node_rows++;
    e->covered++;
    if (nd->first_child >= 0)
        emit_children(e, node, level + 1);
}

/* Subtree sizes: a node is created after its parent, so one backward pass
 * adds every node into its parent. */
static size_t *subtree_sizes(const sp_tree *tree)
{
    size_t *size = calloc(tree->nnodes ? tree->nnodes : 1, sizeof *size);
    if (!size)
        return NULL;
    for (size_t i = tree->nnodes; i-- > 0;) {
        size[i] += 1;
        if (i > 0)
            size[tree->nodes[i].parent] += size[i];
    }
    return size;
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

static int print_table(FILE *out, const emitter *e)
{
    static const char head_name[] = "region", head_value[] = "total [s]";
    size_t col1 = sizeof head_name - 1, col2 = sizeof head_value - 1 + 2;
    for (size_t i = 0; i < e->nrows; i++) {
        const row *r = &e->rows[i];
        if (r->label_w > col1)
            col1 = r->label_w;
        if (r->indent + strlen(r->value) > col2)
            col2 = r->indent + strlen(r->value);
    }
    size_t content = col1 + 4 + col2;
    size_t nlines = e->nrows + 2;
    char **lines = calloc(nlines, sizeof *lines);
    if (!lines)
        return SP_ENOMEM;
    int rc = 0;
    lines[0] = table_line(head_name, sizeof head_name - 1, col1 + 4, head_value, content);
    lines[1] = NULL; /* the separator */
    if (!lines[0])
        rc = SP_ENOMEM;
    for (size_t i = 0; rc == 0 && i < e->nrows; i++) {
        const row *r = &e->rows[i];
        lines[i + 2] = table_line(r->label, r->label_w, col1 + 4 + r->indent, r->value, content);
        if (!lines[i + 2])
            rc = SP_ENOMEM;
    }
    if (rc == 0)
        sp__print_box(out, NULL, (const char *const *)lines, nlines);
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

static int print_info(FILE *out, const sp_run *run, const char *path, int nested)
{
    char *shown = sp__display_dup(path), *q = shell_quote(path);
    char *lines[24] = {0};
    size_t n = 0;
    int rc = 0;
    if (!shown || !q) {
        rc = SP_ENOMEM;
        goto done;
    }
    lines[n++] = sp__strdup_printf("Summary: %s (%zu rank%s)", shown, run->nranks,
                                   run->nranks == 1 ? "" : "s");
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
    /* Recording modes (recorder/core/sp_mode_*.c): say which times are
     * estimates from call-stack samples and which functions were throttled. */
    size_t sampled = 0, throttled = 0;
    for (size_t i = 0; i < run->nregion_flags && run->region_flags; i++) {
        sampled += (run->region_flags[i] & SP_REGION_FLAG_SAMPLED) != 0;
        throttled += (run->region_flags[i] & SP_REGION_FLAG_THROTTLED) != 0;
    }
    if (sampled)
        lines[n++] = sp__strdup_printf("Sampled: calls and times of %zu region%s are estimated "
                                       "from call-stack samples.",
                                       sampled, sampled == 1 ? "" : "s");
    if (throttled)
        lines[n++] = sp__strdup_printf("Throttled: tracing stopped for %zu very short, very "
                                       "frequent function%s.",
                                       throttled, throttled == 1 ? "" : "s");
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

    emitter e = {.run = run, .tree = &run->tree};
    e.subtree = subtree_sizes(&run->tree);
    if (!e.subtree)
        return sp__error(SP_ENOMEM, "out of memory printing the summary");
    emit_children(&e, 0, 0);
    size_t total_nodes = run->tree.nnodes - 1;
    if (e.stopped && total_nodes > e.covered) {
        char text[64];
        snprintf(text, sizeof text, "… %zu more nodes", total_nodes - e.covered);
        add_row(&e, 0, text, 0.0, 0);
    }
    if (total_nodes == 0)
        add_row(&e, 0, "(no calls recorded)", 0.0, 0);
    int nested = 0;
    for (size_t i = 1; i < run->tree.nnodes && !nested; i++)
        nested = run->tree.nodes[i].depth >= 2;

    rc = e.oom ? SP_ENOMEM : print_table(out, &e);
    if (rc == 0) {
        fputc('\n', out);
        rc = print_info(out, run, path, nested);
    }
    free(e.rows);
    free(e.subtree);
    if (rc == SP_ENOMEM)
        return sp__error(SP_ENOMEM, "out of memory printing the summary");
    if (fflush(out) != 0 || ferror(out))
        return sp__error(SP_EIO, "cannot write the summary");
    return 0;
}
