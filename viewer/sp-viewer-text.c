/* SPDX-License-Identifier: MIT */
/* sp-viewer-text.c - escaping text from run files before a widget shows it. */
#include "sp-viewer-text.h"

#include <string.h>

#include "sp_display.h"

char *sp_viewer_text_dup(const char *s)
{
    if (!s)
        return g_strdup("");
    if (sp_display_is_safe(s))
        return g_strdup(s);
    size_t len = strlen(s);
    char *d = g_malloc(4 * len + 1); /* the most sp_display_escape_bytes() writes */
    d[sp_display_escape_bytes(d, s, len, 0, NULL)] = '\0';
    return d;
}

const char *sp_viewer_text(const char *s, char **owned)
{
    *owned = NULL;
    if (!s || sp_display_is_safe(s))
        return s;
    return *owned = sp_viewer_text_dup(s);
}

char *sp_viewer_text_markup(const char *s)
{
    g_autofree char *shown = sp_viewer_text_dup(s);
    return g_markup_escape_text(shown, -1);
}
