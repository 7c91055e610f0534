/* SPDX-License-Identifier: MIT */
/* sp-diff-item.c - a comparison row as a GObject. */
#include "sp-diff-item.h"

struct _SpDiffItem {
    GObject parent_instance;
    sp_diff_entry entry;
    GObject *base, *candidate; /* keep entry.name alive */
};

G_DEFINE_FINAL_TYPE(SpDiffItem, sp_diff_item, G_TYPE_OBJECT)

static void sp_diff_item_dispose(GObject *object)
{
    g_clear_object(&SP_DIFF_ITEM(object)->base);
    g_clear_object(&SP_DIFF_ITEM(object)->candidate);
    G_OBJECT_CLASS(sp_diff_item_parent_class)->dispose(object);
}

static void sp_diff_item_class_init(SpDiffItemClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = sp_diff_item_dispose;
}

static void sp_diff_item_init(SpDiffItem *self) {}

SpDiffItem *sp_diff_item_new(const sp_diff_entry *entry, GObject *base, GObject *candidate)
{
    SpDiffItem *self = g_object_new(SP_TYPE_DIFF_ITEM, NULL);
    self->entry = *entry;
    self->base = base ? g_object_ref(base) : NULL;
    self->candidate = candidate ? g_object_ref(candidate) : NULL;
    return self;
}

const sp_diff_entry *sp_diff_item_get_entry(SpDiffItem *self) { return &self->entry; }
