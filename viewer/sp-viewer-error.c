/* SPDX-License-Identifier: MIT */
/* sp-viewer-error.c - mapping sp_status codes to GError. */
#include "sp-viewer-error.h"

#include "scope_profiler.h"

G_DEFINE_QUARK(sp-viewer-error-quark, sp_viewer_error)

void sp_viewer_set_error(GError **error, int code, const char *msg)
{
    int c = code < 0 ? -code : SP_VIEWER_ERROR_INVAL;
    g_set_error_literal(error, SP_VIEWER_ERROR, c,
                        msg && *msg ? msg : sp_strerror(code));
}
