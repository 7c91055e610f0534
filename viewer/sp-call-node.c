/* SPDX-License-Identifier: MIT */
/* sp-call-node.c - call tree nodes as GObjects. */
#include "sp-call-node.h"

#include "sp-top-k.h"
#include "sp-viewer-format.h"

struct _SpCallNode {
    GObject parent_instance;
    SpRunDocument *doc;
    int node;
};

G_DEFINE_FINAL_TYPE(SpCallNode, sp_call_node, G_TYPE_OBJECT)

static void sp_call_node_dispose(GObject *object)
{
    g_clear_object(&SP_CALL_NODE(object)->doc);
    G_OBJECT_CLASS(sp_call_node_parent_class)->dispose(object);
}

static void sp_call_node_class_init(SpCallNodeClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = sp_call_node_dispose;
}

static void sp_call_node_init(SpCallNode *self) {}

SpCallNode *sp_call_node_new(SpRunDocument *doc, int node)
{
    SpCallNode *self = g_object_new(SP_TYPE_CALL_NODE, NULL);
    self->doc = g_object_ref(doc);
    self->node = node;
    return self;
}

int sp_call_node_get_index(SpCallNode *self) { return self->node; }

const sp_tree_node *sp_call_node_get_node(SpCallNode *self)
{
    return &sp_run_document_get_run(self->doc)->tree.nodes[self->node];
}

const char *sp_call_node_get_name(SpCallNode *self)
{
    const sp_run *run = sp_run_document_get_run(self->doc);
    int r = run->tree.nodes[self->node].region;
    return r >= 0 ? run->region_names[r] : "(root)";
}

double sp_call_node_get_fraction(SpCallNode *self)
{
    const sp_tree *tree = &sp_run_document_get_run(self->doc)->tree;
    /* The root's inclusive time may be 0 when analysis leaves it unset: use
     * the sum of the top-level nodes then. */
    double total = tree->nodes[0].incl_s;
    if (total <= 0)
        for (int c = tree->nodes[0].first_child; c >= 0; c = tree->nodes[c].next_sibling)
            total += tree->nodes[c].incl_s;
    return total > 0 ? tree->nodes[self->node].incl_s / total : 0;
}

static gint cmp_incl(gconstpointer a, gconstpointer b, gpointer ud)
{
    const sp_tree *tree = ud;
    int x = *(const int *)a, y = *(const int *)b;
    double u = tree->nodes[x].incl_s, v = tree->nodes[y].incl_s;
    if (u != v)
        return u > v ? -1 : 1;
    return x < y ? -1 : x > y;
}

static gint cmp_sibling(gconstpointer a, gconstpointer b, gpointer ud)
{
    const guint *pos = ud; /* by position among the siblings */
    guint x = pos[*(const int *)a], y = pos[*(const int *)b];
    return x < y ? -1 : x > y;
}

GListModel *sp_call_node_children(SpRunDocument *doc, int node)
{
    const sp_tree *tree = &sp_run_document_get_run(doc)->tree;
    if (node < 0 || (size_t)node >= tree->nnodes || tree->nodes[node].first_child < 0)
        return NULL;
    g_autoptr(GArray) kids = g_array_new(FALSE, FALSE, sizeof(int));
    for (int c = tree->nodes[node].first_child; c >= 0; c = tree->nodes[c].next_sibling)
        g_array_append_val(kids, c);
    if (kids->len > SP_CALL_NODE_CHILDREN_MAX) {
        /* the ones with the most inclusive time, back in sibling order */
        guint *pos = g_new(guint, tree->nnodes);
        for (guint i = 0; i < kids->len; i++)
            pos[g_array_index(kids, int, i)] = i;
        sp_top_k((gint *)kids->data, kids->len, SP_CALL_NODE_CHILDREN_MAX, cmp_incl,
                 (gpointer)tree);
        g_array_set_size(kids, SP_CALL_NODE_CHILDREN_MAX);
        g_qsort_with_data(kids->data, (gint)kids->len, sizeof(int), cmp_sibling, pos);
        g_free(pos);
    }
    g_autoptr(GPtrArray) items = g_ptr_array_new_full(kids->len, g_object_unref);
    for (guint i = 0; i < kids->len; i++)
        g_ptr_array_add(items, sp_call_node_new(doc, g_array_index(kids, int, i)));
    GListStore *store = g_list_store_new(SP_TYPE_CALL_NODE);
    g_list_store_splice(store, 0, 0, items->pdata, items->len);
    return G_LIST_MODEL(store);
}

char *sp_call_node_cap_note(SpRunDocument *doc)
{
    const sp_tree *tree = doc ? &sp_run_document_get_run(doc)->tree : NULL;
    size_t cut = 0, most = 0;
    for (size_t k = 0; tree && k < tree->nnodes; k++) {
        size_t n = 0;
        for (int c = tree->nodes[k].first_child; c >= 0; c = tree->nodes[c].next_sibling)
            n++;
        cut += n > SP_CALL_NODE_CHILDREN_MAX;
        most = MAX(most, n);
    }
    if (!cut)
        return NULL;
    g_autofree char *max_s = sp_format_count(SP_CALL_NODE_CHILDREN_MAX);
    g_autofree char *most_s = sp_format_count(most);
    return g_strdup_printf("%zu node%s with more than %s children list%s the %s with the most "
                           "inclusive time (the largest has %s)",
                           cut, cut == 1 ? "" : "s", max_s, cut == 1 ? "s" : "", max_s, most_s);
}

SpRunDocument *sp_call_node_get_document(SpCallNode *self) { return self->doc; }
