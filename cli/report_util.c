/* SPDX-License-Identifier: MIT */
/* report_util.c - HTML escaping and duration text for the report. */
#include "export.h"
#include "report.h"

#include <math.h>
#include <stdint.h>

#include "sp_display.h"

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
        uint32_t cp = 0;
        size_t n = sp_display_utf8_next((const char *)p, &cp);
        /* Control characters (C0, DEL) and invalid bytes are not text:
         * U+FFFD instead, so the file shows nothing a terminal would act on
         * either. C1 controls and bidi controls show as the terminal, the
         * TUI and the viewer show them, "\u202e": written as &#x202E; (even
         * inside <bdi>) a name would still be drawn reordered, so the page
         * would show other text than the name; the escape shows what the
         * name holds. */
        if (n == 0 || (*p < 0x20) || *p == 0x7f) {
            fputs("\xef\xbf\xbd", f); /* U+FFFD */
            p += n ? n : 1;
        } else if (sp_display_cp_escaped(cp)) {
            fprintf(f, "\\u%04x", (unsigned)cp);
            p += n;
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
