/* SPDX-License-Identifier: MIT */
/*
 * report.h - the self-contained HTML report of `scope-profiler report`:
 * one file with inline CSS, a little inline JavaScript (table sorting) and
 * inline SVG charts; nothing is fetched from anywhere.
 */
#ifndef REPORT_H
#define REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "plot_charts.h"
#include "sp_model.h"

typedef struct sp__report {
    const sp_run *run;  /* analyzed */
    const char *path;   /* its file */
    const sp_run *cand; /* optional second run (comparison), analyzed */
    const char *cand_path;
    const sp_run *const *runs; /* three or more runs: a scaling study (runs[0] = run) */
    size_t nruns;
    sp_scaling_kind scaling_kind; /* of that study: detected (0), strong or weak */
    const char *title; /* NULL: "scope-profiler report: FILE" */
    /* One colour map over every run of the report (borrowed), so a region
     * has one colour in all its charts, comparison and scaling included. */
    const struct sp_color_map *colors;
    int chart_seq;     /* numbering of inline SVGs (unique ids) */
    /* Why ranks wait (runs with MPI messages; NULL: none). Made and freed
     * by sp__report_write. */
    struct sp_waits *waits;
    /* The run's per-rank figures, made once by sp__report_write for every
     * section (each made its own: a pass over 10^6 regions five times). */
    struct sp_figures *fg;
} sp__report;

/* The run's figures: r->fg, else new ones in *own (the caller frees *own
 * with sp_figures_free). NULL when out of memory. */
struct sp_figures *sp__report_figures(const sp__report *r, struct sp_figures **own);

/* Warning thresholds of the overview. */
#define SP__REPORT_IMBALANCE_WARN 1.2  /* max / mean of per-rank totals */
#define SP__REPORT_CHATTY_CALLS 100000 /* more calls than this ... */
#define SP__REPORT_CHATTY_MEAN_S 1e-6  /* ... with a mean below 1 us */

/* The regions table shows at most this many regions, those with the most
 * time (10^6 regions made a 370 MB page no browser opens); a last row says
 * how many more and where to see them all. */
#define SP__REPORT_MAX_REGION_ROWS 2000

/* Write the whole document to f. 0 or a negative SP_E* code. */
int sp__report_write(sp__report *r, FILE *f);

/* ---- report_util.c ---- */

/* Text as HTML: & < > " ' escaped, control characters and invalid UTF-8
 * replaced by U+FFFD. NULL writes nothing. */
void sp__html(FILE *f, const char *s);

/* A duration, 3 significant digits with ns / us / ms / s. */
char *sp__fmt_dur(double seconds, char *buf, size_t n);

/* Table cells of sortable tables: text shown, v sorted on (data-v); a
 * duration in seconds shown with sp__fmt_dur. */
void sp__td_num(FILE *f, double v, const char *text);
void sp__td_dur(FILE *f, double s);

/* ---- report_sections.c ---- */
int sp__report_overview(sp__report *r, FILE *f);
void sp__report_regions(const sp__report *r, FILE *f);
void sp__report_ranks(const sp__report *r, FILE *f);
void sp__report_metadata(const sp__report *r, FILE *f);

/* ---- report_warnings.c: findings ranked by time impact ---- */
int sp__report_warnings(const sp__report *r, FILE *f);

/* ---- report_waits.c: why ranks wait (r->waits) ---- */
void sp__report_waits(const sp__report *r, FILE *f);
/* The largest `max` waits as findings: add(arg, impact per rank, html)
 * (html malloc'ed, NULL when out of memory). */
void sp__report_waits_findings(const sp__report *r, size_t max,
                               void (*add)(void *, double, char *), void *arg);

/* ---- report_tree.c ---- */
int sp__report_tree(const sp__report *r, FILE *f);

/* ---- report_compare.c ---- */
int sp__report_compare(sp__report *r, FILE *f);

/* ---- report_scaling.c ---- */
int sp__report_scaling(sp__report *r, FILE *f);

/* ---- report_svg.c (needs the plots library) ---- */

/* Draw chart kind for job as SVG of w x h and write it inline into f, ids
 * made unique in the document; the svg scales to the page width. Without
 * SP_HAVE_PLOTS writes a note instead. 0 or SP_E*. */
int sp__report_chart(sp__report *r, FILE *f, sp__chart_kind kind, const sp__chart_job *job,
                     double w, double h);

#endif
