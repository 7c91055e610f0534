/* SPDX-License-Identifier: MIT */
/*
 * sp_thread.c - per-thread recording states: registration on a thread's first
 * call (the only lock a recording thread takes besides the chunk pool's), the
 * global list that keeps states after their thread exits until the writer has
 * read them, and the reset between sessions.
 *
 * The list only grows during a session and is read by the writer without
 * sp__lock: links are published with release stores.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sp_recorder.h"
#include "sp_stream.h"

sp__tstate sp__dummy_tstate;
unsigned sp__session_gen;

__thread sp__tstate *sp__tls __attribute__((tls_model("initial-exec"))) = &sp__dummy_tstate;

static sp__tstate *first, *last;
static pthread_key_t exit_key;
static pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
static bool exit_key_ok;

/* Runs when a registered thread exits: its state stays in the list (the
 * writer reads its last events and gives its chunk back). */
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
    ts->gen = __atomic_load_n(&sp__session_gen, __ATOMIC_ACQUIRE);
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
        __atomic_store_n(&last->next, ts, __ATOMIC_RELEASE);
    else
        __atomic_store_n(&first, ts, __ATOMIC_RELEASE);
    last = ts;
    pthread_mutex_unlock(&sp__lock);
    sp__tls = ts;
    return ts;
}

sp__tstate *sp__threads_first(void) { return __atomic_load_n(&first, __ATOMIC_ACQUIRE); }

static void clear_state(sp__tstate *ts)
{
    /* Recording goes to the slow path, which starts the thread over in the
     * next session; the chunk it held goes back to the pool. t and code
     * keep pointing into pool memory (never unmapped) for a thread that
     * races the reset. */
    ts->cap = 0;
    __atomic_store_n(&ts->n, 0, __ATOMIC_RELEASE);
    if (ts->chunk)
        sp__pool_put(ts->chunk);
    ts->chunk = NULL;
    __atomic_store_n(&ts->first, NULL, __ATOMIC_RELEASE);
    ts->dropping = false;
    ts->drop_depth = 0;
    ts->lost_ends = 0;
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
