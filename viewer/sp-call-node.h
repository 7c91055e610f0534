/* SPDX-License-Identifier: MIT */
/* sp-call-node.h - a node of a run's merged call tree as a list item, with
 * its children as a list model (for GtkTreeListModel). */
#ifndef SP_CALL_NODE_H
#define SP_CALL_NODE_H

#include "sp-run-document.h"

G_BEGIN_DECLS

#define SP_TYPE_CALL_NODE (sp_call_node_get_type())
G_DECLARE_FINAL_TYPE(SpCallNode, sp_call_node, SP, CALL_NODE, GObject)

SpCallNode *sp_call_node_new(SpRunDocument *doc, int node);

int sp_call_node_get_index(SpCallNode *self);
SpRunDocument *sp_call_node_get_document(SpCallNode *self);
const sp_tree_node *sp_call_node_get_node(SpCallNode *self);
/* Region name ("(root)" for the root). */
const char *sp_call_node_get_name(SpCallNode *self);
/* Inclusive time as a fraction of the whole tree's inclusive time. */
double sp_call_node_get_fraction(SpCallNode *self);

/* A node shows at most this many children (the report's 2,000 rows): GTK's
 * tree model took tens of seconds expanding a node of 10^6 children. */
#define SP_CALL_NODE_CHILDREN_MAX 2000

/* The children of node `node` of doc's tree, in tree order (a GListStore of
 * SpCallNode, new reference): all of them, or the SP_CALL_NODE_CHILDREN_MAX
 * with the most inclusive time (ties: the lower node); NULL when it has none. */
GListModel *sp_call_node_children(SpRunDocument *doc, int node);

/* What the Call Tree page says when nodes of doc's tree have more than
 * SP_CALL_NODE_CHILDREN_MAX children ("1 node with more than 2 000
 * children lists the 2 000 with the most inclusive time (the largest has
 * 1 000 000)"), newly allocated; NULL when none has. One walk of the
 * sibling lists: O(nodes). */
char *sp_call_node_cap_note(SpRunDocument *doc);

G_END_DECLS

#endif
