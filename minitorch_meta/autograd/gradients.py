"""``backward`` and ``grad``: the two ways to ask the engine for gradients, as in PyTorch.

``backward`` adds each gradient into a tensor's ``.grad`` (every leaf reached, or only the
``inputs`` given); ``grad`` returns the gradients instead and touches no ``.grad``. Both
check the outputs and their gradients here, once, and run ``engine.run``.

A ``GradientEdge`` (``autograd.graph.get_gradient_edge``) may stand for any output or
input: the gradient then starts from, or is read at, that node (``gradient_edges.py``).
"""

from __future__ import annotations

import math

from ..caller_warnings import warn_at_caller
from .engine import AccumulateGrad, accumulate_graph_into, accumulate_into, run
from .grad_mode import open_dual_levels
from .gradient_edges import GradientEdge, node_of, output_spec

# PyTorch's words
_GRAD_CYCLE = ("Using backward() with create_graph=True will create a reference cycle between "
               "the parameter and its gradient which can cause a memory leak. We recommend "
               "using autograd.grad when creating the graph to avoid this. If you have to use "
               "this function, make sure to reset the .grad fields of your parameters to None "
               "after use to break the cycle and avoid the leak.")


def backward(tensors, grad_tensors=None, retain_graph=None, create_graph=False,
             inputs=None) -> None:
    """Add the gradient of ``tensors`` (weighted by ``grad_tensors``) into ``.grad``.

    ``tensors``: a tensor or a sequence of them; ``grad_tensors``: one gradient (or None for
    a one-element tensor, meaning 1) per tensor. With ``inputs`` (a tensor or a sequence),
    only their ``.grad`` is written, leaves or not; without, every leaf the graph reaches.

    With ``create_graph=True`` the gradients are computed with recorded ops, so each
    ``.grad`` has a graph of its own and can be differentiated again; ``retain_graph`` then
    defaults to True.
    """
    retain_graph = create_graph if retain_graph is None else retain_graph
    roots = _roots(_as_tuple(tensors, "tensors", edges=True), grad_tensors, "backward",
                   create_graph)
    if inputs is None:
        if create_graph:
            warn_at_caller(_GRAD_CYCLE)
        leaves = _leaves_of_dual_outputs(tensors, roots)
        run(roots, bool(retain_graph), create_graph=create_graph)
        _mark_for_forward_ad(tensors, [leaf._grad for leaf in leaves])
        return
    inputs = _as_tuple(inputs, "inputs", edges=True)
    if not inputs:
        raise RuntimeError("`inputs` argument to `backward()` cannot be empty: pass the "
                           "tensors whose .grad should be written, or leave it out")
    nodes = _input_nodes(inputs)
    captured = run(roots, bool(retain_graph), targets=set(nodes), create_graph=create_graph,
                   accumulate_grad=True)
    accumulate = accumulate_graph_into if create_graph else accumulate_into
    for tensor, node in zip(inputs, nodes):
        if isinstance(tensor, GradientEdge):
            # PyTorch runs the edge's node: a leaf's AccumulateGrad writes its .grad, any
            # other node writes nothing
            tensor = node.variable if isinstance(node, AccumulateGrad) else None
        if tensor is not None and node in captured:
            accumulate(tensor, captured[node])
    _mark_for_forward_ad(tensors, [getattr(tensor, "_grad", None) for tensor in inputs])


def grad(outputs, inputs, grad_outputs=None, retain_graph=None, create_graph=False,
         only_inputs=True, allow_unused=None, is_grads_batched=False,
         materialize_grads=False) -> tuple | dict:
    """The gradients of ``outputs`` with respect to each of ``inputs``, as a tuple.

    Nothing is written into any ``.grad``; only the part of the graph between the outputs
    and the inputs runs (and, without ``retain_graph``, is freed). An input the outputs do
    not depend on raises, unless ``allow_unused=True`` (its gradient is then None) or
    ``materialize_grads=True`` (zeros). ``only_inputs`` is accepted and ignored, as in
    PyTorch. With ``create_graph=True`` the gradients are computed with recorded ops and
    can be differentiated again (``retain_graph`` then defaults to True).

    ``inputs`` may be a dict of named tensors (``dict(model.named_parameters())``): the
    gradients then come back as a dict with its keys, as in PyTorch 2.13.
    """
    if isinstance(inputs, dict):
        gradients = grad(outputs, tuple(inputs.values()), grad_outputs, retain_graph,
                         create_graph, only_inputs, allow_unused, is_grads_batched,
                         materialize_grads)
        return dict(zip(inputs, gradients))
    retain_graph = create_graph if retain_graph is None else retain_graph
    if is_grads_batched:
        return _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph,
                             allow_unused, materialize_grads)
    if materialize_grads and allow_unused is False:
        raise ValueError("Expected allow_unused to be True or not passed when "
                         "materialize_grads=True, but got: allow_unused=False.")
    inputs = _as_tuple(inputs, "inputs", edges=True)
    if not inputs:
        raise RuntimeError("`inputs` argument to `grad()` cannot be empty: pass the tensors "
                           "to differentiate with respect to")
    nodes = _input_nodes(inputs)
    roots = _roots(_as_tuple(outputs, "outputs", edges=True), grad_outputs, "grad",
                   create_graph)
    captured = run(roots, bool(retain_graph), targets=set(nodes), create_graph=create_graph)
    gradients = tuple(_input_grad(index, tensor, node, captured.get(node), allow_unused or
                                  materialize_grads, materialize_grads)
                      for index, (tensor, node) in enumerate(zip(inputs, nodes)))
    _mark_for_forward_ad(outputs, gradients)
    return gradients


def _batched_grad(outputs, inputs, grad_outputs, retain_graph, create_graph, allow_unused,
                  materialize_grads) -> tuple:
    """``grad`` with ``is_grads_batched=True``: dim 0 of every ``grad_outputs`` tensor is a
    batch of vectors, and each input's gradient is the stack of one ``grad`` per vector
    (PyTorch vmaps this; a loop gives the same values, one backward per vector). As in
    PyTorch, a gradient made of zeros by ``materialize_grads`` is not batched."""
    from ..functions import stack

    outputs = _as_tuple(outputs, "outputs", edges=True)
    inputs = _as_tuple(inputs, "inputs", edges=True)
    if grad_outputs is None:
        raise RuntimeError("grad can be implicitly created only for scalar outputs: with "
                           "is_grads_batched=True pass grad_outputs, a batch of gradients "
                           "for each output")
    grad_outputs = _as_tuple(grad_outputs, "grad_outputs")
    size = _batch_size(outputs, grad_outputs)
    rows = [grad(outputs, inputs, tuple(g[row] for g in grad_outputs),
                 retain_graph=retain_graph or row < size - 1, create_graph=create_graph,
                 allow_unused=allow_unused or materialize_grads)
            for row in range(size)]
    gradients = []
    for index, tensor in enumerate(inputs):
        column = [row[index] for row in rows]
        if any(g is None for g in column):
            if materialize_grads and isinstance(tensor, GradientEdge):
                raise RuntimeError(_NO_MATERIALIZED_EDGE)
            gradients.append(tensor.new_zeros(tensor.shape) if materialize_grads else None)
        else:  # (``size`` is never 0 here: ``grad`` of no vectors is refused in the rows)
            gradients.append(stack(column) if column else tensor.new_zeros((0, *tensor.shape)))
    return tuple(gradients)


def _batch_size(outputs, grad_outputs) -> int:
    """The size of dim 0, the batch, shared by every batched output gradient.

    Raises:
        RuntimeError for a count or a shape that does not fit the outputs; ValueError for
        batches of different sizes.
    """
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"grad() got {len(grad_outputs)} output gradient(s) for "
                           f"{len(outputs)} output(s): pass one per output")
    for index, (gradient, output) in enumerate(zip(grad_outputs, outputs)):
        shape = _shape_of(output)
        if gradient.dim() == 0 or tuple(gradient.shape[1:]) != shape:
            raise RuntimeError(
                "If `is_grads_batched=True`, we interpret the first dimension of each "
                "grad_output as the batch dimension. The sizes of the remaining dimensions "
                "are expected to match the shape of corresponding output, but a mismatch was "
                f"detected: grad_output[{index}] has a shape of {tuple(gradient.shape)} and "
                f"output[{index}] has a shape of {shape}. If you only want some "
                "tensors in `grad_output` to be considered batched, consider using vmap.")
    sizes = [g.shape[0] for g in grad_outputs]
    if len(set(sizes)) > 1:
        raise ValueError(f"vmap: Expected all tensors to have the same size in the mapped "
                         f"dimension, got sizes {sizes} for the mapped dimension")
    return sizes[0]


def _as_tuple(tensors, what: str, edges: bool = False) -> tuple:
    """A tensor, or a sequence of them, as a tuple; with ``edges``, ``GradientEdge``s too."""
    from ..tensor import Tensor

    if isinstance(tensors, Tensor):
        return (tensors,)
    kinds = (Tensor, GradientEdge) if edges else Tensor
    if edges and isinstance(tensors, GradientEdge):  # (before sequences: a named tuple)
        return (tensors,)
    if isinstance(tensors, (tuple, list)) and all(isinstance(t, kinds) for t in tensors):
        return tuple(tensors)
    expected = "a Tensor, a GradientEdge" if edges else "a Tensor"
    raise TypeError(f"{what} must be {expected} or a sequence of Tensors, got "
                    f"{type(tensors).__name__}")


def _shape_of(output) -> tuple:
    """The shape of an output tensor, or of the output a ``GradientEdge`` names."""
    if isinstance(output, GradientEdge):
        return output_spec(output, node_of(output))[0]
    return tuple(output.shape)


def _input_nodes(inputs) -> list:
    """The graph node where each input's gradient arrives: its ``grad_fn``, or for a leaf
    its ``AccumulateGrad``."""
    for tensor in inputs:
        if not isinstance(tensor, GradientEdge) and not tensor.requires_grad:
            raise RuntimeError("One of the differentiated Tensors does not require grad: "
                               "create it with requires_grad=True (or call "
                               "requires_grad_()) before computing the outputs")
    return [node_of(t) if isinstance(t, GradientEdge) else
            t.grad_fn if t.grad_fn is not None else t._accumulator() for t in inputs]


def _roots(outputs, grad_outputs, caller: str, create_graph: bool = False) -> list:
    """``(node, gradient array)`` for each output, the gradient checked against it; with
    ``create_graph`` the gradient is a tensor (a given one keeps its own graph)."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    else:
        grad_outputs = (grad_outputs,) if hasattr(grad_outputs, "_data") else tuple(
            grad_outputs)
    if len(grad_outputs) != len(outputs):
        raise RuntimeError(f"{caller}() got {len(grad_outputs)} output gradient(s) for "
                           f"{len(outputs)} output(s): pass one per output (None for a "
                           "one-element output means 1)")
    roots = [_root(index, output, gradient)
             for index, (output, gradient) in enumerate(zip(outputs, grad_outputs))]
    if create_graph:
        return roots
    return [(node, gradient._data) for node, gradient in roots]


def _root(index: int, output, gradient):
    if output.__class__ is GradientEdge:
        return _edge_root(index, output, gradient)
    if output.grad_fn is None and not output.requires_grad:
        raise RuntimeError(f"element {index} of tensors does not require grad and does not "
                           "have a grad_fn: compute it from tensors created with "
                           "requires_grad=True (and not under no_grad())")
    node = output.grad_fn if output.grad_fn is not None else output._accumulator()
    if gradient is None:
        if output.numel() != 1:
            raise RuntimeError(f"grad can be implicitly created only for scalar outputs; "
                               f"output {index} has shape {tuple(output.shape)}: pass its "
                               "gradient, a tensor of the same shape")
        if output._dtype.is_complex:
            raise RuntimeError(f"grad can be implicitly created only for real scalar outputs "
                               f"but got {output._dtype}: backward from a real loss (e.g. "
                               "z.abs() or z.real), or pass the gradient explicitly")
        return node, output._wrap(output._backend.full(output._data.shape, 1, output._dtype))
    _check_gradient(index, gradient, tuple(output.shape), output.device, "the output")
    return node, gradient


def _check_gradient(index: int, gradient, shape: tuple, device, output: str) -> None:
    """A given output gradient must have its output's shape and device."""
    if tuple(gradient.shape) != shape:
        raise RuntimeError(f"Mismatch in shape: the gradient of output {index} has shape "
                           f"{tuple(gradient.shape)} but {output} has shape {shape}; they "
                           "must match")
    if gradient.device != device:
        raise RuntimeError(f"the gradient of output {index} is on {gradient.device} but "
                           f"{output} is on {device}: move it with .to()")


def _edge_root(index: int, edge, gradient):
    """``_root`` for a ``GradientEdge`` output: the node, and the gradient (made, or
    checked) from the shape and dtype of the output the edge names."""
    node = node_of(edge)
    shape, dtype, backend = output_spec(edge, node)
    if gradient is None:
        if math.prod(shape) != 1:
            raise RuntimeError(f"grad can be implicitly created only for scalar outputs; "
                               f"output {index} (a GradientEdge) has shape {shape}: pass its "
                               "gradient, a tensor of the same shape")
        if not dtype.is_floating_point:
            raise RuntimeError(f"grad can be implicitly created only for real scalar outputs "
                               f"but got {dtype}: pass the gradient explicitly")
        from ..tensor import Tensor

        return node, Tensor._make(backend.full(shape, 1, dtype), backend)
    _check_gradient(index, gradient, tuple(shape), backend.device,
                    "the output (a GradientEdge)")
    return node, gradient


_NO_MATERIALIZED_EDGE = "materialize_grads cannot be used when the given input is a GradientEdge"


def _input_grad(index: int, tensor, node, grad_array, allow_unused: bool, materialize: bool):
    """Input ``index``'s gradient as a tensor (zeros, or None, when none reached it);
    ``grad_array`` is an array, or already a tensor under ``create_graph``. ``tensor`` may
    be a ``GradientEdge`` (whose ``node`` is given)."""
    if grad_array is None:
        if materialize and isinstance(tensor, GradientEdge):
            raise RuntimeError(_NO_MATERIALIZED_EDGE)
        if materialize:
            return tensor._wrap(tensor._backend.full(tensor._data.shape, 0, tensor._dtype))
        if not allow_unused:
            raise RuntimeError(f"The differentiated Tensor at index {index} appears to not "
                               "have been used in the graph. Set allow_unused=True if this "
                               "is the desired behavior.")
        return None
    if hasattr(grad_array, "_data"):  # create_graph: the recorded tensor, graph and all
        return grad_array
    # A copy: the engine may hand one array to several inputs (an add's two operands).
    from ..tensor import Tensor

    backend = node.backend
    return Tensor._make(backend.copy(grad_array), backend)


def _open_dual_level():
    """The open forward-mode dual level (autograd/forward_ad.py) unless none is open or
    it is computing a tangent; one list test outside a level."""
    if not open_dual_levels:
        return None
    level = open_dual_levels[0]
    return None if level._busy else level


def _mark_for_forward_ad(outputs, gradients) -> None:
    """Inside a dual level, gradients of dual outputs have no tangent of their own here:
    the level marks them, so that using their tangent raises."""
    level = _open_dual_level()
    if level is not None:
        outputs = _as_tuple(outputs, "outputs", edges=True)  # an edge carries no tangent
        level.mark_gradients([o for o in outputs if not isinstance(o, GradientEdge)], gradients)


def _leaves_of_dual_outputs(outputs, roots) -> list:
    """The leaves whose ``.grad`` a ``backward()`` of dual ``outputs`` inside a dual level
    writes (read before the run frees the graph); none otherwise."""
    level = _open_dual_level()
    if level is None:
        return []
    outputs = _as_tuple(outputs, "tensors", edges=True)
    if all(isinstance(o, GradientEdge) or level.tangent(o) is None for o in outputs):
        return []
    leaves, seen, stack = [], set(), [node for node, _ in roots]
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        if isinstance(node, AccumulateGrad):
            leaves.append(node.variable)
        stack.extend(node._next_nodes)
    return leaves
