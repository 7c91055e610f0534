/* SPDX-License-Identifier: MIT */
/* sp-line-item.c - a sampled source line as a GObject for list models. */
#include "sp-line-item.h"

#include <string.h>

struct _SpLineItem {
    GObject parent_instance;
    char *function, *file, *source;
    int lineno;
    guint64 samples;
    gint64 time_ns;
    double fraction;
    SpLineSourceState state;
};

G_DEFINE_FINAL_TYPE(SpLineItem, sp_line_item, G_TYPE_OBJECT)

static void sp_line_item_finalize(GObject *object)
{
    SpLineItem *self = SP_LINE_ITEM(object);
    g_free(self->function);
    g_free(self->file);
    g_free(self->source);
    G_OBJECT_CLASS(sp_line_item_parent_class)->finalize(object);
}

static void sp_line_item_class_init(SpLineItemClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = sp_line_item_finalize;
}

static void sp_line_item_init(SpLineItem *self) {}

SpLineItem *sp_line_item_new(const char *function, const char *file, int lineno,
                             guint64 samples, gint64 time_ns, double fraction)
{
    SpLineItem *self = g_object_new(SP_TYPE_LINE_ITEM, NULL);
    self->function = g_strdup(function ? function : "");
    self->file = g_strdup(file ? file : "");
    self->lineno = lineno;
    self->samples = samples;
    self->time_ns = time_ns;
    self->fraction = fraction;
    /* Nothing to read without a file name or a line number. */
    self->state = *self->file && lineno > 0 ? SP_LINE_SOURCE_LOADING : SP_LINE_SOURCE_MISSING;
    return self;
}

const char *sp_line_item_get_function(SpLineItem *self) { return self->function; }
const char *sp_line_item_get_file(SpLineItem *self) { return self->file; }
int sp_line_item_get_lineno(SpLineItem *self) { return self->lineno; }
guint64 sp_line_item_get_samples(SpLineItem *self) { return self->samples; }
gint64 sp_line_item_get_time_ns(SpLineItem *self) { return self->time_ns; }
double sp_line_item_get_fraction(SpLineItem *self) { return self->fraction; }

char *sp_line_item_dup_location(SpLineItem *self)
{
    const char *slash = strrchr(self->file, '/');
    const char *base = *self->file ? (slash ? slash + 1 : self->file) : "?";
    return self->lineno > 0 ? g_strdup_printf("%s:%d", base, self->lineno) : g_strdup(base);
}

SpLineSourceState sp_line_item_get_source_state(SpLineItem *self) { return self->state; }
const char *sp_line_item_get_source(SpLineItem *self) { return self->source; }

void sp_line_item_set_source(SpLineItem *self, const char *text)
{
    g_free(self->source);
    self->source = text ? g_strchug(g_strdup(text)) : NULL;
    /* Tabs inside a line are layout, not content: spaces, so the cell's
     * escaping (sp-viewer-text.h) leaves them readable. */
    for (char *p = self->source; p && *p; p++)
        if (*p == '\t')
            *p = ' ';
    self->state = text ? SP_LINE_SOURCE_FOUND : SP_LINE_SOURCE_MISSING;
}

void sp_line_item_set_source_missing(SpLineItem *self, const char *why)
{
    g_free(self->source);
    self->source = why ? g_strdup(why) : NULL;
    self->state = SP_LINE_SOURCE_MISSING;
}
