# SPDX-License-Identifier: MIT
"""A networkx analysis as users write them (Debian's python3-networkx):
build a small-world graph, rank its nodes. Run unedited by
check_run_installed.py."""
import sys

import networkx as nx


def build(n):
    return nx.connected_watts_strogatz_graph(n, 6, 0.1, seed=1)


def analyse(g):
    rank = nx.pagerank(g)
    between = nx.betweenness_centrality(g, k=20, seed=1)
    return max(rank, key=rank.get), max(between, key=between.get)


graph = build(int(sys.argv[1]) if len(sys.argv) > 1 else 800)
print("nx_centrality: top nodes", analyse(graph))
