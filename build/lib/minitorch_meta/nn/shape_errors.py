"""Shape errors that point at the layer: where in the model an op's shape rule failed.

When a ``ShapeError`` escapes a module's forward, ``Module.__call__`` hands it to
``annotate``. The innermost module records itself, the input shapes it received and, where
one number would fix the mismatch, which one. Each enclosing module then prepends the name
under which it holds the failing child, so when the error leaves the outermost module its
message names the full path (``'classifier.0'``). The error keeps its class and ``op``; the
op's own message stays first.
"""

from __future__ import annotations

from ..errors import ShapeError
from ..tensor import tensors_in

_LINEAR_OPS = ("linear", "addmm", "mm", "matmul")
_IMAGE_OPS = ("conv2d", "max_pool2d")


def annotate(module, error: ShapeError, args: tuple) -> None:
    """Add ``module``'s place in the model to ``error`` (in place; the caller re-raises)."""
    holder = getattr(error, "_holder", None)
    if holder is None:
        error.module = module
        error.input_shapes = [tuple(a._data.shape) for a in tensors_in(args)]
        error.hint = hint_for(module, error.op, error.input_shapes)
        error._path = []
    elif holder is not module:
        error._path = _name_in(module, holder) + error._path
    error._holder = module
    error.module_path = ".".join(error._path)
    error.args = (_message(error),)


def _name_in(parent, child) -> list:
    """The dotted name under which ``parent`` holds ``child`` (split), as found by search."""
    for name, module in parent._modules.items():
        if module is child:
            return [name]
    for name, module in parent.named_modules():
        if module is child and name:
            return name.split(".")
    # A module kept outside the registries (in a plain list, say) has no name to show.
    return [f"<unregistered {type(child).__name__}>"]


def hint_for(module, op: str, input_shapes: list) -> str | None:
    """The one setting that would fix the mismatch, when there is one."""
    if not input_shapes:
        return None
    shape = input_shapes[0]
    in_features = getattr(module, "in_features", None)
    if isinstance(in_features, int) and op in _LINEAR_OPS:
        if not shape:
            return "the input is 0-D; Linear needs at least one dimension (*, in_features)"
        if shape[-1] != in_features:
            return (f"in_features should be {shape[-1]} (or the layer before should produce "
                    f"{in_features})")
    if op in _IMAGE_OPS and len(shape) not in (3, 4):
        return (f"{type(module).__name__} expects a 4-D batch (N, C, H, W) or one 3-D image "
                f"(C, H, W), but received a {len(shape)}-D input; check the layer before "
                "(a flatten or view too early?)")
    in_channels = getattr(module, "in_channels", None)
    if isinstance(in_channels, int) and op == "conv2d" and shape[-3] != in_channels:
        return (f"in_channels should be {shape[-3]} (or the layer before should produce "
                f"{in_channels} channels)")
    return None


def _message(error: ShapeError) -> str:
    where = (f"in module '{error.module_path}'" if error.module_path
             else "in the outermost module called")
    layer = repr(error.module).replace("\n", "\n    ")
    shapes = ", ".join(str(s) for s in error.input_shapes) or "no tensors"
    plural = "s" if len(error.input_shapes) > 1 else ""
    lines = [f"{error.op}: {error.detail}",
             f"  {where}: {layer}",
             f"  input shape{plural} to that module: {shapes}"]
    if error.hint:
        lines.append(f"  fix: {error.hint}")
    return "\n".join(lines)
