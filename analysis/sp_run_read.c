/* SPDX-License-Identifier: MIT */
/*
 * sp_run_read.c - opening a run aggregate-first (see sp_run_read.h): the
 * source for its layout, the pass, the summaries, and the same in a child
 * process that sends back the header and the aggregates.
 */
#include "sp_run_read.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "sp_analysis.h"
#include "sp_error.h"
#include "sp_h5_stream.h"
#include "sp_h5_wire.h"
#include "sp_source_mem.h"

sp_event_source *sp_run_source_open(const char *path, int *status)
{
    return sp_run_source_open_ex(path, 0, status);
}

sp_event_source *sp_run_source_open_ex(const char *path, unsigned flags, int *status)
{
    int rc = 0;
    sp_event_source *src =
        sp_h5_stream_open_ex(path, (flags & SP_AGG_LEAN_HEADER) ? SP_H5_STREAM_LEAN : 0, &rc);
    if (!src && rc == SP_ENOTSUP) {
        /* Calls, not events: the whole run, streamed from memory. */
        sp_run *run = sp_h5_read(path, &rc);
        if (run && !(src = sp_source_mem_new(run, run))) {
            rc = SP_ENOMEM;
            sp_run_free(run);
        }
    }
    if (status)
        *status = rc;
    return src;
}

/* file_state of an unfinished run, with what the pass found. */
static int note_state(sp_run *run, const sp_agg *a)
{
    if (!sp_kvlist_get(&run->meta, "file_state"))
        return 0;
    uint64_t open = 0, torn = 0;
    for (size_t r = 0; r < a->nranks; r++) {
        open += a->ranks[r].open_calls;
        torn += a->ranks[r].torn_blocks;
    }
    char v[512];
    sp_h5_file_state_text(open, torn, v, sizeof v);
    return sp_kvlist_set(&run->meta, "file_state", v);
}

/* The pass over src into *out (not attached), with the blocks found torn
 * when the source opened. */
static int pass(sp_event_source *src, const sp_agg_opts *opts, sp_agg **out)
{
    int rc = sp_agg_run(src, opts, out);
    if (rc)
        return rc;
    for (size_t r = 0; r < (*out)->nranks; r++) /* torn at open: the source knew */
        (*out)->ranks[r].torn_blocks += sp_h5_stream_torn_blocks(src, r);
    return 0;
}

int sp_run_aggregate(sp_event_source *src, const sp_agg_opts *opts)
{
    sp_agg *agg = NULL;
    int rc = pass(src, opts, &agg);
    if (rc)
        return rc;
    if ((rc = sp_run_attach_read(src->run, agg)) != 0 && src->run->agg != agg)
        sp_agg_free(agg);
    return rc;
}

int sp_run_attach_read(sp_run *run, sp_agg *agg)
{
    int rc = sp_agg_attach(run, agg);
    return rc ? rc : note_state(run, agg);
}

static sp_run *read_here(const char *path, const sp_agg_opts *opts, int *status)
{
    int rc;
    sp_event_source *src = sp_run_source_open_ex(path, opts ? opts->flags : 0, &rc);
    sp_run *run = NULL;
    if (src && (rc = sp_run_aggregate(src, opts)) == 0)
        run = sp_event_source_take_run(src);
    sp_event_source_free(src);
    *status = rc;
    return run;
}

/* ---- in a child process ---- */

/*
 * Heartbeats: a long pass is not a hung one. Reading a valid run can take
 * longer than the read timeout (1,000M calls on a loaded machine), so while
 * the child's pass replays events it sends a frame "SPHB" + events done (16
 * bytes, atomic on a pipe) at most once a second, and "SPHE" before its
 * outcome; the parent's timeout counts from the last frame. A child that
 * makes no progress is still stopped, one that does never is.
 */
#define HEARTBEAT_S 1.0
#define FRAME_BEAT "SPHB"
#define FRAME_END "SPHE"

typedef struct heartbeat {
    int fd;
    double last;
} heartbeat;

static double mono_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void send_frame(int fd, const char *magic, uint64_t n)
{
    uint8_t f[16];
    memcpy(f, magic, 4);
    memset(f + 4, 0, 4);
    memcpy(f + 8, &n, 8);
    ssize_t k;
    do
        k = write(fd, f, sizeof f);
    while (k < 0 && errno == EINTR);
}

static void beat(void *ud, uint64_t done, uint64_t total)
{
    (void)total;
    heartbeat *hb = ud;
    double t = mono_s();
    if (t - hb->last >= HEARTBEAT_S) {
        hb->last = t;
        send_frame(hb->fd, FRAME_BEAT, done);
    }
}

/* Read the child's heartbeats until its end frame (0: the outcome follows,
 * or the stream ended: the wire reader says how), extending the deadline
 * with each; *timed_out when none came for timeout s or the read was
 * cancelled (the caller kills the child). */
static int read_heartbeats(int fd, int cancel_fd, const char *path, double timeout,
                           bool *timed_out)
{
    double deadline = timeout > 0 ? mono_s() + timeout : 0;
    for (;;) {
        uint8_t f[16];
        size_t got = 0;
        while (got < sizeof f) {
            double left = deadline > 0 ? deadline - mono_s() : 3600;
            if (left <= 0) {
                *timed_out = true;
                return sp__error(SP_EIO, "%s: the reading process made no progress", path);
            }
            struct pollfd pfd[2] = {{.fd = fd, .events = POLLIN},
                                    {.fd = cancel_fd, .events = POLLIN}};
            int k = poll(pfd, cancel_fd >= 0 ? 2 : 1, left > 3600 ? 3600000 : (int)(left * 1000) + 1);
            if (k < 0 && errno == EINTR)
                continue;
            if (k > 0 && cancel_fd >= 0 && (pfd[1].revents & POLLIN)) {
                *timed_out = true;
                return sp__error(SP_EIO, "%s: reading was cancelled", path);
            }
            if (k <= 0)
                continue;
            ssize_t n = read(fd, f + got, sizeof f - got);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                return got ? sp__error(SP_EFORMAT, "%s: the reading process sent a short "
                                                   "message", path)
                           : 0; /* ended: the wire reader reports how */
            got += (size_t)n;
        }
        if (memcmp(f, FRAME_END, 4) == 0)
            return 0;
        if (memcmp(f, FRAME_BEAT, 4) != 0)
            return sp__error(SP_EFORMAT, "%s: the reading process sent a damaged message", path);
        if (timeout > 0)
            deadline = mono_s() + timeout;
    }
}

typedef struct child_args {
    sp_agg_opts opts;
} child_args;

static int child_main(const char *path, int fd, void *arg)
{
    const child_args *ca = arg;
    int rc = 0;
    heartbeat hb = {fd, mono_s()};
    sp_agg_opts opts = ca->opts;
    opts.progress = beat;
    opts.progress_ud = &hb;
    /* The pass only: the header and the aggregates go to the parent, which
     * summarises them (sp_agg_attach) itself; summarising here too cost a
     * tenth of a read of 10^6 regions. */
    sp_event_source *src = sp_run_source_open_ex(path, opts.flags, &rc);
    sp_agg *agg = NULL;
    sp_run *run = NULL;
    if (src && (rc = pass(src, &opts, &agg)) == 0 && (rc = note_state(src->run, agg)) == 0)
        run = sp_event_source_take_run(src);
    sp_event_source_free(src);
    if (!run) /* under the child's memory cap: say so, and how to raise it */
        sp_h5_isolated_explain_oom(rc);
    send_frame(fd, FRAME_END, 0);
    uint8_t *bytes = NULL;
    size_t len = 0;
    if (run && (rc = sp_agg_encode(agg, &bytes, &len)) != 0) {
        sp_run_free(run);
        run = NULL;
    }
    sp_agg_free(agg);
    /* The header travels without its calls (a v1 run read whole keeps them
     * in the child): the aggregates carry everything the summaries need. */
    if (run)
        for (size_t r = 0; r < run->nranks; r++)
            sp_rank_free_calls(&run->ranks[r]);
    int w = sp__h5_wire_write_ex(fd, run, run ? 0 : (rc ? rc : SP_EIO),
                                 run ? NULL : sp_last_error(), bytes, len);
    free(bytes);
    sp_run_free(run);
    return w == 0 ? 0 : 1;
}

int sp_run_read_helper_main(const char *path, unsigned flags)
{
    sp_h5_isolated_child_limits();
    child_args ca = {.opts = {.flags = flags}};
    return child_main(path, 1, &ca);
}

typedef struct parent_out {
    sp_run *run;
} parent_out;

static int parent_main(int fd, int cancel_fd, const char *path, double timeout, bool *timed_out,
                       void *arg)
{
    parent_out *po = arg;
    void *bytes = NULL;
    size_t len = 0;
    sp_run *run = NULL;
    int rc = read_heartbeats(fd, cancel_fd, path, timeout, timed_out);
    if (rc)
        return rc;
    rc = sp__h5_wire_read_ex(fd, cancel_fd, path, timeout, &run, &bytes, &len, timed_out);
    sp_agg *agg = NULL;
    if (rc == 0 && (rc = sp_agg_decode(bytes, len, run, &agg)) != 0)
        rc = sp__error(rc, "%s: the reading process sent back damaged aggregates", path);
    if (rc == 0 && (rc = sp_agg_attach(run, agg)) != 0)
        sp_agg_free(agg);
    free(bytes);
    if (rc) {
        sp_run_free(run);
        return rc;
    }
    po->run = run;
    return 0;
}

sp_run *sp_run_read(const char *path, const sp_agg_opts *opts, const sp_h5_isolation *how,
                    bool isolate, int *status)
{
    int rc = 0;
    sp_run *run = NULL;
    if (!isolate) {
        run = read_here(path, opts, &rc);
    } else {
        child_args ca = {0};
        if (opts)
            ca.opts = *opts;
        ca.opts.observer = NULL; /* they live in this process */
        /* A forked child shares this program's code and the memory as it
         * was at the fork: the rank selection holds there, and progress is
         * reported from the child (a callback that only writes to a file
         * descriptor, such as the CLI's line on stderr, works the same). A
         * helper program gets the flags alone: it reads every rank. */
        if (how && how->helper_argv) {
            ca.opts.progress = NULL;
            ca.opts.ranks = NULL;
            ca.opts.nranks_sel = 0;
        }
        parent_out po = {NULL};
        rc = sp_h5_isolated_call(path, how, child_main, &ca, parent_main, &po);
        run = po.run;
        if (rc == 0 && !run->source_path && !(run->source_path = strdup(path)))
            rc = sp__error(SP_ENOMEM, "out of memory");
        if (rc) {
            sp_run_free(run);
            run = NULL;
        }
    }
    if (status)
        *status = rc;
    return run;
}
