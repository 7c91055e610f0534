/* SPDX-License-Identifier: MIT */
/*
 * sp_thread.c - per-thread recording states: registration on a thread's first
 * call (the only lock a recording thread ever takes), the global list that
 * keeps states after their thread exits until the session's data is
 * collected, and the reset between sessions.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_recorder.h"

sp__tstate sp__dummy_tstate = {.cur = SP__NONE};

__thread sp__tstate *sp__tls __attribute__((tls_model("initial-exec"))) = &sp__dummy_tstate;

static sp__tstate *first, *last;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static bool exit_key_ok;

/* Runs when a registered thread exits: its state stays in the list (its
 * calls belong to the session) and is freed at the next reset. */
static void on_thread_exit(void *p)
{
    sp__tstate *ts = p;
    sp__tls = &sp__dummy_tstate;
    __atomic_store_n(&ts->exited, 1, __ATOMIC_RELEASE);
}

static void make_exit_key(void)
{
    exit_key_ok = pthread_key_create(&exit_key, on_thread_exit) == 0;
}

sp__tstate *sp__thread_register(void)
{
    sp__tstate *ts = calloc(1, sizeof *ts);
    if (!ts)
        return NULL;
    ts->cur = SP__NONE;
    ts->os_tid = gettid();
    if (ts->os_tid == getpid())
        strcpy(ts->name, "main");
    else if (pthread_getname_np(pthread_self(), ts->name, sizeof ts->name) != 0)
        ts->name[0] = '\0';

    pthread_once(&exit_key_once, make_exit_key);
    if (exit_key_ok)
        pthread_setspecific(exit_key, ts);

    pthread_mutex_lock(&sp__lock);
    if (last)
        last->next = ts;
    else
        first = ts;
    last = ts;
    pthread_mutex_unlock(&sp__lock);
    sp__tls = ts;
    return ts;
}

sp__tstate *sp__threads_first(void) { return first; }

static void clear_state(sp__tstate *ts)
{
    for (uint32_t i = 0; i < ts->bufs_cap; i++)
        sp__events_free(ts->bufs[i].ev, ts->bufs[i].cap);
    free(ts->bufs);
    ts->bufs = NULL;
    ts->nbufs = ts->bufs_cap = 0;
    ts->cur = SP__NONE;
    ts->broken = false;
    ts->ndrop = 0;
    ts->unmatched_ends = ts->mismatched = 0;
    ts->n_unmatched_ids = ts->n_mismatch_pairs = 0;
}

void sp__threads_reset(void)
{
    sp__tstate **link = &first;
    last = NULL;
    while (*link) {
        sp__tstate *ts = *link;
        clear_state(ts);
        if (__atomic_load_n(&ts->exited, __ATOMIC_ACQUIRE)) {
            *link = ts->next;
            free(ts);
        } else {
            last = ts;
            link = &ts->next;
        }
    }
}
