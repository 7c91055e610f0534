/* SPDX-License-Identifier: MIT */
/*
 * sp_waits_print.c - `scope-profiler waits`: the waiting by pattern, then
 * one row per pattern, waiting rank and call site with the rank it waited
 * for and what that rank was doing instead; the messages per pair of ranks
 * on request.
 *
 *   pattern           rank   calls     wait [s]  for rank  call path
 *   late sender          0       3     0.594401         2  main > step > exchange > MPI_Recv
 *                   └─ compute on rank 2: 0.594390 s (rank 2 spent 0.599184 s more
 *                      there than rank 0)
 */
#include <stdio.h>
#include <string.h>

#include "sp_error.h"
#include "sp_waits_internal.h"

#define MAX_CAUSES 3 /* per row in the table */

/* "1.25 s", "3.4 ms", "12 µs" */
static void fmt_time(double s, char *buf, size_t n)
{
    if (s >= 1.0)
        snprintf(buf, n, "%.3f s", s);
    else if (s >= 1e-3)
        snprintf(buf, n, "%.3f ms", s * 1e3);
    else
        snprintf(buf, n, "%.1f µs", s * 1e6);
}

/* A path for reading: argument lists of C++ names dropped
 * ("lulesh.CalcKinematicsForElems(Domain&, double, int)" ->
 * "lulesh.CalcKinematicsForElems"; the CSV keeps them). */
static const char *readable(const char *path, char *buf, size_t n)
{
    size_t k = 0;
    int depth = 0;
    for (const char *p = path; *p && k + 1 < n; p++) {
        if (*p == '(')
            depth++;
        else if (*p == ')' && depth > 0)
            depth--;
        else if (depth == 0)
            buf[k++] = *p;
    }
    buf[k] = '\0';
    return buf;
}

/* The last `keep` components of "a > b > c > d" ("… > c > d"). */
static const char *tail_of(const char *path, int keep, char *buf, size_t n)
{
    const char *p = path + strlen(path);
    int seen = 0;
    while (p > path) {
        if (p - path >= 3 && !strncmp(p - 3, " > ", 3) && ++seen == keep)
            break;
        p--;
    }
    if (p == path)
        return path;
    snprintf(buf, n, "… > %s", p);
    return buf;
}

void sp_waits_sentence(const sp_waits *w, size_t i, char *buf, size_t len)
{
    const sp_wait_row *r = &w->rows[i];
    char rp[1024], rc[1024];
    const char *path = readable(w->paths.s[r->path], rp, sizeof rp), *call = strrchr(path, '>');
    call = call ? call + 2 : path;
    int n = snprintf(buf, len, "rank %d waits %.2f s in %s for rank %d (%s)", (int)r->rank,
                     r->wait_s, call, (int)r->late_rank, sp_wait_pattern_name(r->pattern));
    if (n < 0 || (size_t)n >= len || !r->ncauses)
        return;
    const sp_wait_cause *c = &r->causes[0];
    const char *cause = readable(w->names.s[c->region], rc, sizeof rc), *where = strrchr(cause, '>');
    const char *what = where ? where + 2 : cause;
    if (c->via_s > c->charged_s / 2) /* mostly propagated: the late rank was itself held up */
        snprintf(buf + n, len - (size_t)n,
                 ", itself held up by rank %d: %.2f s of the wait is rank %d's extra time in %s",
                 (int)c->rank, c->charged_s, (int)c->rank, what);
    else
        snprintf(buf + n, len - (size_t)n, ", because rank %d spent %.2f s more than rank %d in %s",
                 (int)c->rank, c->excess_s, (int)r->rank, what);
}

static void print_totals(const sp_waits *w, FILE *out)
{
    char t[32];
    fprintf(out, "%-16s %12s %13s %s\n", "pattern", "wait [s]", "per rank [s]", "of it uncertain");
    for (int p = 0; p < SP_WAIT_NPATTERNS; p++) {
        if (w->pattern_s[p] <= 0)
            continue;
        fmt_time(w->pattern_uncertain_s[p], t, sizeof t);
        fprintf(out, "%-16s %12.6f %13.6f %s\n", sp_wait_pattern_name(p), w->pattern_s[p],
                w->pattern_s[p] / (double)(w->nranks ? w->nranks : 1),
                w->pattern_uncertain_s[p] > 0 ? t : "-");
    }
}

static void print_rows(const sp_waits *w, size_t max_rows, FILE *out)
{
    size_t n = max_rows && max_rows < w->nrows ? max_rows : w->nrows;
    fprintf(out, "%-16s %5s %7s %12s %9s  %s\n", "pattern", "rank", "calls", "wait [s]",
            "for rank", "call path");
    for (size_t i = 0; i < n; i++) {
        const sp_wait_row *r = &w->rows[i];
        char rp[1024];
        fprintf(out, "%-16s %5d %7llu %12.6f %9d  %s\n", sp_wait_pattern_name(r->pattern),
                (int)r->rank, (unsigned long long)r->count, r->wait_s, (int)r->late_rank,
                readable(w->paths.s[r->path], rp, sizeof rp));
        double rest = r->wait_s - r->explained_s;
        bool show_rest = w->causes_done && w->program_regions && rest > 1e-6 &&
                         rest > 0.01 * r->wait_s;
        /* Causes that carry at least 1 % of the wait (and 1 µs). */
        size_t nc = 0;
        while (nc < r->ncauses && nc < MAX_CAUSES && r->causes[nc].charged_s >= 1e-6 &&
               r->causes[nc].charged_s >= 0.01 * r->wait_s)
            nc++;
        for (size_t k = 0; k < nc; k++) {
            const sp_wait_cause *c = &r->causes[k];
            char tail[1100], rn[1024];
            char how[200];
            if (c->via_s >= c->charged_s - 1e-9)
                snprintf(how, sizeof how, "through ranks that waited for rank %d", (int)c->rank);
            else if (c->via_s > 1e-6)
                snprintf(how, sizeof how, "rank %d spent %.6f s more there than rank %d; %.6f s "
                         "through ranks that waited for it", (int)c->rank, c->excess_s,
                         (int)r->rank, c->via_s);
            else
                snprintf(how, sizeof how, "rank %d spent %.6f s more there than rank %d",
                         (int)c->rank, c->excess_s, (int)r->rank);
            fprintf(out, "%22s %s on rank %d: %.6f s (%s)\n", k + 1 < nc || show_rest ? "├─" : "└─",
                    tail_of(readable(w->names.s[c->region], rn, sizeof rn), 3, tail, sizeof tail),
                    (int)c->rank, c->charged_s, how);
        }
        if (show_rest)
            fprintf(out, "%22s not explained: %.6f s (the rank waited for was not running, or "
                         "waited in calls without records)\n",
                    "└─", rest);
        if (r->uncertain_s > 0) {
            char t[32];
            fmt_time(r->uncertain_s, t, sizeof t);
            fprintf(out, "%22s %s of it within the clocks' uncertainty\n", "",  t);
        }
    }
    if (n < w->nrows)
        fprintf(out, "... %zu more rows (--all shows them)\n", w->nrows - n);
}

static void print_pairs(const sp_waits *w, FILE *out)
{
    fprintf(out, "\nMessages per pair of ranks:\n%6s %4s %9s %14s %9s %14s %9s\n", "from", "to",
            "sent", "bytes sent", "received", "bytes received", "matched");
    for (size_t i = 0; i < w->npairs; i++) {
        const sp_wait_pair *p = &w->pairs[i];
        fprintf(out, "%6d %4d %9llu %14llu %9llu %14llu %9llu\n", (int)p->src, (int)p->dst,
                (unsigned long long)p->sent, (unsigned long long)p->sent_bytes,
                (unsigned long long)p->received, (unsigned long long)p->received_bytes,
                (unsigned long long)p->matched);
    }
}

int sp_waits_print(const sp_waits *w, const char *path, size_t max_rows, bool pairs, FILE *out)
{
    char err[32];
    fmt_time(sp__ns_s(w->clock_err_ns), err, sizeof err);
    double total = 0;
    for (int p = 0; p < SP_WAIT_NPATTERNS; p++)
        total += w->pattern_s[p];
    fprintf(out, "Waiting in MPI: %s (%zu ranks; clocks aligned to rank 0 within %s)\n",
            path ? path : "run", w->nranks, err);
    fprintf(out, "Time in MPI calls: %.6f s summed over ranks, of which waiting for another "
                 "rank: %.6f s (%.0f %%)\n\n",
            w->mpi_s, total, w->mpi_s > 0 ? 100.0 * total / w->mpi_s : 0.0);
    if (w->nrows) {
        fprintf(out, "The largest waits:\n");
        for (size_t i = 0; i < w->nrows && i < 3; i++) {
            char line[1024];
            sp_waits_sentence(w, i, line, sizeof line);
            fprintf(out, "  %s\n", line);
        }
        fputc('\n', out);
        print_totals(w, out);
        fputc('\n', out);
        print_rows(w, max_rows, out);
    } else {
        fprintf(out, "No rank waited for another in the recorded MPI calls.\n");
    }
    fprintf(out, "\nMessages: %zu matched; %llu sends and %llu receives unmatched. "
                 "Collectives: %llu matched",
            w->nmessages, (unsigned long long)w->unmatched_sends,
            (unsigned long long)w->unmatched_recvs, (unsigned long long)w->collectives);
    if (w->coll_mismatched)
        fprintf(out, ", %llu could not be matched", (unsigned long long)w->coll_mismatched);
    fprintf(out, ".\n");
    if (!w->causes_done && w->nrows)
        fprintf(out, "Causes: not computed (the run has no calls).\n");
    else if (!w->program_regions && w->nrows)
        fprintf(out, "Causes: the run has no regions of its own besides the MPI calls, so none "
                     "can be named: add regions (SP_SCOPE) around the work, or trace the "
                     "functions (-finstrument-functions, scope-profiler run).\n");
    if (w->ranks_without)
        fprintf(out, "Note: %zu rank(s) recorded no messages; waits involving them are not "
                     "seen.\n", w->ranks_without);
    if (w->records_dropped || w->untracked)
        fprintf(out, "Note: %llu record(s) were lost while recording (no event chunk free) "
                     "and %llu completed request(s) had no recorded start (persistent "
                     "requests, nonblocking collectives, I/O).\n",
                (unsigned long long)w->records_dropped, (unsigned long long)w->untracked);
    double unc = 0;
    for (int p = 0; p < SP_WAIT_NPATTERNS; p++)
        unc += w->pattern_uncertain_s[p];
    if (unc > 0)
        fprintf(out, "Note: waits no longer than the two ranks' clock offset uncertainty are "
                     "counted but marked uncertain (%.6f s in all).\n", unc);
    if (pairs)
        print_pairs(w, out);
    return ferror(out) ? sp__error(SP_EIO, "write error") : 0;
}
