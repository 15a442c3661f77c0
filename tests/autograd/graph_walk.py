"""A torchviz-style walk of an autograd graph, to compare ours with PyTorch's.

torchviz draws a graph by following ``grad_fn.next_functions`` from the root and keying
nodes by ``id``; two frameworks draw the same picture when their walks give the same node
names in the same first-seen order and the same edges (with their ``input_nr``).
"""

from __future__ import annotations


def walk(*roots) -> tuple:
    """The walk from each of ``roots``' ``grad_fn`` (tensors; those without one add
    nothing): node names in first-seen order, and each edge as ``(from node, input_nr,
    to node)`` by those positions, sorted."""
    seen, names, edges = {}, [], []

    def add(node):
        if id(node) in seen:
            return
        seen[id(node)] = len(seen)
        names.append(node.name())
        for next_node, input_nr in node.next_functions:
            if next_node is not None:
                add(next_node)
                edges.append((seen[id(next_node)], input_nr, seen[id(node)]))

    for root in roots:
        if getattr(root, "grad_fn", None) is not None:
            add(root.grad_fn)
    return names, sorted(edges)
