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

void sp__session_close_gen(void)
{
    unsigned g = __atomic_load_n(&sp__session_gen, __ATOMIC_RELAXED);
    if (g & 1)
        __atomic_store_n(&sp__session_gen, g + 1, __ATOMIC_SEQ_CST);
}

void sp__session_open_gen(void)
{
    unsigned g = __atomic_load_n(&sp__session_gen, __ATOMIC_RELAXED);
    __atomic_store_n(&sp__session_gen, (g | 1) + 2, __ATOMIC_SEQ_CST);
}

sp__tstate *sp__thread_register(void)
{
    sp__tstate *ts = calloc(1, sizeof *ts);
    if (!ts)
        return NULL;
    /* gen 0 (never a session's): the first event starts the state over. */
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

void sp__threads_reset(void)
{
    /* A live thread may be inside sp_region_begin/end right now (it loaded
     * the recording table before finalize switched it): its state and its
     * current chunk stay its own. Only its hot path limit drops to 0, so
     * its next event goes to the slow path, which sees the new generation
     * and starts the state over, giving the chunk back itself (the pool
     * stopped counting it, sp_chunk_pool.c). An exited thread's state is
     * freed with its chunk. */
    sp__tstate **link = &first;
    last = NULL;
    while (*link) {
        sp__tstate *ts = *link;
        if (__atomic_load_n(&ts->exited, __ATOMIC_ACQUIRE)) {
            if (ts->chunk)
                sp__pool_put(ts->chunk);
            *link = ts->next;
            free(ts);
        } else {
            __atomic_store_n(&ts->cap, 0, __ATOMIC_SEQ_CST);
            last = ts;
            link = &ts->next;
        }
    }
}
