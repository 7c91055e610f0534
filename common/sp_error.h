/* SPDX-License-Identifier: MIT */
/* sp_error.h - setting the thread-local last-error message (internal). */
#ifndef SP_ERROR_H
#define SP_ERROR_H

#include "scope_profiler.h"

/* Format the message returned by sp_last_error() and return `code`, so a
 * failing function can `return sp__error(SP_EINVAL, "bad %s", what);`. */
int sp__error(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Same, for functions returning a pointer: sets the message, returns NULL. */
void *sp__error_null(int code, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Clear the message (used where a success should not leave an old reason). */
void sp__error_clear(void);

#endif
