/* SPDX-License-Identifier: MIT */
/* sp-viewer-format.c - human-readable durations, counts and changes. */
#include "sp-viewer-format.h"

#include <math.h>
#include <string.h>

/* Three significant digits at most: 812 ns, 12.4 µs, 3.07 ms. */
static char *with_unit(double v, const char *unit)
{
    if (v >= 100.0)
        return g_strdup_printf("%.0f %s", v, unit);
    if (v >= 10.0)
        return g_strdup_printf("%.1f %s", v, unit);
    return g_strdup_printf("%.2f %s", v, unit);
}

char *sp_format_duration(double s)
{
    double a = fabs(s);
    if (!isfinite(s))
        return g_strdup("—");
    if (a == 0.0)
        return g_strdup("0 s");
    if (a < 1e-6)
        return g_strdup_printf("%.0f ns", s * 1e9);
    if (a < 1e-3)
        return with_unit(s * 1e6, "µs");
    if (a < 1.0)
        return with_unit(s * 1e3, "ms");
    if (a < 120.0)
        return g_strdup_printf("%.3f s", s);
    int mins = (int)(a / 60.0);
    return g_strdup_printf("%s%d min %02.0f s", s < 0 ? "−" : "", mins, a - 60.0 * mins);
}

char *sp_format_count(guint64 n)
{
    char digits[32];
    g_snprintf(digits, sizeof digits, "%" G_GUINT64_FORMAT, n);
    GString *out = g_string_new(NULL);
    size_t len = strlen(digits);
    for (size_t i = 0; i < len; i++) {
        if (i > 0 && (len - i) % 3 == 0)
            g_string_append(out, "\u2009"); /* thin space: locale-neutral grouping */
        g_string_append_c(out, digits[i]);
    }
    return g_string_free(out, FALSE);
}

char *sp_format_percent_change(double f)
{
    if (!isfinite(f))
        return g_strdup("new");
    double p = 100.0 * f;
    if (fabs(p) < 0.05)
        return g_strdup("0.0 %");
    if (p >= 900) /* 10 times as long and more: a ratio stays short */
        return g_strdup_printf("×%.*f", p >= 9900 ? 0 : 1, 1 + f);
    return g_strdup_printf("%s%.1f %%", p < 0 ? "−" : "+", fabs(p));
}

char *sp_format_duration_delta(double s)
{
    if (s == 0.0)
        return g_strdup("0 s");
    g_autofree char *mag = sp_format_duration(fabs(s));
    return g_strdup_printf("%s%s", s < 0 ? "−" : "+", mag);
}
