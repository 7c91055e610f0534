/* SPDX-License-Identifier: MIT */
/*
 * sp_waits_internal.h - what the files of the waits analysis share
 * (sp_waits.c builds the result, sp_waits_match.c matches and finds the
 * waits, sp_waits_cause.c charges them to regions, sp_waits_print.c
 * prints). Internal to analysis/.
 */
#ifndef SP_WAITS_INTERNAL_H
#define SP_WAITS_INTERNAL_H

#include "sp_events.h"
#include "sp_waits.h"

/* One operation that waited: rank `waiter` in its call (enter..exit on its
 * own clock) for rank `late`, whose operation began at late_enter (its own
 * clock). */
typedef struct sp__wait_inst {
    sp_wait_pattern pattern;
    int32_t waiter, late;
    int32_t waiter_path;       /* the waiter's local path row, -1: none */
    int32_t waiter_thread, late_thread;
    int64_t waiter_enter, waiter_exit, late_enter;
    double wait_s;
    bool uncertain;
    size_t row;                /* its row of sp_waits (set by sp__waits_add) */
} sp__wait_inst;

/* The state of one computation. */
typedef struct sp__waits_ctx {
    const sp_run *run;
    /* The run's source when its calls are not in memory (aggregate-first:
     * the causes load windows of calls from it), else NULL. */
    sp_event_source *src;
    const sp_mpi_data *d;
    sp_waits *w;
    int64_t *off, *err;        /* per rank: clock offset and its uncertainty */
    int32_t **gcomm;           /* per rank: local communicator row -> global id */
    size_t ngcomms;
    const int32_t **gmembers;  /* per global id: members (world ranks, sorted) */
    size_t *gsize;
    int32_t **gsorted;         /* per global id: sorted copy of its members (owned) */
    sp__wait_inst *inst;       /* the waits found */
    size_t ninst, cap;
    int32_t **recv_match;      /* per rank, per p2p row: message index or -1 */
    int32_t **send_match;
    /* rows by (pattern, rank, local path): hash of row index + 1 */
    size_t *row_slot;
    size_t row_hcap, rows_cap;
    int32_t **path_id;         /* per rank: local path row -> sp_waits.paths id (-1 unset) */
} sp__waits_ctx;

/* Global communicator ids (a communicator's members as world ranks, and
 * which of the rank's communicators with those members it is). 0 or
 * SP_ENOMEM. */
int sp__waits_comms(sp__waits_ctx *c);

/* Whether rank r has calls the causes can be read from (in memory, or
 * through the source's windows). */
bool sp__waits_rank_has_calls(const sp__waits_ctx *c, size_t r);

/* Whether world rank r is a member of global communicator g. */
bool sp__waits_in_comm(const sp__waits_ctx *c, int32_t g, int32_t r);

/* Match sends to receives (messages, pairs) and find the point-to-point
 * and collective waits. 0 or SP_ENOMEM. */
int sp__waits_match_p2p(sp__waits_ctx *c);
int sp__waits_match_coll(sp__waits_ctx *c);

/* Record a wait (0 or SP_ENOMEM). */
int sp__waits_add(sp__waits_ctx *c, const sp__wait_inst *in);

/* The row of (pattern, rank, local path of that rank), made when new;
 * -1 on ENOMEM. */
long sp__waits_row(sp__waits_ctx *c, sp_wait_pattern p, int32_t rank, int32_t path);

/* Add `s` seconds charged to region (call path) name `region` of rank
 * `late` to row i: excess_s more time there than the waiting rank (direct),
 * via_s of s through ranks that waited for it. 0 or SP_ENOMEM. */
int sp__waits_charge(sp__waits_ctx *c, size_t row, int32_t late, const char *region,
                     double s, double excess_s, double via_s);

/* Causes of every wait from the run's calls (sp_waits_cause.c). 0 or
 * SP_ENOMEM. */
int sp__waits_causes(sp__waits_ctx *c);

/* ns -> s */
static inline double sp__ns_s(int64_t ns) { return (double)ns * 1e-9; }

#endif
