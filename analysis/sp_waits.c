/* SPDX-License-Identifier: MIT */
/*
 * sp_waits.c - the waits of a run (sp_waits.h): the computation's steps,
 * the rows by pattern, rank and call site, the interned call paths and
 * region names, and the queries on the result (messages of a time window,
 * a rank's MPI events in time order).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sp_analysis.h"
#include "sp_error.h"
#include "sp_run_read.h"
#include "sp_waits_internal.h"

const char *sp_wait_pattern_name(sp_wait_pattern p)
{
    static const char *const names[SP_WAIT_NPATTERNS] = {
        "late sender", "late receiver", "wait at barrier", "wait at N x N",
        "late broadcast", "early reduce"};
    return p >= 0 && p < SP_WAIT_NPATTERNS ? names[p] : "?";
}

/* ---------------------------------------------------------------- paths */

/* The text of rank r's local path row p: "main > step > MPI_Recv". */
static char *path_text(const sp_mpi_data *d, size_t r, int32_t p)
{
    const sp_mpi_rank *rk = &d->ranks[r];
    size_t len = 1, depth = 0;
    for (int32_t q = p; q >= 0 && depth <= rk->npaths; q = rk->path_parent[q], depth++)
        len += strlen(d->names.s[rk->path_region[q]]) + 3;
    char *s = malloc(len);
    if (!s)
        return NULL;
    size_t pos = len - 1;
    s[pos] = '\0';
    bool first = true;
    for (int32_t q = p; q >= 0 && depth--; q = rk->path_parent[q]) {
        const char *nm = d->names.s[rk->path_region[q]];
        size_t n = strlen(nm);
        if (!first) {
            pos -= 3;
            memcpy(s + pos, " > ", 3);
        }
        pos -= n;
        memcpy(s + pos, nm, n);
        first = false;
    }
    memmove(s, s + pos, len - pos);
    return s;
}

/* The sp_waits.paths id of rank r's path row p ("(top level)" for -1). */
static int32_t path_id(sp__waits_ctx *c, int32_t r, int32_t p)
{
    const sp_mpi_rank *rk = &c->d->ranks[r];
    if (p >= 0 && (size_t)p < rk->npaths && c->path_id[r][p] >= 0)
        return c->path_id[r][p];
    char *s = p >= 0 && (size_t)p < rk->npaths ? path_text(c->d, (size_t)r, p)
                                               : strdup("(top level)");
    if (!s)
        return -1;
    int32_t id = sp_strtab_intern(&c->w->paths, s);
    free(s);
    if (id >= 0 && p >= 0 && (size_t)p < rk->npaths)
        c->path_id[r][p] = id;
    return id;
}

/* ---------------------------------------------------------------- rows */

static size_t row_hash(sp_wait_pattern p, int32_t rank, int32_t path, size_t mask)
{
    uint64_t k = ((uint64_t)(uint32_t)rank << 32) ^ ((uint64_t)(uint32_t)path << 3) ^ (uint64_t)p;
    return (size_t)((k * 0x9E3779B97F4A7C15ull) >> 20) & mask;
}

static int rows_rehash(sp__waits_ctx *c)
{
    size_t cap = c->row_hcap ? 2 * c->row_hcap : 256;
    size_t *s = calloc(cap, sizeof *s);
    if (!s)
        return -1;
    for (size_t i = 0; i < c->w->nrows; i++) {
        const sp_wait_row *r = &c->w->rows[i];
        size_t k = row_hash(r->pattern, r->rank, r->path, cap - 1);
        while (s[k])
            k = (k + 1) & (cap - 1);
        s[k] = i + 1;
    }
    free(c->row_slot);
    c->row_slot = s;
    c->row_hcap = cap;
    return 0;
}

long sp__waits_row(sp__waits_ctx *c, sp_wait_pattern p, int32_t rank, int32_t local_path)
{
    int32_t path = path_id(c, rank, local_path);
    if (path < 0)
        return -1;
    sp_waits *w = c->w;
    if (2 * (w->nrows + 1) > c->row_hcap && rows_rehash(c) != 0)
        return -1;
    size_t k = row_hash(p, rank, path, c->row_hcap - 1);
    for (; c->row_slot[k]; k = (k + 1) & (c->row_hcap - 1)) {
        const sp_wait_row *r = &w->rows[c->row_slot[k] - 1];
        if (r->pattern == p && r->rank == rank && r->path == path)
            return (long)c->row_slot[k] - 1;
    }
    if (w->nrows == c->rows_cap) {
        size_t cap = c->rows_cap ? 2 * c->rows_cap : 64;
        sp_wait_row *rows = realloc(w->rows, cap * sizeof *rows);
        if (!rows)
            return -1;
        w->rows = rows;
        c->rows_cap = cap;
    }
    w->rows[w->nrows] = (sp_wait_row){.pattern = p, .rank = rank, .path = path, .late_rank = -1};
    c->row_slot[k] = ++w->nrows;
    return (long)w->nrows - 1;
}

int sp__waits_add(sp__waits_ctx *c, const sp__wait_inst *in)
{
    long row = sp__waits_row(c, in->pattern, in->waiter, in->waiter_path);
    if (row < 0)
        return SP_ENOMEM;
    if (c->ninst == c->cap) {
        size_t cap = c->cap ? 2 * c->cap : 256;
        sp__wait_inst *p = realloc(c->inst, cap * sizeof *p);
        if (!p)
            return SP_ENOMEM;
        c->inst = p;
        c->cap = cap;
    }
    sp__wait_inst *e = &c->inst[c->ninst++];
    *e = *in;
    e->row = (size_t)row;
    sp_wait_row *r = &c->w->rows[row];
    r->count++;
    r->wait_s += in->wait_s;
    if (in->uncertain)
        r->uncertain_s += in->wait_s;
    c->w->pattern_s[in->pattern] += in->wait_s;
    if (in->uncertain)
        c->w->pattern_uncertain_s[in->pattern] += in->wait_s;
    c->w->rank_pattern_s[(size_t)in->waiter * SP_WAIT_NPATTERNS + in->pattern] += in->wait_s;
    return 0;
}

int sp__waits_charge(sp__waits_ctx *c, size_t row, int32_t late, const char *region, double s,
                     double excess_s, double via_s)
{
    int32_t id = sp_strtab_intern(&c->w->names, region);
    if (id < 0)
        return SP_ENOMEM;
    sp_wait_row *r = &c->w->rows[row];
    r->explained_s += s;
    for (size_t i = 0; i < r->ncauses; i++)
        if (r->causes[i].rank == late && r->causes[i].region == id) {
            r->causes[i].charged_s += s;
            r->causes[i].excess_s += excess_s;
            r->causes[i].via_s += via_s;
            return 0;
        }
    sp_wait_cause *p = realloc(r->causes, (r->ncauses + 1) * sizeof *p);
    if (!p)
        return SP_ENOMEM;
    r->causes = p;
    r->causes[r->ncauses++] = (sp_wait_cause){late, id, s, excess_s, via_s};
    return 0;
}

/* ---------------------------------------------------------------- the steps */

static int by_wait(const void *a, const void *b)
{
    const sp_wait_row *x = a, *y = b;
    if (x->wait_s != y->wait_s)
        return x->wait_s < y->wait_s ? 1 : -1;
    if (x->pattern != y->pattern)
        return x->pattern < y->pattern ? -1 : 1;
    return x->rank < y->rank ? -1 : x->rank > y->rank;
}

static int by_charge(const void *a, const void *b)
{
    const sp_wait_cause *x = a, *y = b;
    return x->charged_s < y->charged_s ? 1 : x->charged_s > y->charged_s ? -1 : 0;
}

/* Per row: the rank waited for the longest, the causes largest first. */
static int finish_rows(sp__waits_ctx *c)
{
    sp_waits *w = c->w;
    double *by_rank = calloc(w->nranks ? w->nranks : 1, sizeof *by_rank);
    if (!by_rank)
        return SP_ENOMEM;
    /* Instances are grouped by row through a counting order. */
    size_t *start = calloc(w->nrows + 1, sizeof *start), *order = NULL;
    if (!start || !(order = malloc((c->ninst ? c->ninst : 1) * sizeof *order))) {
        free(by_rank);
        free(start);
        return SP_ENOMEM;
    }
    for (size_t i = 0; i < c->ninst; i++)
        start[c->inst[i].row + 1]++;
    for (size_t r = 0; r < w->nrows; r++)
        start[r + 1] += start[r];
    size_t *fill = calloc(w->nrows ? w->nrows : 1, sizeof *fill);
    if (!fill) {
        free(by_rank);
        free(start);
        free(order);
        return SP_ENOMEM;
    }
    for (size_t i = 0; i < c->ninst; i++) {
        size_t r = c->inst[i].row;
        order[start[r] + fill[r]++] = i;
    }
    for (size_t r = 0; r < w->nrows; r++) {
        sp_wait_row *row = &w->rows[r];
        for (size_t k = start[r]; k < start[r + 1]; k++) {
            const sp__wait_inst *in = &c->inst[order[k]];
            by_rank[in->late] += in->wait_s;
        }
        for (size_t k = start[r]; k < start[r + 1]; k++) {
            int32_t l = c->inst[order[k]].late;
            if (by_rank[l] > row->late_rank_s ||
                (by_rank[l] == row->late_rank_s && (row->late_rank < 0 || l < row->late_rank))) {
                row->late_rank = l;
                row->late_rank_s = by_rank[l];
            }
        }
        for (size_t k = start[r]; k < start[r + 1]; k++)
            by_rank[c->inst[order[k]].late] = 0;
        if (row->ncauses > 1)
            qsort(row->causes, row->ncauses, sizeof *row->causes, by_charge);
    }
    free(fill);
    free(order);
    free(start);
    free(by_rank);
    if (w->nrows) /* rows may be NULL when none */
        qsort(w->rows, w->nrows, sizeof *w->rows, by_wait);
    return 0;
}

static void ctx_free(sp__waits_ctx *c)
{
    size_t n = c->d ? c->d->nranks : 0;
    for (size_t r = 0; r < n; r++) {
        if (c->gcomm)
            free(c->gcomm[r]);
        if (c->recv_match)
            free(c->recv_match[r]);
        if (c->send_match)
            free(c->send_match[r]);
        if (c->path_id)
            free(c->path_id[r]);
    }
    for (size_t g = 0; c->gsorted && g < c->ngcomms; g++)
        free(c->gsorted[g]);
    free(c->gsorted);
    free(c->gmembers);
    free(c->gsize);
    free(c->gcomm);
    free(c->recv_match);
    free(c->send_match);
    free(c->path_id);
    free(c->off);
    free(c->err);
    free(c->inst);
    free(c->row_slot);
}

/* Time in MPI calls that have records: the collectives' and the completing
 * calls' (one per call, however many requests it completed). */
static void mpi_time(sp_waits *w, const sp_mpi_data *d)
{
    for (size_t r = 0; r < d->nranks; r++) {
        const sp_mpi_rank *rk = &d->ranks[r];
        for (size_t i = 0; i < rk->coll.n; i++)
            w->mpi_s += sp__ns_s(rk->coll.exit[i] - rk->coll.enter[i]);
        for (size_t i = 0; i < rk->p2p.n; i++) {
            bool again = i > 0 && rk->p2p.done_enter[i] == rk->p2p.done_enter[i - 1] &&
                         rk->p2p.done_exit[i] == rk->p2p.done_exit[i - 1] &&
                         rk->p2p.thread[i] == rk->p2p.thread[i - 1];
            if (!again)
                w->mpi_s += sp__ns_s(rk->p2p.done_exit[i] - rk->p2p.done_enter[i]);
        }
    }
}

bool sp__waits_rank_has_calls(const sp__waits_ctx *c, size_t r)
{
    return r < c->run->nranks &&
           (c->run->ranks[r].ncalls > 0 || (c->src && sp_run_rank_calls(c->run, r) > 0));
}

/* Whether the run has regions of its own besides the MPI calls: from its
 * calls, or (aggregate-first) from the call tree of its aggregates. */
static bool has_program_regions(const sp__waits_ctx *c)
{
    const sp_run *run = c->run;
    for (size_t r = 0; r < run->nranks; r++) {
        const sp_rank_data *rk = &run->ranks[r];
        for (size_t i = 0; i < rk->ncalls; i++)
            if (strncmp(run->region_names[rk->region[i]], "MPI_", 4) != 0)
                return true;
    }
    for (size_t k = 1; c->src && k < run->tree.nnodes; k++) {
        int32_t g = run->tree.nodes[k].region;
        if (g >= 0 && run->tree.nodes[k].calls > 0 &&
            strncmp(run->region_names[g], "MPI_", 4) != 0)
            return true;
    }
    return false;
}

static int compute(const sp_run *run, sp_event_source *src, sp_waits **out)
{
    *out = NULL;
    const sp_mpi_data *d = run->mpi;
    if (!d)
        return sp__error(SP_ENOENT, "the run has no MPI messages: record them with "
                                    "use_mpi_regions (SCOPE_PROFILER_MPI_REGIONS=1) and the "
                                    "MPI library, scope-profiler 0.1 or later");
    sp_waits *w = calloc(1, sizeof *w);
    sp__waits_ctx c = {.run = run, .src = src, .d = d, .w = w};
    size_t n = d->nranks;
    int rc = SP_ENOMEM;
    if (!w || !(w->rank_pattern_s = calloc((n ? n : 1) * SP_WAIT_NPATTERNS, sizeof(double))) ||
        !(c.off = calloc(n ? n : 1, sizeof *c.off)) || !(c.err = calloc(n ? n : 1, sizeof *c.err)) ||
        !(c.path_id = calloc(n ? n : 1, sizeof *c.path_id)))
        goto fail;
    w->nranks = n;
    for (size_t r = 0; r < n; r++) {
        const sp_mpi_rank *rk = &d->ranks[r];
        c.off[r] = rk->clock_offset_ns;
        c.err[r] = rk->clock_offset_err_ns;
        if (rk->clock_offset_err_ns > w->clock_err_ns)
            w->clock_err_ns = rk->clock_offset_err_ns;
        w->records_dropped += rk->records_dropped;
        w->untracked += rk->untracked;
        w->ranks_without += !rk->present;
        if (!(c.path_id[r] = malloc((rk->npaths ? rk->npaths : 1) * sizeof **c.path_id)))
            goto fail;
        memset(c.path_id[r], 0xff, rk->npaths * sizeof **c.path_id);
    }
    mpi_time(w, d);
    if ((rc = sp__waits_comms(&c)) || (rc = sp__waits_match_p2p(&c)) ||
        (rc = sp__waits_match_coll(&c)))
        goto fail;
    bool calls = false;
    for (size_t r = 0; r < run->nranks; r++)
        calls |= sp__waits_rank_has_calls(&c, r);
    w->program_regions = has_program_regions(&c);
    if (calls && (rc = sp__waits_causes(&c)))
        goto fail;
    w->causes_done = calls;
    if ((rc = finish_rows(&c)))
        goto fail;
    ctx_free(&c);
    *out = w;
    return 0;
fail:
    ctx_free(&c);
    sp_waits_free(w);
    return sp__error(rc ? rc : SP_ENOMEM, "waits: out of memory");
}

int sp_waits_compute(const sp_run *run, sp_waits **out)
{
    return compute(run, NULL, out);
}

int sp_waits_compute_source(sp_event_source *src, sp_waits **out)
{
    *out = NULL;
    if (!src->run->agg) /* the windows need the pass's lanes */
        return sp__error(SP_EINVAL, "waits: the run was not aggregated (sp_run_aggregate)");
    /* Calls in memory (a memory source) are read from there. */
    return compute(src->run, src, out);
}

void sp_waits_free(sp_waits *w)
{
    if (!w)
        return;
    for (size_t i = 0; i < w->nrows; i++)
        free(w->rows[i].causes);
    free(w->rows);
    sp_strtab_free(&w->paths);
    sp_strtab_free(&w->names);
    free(w->rank_pattern_s);
    free(w->pairs);
    free(w->messages);
    free(w);
}

/* ---------------------------------------------------------------- queries */

long sp_waits_messages_in(const sp_waits *w, int64_t t0_ns, int64_t t1_ns, sp_message **out)
{
    *out = NULL;
    /* Messages are by send time: those sent before t0 - the longest
     * transit cannot reach t0. */
    int64_t from = t0_ns - w->max_transit_ns;
    size_t lo = 0, hi = w->nmessages;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->messages[mid].send_ns < from)
            lo = mid + 1;
        else
            hi = mid;
    }
    size_t n = 0, cap = 0;
    sp_message *m = NULL;
    for (size_t i = lo; i < w->nmessages && w->messages[i].send_ns <= t1_ns; i++) {
        if (w->messages[i].recv_ns < t0_ns)
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            sp_message *p = realloc(m, cap * sizeof *p);
            if (!p) {
                free(m);
                sp__error(SP_ENOMEM, "out of memory");
                return -1;
            }
            m = p;
        }
        m[n++] = w->messages[i];
    }
    *out = m;
    return (long)n;
}

static int by_time(const void *a, const void *b)
{
    const sp_mpi_event *x = a, *y = b;
    if (x->t_ns != y->t_ns)
        return x->t_ns < y->t_ns ? -1 : 1;
    if (x->kind != y->kind) /* at one instant: begins before ends */
        return x->kind < y->kind ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

long sp_mpi_rank_events(const sp_mpi_data *d, size_t r, int64_t t0_ns, int64_t t1_ns,
                        sp_mpi_event **out)
{
    *out = NULL;
    if (r >= d->nranks)
        return 0;
    const sp_mpi_rank *rk = &d->ranks[r];
    size_t cap = 2 * rk->p2p.n + 2 * rk->coll.n, n = 0;
    sp_mpi_event *e = malloc((cap ? cap : 1) * sizeof *e);
    if (!e) {
        sp__error(SP_ENOMEM, "out of memory");
        return -1;
    }
#define EV(t, k, i)                                                            \
    do {                                                                       \
        if ((t) >= t0_ns && (t) <= t1_ns)                                      \
            e[n++] = (sp_mpi_event){(t), (k), (i)};                            \
    } while (0)
    const sp_mpi_p2p *p = &rk->p2p;
    for (size_t i = 0; i < p->n; i++) {
        sp_mpi_class cls = sp_mpi_func_class(p->op[i]);
        bool nonblocking = cls == SP_MPI_CLASS_ISEND || cls == SP_MPI_CLASS_ISSEND ||
                           cls == SP_MPI_CLASS_IRECV;
        if (p->kind[i] == SP_MPI_KIND_SEND && nonblocking) {
            EV(p->post_enter[i], SP_MPI_EV_ISEND, i);
            EV(p->done_exit[i], SP_MPI_EV_ISEND_COMPLETE, i);
        } else if (p->kind[i] == SP_MPI_KIND_SEND) {
            EV(p->post_enter[i], SP_MPI_EV_SEND, i);
        } else if (p->kind[i] == SP_MPI_KIND_RECV && nonblocking) {
            EV(p->post_enter[i], SP_MPI_EV_IRECV_REQUEST, i);
            EV(p->done_exit[i], SP_MPI_EV_IRECV, i);
        } else if (p->kind[i] == SP_MPI_KIND_RECV) {
            EV(p->done_exit[i], SP_MPI_EV_RECV, i);
        }
    }
    for (size_t i = 0; i < rk->coll.n; i++) {
        EV(rk->coll.enter[i], SP_MPI_EV_COLL_BEGIN, i);
        EV(rk->coll.exit[i], SP_MPI_EV_COLL_END, i);
    }
#undef EV
    qsort(e, n, sizeof *e, by_time);
    *out = e;
    return (long)n;
}

int sp_waits_compute_for(const sp_run *run, const char *path, sp_waits **out)
{
    *out = NULL;
    if (!run->mpi)
        return sp_waits_compute(run, out); /* SP_ENOENT, said the same way */
    bool has_calls = false;
    for (size_t r = 0; r < run->nranks && !has_calls; r++)
        has_calls = run->ranks[r].ncalls > 0;
    if (has_calls || !path || sp_run_total_calls(run) == 0)
        return sp_waits_compute(run, out);
    int st;
    sp_event_source *src = sp_run_source_open(path, &st);
    if (!src)
        return st ? st : SP_EIO;
    sp_agg_opts o = {.flags = SP_AGG_LANES};
    int rc = sp_run_aggregate(src, &o);
    if (rc == 0)
        rc = sp_waits_compute_source(src, out);
    sp_event_source_free(src);
    return rc;
}
