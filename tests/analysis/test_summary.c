/* SPDX-License-Identifier: MIT */
/* The boxed summary (seed layout, caps, UTF-8 widths) and the inspect table. */
#include "run_builder.h"
#include "sp_analysis_internal.h"
#include "sp_test.h"

/* An independent display width for the characters these tests use: CJK
 * ideographs and kana 2, combining accents 0, everything else 1. */
static size_t test_width(const char *s, size_t len)
{
    size_t w = 0;
    for (size_t i = 0; i < len;) {
        unsigned char c = (unsigned char)s[i];
        uint32_t cp;
        size_t n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
        cp = n == 1 ? c : (uint32_t)(c & (0xFF >> (n + 1)));
        for (size_t k = 1; k < n; k++)
            cp = (cp << 6) | ((unsigned char)s[i + k] & 0x3F);
        if ((cp >= 0x3040 && cp <= 0x30FF) || (cp >= 0x4E00 && cp <= 0x9FFF))
            w += 2;
        else if (!(cp >= 0x0300 && cp <= 0x036F))
            w += 1;
        i += n;
    }
    return w;
}

/* Check that every line of every box in text has the width of its top edge;
 * returns the number of boxes, or -1 with a message on a ragged line. */
static int check_boxes(const char *text, char *why, size_t whysize)
{
    int boxes = 0;
    size_t width = 0;
    int inside = 0;
    for (const char *l = text; *l;) {
        const char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        size_t w = test_width(l, len);
        if (!inside && strncmp(l, "╭", 3) == 0) {
            inside = 1;
            width = w;
            boxes++;
        } else if (inside && w != width) {
            snprintf(why, whysize, "line '%.*s' is %zu wide, box %zu", (int)len, l, w, width);
            return -1;
        }
        if (inside && strncmp(l, "╰", 3) == 0)
            inside = 0;
        l += len + (e ? 1 : 0);
    }
    return inside ? -1 : boxes;
}

static char *summary_of(sp_run *run, const char *path)
{
    char *text = NULL;
    int rc;
    TB_CAPTURE(text, rc = sp_print_summary(run, path, f));
    if (rc) {
        free(text);
        return NULL;
    }
    return text;
}

/* The seed's recursive example, rebuilt: the table must be identical. */
static void test_seed_recursive_example(void)
{
    tb_call c[] = {
        {0, 0, "entry", 0, 2202000},
        {0, 0, "__main__.middle", 22000, 2202000},
        {0, 0, "__main__.leaf", 47000, 1124000},
        {0, 0, "__main__.leaf", 1124000, 2202000},
    };
    sp_run *run = tb_build(c, 4, 1, 1);
    ASSERT(run);
    char *text = summary_of(run, "WORKDIR/recursive.h5");
    ASSERT(text);
    const char *table = "╭──────────────────────────────────────────╮\n"
                        "│ region                     total [s]     │\n"
                        "├──────────────────────────────────────────┤\n"
                        "│ entry                      0.002202      │\n"
                        "│ └─ (own)                      0.000022   │\n"
                        "│ └─ __main__.middle            0.002180   │\n"
                        "│ │ └─ (own)                      0.000025 │\n"
                        "│ │ └─ __main__.leaf (2x)         0.002155 │\n"
                        "╰──────────────────────────────────────────╯\n"
                        "\n";
    ASSERT_MSG(strncmp(text, table, strlen(table)) == 0, "table differs:\n%s", text);
    /* The Info panel: the seed's lines, in a box sized to its widest line. */
    const char *info[] = {
        "Summary: WORKDIR/recursive.h5 (1 rank)",
        "",
        "Explore:",
        "  Inspect: scope-profiler inspect WORKDIR/recursive.h5",
        "  TUI:     scope-profiler tui WORKDIR/recursive.h5",
        "",
        "Visualize and export:",
        "  Plot:    scope-profiler plot default WORKDIR/recursive.h5 -o plots --show",
        "  Report:  scope-profiler report WORKDIR/recursive.h5 -o report.html",
        "  Export:  scope-profiler export plot-data WORKDIR/recursive.h5 -o data",
        "  Lines:   scope-profiler line-profile WORKDIR/recursive.h5",
        "",
        "Compare runs:",
        "  Diff:    scope-profiler diff BASE.h5 CANDIDATE.h5",
        "  Check:   scope-profiler check BASE.h5 CANDIDATE.h5",
        "",
        "Durations are in seconds.",
        "Regions may nest, so the summed total can exceed the wall-clock time.",
    };
    size_t inner = 0;
    for (size_t i = 0; i < sizeof info / sizeof *info; i++)
        if (strlen(info[i]) > inner)
            inner = strlen(info[i]);
    ASSERT_EQ_U(inner, 75);
    const char *p = text + strlen(table);
    char expect[256];
    snprintf(expect, sizeof expect, "╭─ Info ");
    ASSERT_MSG(strncmp(p, expect, strlen(expect)) == 0, "Info title: %s", p);
    p = strchr(p, '\n') + 1;
    for (size_t i = 0; i < sizeof info / sizeof *info; i++) {
        snprintf(expect, sizeof expect, "│ %-*s │\n", (int)inner, info[i]);
        ASSERT_MSG(strncmp(p, expect, strlen(expect)) == 0, "Info line %zu: want '%s' got '%.*s'",
                   i, expect, (int)strlen(expect), p);
        p += strlen(expect);
    }
    ASSERT_MSG(strncmp(p, "╰", 3) == 0, "Info bottom: %s", p);
    char why[512];
    ASSERT_EQ_I(check_boxes(text, why, sizeof why), 2);
    free(text);
    sp_run_free(run);
}

/* The seed's line-profiler example: one flat region, no nesting note. */
static void test_seed_flat_example(void)
{
    tb_call c[] = {{0, 0, "hot_function", 0, 10928000}};
    sp_run *run = tb_build(c, 1, 1, 1);
    ASSERT(run);
    char *text = summary_of(run, "WORKDIR/line.h5");
    ASSERT(text);
    const char *table = "╭─────────────────────────────╮\n"
                        "│ region          total [s]   │\n"
                        "├─────────────────────────────┤\n"
                        "│ hot_function    0.010928    │\n"
                        "╰─────────────────────────────╯\n";
    ASSERT_MSG(strncmp(text, table, strlen(table)) == 0, "table differs:\n%s", text);
    ASSERT_CONTAINS(text, "Durations are in seconds.");
    ASSERT(!strstr(text, "Regions may nest"));
    free(text);
    sp_run_free(run);
}

/* Return the line of text that starts with prefix, or NULL. */
static const char *line_starting(const char *text, const char *prefix)
{
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, prefix, strlen(prefix)) == 0)
            return l;
    return NULL;
}

static void test_mock_solver_summary(void)
{
    sp_run *run = tb_mock_solver(0);
    ASSERT(run);
    run->source_path = strdup("out/run.h5");
    char *text = summary_of(run, NULL);
    ASSERT(text);
    /* depth-first, children by inclusive time, (own) first */
    const char *order[] = {
        "│ main ",
        "│ └─ (own) ",
        "│ └─ solve (3x) ",
        "│ │ └─ (own) ",
        "│ │ └─ assemble_matrix (3x) ",
        "│ │ └─ apply_bc (3x) ",
        "│ └─ setup ",
        "│ │ └─ (own) ",
        "│ │ └─ refine_mesh ",
        "│ │ │ └─ (own) ",
        "│ │ │ └─ refine_mesh ",
        "│ │ │ │ └─ (own) ",
        "│ │ │ │ └─ refine_mesh ",
        "│ │ │ │ │ └─ (own) ",
        "│ │ │ │ │ └─ refine_mesh ",
    };
    const char *l = text;
    for (size_t i = 0; i < sizeof order / sizeof *order; i++) {
        const char *next = line_starting(l, order[i]);
        ASSERT_MSG(next, "row %zu '%s' missing or out of order in\n%s", i, order[i], text);
        l = strchr(next, '\n') + 1;
    }
    ASSERT_CONTAINS(line_starting(text, "│ main "), "0.020000");
    ASSERT_CONTAINS(line_starting(text, "│ └─ solve (3x) "), "0.012000");
    ASSERT_CONTAINS(text, "Summary: out/run.h5 (1 rank)");
    ASSERT_CONTAINS(text, "scope-profiler inspect out/run.h5");
    ASSERT_CONTAINS(text, "Regions may nest");
    char why[512] = "";
    ASSERT_MSG(check_boxes(text, why, sizeof why) == 2, "%s", why);
    free(text);
    sp_run_free(run);
}

static void test_ranks_and_path_quoting(void)
{
    tb_call c[] = {{0, 0, "a", 0, 10 * MS}, {1, 0, "a", 0, 20 * MS}};
    sp_run *run = tb_build(c, 2, 2, 1);
    ASSERT(run);
    char *text = summary_of(run, "my dir/it's.h5");
    ASSERT(text);
    /* the rank rule: the headline is the wall-clock span, a row the mean
     * per rank with the max beside it, calls per rank */
    ASSERT_CONTAINS(text, "Summary: my dir/it's.h5 (2 ranks, wall-clock span 0.020000 s)");
    ASSERT_CONTAINS(text, "scope-profiler inspect 'my dir/it'\\''s.h5'");
    ASSERT_CONTAINS(text, "time per rank, 2 ranks");
    ASSERT_CONTAINS(text, "│ region    mean [s]  max [s] ");
    ASSERT_CONTAINS(text, "│ a         0.015000  0.020000 ");
    ASSERT_CONTAINS(text, "Times are per rank: the mean over the 2 ranks");
    free(text);
    text = summary_of(run, NULL); /* no source path */
    ASSERT(text);
    ASSERT_CONTAINS(text, "Summary: FILE (2 ranks, wall-clock span 0.020000 s)");
    free(text);
    sp_run_free(run);
}

static void test_utf8_widths(void)
{
    ASSERT_EQ_U(sp__utf8_width("abc"), 3);
    ASSERT_EQ_U(sp__utf8_width("解く"), 4);
    ASSERT_EQ_U(sp__utf8_width("café"), 4);
    ASSERT_EQ_U(sp__utf8_width("cafe\xcc\x81"), 4); /* e + combining acute */
    ASSERT_EQ_U(sp__utf8_width("│ └─ "), 5);
    ASSERT_EQ_U(sp__utf8_width("a\xff"
                               "b"),
                3); /* invalid byte: 1 column */
    char buf[64];
    ASSERT_EQ_U(sp__label_copy(buf, sizeof buf, "line\nbreak", 80), 10);
    ASSERT_STREQ(buf, "line?break");
    ASSERT_EQ_U(sp__label_copy(buf, sizeof buf, "解く解く", 5), 5); /* 2 + "…" + 2 */
    ASSERT_STREQ(buf, "解…く");
    ASSERT_EQ_U(sp__label_copy_end(buf, sizeof buf, "解く解く", 5), 5); /* 2 + 2 + "…" */
    ASSERT_STREQ(buf, "解く…");
    ASSERT_EQ_U(sp__label_copy(buf, sizeof buf, "abcdef", 6), 6);
    ASSERT_STREQ(buf, "abcdef");
    /* Names keep both ends (issue 21: "_weight_functio…" could not be told
     * from "_weight_function"); the head gets the odd column. */
    ASSERT_EQ_U(sp__label_copy(buf, sizeof buf, "networkx._weight_function.<locals>.<lambda>", 21),
                21);
    ASSERT_STREQ(buf, "networkx._…>.<lambda>");
    ASSERT_EQ_U(sp__label_copy(buf, sizeof buf, "abcdefgh", 7), 7);
    ASSERT_STREQ(buf, "abc…fgh");
    ASSERT_EQ_U(sp__label_copy(buf, sizeof buf, "ab\x1b[2Jcdefgh", 7), 7); /* escapes stay '?' */
    ASSERT_STREQ(buf, "ab?…fgh");
    ASSERT_EQ_U(sp__label_copy(buf, sizeof buf, "a\xcc\x81" "bcdefgh", 5), 5); /* combining: 0 */
    ASSERT_STREQ(buf, "a\xcc\x81" "b…gh");
}

static void test_utf8_summary_boxes(void)
{
    tb_call c[] = {
        {0, 0, "解く", 0, 10 * MS},
        {0, 0, "café", 1 * MS, 4 * MS},
        {0, 0, "cafe\xcc\x81_combining", 5 * MS, 6 * MS},
    };
    sp_run *run = tb_build(c, 3, 1, 1);
    ASSERT(run);
    char *text = summary_of(run, "ユニコード.h5");
    ASSERT(text);
    ASSERT_CONTAINS(text, "│ 解く ");
    ASSERT_CONTAINS(text, "└─ café ");
    char why[512] = "";
    ASSERT_MSG(check_boxes(text, why, sizeof why) == 2, "%s\n%s", why, text);
    free(text);
    sp_run_free(run);
}

static size_t count_lines(const char *s)
{
    size_t n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* The number at the end of a table row "│ label   value │". */
static double row_value(const char *line)
{
    const char *end = strstr(line, " │\n");
    if (!end)
        return NAN;
    const char *v = end;
    while (v > line && v[-1] != ' ')
        v--;
    return atof(v);
}

/* 1,000 children: the first few shown, then one "… N more" row. */
static void test_cap_children(void)
{
    enum { N = 1000 };
    tb_call *c = malloc((N + 1) * sizeof *c);
    char(*names)[16] = malloc(N * sizeof *names);
    c[0] = (tb_call){0, 0, "main", 0, 10 * N * MS};
    for (int i = 0; i < N; i++) {
        snprintf(names[i], 16, "r%04d", i);
        c[i + 1] = (tb_call){0, 0, names[i], 10 * i * MS, (10 * i + 1 + i % 7) * MS};
    }
    sp_run *run = tb_build(c, N + 1, 1, 1);
    free(c);
    free(names);
    ASSERT(run);
    char *text = summary_of(run, "big.h5");
    ASSERT(text);
    char more[64];
    snprintf(more, sizeof more, "│ └─ … %d more ", N - SP__SUMMARY_MAX_CHILDREN);
    ASSERT_CONTAINS(text, more);
    ASSERT(count_lines(text) < SP__SUMMARY_MAX_CHILDREN + 30);
    /* the hidden children's time is in the "… more" row: the shown rows
     * plus it add up to main's inclusive time */
    double sum = 0;
    for (const char *l = strstr(text, "│ └─ "); l; l = strstr(l + 1, "│ └─ "))
        if (strncmp(l, "│ └─ (own)", strlen("│ └─ (own)")) != 0)
            sum += row_value(l);
    ASSERT(sum > 1.0);
    ASSERT_NEAR(sum, run->tree.nodes[1].incl_s - run->tree.nodes[1].own_s, 1e-6);
    char why[512] = "";
    ASSERT_MSG(check_boxes(text, why, sizeof why) == 2, "%s", why);
    free(text);
    sp_run_free(run);
}

/* 100 levels of recursion: SP__SUMMARY_MAX_LEVEL levels, the rest in one row. */
static void test_cap_depth(void)
{
    enum { N = 100 };
    tb_call c[N];
    for (int i = 0; i < N; i++)
        c[i] = (tb_call){0, 0, "recurse", i, 2 * N - i};
    sp_run *run = tb_build(c, N, 1, 1);
    ASSERT(run);
    char *text = summary_of(run, "deep.h5");
    ASSERT(text);
    char nested[64];
    snprintf(nested, sizeof nested, "… %d nested nodes", N - SP__SUMMARY_MAX_LEVEL);
    ASSERT_CONTAINS(text, nested);
    ASSERT(count_lines(text) < 60);
    free(text);
    sp_run_free(run);
}

/* 25 x 25 grandchildren: over the row cap, a final "… N more nodes". */
static void test_cap_rows_and_long_names(void)
{
    enum { K = 25 };
    tb_call *c = malloc((1 + K + K * K) * sizeof *c);
    char(*names)[128] = malloc((K + K * K) * sizeof *names);
    size_t n = 0, nn = 0;
    c[n++] = (tb_call){0, 0, "main", 0, 1000000};
    for (int i = 0; i < K; i++) {
        int64_t t = 1000 * (i + 1);
        snprintf(names[nn], 128, "child%02d", i);
        c[n++] = (tb_call){0, 0, names[nn++], t, t + 900 - i};
        for (int j = 0; j < K; j++) {
            /* long names get cut to 60 columns */
            snprintf(names[nn], 128,
                     "grandchild_%02d_with_a_name_far_too_long_for_any_box_"
                     "xxxxxxxxxxxxxxxxxxxx",
                     j);
            c[n++] = (tb_call){0, 0, names[nn++], t + 10 * j, t + 10 * j + 5};
        }
    }
    sp_run *run = tb_build(c, n, 1, 1);
    free(c);
    free(names);
    ASSERT(run);
    char *text = summary_of(run, "rows.h5");
    ASSERT(text);
    /* nodes: main + 25 children + 25 grandchildren (merged by name across
     * children: same names under different parents are different paths) */
    ASSERT_CONTAINS(text, "more nodes");
    /* cut in the middle: both ends kept */
    ASSERT_CONTAINS(text, "grandchild_00_with_a_name_far_…_any_box_xxxxxxxxxxxxxxxxxxxx");
    ASSERT(!strstr(text, "too_long_for"));
    ASSERT(count_lines(text) < 3 * SP__SUMMARY_MAX_ROWS + 40);
    char why[512] = "";
    ASSERT_MSG(check_boxes(text, why, sizeof why) == 2, "%s", why);
    free(text);
    sp_run_free(run);
}

static void test_public_print_summary(void)
{
    sp_run *run = tb_mock_solver(0);
    ASSERT(run);
    char *text = NULL;
    int rc;
    TB_CAPTURE(text, rc = sp_run_print_summary(run, f));
    ASSERT_EQ_I(rc, 0);
    ASSERT_CONTAINS(text, "└─ refine_mesh");
    ASSERT_CONTAINS(text, "(3x)");
    free(text);
    ASSERT(sp_run_print_summary(NULL, stdout) != 0);
    sp_run_free(run);
}

static void test_empty_run_summary(void)
{
    sp_run *run = sp_run_new();
    ASSERT(run);
    char *text = summary_of(run, "empty.h5");
    ASSERT(text);
    ASSERT_CONTAINS(text, "(no calls recorded)");
    ASSERT_CONTAINS(text, "(0 ranks)");
    free(text);
    sp_run_free(run);
}

static void test_inspect(void)
{
    sp_run *run = tb_mock_solver(0);
    ASSERT(run);
    sp_kvlist_set(&run->meta, "hostname", "node01");
    sp_kvlist_set(&run->meta, "problem_size", "128");
    char *text = NULL;
    int rc;
    TB_CAPTURE(text, rc = sp_print_inspect(run, SP_SORT_TOTAL, NULL, f));
    ASSERT_EQ_I(rc, 0);
    ASSERT_CONTAINS(text, "Ranks:     1");
    ASSERT_CONTAINS(text, "Calls:     15");
    ASSERT_CONTAINS(text, "Wall time: 0.020000 s");
    ASSERT_CONTAINS(text, "problem_size : 128");
    const char *head = line_starting(text, "region ");
    ASSERT(head);
    ASSERT_CONTAINS(head, "calls");
    ASSERT_CONTAINS(head, "p95 [s]");
    /* rows sorted by total, numbers right-aligned under their headers */
    const char *main_row = line_starting(head, "main ");
    const char *solve_row = line_starting(head, "solve ");
    const char *refine_row = line_starting(head, "refine_mesh ");
    ASSERT(main_row && solve_row && refine_row);
    ASSERT(main_row < solve_row && solve_row < refine_row);
    size_t calls_end = (size_t)(strstr(head, "calls") + 5 - head);
    ASSERT_EQ_I(refine_row[calls_end - 1], '4');
    ASSERT_EQ_I(refine_row[calls_end], ' ');
    /* total: the outermost call only (4 ms; its nested calls are inside
     * it); own: 1 ms per level */
    ASSERT_CONTAINS(refine_row, "  0.004000  0.004000 ");
    ASSERT_CONTAINS(text, "Recursive: refine_mesh (called inside themselves");
    free(text);

    sp_region_filter *flt = sp_region_filter_new("^s", NULL);
    TB_CAPTURE(text, rc = sp_print_inspect(run, SP_SORT_NAME, flt, f));
    ASSERT_EQ_I(rc, 0);
    ASSERT(line_starting(text, "setup ") && line_starting(text, "solve "));
    ASSERT(line_starting(text, "setup ") < line_starting(text, "solve "));
    ASSERT(!line_starting(text, "main "));
    ASSERT_CONTAINS(text, "2 of 6 regions shown");
    free(text);
    sp_region_filter_free(flt);
    sp_run_free(run);
}

/* The recursion note names regions reached from inside themselves, also
 * through another region, and only those. */
static void test_inspect_recursion_note(void)
{
    tb_call c[] = {
        {0, 0, "a", 0, 100},   {0, 0, "b", 10, 90},   {0, 0, "a", 20, 80}, /* a -> b -> a */
        {0, 0, "c", 200, 300}, {0, 0, "d", 210, 220}, {0, 0, "e", 230, 240},
    };
    sp_run *run = tb_build(c, 6, 1, 1);
    ASSERT(run);
    char *text = NULL;
    int rc;
    TB_CAPTURE(text, rc = sp_print_inspect(run, SP_SORT_NAME, NULL, f));
    ASSERT_EQ_I(rc, 0);
    ASSERT_CONTAINS(text, "Recursive: a (");
    free(text);
    sp_run_free(run);

    tb_call flat[] = {{0, 0, "x", 0, 10}, {0, 0, "y", 2, 5}, {0, 0, "x", 20, 30}};
    run = tb_build(flat, 3, 1, 1);
    ASSERT(run);
    TB_CAPTURE(text, rc = sp_print_inspect(run, SP_SORT_NAME, NULL, f));
    ASSERT_EQ_I(rc, 0);
    ASSERT(!strstr(text, "Recursive"));
    free(text);
    sp_run_free(run);
}

int main(void)
{
    RUN(test_seed_recursive_example);
    RUN(test_seed_flat_example);
    RUN(test_mock_solver_summary);
    RUN(test_ranks_and_path_quoting);
    RUN(test_utf8_widths);
    RUN(test_utf8_summary_boxes);
    RUN(test_cap_children);
    RUN(test_cap_depth);
    RUN(test_cap_rows_and_long_names);
    RUN(test_public_print_summary);
    RUN(test_empty_run_summary);
    RUN(test_inspect);
    RUN(test_inspect_recursion_note);
    return sp_test_summary();
}
