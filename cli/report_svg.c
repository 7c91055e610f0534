/* SPDX-License-Identifier: MIT */
/*
 * report_svg.c - charts as inline SVG in the report. cairo writes the SVG to
 * a memory stream; before it goes into the page, every id (glyph outlines,
 * clips, patterns) gets a per-chart prefix and so do the references to them
 * (href="#...", url(#...)), since several inline SVGs share one document's
 * id space; the fixed size becomes width="100%" so the chart scales with
 * the page (the viewBox keeps the aspect ratio).
 */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "sp_error.h"

#ifdef SP_HAVE_PLOTS
#include <cairo-svg.h>

#include "sp_plots.h"

typedef struct membuf {
    char *data;
    size_t len, cap;
    bool failed;
} membuf;

static cairo_status_t mem_write(void *closure, const unsigned char *data, unsigned int length)
{
    membuf *m = closure;
    if (m->len + length + 1 > m->cap) {
        size_t cap = (m->len + length + 1) * 2;
        char *d = realloc(m->data, cap);
        if (!d) {
            m->failed = true;
            return CAIRO_STATUS_WRITE_ERROR;
        }
        m->data = d;
        m->cap = cap;
    }
    memcpy(m->data + m->len, data, length);
    m->len += length;
    m->data[m->len] = '\0';
    return CAIRO_STATUS_SUCCESS;
}

static bool starts(const char *p, const char *s)
{
    return strncmp(p, s, strlen(s)) == 0;
}

/* Copy svg to f with ids prefixed and the root element made fluid. */
static void put_svg(FILE *f, const char *svg, int seq)
{
    const char *p = strstr(svg, "<svg");
    if (!p)
        return;
    /* Root element: drop width / height, keep everything else. */
    const char *end = strchr(p, '>');
    if (!end)
        return;
    fprintf(f, "<svg class=\"chart\" width=\"100%%\" role=\"img\"");
    for (const char *a = p + 4; a < end;) {
        if (starts(a, " width=\"") || starts(a, " height=\"")) {
            const char *q = strchr(a + 1, '"');
            q = q ? strchr(q + 1, '"') : NULL;
            if (!q)
                break;
            a = q + 1;
        } else {
            fputc(*a++, f);
        }
    }
    fputc('>', f);
    char prefix[32];
    snprintf(prefix, sizeof prefix, "c%d-", seq);
    for (const char *a = end + 1; *a;) {
        if (starts(a, " id=\"")) {
            fprintf(f, " id=\"%s", prefix);
            a += 5;
        } else if (starts(a, "href=\"#")) {
            fprintf(f, "href=\"#%s", prefix);
            a += 7;
        } else if (starts(a, "url(#")) {
            fprintf(f, "url(#%s", prefix);
            a += 5;
        } else {
            fputc(*a++, f);
        }
    }
}

int sp__report_chart(sp__report *r, FILE *f, sp__chart_kind kind, const sp__chart_job *job,
                     double w, double h)
{
    membuf m = {0};
    cairo_surface_t *s = cairo_svg_surface_create_for_stream(mem_write, &m, w, h);
    cairo_t *cr = cairo_create(s);
    int rc = sp__chart_draw(cr, w, h, kind, job);
    cairo_destroy(cr);
    cairo_surface_finish(s);
    cairo_status_t st = cairo_surface_status(s);
    cairo_surface_destroy(s);
    if (!rc && (st != CAIRO_STATUS_SUCCESS || m.failed || !m.data))
        rc = sp__error(SP_ENOMEM, "cannot render the %s chart: %s", sp__chart_name(kind),
                       cairo_status_to_string(st));
    if (!rc) {
        fputs("<figure>", f);
        put_svg(f, m.data, ++r->chart_seq);
        fputs("</figure>\n", f);
    }
    free(m.data);
    return rc;
}
#else
int sp__report_chart(sp__report *r, FILE *f, sp__chart_kind kind, const sp__chart_job *job,
                     double w, double h)
{
    (void)r, (void)job, (void)w, (void)h;
    fprintf(f, "<p class=\"note\">%s chart omitted: built without cairo.</p>\n",
            sp__chart_name(kind));
    return 0;
}
#endif
