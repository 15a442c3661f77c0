"""``Optimizer``: parameter groups, per-parameter state, ``zero_grad`` and state dicts.

As in PyTorch, ``param_groups`` is a list of dicts, each holding ``"params"`` (a list of
leaf tensors) and every hyper-parameter of the optimizer (missing ones are filled from the
defaults). ``state`` maps a parameter to a dict of its buffers. ``state_dict()`` uses
PyTorch's layout: parameters are replaced by their position across all groups, so
``{"state": {0: {...}, 1: {...}}, "param_groups": [{"lr": ..., "params": [0, 1]}]}``.
"""

from __future__ import annotations

import copy
import functools
from collections import defaultdict
from collections.abc import Callable, Iterable

from ..autograd import enable_grad, no_grad
from ..tensor import Tensor


class _RequiredParameter:
    """Marks a hyper-parameter without a default (each group must give it)."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()


def _counts_calls(step: Callable) -> Callable:
    """Wrap an optimizer's ``step`` to add one to ``self._step_calls`` per call from outside
    (a ``step`` that calls ``super().step()`` counts once)."""
    @functools.wraps(step)
    def counted_step(self, *args, **kwargs):
        if self._in_step:
            return step(self, *args, **kwargs)
        self._step_calls += 1
        self._in_step = True
        try:
            return step(self, *args, **kwargs)
        finally:
            self._in_step = False

    counted_step._counts_calls = True  # type: ignore[attr-defined]
    return counted_step


class Optimizer:
    """Base class of optimizers: subclasses implement ``step``.

    Args:
        params: an iterable of tensors, of ``(name, tensor)`` pairs (``named_parameters()``:
            each group then keeps the names in ``"param_names"``, as in PyTorch), or of dicts
            (parameter groups) with a ``"params"`` entry and optional per-group
            hyper-parameters.
        defaults: the hyper-parameters used where a group does not give its own.

    Each optimizer counts its ``step()`` calls in ``_step_calls`` (a subclass's own ``step``
    is counted too, see ``__init_subclass__``); learning-rate schedulers read it to warn
    when they are stepped before the optimizer, where PyTorch wraps ``optimizer.step``.

    Raises:
        TypeError: ``params`` is a single tensor, a set, or holds something else than tensors.
        ValueError: ``params`` is empty, or a parameter appears in two groups.
    """

    _step_calls: int = 0  # calls of step() so far (an instance attribute once it steps)
    _in_step: bool = False  # inside a counted step(), so that super().step() counts once

    def __init_subclass__(cls, **kwargs):
        """Count the calls of a subclass's own ``step`` (custom optimizers override it)."""
        super().__init_subclass__(**kwargs)
        step = cls.__dict__.get("step")
        if callable(step) and not getattr(step, "_counts_calls", False):
            cls.step = _counts_calls(step)

    def __init__(self, params: Iterable, defaults: dict):
        self.defaults = dict(defaults)
        self.state: defaultdict = defaultdict(dict)
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of "
                            f"Tensors or dicts, but got {params.type()}; wrap it in a list: "
                            "[tensor]")
        groups = _as_param_list(params) if isinstance(params, (set, frozenset)) else list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, param_group: dict) -> None:
        """Add a group of parameters with its own hyper-parameters (e.g. a smaller ``lr``).

        Raises:
            TypeError: the group is not a dict, its params are a set or not tensors.
            ValueError: a parameter is not a leaf, is already in another group, the group
                lacks a hyper-parameter that has no default, or names are given for some
                parameters (or groups) and not for others.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"a parameter group must be a dict, got {type(param_group).__name__}")
        group = dict(param_group)
        group["params"], names = _split_names(group.get("params"))
        if names is not None:
            group["param_names"] = names
        group["params"] = _as_param_list(group["params"])
        for name, default in self.defaults.items():
            if default is required and name not in group:
                raise ValueError("parameter group didn't specify a value of required "
                                 f"optimization parameter {name}")
            group.setdefault(name, default)
        # a group may name PyTorch's kernel switches too (its state dicts list them)
        reject_unsupported(type(self).__name__, **{name: group[name] for name in
                                                   KERNEL_SWITCHES if name in group})
        self._check_group(group)
        if any(("param_names" in other) != ("param_names" in group)
               for other in self.param_groups):
            raise ValueError("all optimizer param groups should be with/without names. cannot "
                             "add param group "
                             f"{'with' if 'param_names' in group else 'without'} names to the "
                             "optimizer (pass named_parameters() to every group, or to none)")
        taken = {id(p) for other in self.param_groups for p in other["params"]}
        if any(id(p) in taken for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def _check_group(self, group: dict) -> None:
        """Validate a group's hyper-parameters (subclasses raise ``ValueError``)."""

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all parameters: to None (default), or to zeros in place."""
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is None:
                    continue
                if set_to_none:
                    p._grad = None
                else:
                    p._grad.detach_()
                    p._grad.zero_()

    @_counts_calls
    def step(self, closure: Callable | None = None):
        """Update every parameter that has a gradient; returns the closure's loss, if any."""
        loss = self._evaluate(closure)
        with no_grad():
            for group in self.param_groups:
                for p in group["params"]:
                    if p._grad is not None:
                        self._update(p, group)
        return loss

    def _update(self, p: Tensor, group: dict) -> None:
        """One parameter's update rule (what a subclass implements)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement _update()")

    def _evaluate(self, closure: Callable | None):
        """Run the closure (which recomputes the loss and its gradients) with grad enabled."""
        if closure is None:
            return None
        with enable_grad():
            return closure()

    # -- state dicts -----------------------------------------------------------------
    def state_dict(self) -> dict:
        """The optimizer's state in PyTorch's layout (parameters become integer indices).

        The buffers in ``"state"`` are the optimizer's own tensors (not copies), as in
        PyTorch; ``minitorch_meta.save`` writes them out.
        """
        index_of: dict[int, int] = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            for p in group["params"]:
                index_of.setdefault(id(p), len(index_of))
            packed["params"] = [index_of[id(p)] for p in group["params"]]
            groups.append(packed)
        state = {index_of[id(p)]: value for p, value in self.state.items()
                 if id(p) in index_of}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        """Restore the state saved by ``state_dict()`` (hyper-parameters and buffers).

        Buffers are copied onto each parameter's device (and floating-point dtype), so a
        state saved on one device loads on another; the given dict is never aliased.

        Raises:
            ValueError: the dict is not an optimizer state dict, or its groups do not match
                this optimizer's (number of groups, or of parameters in a group).
        """
        saved_groups = _checked_groups(state_dict)
        if len(saved_groups) != len(self.param_groups):
            raise ValueError(f"loaded state dict has {len(saved_groups)} parameter group(s) "
                             f"but this optimizer has {len(self.param_groups)}")
        params_by_index = {}
        for number, (group, saved) in enumerate(zip(self.param_groups, saved_groups)):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(f"loaded state dict contains a parameter group ({number}) of "
                                 f"{len(saved['params'])} parameters, but the optimizer's group "
                                 f"has {len(group['params'])}")
            params_by_index.update(zip(saved["params"], group["params"]))
        state: defaultdict = defaultdict(dict)
        for index, value in state_dict["state"].items():
            if index not in params_by_index:
                raise ValueError(f"loaded state dict has state for parameter {index!r}, which is "
                                 "in none of its parameter groups")
            param = params_by_index[index]
            state[param] = {key: _cast_like(param, key, v) for key, v in value.items()}
        new_groups = []
        for group, saved in zip(self.param_groups, saved_groups):
            updated = copy.deepcopy({k: v for k, v in saved.items() if k != "params"})
            # a dict saved before an option existed lacks it: take the default, as PyTorch's
            # __setstate__ does, so that the update rules can read every option
            for name, default in self.defaults.items():
                if default is not required:
                    updated.setdefault(name, default)
            updated["params"] = group["params"]
            # the current names stay when the saved groups have none (PyTorch keeps them too)
            if "param_names" in group and "param_names" not in updated:
                updated["param_names"] = group["param_names"]
            new_groups.append(updated)
        self.state = state
        self.param_groups = new_groups

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for number, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {number}")
            lines.extend(f"    {key}: {group[key]}" for key in sorted(group) if key != "params")
        lines.append(")")
        return "\n".join(lines)


def check_number(name: str, value, low: float = 0.0, high: float | None = None,
                 label: str | None = None, *, high_inclusive: bool = False) -> None:
    """Raise unless ``low <= value`` (and ``value < high``, or ``<=`` if ``high_inclusive``),
    with PyTorch's message.

    Raises:
        TypeError: ``value`` is not a real number.
        ValueError: ``value`` is out of range: ``Invalid learning rate: -1``, or is an ``lr``
            tensor of several elements.

    ``lr`` may be a one-element tensor, as in PyTorch (checked by its value).
    """
    label = label or f"{name} value"
    if name == "lr" and isinstance(value, Tensor):
        value = lr_number(value)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"Invalid {label}: expected a number, got {value!r}")
    above = high is not None and not (value <= high if high_inclusive else value < high)
    if not low <= value or above:
        bounds = (f"in [{low}, {high}{']' if high_inclusive else ')'}" if high is not None
                  else f">= {low}")
        raise ValueError(f"Invalid {label}: {value} (it must be {bounds})")


KERNEL_SWITCHES = ("foreach", "fused", "capturable", "differentiable")


def lr_number(lr):
    """A learning rate as a Python number: a one-element tensor (PyTorch takes ``lr`` as a
    tensor too) gives its value; a number is returned as it is.

    Raises:
        ValueError: ``lr`` is a tensor of several elements (PyTorch's message).
    """
    if not isinstance(lr, Tensor):
        return lr
    if lr.numel() != 1:
        raise ValueError(f"Tensor lr must be 1-element, got {lr.numel()} elements")
    return lr.item()


def reject_unsupported(optimizer: str, **switches) -> None:
    """Check PyTorch's implementation switches: ``foreach`` and ``fused`` are accepted,
    ``capturable`` and ``differentiable`` are refused away from their defaults.

    ``foreach`` and ``fused`` choose among PyTorch's kernels for one update rule
    (multi-tensor, fused), which PyTorch keeps numerically equivalent to its loop; we have
    one implementation of each rule (a loop of in-place tensor ops over the parameters),
    which serves them all, so scripts that ask for the fast kernels run unchanged (only
    the optimizers whose PyTorch constructor takes ``fused`` take it here). ``capturable``
    (CUDA graphs) and ``differentiable`` (a step recorded by autograd) change what the step
    does, and are refused rather than ignored.

    Raises:
        RuntimeError: ``foreach`` and ``fused`` are both True (PyTorch's message).
        NotImplementedError: ``capturable`` or ``differentiable`` is set.
    """
    if switches.get("foreach") and switches.get("fused"):
        raise RuntimeError("`fused` and `foreach` cannot be `True` together.")
    for name, value in switches.items():
        if name in ("foreach", "fused"):
            continue
        if value is not None and value is not False:
            raise NotImplementedError(
                f"{optimizer}: {name}={value!r} is not supported; minitorch_meta has one "
                f"implementation of each optimizer (a loop of in-place tensor ops over the "
                f"parameters), so leave {name} at its default ({name}=None or False)")


def _split_names(params) -> tuple[list, list | None]:
    """``params`` as a list, and the names given with them (``named_parameters()`` pairs,
    as PyTorch takes) or None when they come without names.

    Raises:
        ValueError: some parameters are named and others are not.
    """
    if params is None or isinstance(params, (Tensor, set, frozenset)):
        return params, None  # _as_param_list says what is wrong or wraps the tensor
    params = list(params)
    named = [isinstance(p, tuple) for p in params]
    if not any(named):
        return params, None
    if not all(named):
        raise ValueError("all optimizer params should be with/without names. Some param names "
                         "are missing (give every parameter as a (name, tensor) pair, or none)")
    return [p[1] for p in params], [p[0] for p in params]


def _as_param_list(params) -> list:
    if params is None:
        raise TypeError("a parameter group must have a 'params' entry (a list of tensors)")
    if isinstance(params, Tensor):
        return [params]
    if isinstance(params, (set, frozenset)):
        raise TypeError("optimizer parameters need to be organized in ordered collections, but "
                        "the ordering of tensors in sets will change between runs. Please use a "
                        "list instead.")
    params = list(params)
    for p in params:
        if not isinstance(p, Tensor):
            raise TypeError("optimizer can only optimize Tensors, but one of the params is "
                            f"{type(p).__name__}")
        if not p.is_leaf:
            raise ValueError("can't optimize a non-leaf Tensor (one computed from others); "
                             "optimize the leaf tensors it was computed from")
    if len({id(p) for p in params}) != len(params):
        raise ValueError("a parameter group contains the same parameter twice; list each "
                         "parameter once")
    return params


def _checked_groups(state_dict) -> list:
    if (not isinstance(state_dict, dict) or "state" not in state_dict
            or "param_groups" not in state_dict):
        keys = sorted(map(str, state_dict)) if isinstance(state_dict, dict) else None
        raise ValueError("expected an optimizer state dict with keys 'state' and "
                         f"'param_groups', got {type(state_dict).__name__}"
                         + (f" with keys {keys}" if keys is not None else ""))
    groups = state_dict["param_groups"]
    if not isinstance(groups, (list, tuple)) or not all(
            isinstance(g, dict) and "params" in g for g in groups):
        raise ValueError("the state dict's 'param_groups' must be a list of dicts, each with "
                         "a 'params' list of indices")
    return list(groups)


def _cast_like(param: Tensor, key, value):
    """A private copy of a saved buffer, on ``param``'s device (and float dtype); the
    tensors in a list (LBFGS's history) too, as PyTorch casts them."""
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_like(param, key, v) for v in value)
    if not isinstance(value, Tensor):
        return copy.deepcopy(value)
    if key == "step":  # step counters keep their own dtype and device (cpu), as in PyTorch
        return value.detach().clone()
    detached = value.detach()
    if param.is_floating_point() and value.is_floating_point():
        moved = detached.to(device=param.device, dtype=param.dtype)
    else:
        moved = detached.to(device=param.device)
    return moved.clone() if moved is detached else moved
