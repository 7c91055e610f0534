/* SPDX-License-Identifier: MIT */
/*
 * report_waits.c - the report's "Why ranks wait" section (runs with MPI
 * messages: analysis/sp_waits.h): the largest waits as sentences, the
 * waiting by pattern, and a sortable table by pattern, rank and call path
 * with the rank waited for and the cause, ranked by time.
 */
#include "report.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sp_waits.h"

#define MAX_ROWS 200 /* table rows (the largest; the count of the rest follows) */


/* The path without C++ argument lists, as `waits` prints it. */
static void html_path(FILE *f, const char *path)
{
    int depth = 0;
    char one[2] = {0, 0};
    for (const char *p = path; *p; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')' && depth > 0)
            depth--;
        else if (depth == 0) {
            one[0] = *p;
            sp__html(f, one);
        }
    }
}

void sp__report_waits_findings(const sp__report *r, size_t max, void (*add)(void *, double, char *),
                               void *arg)
{
    const sp_waits *w = r->waits;
    for (size_t i = 0; w && i < w->nrows && i < max; i++) {
        char line[1024], *html = NULL;
        size_t len = 0;
        FILE *s = open_memstream(&html, &len);
        if (!s) {
            add(arg, 0, NULL);
            return;
        }
        sp_waits_sentence(w, i, line, sizeof line);
        fputs("<li class=\"waits\"><b>Waiting</b> ", s);
        sp__html(s, line);
        fputs(" (<a href=\"#waits\">why ranks wait</a>)</li>\n", s);
        if (fclose(s) != 0) {
            free(html);
            html = NULL;
        }
        /* per rank, as every finding: one rank's wait over the ranks */
        add(arg, w->rows[i].wait_s / (double)(w->nranks ? w->nranks : 1), html);
    }
}

void sp__report_waits(const sp__report *r, FILE *f)
{
    const sp_waits *w = r->waits;
    if (!w)
        return;
    char a[32], b[32];
    double total = 0;
    for (int p = 0; p < SP_WAIT_NPATTERNS; p++)
        total += w->pattern_s[p];
    fputs("<section id=\"waits\"><h2>Why ranks wait</h2>\n<p class=\"hint\">From the MPI "
          "messages and collectives the run recorded, matched across ranks (clocks aligned to "
          "rank 0 within ",
          f);
    sp__html(f, sp__fmt_dur((double)w->clock_err_ns * 1e-9, a, sizeof a));
    fprintf(f, "). Time in MPI calls: %s summed over the ranks, of which waiting for another "
               "rank: %s. A cause is a call path where the rank waited for spent more time than "
               "the waiting rank since they last synchronised (directly, or through ranks that "
               "waited for it).</p>\n",
            sp__fmt_dur(w->mpi_s, a, sizeof a), sp__fmt_dur(total, b, sizeof b));
    if (!w->nrows) {
        fputs("<p>No rank waited for another in the recorded MPI calls.</p></section>\n", f);
        return;
    }
    fputs("<ul class=\"warnings\">\n", f);
    for (size_t i = 0; i < w->nrows && i < 3; i++) {
        char line[1024];
        sp_waits_sentence(w, i, line, sizeof line);
        fputs("<li>", f);
        sp__html(f, line);
        fputs("</li>\n", f);
    }
    fputs("</ul>\n<table><thead><tr><th>Pattern</th><th>Waiting</th><th>Per rank</th>"
          "<th>Within clock uncertainty</th></tr></thead>\n<tbody>\n",
          f);
    for (int p = 0; p < SP_WAIT_NPATTERNS; p++) {
        if (w->pattern_s[p] <= 0)
            continue;
        fputs("<tr><td class=\"name\">", f);
        sp__html(f, sp_wait_pattern_name(p));
        fputs("</td>", f);
        sp__td_dur(f, w->pattern_s[p]);
        sp__td_dur(f, w->pattern_s[p] / (double)(w->nranks ? w->nranks : 1));
        sp__td_dur(f, w->pattern_uncertain_s[p]);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n<div class=\"tw\"><table class=\"sortable\"><thead><tr><th data-type=\"text\">"
          "Pattern</th><th>Rank</th><th data-type=\"text\">Call path</th><th>Calls</th>"
          "<th>Waiting</th><th>For rank</th><th data-type=\"text\">Cause (on the rank waited "
          "for)</th><th>Explained</th></tr></thead>\n<tbody>\n",
          f);
    for (size_t i = 0; i < w->nrows && i < MAX_ROWS; i++) {
        const sp_wait_row *row = &w->rows[i];
        fputs("<tr><td class=\"name\">", f);
        sp__html(f, sp_wait_pattern_name(row->pattern));
        fprintf(f, "</td><td data-v=\"%d\">%d</td><td class=\"name\"><code>", (int)row->rank,
                (int)row->rank);
        html_path(f, w->paths.s[row->path]);
        fprintf(f, "</code></td><td data-v=\"%llu\">%llu</td>",
                (unsigned long long)row->count, (unsigned long long)row->count);
        sp__td_dur(f, row->wait_s);
        fprintf(f, "<td data-v=\"%d\">%d</td><td class=\"name\">", (int)row->late_rank,
                (int)row->late_rank);
        if (row->ncauses) {
            const sp_wait_cause *c = &row->causes[0];
            const char *nm = w->names.s[c->region], *leaf = strrchr(nm, '>');
            fputs("<code>", f);
            html_path(f, leaf ? leaf + 2 : nm);
            fprintf(f, "</code> on rank %d: %s", (int)c->rank,
                    sp__fmt_dur(c->charged_s, a, sizeof a));
        } else {
            fputs("-", f);
        }
        fputs("</td>", f);
        double share = row->wait_s > 0 ? 100.0 * row->explained_s / row->wait_s : 0;
        snprintf(a, sizeof a, "%.0f%%", share);
        sp__td_num(f, share, w->causes_done ? a : "-");
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table></div>\n", f);
    if (w->nrows > MAX_ROWS)
        fprintf(f, "<p class=\"note\">%zu smaller rows left out (scope-profiler waits --all "
                   "lists them).</p>\n",
                w->nrows - MAX_ROWS);
    fprintf(f, "<p class=\"hint\">Messages: %zu matched (%llu sends and %llu receives "
               "unmatched); collectives: %llu matched. Every row: <code>scope-profiler waits "
               "--all</code>.</p>\n</section>\n",
            w->nmessages, (unsigned long long)w->unmatched_sends,
            (unsigned long long)w->unmatched_recvs, (unsigned long long)w->collectives);
}
