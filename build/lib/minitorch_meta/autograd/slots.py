"""Gradients tagged by position, for graph nodes that receive several separate gradients.

The engine sends one gradient per node and adds gradients meeting at a node with
``node.backend.binary("add", ...)``. A node that needs its gradients apart (one per
output of a custom ``Function``, one per input of a module's backward hooks) gets them as
``Slots`` through identity nodes, and uses ``SLOT_MERGER`` as its backend, so that the
engine's "add" merges the partial sets instead.
"""

from __future__ import annotations


class Slots:
    """Gradients for some positions of one node, by position."""

    __slots__ = ("grads",)

    def __init__(self, grads: dict):
        self.grads = grads


class SlotMerger:
    """The stand-in backend of a node fed with ``Slots``: 'adding' two sets merges them.

    Each position is fed by one identity node, which runs once per backward, so two sets
    never hold the same position."""

    def binary(self, name, a: Slots, b: Slots) -> Slots:
        return Slots({**a.grads, **b.grads})


SLOT_MERGER = SlotMerger()
