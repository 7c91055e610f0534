/* SPDX-License-Identifier: MIT */
/*
 * sp_unwind.c - call stacks of an interrupted context, from a signal handler.
 *
 * libunwind (loaded with dlopen, so the library does not depend on it)
 * unwinds with the DWARF call-frame information of .eh_frame, which works
 * without frame pointers; unw_init_local2(UNW_INIT_SIGNAL_FRAME) starts at
 * the interrupted instruction, so the handler's own frames never appear.
 * Without libunwind only the interrupted instruction pointer is known.
 */
#define UNW_LOCAL_ONLY
#include "sp_unwind.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stddef.h>
#include <ucontext.h>

#if defined(__has_include)
#if __has_include(<libunwind.h>) && (defined(__x86_64__) || defined(__aarch64__))
#include <libunwind.h>
#define SP__HAVE_UNW_H 1
#endif
#endif
#ifndef SP__HAVE_UNW_H
#define SP__HAVE_UNW_H 0
#endif

#define SP__XSTR2(x) #x
#define SP__XSTR(x) SP__XSTR2(x)

#if SP__HAVE_UNW_H
static int (*p_init2)(unw_cursor_t *, unw_context_t *, int);
static int (*p_step)(unw_cursor_t *);
static int (*p_get_reg)(unw_cursor_t *, unw_regnum_t, unw_word_t *);
#endif
static int state; /* 0 not tried, 1 libunwind, -1 IP only */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

bool sp__unwind_init(void)
{
    pthread_mutex_lock(&lock);
    if (state == 0) {
        state = -1;
#if SP__HAVE_UNW_H
        void *h = dlopen("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);
        if (!h)
            h = dlopen("libunwind.so", RTLD_NOW | RTLD_LOCAL);
        if (h) {
            /* The names behind the macros: _ULx86_64_init_local2, ... */
            p_init2 =
                (int (*)(unw_cursor_t *, unw_context_t *, int))dlsym(h, SP__XSTR(unw_init_local2));
            p_step = (int (*)(unw_cursor_t *))dlsym(h, SP__XSTR(unw_step));
            p_get_reg = (int (*)(unw_cursor_t *, unw_regnum_t, unw_word_t *))dlsym(
                h, SP__XSTR(unw_get_reg));
            if (p_init2 && p_step && p_get_reg)
                state = 1;
        }
#endif
    }
    bool ok = state == 1;
    pthread_mutex_unlock(&lock);
    return ok;
}

uintptr_t sp__ucontext_ip(const void *ucontext)
{
    const ucontext_t *uc = ucontext;
#if defined(__x86_64__)
    return (uintptr_t)uc->uc_mcontext.gregs[REG_RIP];
#elif defined(__aarch64__)
    return (uintptr_t)uc->uc_mcontext.pc;
#else
    (void)uc;
    return 0;
#endif
}

int sp__unwind(void *ucontext, uintptr_t *out, int max)
{
    if (max <= 0)
        return 0;
    int n = 0;
#if SP__HAVE_UNW_H
    if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == 1) {
        unw_cursor_t c;
        if (p_init2(&c, (unw_context_t *)ucontext, UNW_INIT_SIGNAL_FRAME) == 0) {
            do {
                unw_word_t ip = 0;
                if (p_get_reg(&c, UNW_REG_IP, &ip) != 0 || ip == 0)
                    break;
                out[n++] = (uintptr_t)ip;
            } while (n < max && p_step(&c) > 0);
        }
        if (n > 0)
            return n;
    }
#endif
    uintptr_t ip = sp__ucontext_ip(ucontext);
    if (ip)
        out[n++] = ip;
    return n;
}
