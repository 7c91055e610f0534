/* SPDX-License-Identifier: MIT */
/* sp-viewer-format.h - how the viewer writes durations, counts and ratios. */
#ifndef SP_VIEWER_FORMAT_H
#define SP_VIEWER_FORMAT_H

#include <glib.h>

G_BEGIN_DECLS

/* A duration in seconds with a unit that keeps 3-4 significant digits:
 * "812 ns", "12.4 µs", "3.07 ms", "1.250 s", "2 min 05 s". Newly allocated. */
char *sp_format_duration(double seconds);

/* A call count with thin thousands separators: "12 345 678". */
char *sp_format_count(guint64 n);

/* A signed relative change: "+12.3 %", "−4.0 %" (a real minus sign); from
 * ten times as long a ratio, "×10.0", "×2716" (stays short). */
char *sp_format_percent_change(double fraction);

/* A signed duration difference: "+1.20 ms", "−310 µs". */
char *sp_format_duration_delta(double seconds);

G_END_DECLS

#endif
