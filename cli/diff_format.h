/* SPDX-License-Identifier: MIT */
/* diff_format.h - text of diff values for diff, check and report. */
#ifndef DIFF_FORMAT_H
#define DIFF_FORMAT_H

#include <stddef.h>

#include "sp_diff.h"

/* A metric value: seconds "%.6f" for time metrics, a count for calls, a
 * ratio "%.3f" for imbalance. Returns buf. */
char *sp__diff_fmt_value(double v, sp_diff_metric m, bool sign, char *buf, size_t n);

/* "+20.0%", "-3.1%", "0.0%", "new" (infinite). Returns buf. */
char *sp__diff_fmt_percent(const sp_diff_entry *e, char *buf, size_t n);

/* The p-value "0.034", "<0.001", or "-" when untested. Returns buf. */
char *sp__diff_fmt_p(const sp_noise_test *t, char *buf, size_t n);

/* Cliff's delta "+0.98", or "-" when untested. Returns buf. */
char *sp__diff_fmt_effect(const sp_noise_test *t, char *buf, size_t n);

/* The unit suffix of a metric's column heading: " [s]", "" or " (max/mean)". */
const char *sp__diff_unit(sp_diff_metric m);

/* Why an entry has no noise verdict, for messages: "1 call in base",
 * "metric calls is not tested", "too few calls (3 vs 3) for alpha 0.05",
 * "call count changed (200 -> 250)"; NULL when it was tested conclusively. */
const char *sp__diff_untested_reason(const sp_diff_entry *e, sp_diff_metric m, double alpha,
                                     char *buf, size_t n);

#endif
