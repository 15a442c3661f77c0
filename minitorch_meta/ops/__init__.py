"""Ops: each a ``Function`` with its shape rule, forward and backward side by side."""


def __getattr__(name: str):
    # torch.ops.<namespace>: the custom ops torch.library defined there (the namespace
    # may not be the name of a module here: custom_op refuses those).
    if not name.startswith("__"):
        from ..library.operator import OpNamespace, namespaces

        if name in namespaces():
            return OpNamespace(name)
    raise AttributeError(f"module 'minitorch_meta.ops' has no attribute {name!r} (torch.ops "
                         "holds the namespaces of ops defined with torch.library; there is "
                         "no registry of PyTorch's built-in aten ops here)")
