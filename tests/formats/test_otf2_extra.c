/* SPDX-License-Identifier: MIT */
/*
 * The OTF2 writer's hook for more events per location (export_otf2.h,
 * sp__otf2_extra; what MPI messages of issue 23 will use): a 2-rank run with
 * an MPI_Send region on rank 0 and an MPI_Recv region on rank 1, exported
 * with a send and a receive event as extras (their communicator and groups
 * from write_defs). otf2-print must show each message event on its
 * location, between the Enter and the Leave of its MPI region, in time
 * order, with the peer, tag and size given; and an extra event due after a
 * location's last Leave must still be written (at its rank's end).
 */
#include <stdlib.h>
#include <unistd.h>

#include "export_otf2.h"
#include "sp_agg.h"
#include "sp_run_read.h"
#include "sp_source_mem.h"
#include "sp_test.h"

/* Rank r: main [1000, 9000] > MPI_x [2000 + 1000 r, 5000 + 1000 r]. */
static sp_run *make_run(void)
{
    sp_run *run = sp_run_new();
    sp_run_set_ranks(run, 2);
    sp_run_intern_region(run, "main");
    sp_run_intern_region(run, "MPI_Send");
    sp_run_intern_region(run, "MPI_Recv");
    for (int r = 0; r < 2; r++) {
        sp_rank_data *rk = &run->ranks[r];
        rk->nthreads = 1;
        rk->threads = calloc(1, sizeof *rk->threads);
        rk->threads[0].name = strdup("main");
        sp_rank_alloc_calls(rk, 2);
        int64_t s[2] = {1000, 2000 + 1000 * r}, e[2] = {9000, 5000 + 1000 * r};
        for (int i = 0; i < 2; i++) {
            rk->start_ns[i] = s[i];
            rk->end_ns[i] = e[i];
            rk->region[i] = i == 0 ? 0 : 1 + r;
            rk->thread[i] = 0;
            rk->parent[i] = i - 1;
        }
    }
    return run;
}

/* The extras: per rank one message event, and on rank 1 a second one
 * after its last Leave. */
typedef struct msgs {
    int next[2];
    int64_t t[2][2];
    int n[2];
} msgs;

static int64_t next_time(void *ud, size_t rank, int32_t thread)
{
    msgs *m = ud;
    (void)thread;
    return m->next[rank] < m->n[rank] ? m->t[rank][m->next[rank]] : INT64_MAX;
}

static int write_next(void *ud, sp__otf2 *w, size_t rank, int32_t thread, OTF2_EvtWriter *evt)
{
    msgs *m = ud;
    (void)thread;
    OTF2_TimeStamp ts = sp__otf2_ts(w, m->t[rank][m->next[rank]]);
    OTF2_ErrorCode e;
    if (rank == 0)
        e = OTF2_EvtWriter_MpiSend(evt, NULL, ts, 1, 0, 7, 64);
    else if (m->next[rank] == 0)
        e = OTF2_EvtWriter_MpiRecv(evt, NULL, ts, 0, 0, 7, 64);
    else
        e = OTF2_EvtWriter_MpiSend(evt, NULL, ts, 0, 0, 9, 8);
    m->next[rank]++;
    return e == OTF2_SUCCESS ? 0 : SP_EIO;
}

static int write_defs(void *ud, sp__otf2 *w, OTF2_GlobalDefWriter *defs)
{
    (void)ud;
    uint64_t locs[2] = {sp__otf2_location_ref(w, 0, 0), sp__otf2_location_ref(w, 1, 0)};
    uint64_t ranks[2] = {0, 1};
    OTF2_StringRef none = sp__otf2_new_string(w, ""), world = sp__otf2_new_string(w, "MPI_COMM_WORLD");
    if (OTF2_GlobalDefWriter_WriteGroup(defs, 0, none, OTF2_GROUP_TYPE_COMM_LOCATIONS,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, locs) ||
        OTF2_GlobalDefWriter_WriteGroup(defs, 1, none, OTF2_GROUP_TYPE_COMM_GROUP,
                                        OTF2_PARADIGM_MPI, OTF2_GROUP_FLAG_NONE, 2, ranks) ||
        OTF2_GlobalDefWriter_WriteComm(defs, 0, world, 1, OTF2_UNDEFINED_COMM, OTF2_COMM_FLAG_NONE))
        return SP_EIO;
    return 0;
}

static char printed[1 << 16];

/* The index of the first otf2-print event line at or after line `from`
 * whose event is `ev` on location `loc` (and whose attributes contain
 * `attr`, when not NULL); -1 when none. Lines are "EVENT LOC TIME ATTRS". */
static int find_event(int from, const char *ev, unsigned loc, const char *attr)
{
    int i = 0;
    for (const char *l = printed; *l; i++) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        char name[32], line[512];
        unsigned at;
        unsigned long long t;
        snprintf(line, sizeof line, "%.*s", (int)(len < 511 ? len : 511), l);
        if (i >= from && sscanf(line, "%31s %u %llu", name, &at, &t) == 3 && strcmp(name, ev) == 0 &&
            at == loc && (!attr || strstr(line, attr)))
            return i;
        l = nl ? nl + 1 : l + len;
    }
    return -1;
}

static void test_extra_events(void)
{
    sp_run *run = make_run();
    sp_event_source *src = sp_source_mem_new(run, run);
    ASSERT(src);
    sp_agg_opts opts = {.flags = SP_AGG_LANES};
    ASSERT(sp_run_aggregate(src, &opts) == 0);
    bool ranks[2] = {true, true};
    sp__trace_input in = {.src = src, .run = src->run, .ranks = ranks, .origin_ns = 1000,
                          .sel = {.ranks = ranks}};
    /* rank 0 sends inside MPI_Send [2000, 5000]; rank 1 receives inside
     * MPI_Recv [3000, 6000] and sends once more after main ended */
    msgs m = {.t = {{2500, 0}, {5500, 9500}}, .n = {1, 2}};
    sp__otf2_extra x = {.ud = &m, .next_time = next_time, .write_next = write_next,
                        .write_defs = write_defs};
    char dir[] = "/tmp/sp_otf2_extraXXXXXX";
    ASSERT(mkdtemp(dir));
    char out[64];
    snprintf(out, sizeof out, "%s/a", dir);
    ASSERT_MSG(sp__export_otf2(&in, out, &x, NULL) == 0, "%s", sp_last_error());
    ASSERT(m.next[0] == 1 && m.next[1] == 2);
    char cmd[160];
    snprintf(cmd, sizeof cmd, "otf2-print %s/traces.otf2 2>&1", out);
    FILE *p = popen(cmd, "r");
    ASSERT(p);
    size_t n = fread(printed, 1, sizeof printed - 1, p);
    printed[n] = '\0';
    ASSERT(pclose(p) == 0);
    /* each message event on its location, inside its MPI region, in time
     * order, with what write_next gave */
    int enter = find_event(0, "ENTER", 0, "\"MPI_Send\"");
    int send = find_event(0, "MPI_SEND", 0, "Tag: 7");
    int leave = find_event(0, "LEAVE", 0, "\"MPI_Send\"");
    ASSERT_MSG(enter >= 0 && send > enter && leave > send, "%d %d %d:\n%s", enter, send, leave,
               printed);
    ASSERT_MSG(strstr(printed, "Length: 64"), "%s", printed);
    enter = find_event(0, "ENTER", 1, "\"MPI_Recv\"");
    int recv = find_event(0, "MPI_RECV", 1, "Tag: 7");
    leave = find_event(0, "LEAVE", 1, "\"MPI_Recv\"");
    ASSERT_MSG(enter >= 0 && recv > enter && leave > recv, "%d %d %d:\n%s", enter, recv, leave,
               printed);
    /* due after the location's last Leave: written when its rank ended */
    int leave_main = find_event(0, "LEAVE", 1, "\"main\"");
    int late = find_event(0, "MPI_SEND", 1, "Tag: 9");
    ASSERT_MSG(leave_main >= 0 && late > leave_main, "%d %d:\n%s", leave_main, late, printed);
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    ASSERT(system(cmd) == 0);
    sp_event_source_free(src);
}

int main(void)
{
    RUN(test_extra_events);
    return sp_test_summary();
}
