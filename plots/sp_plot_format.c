/* SPDX-License-Identifier: MIT */
/* sp_plot_format.c - durations, tick values, numbers and percentages. */
#include <math.h>
#include <stdio.h>

#include "sp_plot_internal.h"

static const struct {
    double size;
    const char *name;
} units[] = {{1e-9, "ns"}, {1e-6, "µs"}, {1e-3, "ms"}, {1.0, "s"}};

/* Three significant digits of v (1 <= v < 1000 expected). */
static int decimals_3sig(double v)
{
    return v >= 99.95 ? 0 : v >= 9.995 ? 1 : 2;
}

char *sp_plot_format_duration(double seconds, char *buf, size_t n)
{
    if (!buf || n == 0)
        return buf;
    if (!isfinite(seconds)) {
        snprintf(buf, n, "n/a");
        return buf;
    }
    const char *sign = seconds < 0 ? "-" : "";
    double a = fabs(seconds);
    if (a == 0) {
        snprintf(buf, n, "0 s");
        return buf;
    }
    if (a >= 3600) {
        long m = lround(a / 60);
        snprintf(buf, n, "%s%ldh %02ldm", sign, m / 60, m % 60);
        return buf;
    }
    if (a >= 99.95) {
        long s = lround(a);
        snprintf(buf, n, "%s%ldm %02lds", sign, s / 60, s % 60);
        return buf;
    }
    int u = 0;
    while (u < 3 && a >= units[u + 1].size * 0.9995) /* 999.6 µs prints as 1.00 ms */
        u++;
    double v = a / units[u].size;
    if (u == 0 && v < 1) { /* sub-nanosecond: keep it readable */
        snprintf(buf, n, "%s%.2f ns", sign, v);
        return buf;
    }
    snprintf(buf, n, "%s%.*f %s", sign, decimals_3sig(v), v, units[u].name);
    return buf;
}

void sp__time_unit(double max_abs_s, double *unit_s, const char **name)
{
    int u = 0;
    while (u < 3 && max_abs_s >= units[u + 1].size * 0.9995)
        u++;
    *unit_s = units[u].size;
    *name = units[u].name;
}

static int decimals_for_step(double step)
{
    if (!(step > 0))
        return 0;
    int d = (int)ceil(-log10(step) - 1e-9);
    return d < 0 ? 0 : d > 9 ? 9 : d;
}

void sp__format_time_tick(double v_s, double step_s, double unit_s, const char *unit_name,
                          char *buf, size_t n)
{
    double v = v_s / unit_s;
    int d = decimals_for_step(step_s / unit_s);
    if (fabs(v) < 0.5 * pow(10, -d))
        v = 0; /* no "-0" */
    if (v == 0)
        snprintf(buf, n, "0");
    else
        snprintf(buf, n, "%.*f %s", d, v, unit_name);
}

void sp__format_number(double v, double step, char *buf, size_t n)
{
    static const struct {
        double div;
        const char *suffix;
    } si[] = {{1e12, "T"}, {1e9, "G"}, {1e6, "M"}, {1e3, "k"}};
    double a = fabs(v), ref = step > 0 ? fmax(a, step) : a;
    double div = 1;
    const char *suf = "";
    for (size_t i = 0; i < sizeof si / sizeof si[0]; i++)
        if (ref >= si[i].div * (i == 3 ? 10 : 1)) { /* 1000..9999 print in full */
            div = si[i].div;
            suf = si[i].suffix;
            break;
        }
    double x = v / div;
    int d;
    if (step > 0)
        d = decimals_for_step(step / div);
    else
        d = fabs(x) >= 100 || x == floor(x) ? 0 : fabs(x) >= 10 ? 1 : 2;
    if (fabs(x) < 0.5 * pow(10, -d))
        x = 0;
    snprintf(buf, n, "%.*f%s", d, x, suf);
}

void sp__format_percent(double pct, char *buf, size_t n)
{
    if (!isfinite(pct))
        snprintf(buf, n, pct > 0 ? "new" : "n/a");
    else if (fabs(pct) < 0.05)
        snprintf(buf, n, "0.0%%");
    else if (pct >= SP__PERCENT_AS_RATIO) /* 10x and more: "×2716", not "+271500%" */
        snprintf(buf, n, "\xc3\x97%.*f", pct >= 9900 ? 0 : 1, 1 + pct / 100);
    else if (fabs(pct) >= 99.5)
        snprintf(buf, n, "%+.0f%%", pct);
    else
        snprintf(buf, n, "%+.1f%%", pct);
}
