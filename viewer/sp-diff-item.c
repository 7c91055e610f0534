/* SPDX-License-Identifier: MIT */
/* sp-diff-item.c - a comparison row as a GObject. */
#include "sp-diff-item.h"

static void box_clear(gpointer p)
{
    sp_compare_free(*(sp_compare **)p);
}

SpCompareBox *sp_compare_box_new(sp_compare *cmp)
{
    SpCompareBox *box = g_rc_box_new(SpCompareBox);
    *box = cmp;
    return box;
}

SpCompareBox *sp_compare_box_ref(SpCompareBox *box)
{
    return g_rc_box_acquire(box);
}

void sp_compare_box_unref(SpCompareBox *box)
{
    if (box)
        g_rc_box_release_full(box, box_clear);
}

struct _SpDiffItem {
    GObject parent_instance;
    SpCompareBox *box;
    size_t index;
};

G_DEFINE_FINAL_TYPE(SpDiffItem, sp_diff_item, G_TYPE_OBJECT)

static void sp_diff_item_finalize(GObject *object)
{
    sp_compare_box_unref(SP_DIFF_ITEM(object)->box);
    G_OBJECT_CLASS(sp_diff_item_parent_class)->finalize(object);
}

static void sp_diff_item_class_init(SpDiffItemClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = sp_diff_item_finalize;
}

static void sp_diff_item_init(SpDiffItem *self) {}

SpDiffItem *sp_diff_item_new(SpCompareBox *box, size_t index)
{
    SpDiffItem *self = g_object_new(SP_TYPE_DIFF_ITEM, NULL);
    self->box = sp_compare_box_ref(box);
    self->index = index;
    return self;
}

const sp_cmp_entry *sp_diff_item_get_entry(SpDiffItem *self)
{
    return &(*self->box)->entries[self->index];
}

size_t sp_diff_item_get_index(SpDiffItem *self) { return self->index; }

const sp_compare *sp_diff_item_get_compare(SpDiffItem *self) { return *self->box; }
