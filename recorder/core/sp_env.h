/* SPDX-License-Identifier: MIT */
/* sp_env.h - reading SCOPE_PROFILER_* environment values (internal;
 * defined in sp_options.c, used by it and by sp_mode_config.c). */
#ifndef SP_ENV_H
#define SP_ENV_H

#include <stdbool.h>

/* Internal to the library: not exported from the shared object. */
#pragma GCC visibility push(hidden)

/* An environment value, or NULL when unset or empty (empty means unset). */
const char *sp__env(const char *name);

/* A boolean value: 1/true/yes/on or 0/false/no/off (any case) into *out;
 * unset or empty leaves *out alone. 0, or SP_EINVAL naming the variable. */
int sp__env_bool(const char *name, bool *out);

#pragma GCC visibility pop

#endif
