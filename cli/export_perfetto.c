/* SPDX-License-Identifier: MIT */
/*
 * export_perfetto.c - `export perfetto`: the selected calls in Perfetto's
 * native trace format (a `Trace` of `TracePacket`s, protos/perfetto/trace/
 * perfetto_trace.proto), gzip-compressed, streamed rank by rank.
 *
 * - A process track per rank (pid = rank + 1, "rank N": Perfetto keeps pid
 *   0 for the kernel's idle task) and a thread track per thread with calls
 *   (its name; tid = pid for thread 0, else (thread << 32) | pid, unique in
 *   the trace).
 * - Each thread is one packet sequence (trusted_packet_sequence_id): its
 *   first packet clears the sequence's state and sets its defaults (the
 *   thread's track and the sequence's own clock 64 for timestamps), the
 *   second is a clock snapshot that ties clock 64, incremental (each
 *   timestamp is the delta from the sequence's previous one), to the
 *   trace clock (BOOTTIME, id 6) at the thread's first event. Times are ns
 *   from the run's first call (clocks aligned to rank 0).
 * - A call is a TYPE_SLICE_BEGIN and a TYPE_SLICE_END TrackEvent; the
 *   begin names its region by an interned id (region id + 1), whose name is
 *   sent once per sequence in the packet's interned_data.
 * About 28 bytes a call before compression; see README for the size after.
 */
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "export_select.h"
#include "gz_out.h"
#include "pb_wire.h"
#include "sp_error.h"

/* Field numbers of perfetto_trace.proto. */
enum {
    TRACE_PACKET = 1,               /* Trace.packet */
    PKT_TIMESTAMP = 8,              /* TracePacket */
    PKT_CLOCK_SNAPSHOT = 6,
    PKT_TRUSTED_SEQ_ID = 10,
    PKT_TRACK_EVENT = 11,
    PKT_INTERNED_DATA = 12,
    PKT_SEQUENCE_FLAGS = 13,
    PKT_DEFAULTS = 59,
    PKT_TRACK_DESCRIPTOR = 60,
    DEF_TIMESTAMP_CLOCK_ID = 58,    /* TracePacketDefaults */
    DEF_TRACK_EVENT_DEFAULTS = 11,
    TED_TRACK_UUID = 11,            /* TrackEventDefaults */
    TE_TYPE = 9,                    /* TrackEvent */
    TE_NAME_IID = 10,
    ID_EVENT_NAMES = 2,             /* InternedData */
    EN_IID = 1,                     /* EventName */
    EN_NAME = 2,
    TD_UUID = 1,                    /* TrackDescriptor */
    TD_PROCESS = 3,
    TD_THREAD = 4,
    PD_PID = 1,                     /* ProcessDescriptor */
    PD_PROCESS_NAME = 6,
    PD_LABELS = 8,
    THD_PID = 1,                    /* ThreadDescriptor */
    THD_TID = 2,
    THD_NAME = 5,
    CS_CLOCKS = 1,                  /* ClockSnapshot */
    CLK_ID = 1,                     /* ClockSnapshot.Clock */
    CLK_TIMESTAMP = 2,
    CLK_INCREMENTAL = 3,
};
enum { SLICE_BEGIN = 1, SLICE_END = 2 };
enum { SEQ_CLEARED = 1, SEQ_NEEDS_STATE = 2 };
enum { CLOCK_BOOTTIME = 6, CLOCK_SEQ = 64 /* first sequence-scoped clock id */ };

typedef struct pf_lane {
    uint32_t seq;      /* 0: no packet yet */
    uint64_t last_ts;  /* the sequence's clock, for deltas */
    uint8_t *interned; /* a bit per region: its name was sent on this sequence */
} pf_lane;

typedef struct pf_writer {
    const sp__trace_input *in;
    sp__gz *gz;
    sp__pb pkt;        /* one packet */
    sp__pb frame;      /* Trace.packet around it */
    uint32_t next_seq;
    pf_lane *lanes;    /* of the rank being written */
    size_t nlanes;
    bool rank_track;   /* the rank's process track was written */
    uint64_t calls;
} pf_writer;

static uint64_t process_uuid(size_t rank)
{
    return ((uint64_t)rank + 1) << 32;
}

static int64_t pid_of(size_t rank)
{
    return (int64_t)rank + 1;
}

/* The packet in w->pkt as one Trace.packet field, into the gzip stream. */
static int put_packet(pf_writer *w)
{
    sp__pb_reset(&w->frame);
    sp__pb_bytes(&w->frame, TRACE_PACKET, w->pkt.buf, w->pkt.n);
    if (w->pkt.oom || w->frame.oom)
        return sp__error(SP_ENOMEM, "out of memory");
    sp__pb_reset(&w->pkt);
    return sp__gz_write(w->gz, w->frame.buf, w->frame.n);
}

static int rank_track(pf_writer *w, size_t r)
{
    const sp_rank_data *rk = &w->in->run->ranks[r];
    char name[64];
    snprintf(name, sizeof name, "rank %zu", r);
    sp__pb_varint(&w->pkt, PKT_TRUSTED_SEQ_ID, w->next_seq++);
    size_t td = sp__pb_begin(&w->pkt, PKT_TRACK_DESCRIPTOR);
    sp__pb_varint(&w->pkt, TD_UUID, process_uuid(r));
    size_t pd = sp__pb_begin(&w->pkt, TD_PROCESS);
    sp__pb_varint(&w->pkt, PD_PID, (uint64_t)pid_of(r));
    sp__pb_string(&w->pkt, PD_PROCESS_NAME, name);
    const char *host = sp_kvlist_get(&rk->meta, "hostname");
    if (host) {
        char label[300];
        snprintf(label, sizeof label, "host %s", host);
        sp__pb_string(&w->pkt, PD_LABELS, label);
    }
    sp__pb_end(&w->pkt, pd);
    sp__pb_end(&w->pkt, td);
    w->rank_track = true;
    return put_packet(w);
}

/* A lane's first packets: its track, the sequence's defaults and clock. */
static int start_lane(pf_writer *w, size_t r, int32_t t, pf_lane *l, uint64_t ts)
{
    const sp_rank_data *rk = &w->in->run->ranks[r];
    int rc = w->rank_track ? 0 : rank_track(w, r);
    if (rc)
        return rc;
    l->seq = w->next_seq++;
    l->last_ts = ts;
    uint64_t uuid = process_uuid(r) | ((uint64_t)t + 1);
    sp__pb_varint(&w->pkt, PKT_TRUSTED_SEQ_ID, l->seq);
    sp__pb_varint(&w->pkt, PKT_SEQUENCE_FLAGS, SEQ_CLEARED);
    size_t d = sp__pb_begin(&w->pkt, PKT_DEFAULTS);
    sp__pb_varint(&w->pkt, DEF_TIMESTAMP_CLOCK_ID, CLOCK_SEQ);
    size_t ted = sp__pb_begin(&w->pkt, DEF_TRACK_EVENT_DEFAULTS);
    sp__pb_varint(&w->pkt, TED_TRACK_UUID, uuid);
    sp__pb_end(&w->pkt, ted);
    sp__pb_end(&w->pkt, d);
    size_t td = sp__pb_begin(&w->pkt, PKT_TRACK_DESCRIPTOR);
    sp__pb_varint(&w->pkt, TD_UUID, uuid);
    size_t th = sp__pb_begin(&w->pkt, TD_THREAD);
    sp__pb_varint(&w->pkt, THD_PID, (uint64_t)pid_of(r));
    uint64_t tid = t == 0 ? (uint64_t)pid_of(r) : ((uint64_t)t << 32) | (uint64_t)pid_of(r);
    sp__pb_varint(&w->pkt, THD_TID, tid);
    char name[80];
    if ((size_t)t < rk->nthreads && rk->threads[t].name)
        sp__pb_string(&w->pkt, THD_NAME, rk->threads[t].name);
    else {
        snprintf(name, sizeof name, "thread %d", (int)t);
        sp__pb_string(&w->pkt, THD_NAME, name);
    }
    sp__pb_end(&w->pkt, th);
    sp__pb_end(&w->pkt, td);
    if ((rc = put_packet(w)) != 0)
        return rc;
    sp__pb_varint(&w->pkt, PKT_TRUSTED_SEQ_ID, l->seq);
    size_t cs = sp__pb_begin(&w->pkt, PKT_CLOCK_SNAPSHOT);
    size_t c = sp__pb_begin(&w->pkt, CS_CLOCKS);
    sp__pb_varint(&w->pkt, CLK_ID, CLOCK_SEQ);
    sp__pb_varint(&w->pkt, CLK_TIMESTAMP, ts);
    sp__pb_varint(&w->pkt, CLK_INCREMENTAL, 1);
    sp__pb_end(&w->pkt, c);
    c = sp__pb_begin(&w->pkt, CS_CLOCKS);
    sp__pb_varint(&w->pkt, CLK_ID, CLOCK_BOOTTIME);
    sp__pb_varint(&w->pkt, CLK_TIMESTAMP, ts);
    sp__pb_end(&w->pkt, c);
    sp__pb_end(&w->pkt, cs);
    return put_packet(w);
}

static int on_rank_begin(void *ud, size_t r)
{
    pf_writer *w = ud;
    const sp_rank_data *rk = &w->in->run->ranks[r];
    size_t bytes = (w->in->run->nregions + 7) / 8 + 1;
    w->rank_track = false;
    w->nlanes = rk->nthreads;
    w->lanes = calloc(w->nlanes ? w->nlanes : 1, sizeof *w->lanes);
    if (!w->lanes)
        return sp__error(SP_ENOMEM, "out of memory");
    for (size_t t = 0; t < w->nlanes; t++)
        if (!(w->lanes[t].interned = calloc(bytes, 1)))
            return sp__error(SP_ENOMEM, "out of memory");
    return 0;
}

static void free_lanes(pf_writer *w)
{
    for (size_t t = 0; w->lanes && t < w->nlanes; t++)
        free(w->lanes[t].interned);
    free(w->lanes);
    w->lanes = NULL;
    w->nlanes = 0;
}

static int on_rank_end(void *ud, size_t r)
{
    (void)r;
    free_lanes(ud);
    return 0;
}

static int on_events(void *ud, size_t r, int32_t t, const sp_trace_event *ev, size_t n)
{
    pf_writer *w = ud;
    if (t < 0 || (size_t)t >= w->nlanes)
        return sp__error(SP_EFORMAT, "rank %zu: events of thread %d, which the run does not name",
                         r, (int)t);
    pf_lane *l = &w->lanes[t];
    const sp_run *run = w->in->run;
    for (size_t i = 0; i < n; i++) {
        int64_t rel = ev[i].t_ns - w->in->origin_ns;
        uint64_t ts = rel > 0 ? (uint64_t)rel : 0;
        int rc = l->seq ? 0 : start_lane(w, r, t, l, ts);
        if (rc)
            return rc;
        sp__pb_varint(&w->pkt, PKT_TIMESTAMP, ts - l->last_ts);
        l->last_ts = ts;
        size_t te = sp__pb_begin(&w->pkt, PKT_TRACK_EVENT);
        sp__pb_varint(&w->pkt, TE_TYPE, ev[i].begin ? SLICE_BEGIN : SLICE_END);
        uint32_t g = (uint32_t)ev[i].region;
        if (ev[i].begin)
            sp__pb_varint(&w->pkt, TE_NAME_IID, (uint64_t)g + 1);
        sp__pb_end(&w->pkt, te);
        sp__pb_varint(&w->pkt, PKT_TRUSTED_SEQ_ID, l->seq);
        sp__pb_varint(&w->pkt, PKT_SEQUENCE_FLAGS, SEQ_NEEDS_STATE);
        if (ev[i].begin && g < run->nregions && !(l->interned[g / 8] & (1u << (g % 8)))) {
            l->interned[g / 8] |= (uint8_t)(1u << (g % 8));
            size_t id = sp__pb_begin(&w->pkt, PKT_INTERNED_DATA);
            size_t en = sp__pb_begin(&w->pkt, ID_EVENT_NAMES);
            sp__pb_varint(&w->pkt, EN_IID, (uint64_t)g + 1);
            sp__pb_string(&w->pkt, EN_NAME, run->region_names[g]);
            sp__pb_end(&w->pkt, en);
            sp__pb_end(&w->pkt, id);
        }
        if ((rc = put_packet(w)) != 0)
            return rc;
        w->calls += ev[i].begin;
    }
    return 0;
}

typedef struct pf_ctx {
    sp__trace_input *in;
    uint64_t calls;
    unsigned long long raw, packed;
} pf_ctx;

static int perfetto_body(const sp_run *run, FILE *f, const void *ctx)
{
    (void)run;
    pf_ctx *c = (pf_ctx *)ctx;
    pf_writer w = {.in = c->in, .next_seq = 1};
    if (!(w.gz = sp__gz_new(f, 6)))
        return sp__error(SP_ENOMEM, "out of memory (zlib)");
    sp_trace_sink sink = {.ud = &w, .rank_begin = on_rank_begin, .events = on_events,
                          .rank_end = on_rank_end};
    int rc = sp_trace_stream(c->in->src, c->in->run->agg, &c->in->sel, &sink);
    free_lanes(&w);
    sp__gz_counts(w.gz, &c->raw, &c->packed);
    int frc = sp__gz_finish(w.gz);
    sp__pb_free(&w.pkt);
    sp__pb_free(&w.frame);
    c->calls = w.calls;
    return rc ? rc : frc;
}

int sp__export_perfetto(sp__trace_input *in, const char *path, sp__wrote_fn wrote,
                        uint64_t *calls, unsigned long long *raw_bytes)
{
    pf_ctx c = {.in = in};
    int rc = sp__write_file(path, perfetto_body, in->run, &c, wrote);
    if (calls)
        *calls = c.calls;
    if (raw_bytes)
        *raw_bytes = c.raw;
    return rc;
}
