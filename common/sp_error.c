/* SPDX-License-Identifier: MIT */
/* sp_error.c - status codes, their descriptions and the last-error message. */
#include "sp_error.h"

#include <stdarg.h>
#include <stdio.h>

static _Thread_local char last_error[1024];

const char *sp_strerror(int code)
{
    switch (code) {
    case SP_OK:
        return "success";
#define SP__ERRNO_CASE(name, value, msg) \
    case SP_##name:                      \
        return msg;
        SP_ERRNO_MAP(SP__ERRNO_CASE)
#undef SP__ERRNO_CASE
    default:
        return "unknown error";
    }
}

const char *sp_last_error(void) { return last_error; }

static void set_message(const char *fmt, va_list ap)
{
    vsnprintf(last_error, sizeof last_error, fmt, ap);
}

int sp__error(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_message(fmt, ap);
    va_end(ap);
    return code;
}

void *sp__error_null(int code, const char *fmt, ...)
{
    (void)code;
    va_list ap;
    va_start(ap, fmt);
    set_message(fmt, ap);
    va_end(ap);
    return NULL;
}

void sp__error_clear(void) { last_error[0] = '\0'; }

const char *sp_version(void) { return "0.1.0"; }
