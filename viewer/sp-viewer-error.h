/* SPDX-License-Identifier: MIT */
/* sp-viewer-error.h - the viewer's GError domain (codes are sp_status values
 * negated, so SP_EFORMAT becomes SP_VIEWER_ERROR_FORMAT). */
#ifndef SP_VIEWER_ERROR_H
#define SP_VIEWER_ERROR_H

#include <glib.h>

G_BEGIN_DECLS

#define SP_VIEWER_ERROR (sp_viewer_error_quark())
GQuark sp_viewer_error_quark(void);

typedef enum {
    SP_VIEWER_ERROR_INVAL = 1,
    SP_VIEWER_ERROR_NOMEM = 2,
    SP_VIEWER_ERROR_IO = 3,
    SP_VIEWER_ERROR_FORMAT = 5,
    SP_VIEWER_ERROR_VERSION = 6,
    SP_VIEWER_ERROR_NOTSUP = 7,
    SP_VIEWER_ERROR_NOENT = 8,
} SpViewerError;

/* Set *error from a negative sp_status code and a message (usually
 * sp_last_error()); falls back to sp_strerror(code) when msg is empty. */
void sp_viewer_set_error(GError **error, int code, const char *msg);

G_END_DECLS

#endif
