/* SPDX-License-Identifier: MIT */
/* report_util.c - HTML escaping and duration text for the report. */
#include "export.h"
#include "report.h"

#include <math.h>

void sp__html(FILE *f, const char *s)
{
    if (!s)
        return;
    const unsigned char *p = (const unsigned char *)s;
    while (*p) {
        switch (*p) {
        case '&':
            fputs("&amp;", f);
            p++;
            continue;
        case '<':
            fputs("&lt;", f);
            p++;
            continue;
        case '>':
            fputs("&gt;", f);
            p++;
            continue;
        case '"':
            fputs("&quot;", f);
            p++;
            continue;
        case '\'':
            fputs("&#39;", f);
            p++;
            continue;
        default:
            break;
        }
        size_t n = sp__utf8_seq(p);
        /* Control characters (C0, DEL, C1) are not text: U+FFFD instead, so
         * the file shows nothing a terminal would act on either. */
        if (n == 0 || (*p < 0x20) || *p == 0x7f || (n == 2 && p[0] == 0xC2 && p[1] < 0xA0)) {
            fputs("\xef\xbf\xbd", f); /* U+FFFD */
            p += n ? n : 1;
        } else {
            fwrite(p, 1, n, f);
            p += n;
        }
    }
}

char *sp__fmt_dur(double s, char *buf, size_t n)
{
    double a = fabs(s);
    const char *unit = "s";
    double v = s;
    if (a == 0) {
        snprintf(buf, n, "0 s");
        return buf;
    }
    if (a < 1e-6)
        v = s * 1e9, unit = "ns";
    else if (a < 1e-3)
        v = s * 1e6, unit = "\xc2\xb5s";
    else if (a < 1)
        v = s * 1e3, unit = "ms";
    double av = fabs(v);
    int dec = av >= 100 ? 0 : av >= 10 ? 1 : 2;
    snprintf(buf, n, "%.*f %s", dec, v, unit);
    return buf;
}

void sp__td_num(FILE *f, double v, const char *text)
{
    fprintf(f, "<td data-v=\"%.12g\">", v);
    sp__html(f, text);
    fputs("</td>", f);
}

void sp__td_dur(FILE *f, double s)
{
    char b[32];
    sp__td_num(f, s, sp__fmt_dur(s, b, sizeof b));
}
