/* SPDX-License-Identifier: MIT */
/*
 * sp_h5_wire.c - a run through a pipe: what the isolated reader's child
 * process (sp_h5_read_isolated.c) sends back to its parent.
 *
 * The format is private to one build (both ends are the same binary or the
 * same library): native byte order, a magic number and version, then the
 * run's fields in the order of sp_model.h, arrays as raw memory. The
 * decoder trusts nothing it reads: every count is charged to the read
 * budget before anything is allocated for it, and the decoded run goes
 * through the same checks as a run read from a file (sp__h5_check_decoded).
 *
 * A field added to sp_run or sp_rank_data must be added here too (and the
 * version bumped); tests/h5schema/test_h5_wire.c compares a run of every
 * kind of data before and after the trip.
 */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_h5_internal.h"
#include "sp_h5_wire.h"
#include "sp_mpi_data.h"

#define WIRE_MAGIC 0x53505752u /* "SPWR" */
#define WIRE_VERSION 4u /* 2: header-only runs; 3: CPU scheduling samples;
                           4: the MPI tables (run->mpi) */
#define WIRE_END 0x454E4421u
#define MAX_STRING ((uint64_t)1 << 30)

/* ------------------------------------------------------------- writing */

typedef struct wbuf {
    int fd;
    char buf[1 << 16];
    size_t n;
    int err;
} wbuf;

static int w_flush(wbuf *w)
{
    size_t off = 0;
    while (off < w->n && !w->err) {
        ssize_t k = write(w->fd, w->buf + off, w->n - off);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            w->err = errno ? errno : EIO;
        else
            off += (size_t)k;
    }
    w->n = 0;
    return w->err ? -1 : 0;
}

static void w_bytes(wbuf *w, const void *p, size_t n)
{
    if (w->err)
        return;
    if (n > sizeof w->buf / 2) { /* large arrays go out directly */
        if (w_flush(w) < 0)
            return;
        const char *c = p;
        while (n && !w->err) {
            ssize_t k = write(w->fd, c, n);
            if (k < 0 && errno == EINTR)
                continue;
            if (k <= 0)
                w->err = errno ? errno : EIO;
            else
                c += k, n -= (size_t)k;
        }
        return;
    }
    if (w->n + n > sizeof w->buf && w_flush(w) < 0)
        return;
    memcpy(w->buf + w->n, p, n);
    w->n += n;
}

static void w_u64(wbuf *w, uint64_t v) { w_bytes(w, &v, sizeof v); }
static void w_i64(wbuf *w, int64_t v) { w_bytes(w, &v, sizeof v); }
static void w_u32(wbuf *w, uint32_t v) { w_bytes(w, &v, sizeof v); }
static void w_i32(wbuf *w, int32_t v) { w_bytes(w, &v, sizeof v); }

static void w_str(wbuf *w, const char *s)
{
    /* NULL and "" differ only for thread names, sent with a flag. */
    uint64_t n = s ? strlen(s) : 0;
    w_u64(w, n);
    w_bytes(w, s ? s : "", (size_t)n);
}

static void w_kv(wbuf *w, const sp_kvlist *l)
{
    w_u64(w, l->n);
    for (size_t i = 0; i < l->n; i++) {
        w_str(w, l->items[i].key);
        w_str(w, l->items[i].value);
    }
}

static void w_rank(wbuf *w, const sp_run *run, const sp_rank_data *rk)
{
    w_i32(w, rk->rank);
    w_i64(w, rk->clock_offset_ns);
    w_i64(w, rk->clock_offset_err_ns);
    w_kv(w, &rk->meta);
    w_u64(w, rk->nthreads);
    for (size_t t = 0; t < rk->nthreads; t++) {
        w_i64(w, rk->threads[t].os_tid);
        w_u32(w, rk->threads[t].name != NULL);
        if (rk->threads[t].name)
            w_str(w, rk->threads[t].name);
    }
    size_t n = rk->ncalls;
    w_u64(w, n);
    if (n) {
        w_bytes(w, rk->start_ns, n * sizeof *rk->start_ns);
        w_bytes(w, rk->end_ns, n * sizeof *rk->end_ns);
        w_bytes(w, rk->region, n * sizeof *rk->region);
        w_bytes(w, rk->thread, n * sizeof *rk->thread);
        w_bytes(w, rk->parent, n * sizeof *rk->parent);
    }
    w_u32(w, rk->dropped != NULL);
    if (rk->dropped && run->nregions)
        w_bytes(w, rk->dropped, run->nregions * sizeof *rk->dropped);
    w_u64(w, rk->nsched);
    for (size_t i = 0; i < rk->nsched; i++) { /* field by field: no padding bytes */
        const sp_sched_sample *s = &rk->sched[i];
        w_i32(w, s->thread);
        w_i64(w, s->t_ns);
        w_i64(w, s->cpu_ns);
        w_i64(w, s->wait_ns);
        w_i64(w, s->nivcsw);
    }
    n = rk->nlines;
    w_u64(w, n);
    if (n) {
        w_bytes(w, rk->line_region, n * sizeof *rk->line_region);
        w_bytes(w, rk->line_lineno, n * sizeof *rk->line_lineno);
        w_bytes(w, rk->line_samples, n * sizeof *rk->line_samples);
        w_bytes(w, rk->line_time_ns, n * sizeof *rk->line_time_ns);
        for (size_t i = 0; i < n; i++) {
            w_str(w, rk->line_file[i]);
            w_str(w, rk->line_function[i]);
        }
    }
    n = rk->ncounters;
    w_u64(w, n);
    if (n) {
        w_bytes(w, rk->counter_region, n * sizeof *rk->counter_region);
        w_bytes(w, rk->counter_thread, n * sizeof *rk->counter_thread);
        w_bytes(w, rk->counter_cpu, n * sizeof *rk->counter_cpu);
        w_bytes(w, rk->counter_source, n * sizeof *rk->counter_source);
        w_bytes(w, rk->counter_value, n * sizeof *rk->counter_value);
        w_bytes(w, rk->counter_calls, n * sizeof *rk->counter_calls);
        for (size_t i = 0; i < n; i++)
            w_str(w, rk->counter_name[i]);
    }
}

/* The MPI tables: a flag, then per rank its tables as raw columns. */
static void w_mpi(wbuf *w, const sp_mpi_data *d)
{
    w_u32(w, d != NULL);
    if (!d)
        return;
    w_u64(w, d->names.n);
    for (size_t i = 0; i < d->names.n; i++)
        w_str(w, d->names.s[i]);
    for (size_t r = 0; r < d->nranks; r++) {
        const sp_mpi_rank *rk = &d->ranks[r];
        w_u32(w, (uint32_t)rk->present);
        if (!rk->present)
            continue;
        w_i64(w, rk->clock_offset_ns);
        w_i64(w, rk->clock_offset_err_ns);
        w_u64(w, rk->records_dropped);
        w_u64(w, rk->untracked);
        uint64_t nm = rk->ncomms ? rk->comm_end[rk->ncomms - 1] : 0;
        w_u64(w, rk->ncomms);
        w_u64(w, nm);
        w_bytes(w, rk->comm_end, rk->ncomms * sizeof *rk->comm_end);
        w_bytes(w, rk->comm_flags, rk->ncomms * sizeof *rk->comm_flags);
        w_bytes(w, rk->comm_members, (size_t)nm * sizeof *rk->comm_members);
        w_u64(w, rk->npaths);
        w_bytes(w, rk->path_parent, rk->npaths * sizeof *rk->path_parent);
        w_bytes(w, rk->path_region, rk->npaths * sizeof *rk->path_region);
#define SP__W(name, type, ctype, unit, desc) w_bytes(w, t->name, t->n * sizeof(ctype));
        {
            const sp_mpi_p2p *t = &rk->p2p;
            w_u64(w, t->n);
            SP_MPI_P2P_COLUMNS(SP__W)
        }
        {
            const sp_mpi_coll *t = &rk->coll;
            w_u64(w, t->n);
            SP_MPI_COLL_COLUMNS(SP__W)
        }
#undef SP__W
    }
}

int sp__h5_wire_write(int fd, const sp_run *run, int status, const char *message)
{
    return sp__h5_wire_write_ex(fd, run, status, message, NULL, 0);
}

int sp__h5_wire_write_ex(int fd, const sp_run *run, int status, const char *message,
                         const void *extra, size_t extra_len)
{
    wbuf *w = malloc(sizeof *w);
    if (!w)
        return SP_ENOMEM;
    w->fd = fd;
    w->n = 0;
    w->err = 0;
    w_u32(w, WIRE_MAGIC);
    w_u32(w, WIRE_VERSION);
    w_i32(w, status);
    w_str(w, message ? message : "");
    if (status == 0 && run) {
        w_i32(w, run->schema_version);
        w_str(w, run->layout);
        w_kv(w, &run->meta);
        w_u64(w, run->nregions);
        for (size_t g = 0; g < run->nregions; g++)
            w_str(w, run->region_names[g]);
        w_u64(w, run->nregion_flags);
        if (run->nregion_flags)
            w_bytes(w, run->region_flags, run->nregion_flags * sizeof *run->region_flags);
        w_u64(w, run->nranks);
        for (size_t r = 0; r < run->nranks; r++)
            w_rank(w, run, &run->ranks[r]);
        w_mpi(w, run->mpi);
        w_u64(w, extra ? extra_len : 0);
        if (extra && extra_len)
            w_bytes(w, extra, extra_len);
    }
    w_u32(w, WIRE_END);
    w_flush(w);
    int rc = w->err ? SP_EIO : 0;
    free(w);
    return rc;
}

/* ------------------------------------------------------------- reading */

typedef struct rbuf {
    int fd;
    int cancel_fd; /* readable = stop (-1: none) */
    bool cancelled;
    double deadline; /* CLOCK_MONOTONIC seconds; 0 = none */
    char buf[1 << 16];
    size_t pos, len;
    int rc; /* first failure: SP_EFORMAT (short or bad stream), SP_EIO, timeout */
    bool timed_out;
    const char *what; /* for messages */
} rbuf;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Read up to n bytes into p, waiting at most until the deadline. */
static ssize_t r_raw(rbuf *r, void *p, size_t n)
{
    for (;;) {
        if (r->deadline > 0 || r->cancel_fd >= 0) {
            double left = r->deadline > 0 ? r->deadline - now_s() : 3600;
            if (left <= 0) {
                r->timed_out = true;
                return -1;
            }
            struct pollfd pfd[2] = {{.fd = r->fd, .events = POLLIN},
                                    {.fd = r->cancel_fd, .events = POLLIN}};
            int ms = left > 3600 ? 3600000 : (int)(left * 1000) + 1;
            int k = poll(pfd, r->cancel_fd >= 0 ? 2 : 1, ms);
            if (k < 0 && errno == EINTR)
                continue;
            if (k > 0 && r->cancel_fd >= 0 && (pfd[1].revents & POLLIN)) {
                r->cancelled = true;
                return -1;
            }
            if (k == 0)
                continue; /* the deadline check above ends it */
            if (k < 0)
                return -1;
        }
        ssize_t k = read(r->fd, p, n);
        if (k < 0 && errno == EINTR)
            continue;
        return k;
    }
}

static void r_bytes(rbuf *r, void *p, size_t n)
{
    char *d = p;
    while (n && !r->rc) {
        if (r->pos < r->len) {
            size_t k = r->len - r->pos < n ? r->len - r->pos : n;
            memcpy(d, r->buf + r->pos, k);
            r->pos += k, d += k, n -= k;
            continue;
        }
        ssize_t k = n >= sizeof r->buf ? r_raw(r, d, n) : r_raw(r, r->buf, sizeof r->buf);
        if (k <= 0) {
            r->rc = k == 0 ? SP_EFORMAT : SP_EIO;
            return;
        }
        if (n >= sizeof r->buf)
            d += k, n -= (size_t)k;
        else
            r->pos = 0, r->len = (size_t)k;
    }
}

static uint64_t r_u64(rbuf *r)
{
    uint64_t v = 0;
    r_bytes(r, &v, sizeof v);
    return v;
}
static int64_t r_i64(rbuf *r)
{
    int64_t v = 0;
    r_bytes(r, &v, sizeof v);
    return v;
}
static uint32_t r_u32(rbuf *r)
{
    uint32_t v = 0;
    r_bytes(r, &v, sizeof v);
    return v;
}
static int32_t r_i32(rbuf *r)
{
    int32_t v = 0;
    r_bytes(r, &v, sizeof v);
    return v;
}

/* An array of n elements of size bytes, charged first. NULL on failure. */
static void *r_array(rbuf *r, uint64_t n, size_t size)
{
    if (r->rc)
        return NULL;
    if ((r->rc = sp__read_charge_n(r->what, n, size)) < 0)
        return NULL;
    void *a = malloc(n ? (size_t)n * size : 1);
    if (!a) {
        r->rc = sp__error(SP_ENOMEM, "out of memory reading %s", r->what);
        return NULL;
    }
    r_bytes(r, a, (size_t)n * size);
    if (r->rc) {
        free(a);
        return NULL;
    }
    return a;
}

static char *r_str(rbuf *r)
{
    uint64_t n = r_u64(r);
    if (r->rc)
        return NULL;
    if (n > MAX_STRING) {
        r->rc = SP_EFORMAT;
        return NULL;
    }
    if ((r->rc = sp__read_charge(r->what, n + 1)) < 0)
        return NULL;
    char *s = malloc((size_t)n + 1);
    if (!s) {
        r->rc = sp__error(SP_ENOMEM, "out of memory reading %s", r->what);
        return NULL;
    }
    r_bytes(r, s, (size_t)n);
    if (r->rc) {
        free(s);
        return NULL;
    }
    s[n] = '\0';
    if (memchr(s, '\0', (size_t)n)) { /* a C string cannot hold it */
        free(s);
        r->rc = SP_EFORMAT;
        return NULL;
    }
    sp__utf8_sanitize(s);
    return s;
}

static void r_kv(rbuf *r, sp_kvlist *l)
{
    uint64_t n = r_u64(r);
    if (r->rc || (r->rc = sp__read_charge_n(r->what, n, sizeof(sp_kv))) < 0)
        return;
    /* Appended as they come (the sender's keys are unique): sp_kvlist_set()
     * searches the list, O(n^2) for 100,000 entries. */
    if (n && !(l->items = calloc((size_t)n, sizeof *l->items))) {
        r->rc = SP_ENOMEM;
        return;
    }
    l->cap = (size_t)n;
    for (uint64_t i = 0; i < n && !r->rc; i++) {
        char *k = r_str(r), *v = r_str(r);
        if (!r->rc) {
            l->items[l->n].key = k;
            l->items[l->n].value = v;
            l->n++;
        } else {
            free(k);
            free(v);
        }
    }
}

static void r_rank(rbuf *r, sp_run *run, sp_rank_data *rk)
{
    int32_t rank = r_i32(r);
    if (!r->rc && rank != rk->rank)
        r->rc = SP_EFORMAT;
    rk->clock_offset_ns = r_i64(r);
    rk->clock_offset_err_ns = r_i64(r);
    r_kv(r, &rk->meta);
    uint64_t nt = r_u64(r);
    if (r->rc || nt > INT32_MAX) {
        r->rc = r->rc ? r->rc : SP_EFORMAT;
        return;
    }
    if ((r->rc = sp__read_charge_n(r->what, nt, sizeof *rk->threads)) < 0)
        return;
    if (!(rk->threads = calloc(nt ? (size_t)nt : 1, sizeof *rk->threads))) {
        r->rc = SP_ENOMEM;
        return;
    }
    for (uint64_t t = 0; t < nt && !r->rc; t++) {
        rk->threads[t].os_tid = r_i64(r);
        if (r_u32(r))
            rk->threads[t].name = r_str(r);
        rk->nthreads = (size_t)t + 1;
    }
    uint64_t n = r_u64(r);
    if (!r->rc && n) {
        rk->start_ns = r_array(r, n, sizeof *rk->start_ns);
        rk->end_ns = r_array(r, n, sizeof *rk->end_ns);
        rk->region = r_array(r, n, sizeof *rk->region);
        rk->thread = r_array(r, n, sizeof *rk->thread);
        rk->parent = r_array(r, n, sizeof *rk->parent);
        if (!r->rc)
            rk->ncalls = (size_t)n;
    }
    if (r_u32(r) && !r->rc)
        rk->dropped = r_array(r, run->nregions, sizeof *rk->dropped);
    n = r_u64(r);
    if (!r->rc && n && (r->rc = sp__read_charge_n(r->what, n, sizeof *rk->sched)) == 0) {
        if (!(rk->sched = calloc((size_t)n, sizeof *rk->sched)))
            r->rc = SP_ENOMEM;
        for (uint64_t i = 0; i < n && !r->rc; i++) {
            sp_sched_sample *s = &rk->sched[i];
            s->thread = r_i32(r);
            s->t_ns = r_i64(r);
            s->cpu_ns = r_i64(r);
            s->wait_ns = r_i64(r);
            s->nivcsw = r_i64(r);
            rk->nsched = (size_t)i + 1;
        }
    }
    n = r_u64(r);
    if (!r->rc && n) {
        rk->line_region = r_array(r, n, sizeof *rk->line_region);
        rk->line_lineno = r_array(r, n, sizeof *rk->line_lineno);
        rk->line_samples = r_array(r, n, sizeof *rk->line_samples);
        rk->line_time_ns = r_array(r, n, sizeof *rk->line_time_ns);
        if (!r->rc && (r->rc = sp__read_charge_n(r->what, n, 2 * sizeof(char *))) == 0) {
            rk->line_file = calloc((size_t)n, sizeof *rk->line_file);
            rk->line_function = calloc((size_t)n, sizeof *rk->line_function);
            if (!rk->line_file || !rk->line_function)
                r->rc = SP_ENOMEM;
            rk->nlines = r->rc ? 0 : (size_t)n; /* the model frees nlines rows */
            for (uint64_t i = 0; i < n && !r->rc; i++) {
                rk->line_file[i] = r_str(r);
                rk->line_function[i] = r_str(r);
            }
        }
    }
    n = r_u64(r);
    if (!r->rc && n) {
        rk->counter_region = r_array(r, n, sizeof *rk->counter_region);
        rk->counter_thread = r_array(r, n, sizeof *rk->counter_thread);
        rk->counter_cpu = r_array(r, n, sizeof *rk->counter_cpu);
        rk->counter_source = r_array(r, n, sizeof *rk->counter_source);
        rk->counter_value = r_array(r, n, sizeof *rk->counter_value);
        rk->counter_calls = r_array(r, n, sizeof *rk->counter_calls);
        if (!r->rc && (r->rc = sp__read_charge_n(r->what, n, sizeof(char *))) == 0) {
            rk->counter_name = calloc((size_t)n, sizeof *rk->counter_name);
            if (!rk->counter_name)
                r->rc = SP_ENOMEM;
            rk->ncounters = r->rc ? 0 : (size_t)n;
            for (uint64_t i = 0; i < n && !r->rc; i++)
                rk->counter_name[i] = r_str(r);
        }
    }
}

/* The MPI tables (checked with the run afterwards: sp__mpi_data_check). */
static void r_mpi(rbuf *r, sp_run *run)
{
    if (r->rc || !r_u32(r) || r->rc)
        return;
    sp_mpi_data *d = run->mpi = sp_mpi_data_new(run->nranks);
    if (!d) {
        r->rc = SP_ENOMEM;
        return;
    }
    uint64_t nreg = r_u64(r);
    if (!r->rc && nreg > INT32_MAX / 2)
        r->rc = SP_EFORMAT;
    if (!r->rc)
        r->rc = sp__read_charge_n(r->what, nreg, 64);
    for (uint64_t i = 0; i < nreg && !r->rc; i++) {
        char *name = r_str(r);
        /* interned: a name sent twice would shift every id after it */
        if (name && sp_strtab_intern(&d->names, name) != (int32_t)i)
            r->rc = d->names.n > i ? SP_EFORMAT : SP_ENOMEM;
        free(name);
    }
    for (size_t k = 0; k < d->nranks && !r->rc; k++) {
        sp_mpi_rank *rk = &d->ranks[k];
        if (!(rk->present = (int)r_u32(r)))
            continue;
        rk->clock_offset_ns = r_i64(r);
        rk->clock_offset_err_ns = r_i64(r);
        rk->records_dropped = r_u64(r);
        rk->untracked = r_u64(r);
        uint64_t nc = r_u64(r), nm = r_u64(r);
        rk->comm_end = r_array(r, nc, sizeof *rk->comm_end);
        rk->comm_flags = r_array(r, nc, sizeof *rk->comm_flags);
        rk->comm_members = r_array(r, nm, sizeof *rk->comm_members);
        if (r->rc)
            return;
        rk->ncomms = (size_t)nc;
        if (nc && rk->comm_end[nc - 1] != nm) {
            r->rc = SP_EFORMAT;
            return;
        }
        uint64_t np = r_u64(r);
        rk->path_parent = r_array(r, np, sizeof *rk->path_parent);
        rk->path_region = r_array(r, np, sizeof *rk->path_region);
        if (r->rc)
            return;
        rk->npaths = (size_t)np;
#define SP__R(name, type, ctype, unit, desc) t->name = r_array(r, n, sizeof(ctype));
        uint64_t n = r_u64(r);
        {
            sp_mpi_p2p *t = &rk->p2p;
            SP_MPI_P2P_COLUMNS(SP__R)
            t->n = t->cap = r->rc ? 0 : (size_t)n;
        }
        n = r_u64(r);
        {
            sp_mpi_coll *t = &rk->coll;
            SP_MPI_COLL_COLUMNS(SP__R)
            t->n = t->cap = r->rc ? 0 : (size_t)n;
        }
#undef SP__R
    }
}

int sp__h5_wire_read(int fd, int cancel_fd, const char *file, double timeout_s, sp_run **out,
                     bool *timed_out)
{
    return sp__h5_wire_read_ex(fd, cancel_fd, file, timeout_s, out, NULL, NULL, timed_out);
}

int sp__h5_wire_read_ex(int fd, int cancel_fd, const char *file, double timeout_s, sp_run **out,
                        void **extra, size_t *extra_len, bool *timed_out)
{
    *out = NULL;
    if (extra) {
        *extra = NULL;
        *extra_len = 0;
    }
    *timed_out = false;
    rbuf *r = calloc(1, sizeof *r);
    if (!r)
        return sp__error(SP_ENOMEM, "out of memory");
    r->fd = fd;
    r->cancel_fd = cancel_fd;
    r->deadline = timeout_s > 0 ? now_s() + timeout_s : 0;
    r->what = "the run passed back by the reading process";
    sp_run *run = NULL;
    int rc = 0;
    if (r_u32(r) != WIRE_MAGIC || r_u32(r) != WIRE_VERSION) {
        rc = r->rc ? r->rc : SP_EFORMAT;
        goto done;
    }
    int32_t status = r_i32(r);
    char *message = r_str(r);
    if (!r->rc && status != 0) {
        /* The child's own error: pass it on as it was. */
        rc = status < 0 ? status : SP_EFORMAT;
        sp__error(rc, "%s", message ? message : "");
        free(message);
        free(r);
        return rc;
    }
    free(message);
    if (r->rc || !(run = sp_run_new())) {
        rc = r->rc ? r->rc : SP_ENOMEM;
        goto done;
    }
    run->schema_version = r_i32(r);
    run->layout = r_str(r);
    r_kv(r, &run->meta);
    uint64_t nregions = r_u64(r);
    if (!r->rc && nregions > INT32_MAX)
        r->rc = SP_EFORMAT;
    if (!r->rc && (r->rc = sp__read_charge_n(r->what, nregions, sizeof(char *))) == 0) {
        if (!(run->region_names = calloc(nregions ? (size_t)nregions : 1, sizeof(char *))))
            r->rc = SP_ENOMEM;
        for (uint64_t g = 0; g < nregions && !r->rc; g++) {
            run->region_names[g] = r_str(r);
            run->nregions = (size_t)g + 1;
        }
    }
    uint64_t nflags = r_u64(r);
    if (!r->rc && nflags > run->nregions)
        r->rc = SP_EFORMAT;
    if (!r->rc && nflags) {
        run->region_flags = r_array(r, nflags, sizeof *run->region_flags);
        run->nregion_flags = r->rc ? 0 : (size_t)nflags;
    }
    uint64_t nranks = r_u64(r);
    if (!r->rc && nranks > ((uint64_t)1 << 24))
        r->rc = SP_EFORMAT;
    if (!r->rc && (r->rc = sp__read_charge_ranks((size_t)nranks, run->nregions)) == 0)
        r->rc = sp_run_set_ranks(run, (size_t)nranks);
    for (size_t k = 0; k < run->nranks && !r->rc; k++)
        r_rank(r, run, &run->ranks[k]);
    r_mpi(r, run);
    uint64_t nextra = r_u64(r);
    void *xb = r_array(r, nextra, 1); /* charged, then read */
    if (!r->rc && extra) {
        *extra = xb;
        *extra_len = (size_t)nextra;
        xb = NULL;
    }
    free(xb);
    if (!r->rc && r_u32(r) != WIRE_END)
        r->rc = r->rc ? r->rc : SP_EFORMAT;
    rc = r->rc;
    if (rc == 0) { /* the same checks as a run read from a file */
        rc = sp__h5_check_decoded(file, run); /* indexes the names too */
        goto checked;
    }
done:
    /* Stream failures (short, malformed) carry no message yet; budget and
     * memory failures have theirs. */
    if (r->cancelled)
        rc = sp__error(SP_EIO, "%s: reading was cancelled", file);
    else if (rc == SP_EFORMAT || rc == SP_EIO)
        sp__error(rc, "%s: the reading process %s", file,
                  r->timed_out ? "took too long" : "sent back a damaged run");
checked:
    *timed_out = r->timed_out || r->cancelled; /* either way: kill the sender */
    if (rc < 0) {
        sp_run_free(run);
        run = NULL;
    }
    free(r);
    *out = run;
    return rc;
}
