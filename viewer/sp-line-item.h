/* SPDX-License-Identifier: MIT */
/* sp-line-item.h - one source line of a region as a list item (rows of the
 * Lines table): samples merged over the shown ranks, and the line's source
 * text once the file has been read. */
#ifndef SP_LINE_ITEM_H
#define SP_LINE_ITEM_H

#include <gio/gio.h>

G_BEGIN_DECLS

#define SP_TYPE_LINE_ITEM (sp_line_item_get_type())
G_DECLARE_FINAL_TYPE(SpLineItem, sp_line_item, SP, LINE_ITEM, GObject)

/* Where the line's source text stands. */
typedef enum {
    SP_LINE_SOURCE_LOADING, /* the file is being read */
    SP_LINE_SOURCE_FOUND,
    SP_LINE_SOURCE_MISSING  /* no file name, unreadable file, or no such line */
} SpLineSourceState;

/* file and function are copied ("" when unknown); fraction = the line's
 * share of the region's samples, 0..1. */
SpLineItem *sp_line_item_new(const char *function, const char *file, int lineno,
                             guint64 samples, gint64 time_ns, double fraction);

const char *sp_line_item_get_function(SpLineItem *self);
const char *sp_line_item_get_file(SpLineItem *self);
int sp_line_item_get_lineno(SpLineItem *self);
guint64 sp_line_item_get_samples(SpLineItem *self);
gint64 sp_line_item_get_time_ns(SpLineItem *self);
double sp_line_item_get_fraction(SpLineItem *self);

/* "file.c:42" (file's base name; "?" when unknown). Newly allocated. */
char *sp_line_item_dup_location(SpLineItem *self);

SpLineSourceState sp_line_item_get_source_state(SpLineItem *self);
/* The line's text (leading blanks removed) when FOUND, else NULL. */
const char *sp_line_item_get_source(SpLineItem *self);
/* text NULL: MISSING. */
void sp_line_item_set_source(SpLineItem *self, const char *text);
/* No source text: why (may be NULL) is why the file is not shown; then
 * sp_line_item_get_source() returns the reason. */
void sp_line_item_set_source_missing(SpLineItem *self, const char *why);

G_END_DECLS

#endif
