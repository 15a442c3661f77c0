"""``stack_module_state``: the parameters and buffers of ``M`` models of one class, each
stacked along a new leading dimension of size ``M``, as ``torch.func.stack_module_state``.

With ``vmap`` and ``functional_call`` this runs an ensemble as one batched model. The
stacked parameters are new leaves (detached from the models' own), so an optimizer can
train them directly; a stacked tensor requires grad exactly when every model's tensor of
that name does (a mixture is refused, as PyTorch refuses it).
"""

from __future__ import annotations

from collections.abc import Sequence


def stack_module_state(models: Sequence) -> tuple[dict, dict]:
    """``(params, buffers)``: dicts from dotted names (those of ``state_dict``) to the
    models' tensors of that name stacked along a new dim 0.

    Shape:
        each model's tensor ``(*S)`` gives a stacked tensor ``(M, *S)``.

    Raises:
        RuntimeError: no model, models of different classes or of mixed training/eval
            mode, or a name whose tensors do not all (or all not) require grad.
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if len({bool(model.training) for model in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to have the same "
                           "training/eval mode.")
    if len({type(model) for model in models}) > 1:
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    params = _stacked([dict(model.named_parameters()) for model in models])
    buffers = _stacked([dict(model.named_buffers()) for model in models])
    return params, buffers


def _stacked(registries: list[dict]) -> dict:
    """Each name of the first model's registry, its tensors from every model stacked."""
    return {name: _stacked_leaf([registry[name] for registry in registries], name)
            for name in registries[0]}


def _stacked_leaf(tensors: list, name: str):
    """The tensors stacked; a new leaf requiring grad when all of them require grad."""
    from .. import stack

    wanting = {bool(tensor.requires_grad) for tensor in tensors}
    if len(wanting) > 1:
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    if wanting == {True}:
        result = result.detach().requires_grad_()
    return result
