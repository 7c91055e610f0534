/* SPDX-License-Identifier: MIT */
/* sp_unwind.h - call stacks from a signal handler's ucontext (internal). */
#ifndef SP_UNWIND_H
#define SP_UNWIND_H

#include <stdbool.h>
#include <stdint.h>

#pragma GCC visibility push(hidden)

/* Load libunwind (normal context, once). Whether full stacks are available;
 * without it sp__unwind() returns the instruction pointer only. */
bool sp__unwind_init(void);

/* The interrupted instruction pointer of a signal handler's ucontext. */
uintptr_t sp__ucontext_ip(const void *ucontext);

/* Up to max addresses of the interrupted context, innermost first: out[0]
 * is the interrupted instruction, then return addresses. Async-signal-safe
 * after sp__unwind_init(). Returns the count. */
int sp__unwind(void *ucontext, uintptr_t *out, int max);

#pragma GCC visibility pop

#endif
