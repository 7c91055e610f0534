/* SPDX-License-Identifier: MIT */
/* An accessor-like function defined in a header (left out of tracing by
 * the documented -finstrument-functions-exclude-file-list). */
#ifndef TRACED_HELPER_H
#define TRACED_HELPER_H
static inline double inline_helper(int i) { return 0.5 * i; }
#endif
