/* SPDX-License-Identifier: MIT */
/* sp_plot_export.c - drawing a chart into a PNG, SVG or PDF file, atomically. */
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sp_error.h"
#include "sp_outfile.h"
#include "sp_plot_internal.h"

static const char *const format_names[] = {"png", "svg", "pdf"};

const char *sp_plot_format_name(sp_plot_format fmt)
{
    return (unsigned)fmt < 3 ? format_names[fmt] : "?";
}

int sp_plot_format_parse(const char *s, sp_plot_format *out)
{
    for (int i = 0; s && i < 3; i++)
        if (strcasecmp(s, format_names[i]) == 0) {
            if (out)
                *out = (sp_plot_format)i;
            return 0;
        }
    return sp__error(SP_EINVAL, "unknown plot format '%s' (expected png, svg or pdf)",
                     s ? s : "(null)");
}

int sp_plot_format_from_path(const char *path, sp_plot_format *out)
{
    const char *dot = path ? strrchr(path, '.') : NULL;
    const char *slash = path ? strrchr(path, '/') : NULL;
    if (dot && (!slash || dot > slash))
        for (int i = 0; i < 3; i++)
            if (strcasecmp(dot + 1, format_names[i]) == 0) {
                if (out)
                    *out = (sp_plot_format)i;
                return 0;
            }
    return sp__error(SP_EINVAL,
                     "cannot tell the format of '%s' from its extension "
                     "(use .png, .svg or .pdf, or give the format)",
                     path ? path : "(null)");
}

static cairo_status_t write_fn(void *closure, const unsigned char *data, unsigned int len)
{
    return fwrite(data, 1, len, (FILE *)closure) == len ? CAIRO_STATUS_SUCCESS
                                                        : CAIRO_STATUS_WRITE_ERROR;
}

/* Draw into a surface writing to f. Returns 0, the callback's code, or
 * SP_EIO (message set). */
static int render(FILE *f, const char *path, sp_plot_format fmt, double w, double h,
                  sp_plot_draw_fn draw, void *data)
{
    cairo_surface_t *surf;
    if (fmt == SP_PLOT_PNG)
        surf = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, (int)ceil(w), (int)ceil(h));
    else if (fmt == SP_PLOT_SVG)
        surf = cairo_svg_surface_create_for_stream(write_fn, f, w, h);
    else
        surf = cairo_pdf_surface_create_for_stream(write_fn, f, w, h);
    if (cairo_surface_status(surf) != CAIRO_STATUS_SUCCESS) {
        int rc = sp__error(SP_EIO, "cannot create a %s surface for '%s': %s",
                           sp_plot_format_name(fmt), path,
                           cairo_status_to_string(cairo_surface_status(surf)));
        cairo_surface_destroy(surf);
        return rc;
    }
    if (fmt == SP_PLOT_SVG) /* user units are points; keep them as "pt" */
        cairo_svg_surface_set_document_unit(surf, CAIRO_SVG_UNIT_PT);
    cairo_t *cr = cairo_create(surf);
    int rc = draw(cr, w, h, data);
    cairo_status_t st = cairo_status(cr);
    cairo_destroy(cr);
    if (rc == 0 && st != CAIRO_STATUS_SUCCESS)
        rc = sp__error(SP_EIO, "drawing '%s' failed: %s", path, cairo_status_to_string(st));
    if (rc == 0 && fmt == SP_PLOT_PNG) {
        st = cairo_surface_write_to_png_stream(surf, write_fn, f);
        if (st != CAIRO_STATUS_SUCCESS)
            rc = sp__error(SP_EIO, "cannot write PNG '%s': %s", path, cairo_status_to_string(st));
    }
    cairo_surface_finish(surf); /* SVG and PDF are written here */
    st = cairo_surface_status(surf);
    if (rc == 0 && st != CAIRO_STATUS_SUCCESS)
        rc = sp__error(SP_EIO, "cannot write '%s': %s", path, cairo_status_to_string(st));
    cairo_surface_destroy(surf);
    return rc;
}

int sp_plot_export(const char *path, sp_plot_format fmt, double w, double h, sp_plot_draw_fn draw,
                   void *data)
{
    if (!path || !*path || !draw || (unsigned)fmt > SP_PLOT_PDF || !(w >= 1) || !(h >= 1) ||
        w > 100000 || h > 100000)
        return sp__error(SP_EINVAL, "sp_plot_export: bad arguments");
    /* An exclusive temporary file renamed into place (a device such as
     * /dev/null is written in place instead): sp_outfile.h. */
    sp_outfile out;
    int orc = sp_outfile_open(&out, path);
    if (orc != 0)
        return orc;
    FILE *f = out.f;
    int rc = render(f, path, fmt, w, h, draw, data);
    int crc = sp_outfile_close(&out, rc == 0);
    if (rc == 0)
        rc = crc;
    return rc;
}
