"""Random sampling functions: ``normal``, ``bernoulli``, ``multinomial``, ``randint_like``.

The draws come from the backend kernels and the generator of the tensors' device (or
``generator=``), so ``manual_seed`` reproduces them on every device; the ops are in
``ops/sampling.py``.
"""

from __future__ import annotations

from numbers import Number

from .ops import sampling
from .random import generator_for
from .tensor import Tensor


def _is_number(value) -> bool:
    return isinstance(value, Number) and not isinstance(value, (bool, complex))


def normal(mean, std=1.0, size=None, *, generator=None, dtype=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """Samples of N(``mean``, ``std``): PyTorch's four forms.

    ``normal(mean_tensor, std_tensor)`` (broadcast together), ``normal(mean_tensor,
    std=1.0)``, ``normal(mean, std_tensor)``, each with the tensors' shape and dtype; and
    ``normal(mean, std, size)`` with two numbers, which also takes ``dtype``, ``device``
    and ``requires_grad`` as the factories do. Gradients through the samples are zeros,
    as in PyTorch.

    Raises:
        TypeError for another combination of arguments; RuntimeError for a negative std.
    """
    mean_tensor, std_tensor = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_tensor and not std_tensor:
        if size is None or not (_is_number(mean) and _is_number(std)):
            raise TypeError(f"normal() received an invalid combination of arguments: got "
                            f"mean={type(mean).__name__}, std={type(std).__name__}, "
                            f"size={size!r}; expected (Tensor mean, Tensor std), (Tensor mean, "
                            "float std=1.0), (float mean, Tensor std), or (float mean, float "
                            "std, tuple of ints size)")
        return _normal_numbers(float(mean), float(std), size, generator, dtype, device,
                               requires_grad)
    if size is not None or dtype is not None or device is not None or requires_grad:
        raise TypeError("normal(): size, dtype, device and requires_grad are accepted only "
                        "when mean and std are both numbers; with a tensor mean or std the "
                        "result takes its shape, dtype and device")
    if mean_tensor and std_tensor:
        return sampling.Normal(generator=generator_for(generator, mean._backend))(mean, std)
    tensor, other = (mean, std) if mean_tensor else (std, mean)
    if not _is_number(other):
        raise TypeError(f"normal(): {'std' if mean_tensor else 'mean'} must be a Tensor or a "
                        f"number, not {type(other).__name__}")
    key = "std_value" if mean_tensor else "mean_value"
    return sampling.Normal(generator=generator_for(generator, tensor._backend),
                           **{key: float(other)})(tensor)


def _normal_numbers(mean: float, std: float, size, generator, dtype, device,
                    requires_grad: bool) -> Tensor:
    from .factories import _finish, _require_float, _setup, _sizes

    if not std >= 0.0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    dtype, backend = _setup(dtype, device)
    _require_float("normal", dtype)
    array = backend.normal(_sizes((size,)), mean, std, dtype, generator_for(generator, backend))
    return _finish(array, backend, requires_grad)


def bernoulli(input, p=None, *, generator=None) -> Tensor:
    """1 with probability ``input`` (elementwise, in [0, 1]), else 0, in ``input``'s dtype
    and shape. The gradient through the samples is zero, as in PyTorch.

    With ``p`` (a number, or a tensor that broadcasts to ``input``), the probability is ``p``
    and only ``input``'s shape, dtype and device are used: ``bernoulli_`` of a new tensor.
    Such samples carry no graph (PyTorch's node there raises on backward).
    """
    if p is not None:
        return input.new_empty(input.shape).bernoulli_(p, generator=generator)
    return sampling.Bernoulli(generator=generator_for(generator, input._backend))(input)


def multinomial(input, num_samples: int, replacement: bool = False, *,
                generator=None) -> Tensor:
    """``num_samples`` category indices drawn from each row of ``input`` (1-D: one
    distribution; 2-D: one per row), whose non-negative weights need not sum to 1.

    Without ``replacement`` each category is drawn at most once per row.
    """
    if isinstance(num_samples, bool) or not hasattr(num_samples, "__index__"):
        raise TypeError(f"multinomial(): argument 'num_samples' (position 2) must be int, not "
                        f"{type(num_samples).__name__}")
    return sampling.Multinomial(num_samples=num_samples.__index__(),
                                replacement=bool(replacement),
                                generator=generator_for(generator, input._backend))(input)


def randint_like(input, low: int = 0, high: int | None = None, *, generator=None, dtype=None,
                 layout=None, device=None, requires_grad: bool = False,
                 memory_format=None) -> Tensor:
    """Uniform integers in ``[low, high)`` in a tensor of ``input``'s shape, dtype, device
    and layout (``memory_format``) unless given: ``randint_like(x, 10)`` or
    ``randint_like(x, 3, 10)``.

    Raises:
        RuntimeError: ``low >= high``.
    """
    from .factories import _finish, _in_format, _like, _setup

    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    options = _like(input, dtype, device, requires_grad, layout, "randint_like")
    dtype, backend = _setup(options["dtype"], options["device"])
    rng = generator_for(generator, backend)
    array = backend.integers(tuple(input.shape), low, high, dtype, rng)
    return _in_format(input, _finish(array, backend, False), memory_format, requires_grad)
