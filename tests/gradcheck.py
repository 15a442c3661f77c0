"""A float64 central-difference gradient checker for minitorch_meta ops.

``gradcheck(fn, arrays, requires_grad)`` compares the analytic gradient of
``sum(fn(*inputs) * v)`` (``v`` a fixed random weighting, so every output element counts
with a different weight) with central differences ``(f(x + eps) - f(x - eps)) / (2 eps)``
computed in float64, element by element. Inputs are rebuilt from NumPy arrays for each
evaluation, so the checker works on any device that stores data.
"""

from __future__ import annotations

import numpy as np

import minitorch_meta as mt


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def _build(arrays, requires_grad, device):
    return [mt.tensor(a, device=device, requires_grad=bool(g and a.dtype.kind == "f"))
            if isinstance(a, np.ndarray) else a
            for a, g in zip(arrays, requires_grad)]


def numeric_grads(fn, arrays, requires_grad, weights, eps=1e-6, device="cpu"):
    """Central differences of ``sum(fn(*arrays) * weights)`` for each input needing grad."""

    def objective(current):
        with mt.no_grad():
            out = _first(fn(*_build(current, [False] * len(current), device)))
        return float(np.sum(np.asarray(out.detach().cpu().numpy(), np.float64) * weights))

    grads = []
    for k, (a, g) in enumerate(zip(arrays, requires_grad)):
        if not g:
            grads.append(None)
            continue
        grad = np.zeros_like(a, dtype=np.float64)
        flat = grad.reshape(-1)
        for i in range(a.size):
            current = [x.copy() if isinstance(x, np.ndarray) else x for x in arrays]
            current[k].reshape(-1)[i] += eps
            plus = objective(current)
            current[k].reshape(-1)[i] -= 2 * eps
            minus = objective(current)
            flat[i] = (plus - minus) / (2 * eps)
        grads.append(grad)
    return grads


def gradcheck(fn, arrays, requires_grad=None, *, eps=1e-6, atol=1e-5, rtol=1e-4,
              device="cpu", seed=0):
    """Raise ``AssertionError`` unless analytic and numeric float64 gradients agree.

    ``arrays`` are NumPy arrays (float64 ones are differentiated when ``requires_grad``
    says so; integer and boolean ones are passed through as index/target tensors).
    """
    arrays = [np.asarray(a) if not np.isscalar(a) else a for a in arrays]
    if requires_grad is None:
        requires_grad = [isinstance(a, np.ndarray) and a.dtype.kind == "f" for a in arrays]
    for a, g in zip(arrays, requires_grad):
        if g and a.dtype != np.float64:
            raise TypeError(f"gradcheck needs float64 inputs to differentiate, got {a.dtype}")
    inputs = _build(arrays, requires_grad, device)
    out = _first(fn(*inputs))
    if out.dtype is not mt.float64:
        raise AssertionError(f"a float64 computation returned {out.dtype}")
    weights = np.random.default_rng(seed).uniform(0.5, 1.5, tuple(out.shape))
    out.backward(mt.tensor(weights, device=device))
    expected = numeric_grads(fn, arrays, requires_grad, weights, eps, device)
    for k, (t, numeric) in enumerate(zip(inputs, expected)):
        if numeric is None:
            continue
        if t.grad is None:
            raise AssertionError(f"input {k} got no gradient")
        if tuple(t.grad.shape) != tuple(t.shape) or t.grad.dtype is not t.dtype:
            raise AssertionError(f"input {k}: grad {tuple(t.grad.shape)} {t.grad.dtype} does not "
                                 f"match the input {tuple(t.shape)} {t.dtype}")
        analytic = t.grad.cpu().numpy()
        if not np.allclose(analytic, numeric, atol=atol, rtol=rtol):
            worst = np.unravel_index(np.argmax(np.abs(analytic - numeric)), analytic.shape)
            raise AssertionError(f"input {k}: analytic and numeric gradients differ, e.g. at "
                                 f"{worst}: {analytic[worst]} vs {numeric[worst]}\n"
                                 f"analytic={analytic}\nnumeric={numeric}")
    return True
