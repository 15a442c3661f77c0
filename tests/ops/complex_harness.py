"""The three checks of ``harness.py`` for ops on complex tensors.

A ``ComplexCase`` calls ``fn(T, *inputs)`` (``T``: minitorch_meta or torch) on inputs that
are complex (``"c"``) or real (``"r"``) arrays of given shapes. Gradients follow PyTorch's
convention: for a real loss ``L`` the gradient of ``z = x + iy`` is ``dL/dx + i dL/dy``.
With an outgoing gradient ``w``, ``backward(w)`` is the gradient of the real loss
``L = Re(sum(conj(w) * out))``, which the finite-difference check evaluates with the real
and the imaginary part of each input element nudged separately.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pytest

import minitorch_meta as mt


@dataclass
class ComplexCase:
    id: str
    fn: object
    #: one ``(kind, shape)`` per input: kind "c" (complex), "r" (real), "p" (positive
    #: real), "cnz" (complex, |z| >= 0.3: away from the kinks of abs, angle and sgn)
    args: list = field(default_factory=list)
    grad: bool = True

    def arrays(self, seed, precision=np.float64):
        rng = np.random.default_rng(seed)
        out = []
        for kind, shape in self.args:
            if kind in ("c", "cnz"):
                z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
                if kind == "cnz":
                    z = z / np.maximum(np.abs(z), 1e-9) * rng.uniform(0.3, 2.0, shape)
                out.append(z.astype(np.complex64 if precision == np.float32 else np.complex128))
            elif kind == "p":
                out.append(rng.uniform(0.5, 2.0, shape).astype(precision))
            else:
                out.append(rng.standard_normal(shape).astype(precision))
        return out

    def __repr__(self):
        return self.id


def params(cases):
    return [pytest.param(c, id=c.id) for c in cases]


def upstream(out_shape, is_complex, seed, precision):
    """A random outgoing gradient: complex for a complex output, else real."""
    rng = np.random.default_rng(seed + 100)
    w = rng.standard_normal(out_shape)
    if is_complex:
        w = w + 1j * rng.standard_normal(out_shape)
        return w.astype(np.complex64 if precision == np.float32 else np.complex128)
    return w.astype(precision)


def _to_numpy(t):
    return t.detach().cpu().numpy() if hasattr(t, "detach") else np.asarray(t)


def check_against_torch(case, device, torch, seed=0, precision=np.float32):
    """Values, dtype, ``grad_fn`` name and gradients equal PyTorch's."""
    arrays = case.arrays(seed, precision)
    ours = [mt.tensor(a, device=device, requires_grad=case.grad) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=case.grad) for a in arrays]
    out, ref = case.fn(mt, *ours), case.fn(torch, *theirs)
    assert tuple(out.shape) == tuple(ref.shape)
    assert str(out.dtype) == str(ref.dtype), (out.dtype, ref.dtype)
    tol = dict(rtol=1e-4, atol=1e-5) if precision == np.float32 else dict(rtol=1e-10,
                                                                           atol=1e-12)
    np.testing.assert_allclose(_to_numpy(out), ref.detach().resolve_conj().numpy(), **tol)
    if not case.grad:
        return
    assert out.grad_fn.name() == ref.grad_fn.name()
    w = upstream(tuple(ref.shape), ref.dtype.is_complex, seed, precision)
    out.backward(mt.tensor(w, device=device))
    ref.backward(torch.tensor(w))
    for k, (o, r) in enumerate(zip(ours, theirs)):
        assert o.grad is not None, f"input {k}: no gradient"
        assert o.grad.dtype is o.dtype, f"input {k}: gradient dtype {o.grad.dtype}"
        np.testing.assert_allclose(_to_numpy(o.grad), r.grad.resolve_conj().numpy(), **tol,
                                   err_msg=f"gradient of input {k}")


def _loss(case, arrays, w, device):
    """``Re(sum(conj(w) * out))`` of the inputs ``arrays``, without autograd."""
    with mt.no_grad():
        out = _to_numpy(case.fn(mt, *[mt.tensor(a, device=device) for a in arrays]))
    return float(np.real(np.sum(np.conj(w) * out)))


def check_gradients(case, device, seed=0, eps=1e-6, atol=1e-6):
    """complex128 finite differences on the real and the imaginary part of every input
    element separately: ``grad.real`` is dL/dx and ``grad.imag`` is dL/dy."""
    if not case.grad:
        pytest.skip("no gradient")
    arrays = case.arrays(seed)
    inputs = [mt.tensor(a, device=device, requires_grad=True) for a in arrays]
    out = case.fn(mt, *inputs)
    w = upstream(tuple(out.shape), out.dtype.is_complex, seed, np.float64)
    out.backward(mt.tensor(w, device=device))
    for k, (a, t) in enumerate(zip(arrays, inputs)):
        analytic = _to_numpy(t.grad)
        for part, step in ((0, eps), (1, 1j * eps)):
            if part == 1 and not np.iscomplexobj(a):
                continue  # a real input has no imaginary direction
            numeric = np.zeros(a.shape)
            for index in np.ndindex(a.shape):
                plus, minus = a.copy(), a.copy()
                plus[index] += step
                minus[index] -= step
                numeric[index] = (_loss(case, arrays[:k] + [plus] + arrays[k + 1:], w, device)
                                  - _loss(case, arrays[:k] + [minus] + arrays[k + 1:], w,
                                          device)) / (2 * eps)
            got = analytic.imag if part else np.real(analytic)
            np.testing.assert_allclose(got, numeric, atol=atol, rtol=1e-5,
                                       err_msg=f"input {k}, {'imaginary' if part else 'real'} "
                                               "part")


def check_meta(case):
    """On meta, output shape and dtype and the gradients' shapes equal the real ones."""
    arrays = case.arrays(0, np.float32)
    real = [mt.tensor(a, requires_grad=case.grad) for a in arrays]
    meta = [mt.empty(a.shape, dtype=r.dtype, device="meta", requires_grad=case.grad)
            for a, r in zip(arrays, real)]
    out_real, out_meta = case.fn(mt, *real), case.fn(mt, *meta)
    assert out_meta.is_meta
    assert out_meta.shape == out_real.shape and out_meta.dtype is out_real.dtype
    if not case.grad:
        return
    assert out_meta.grad_fn.name() == out_real.grad_fn.name()
    out_meta.backward(mt.ones(tuple(out_meta.shape), dtype=out_meta.dtype, device="meta"))
    for m in meta:
        assert m.grad is not None and m.grad.is_meta
        assert m.grad.shape == m.shape and m.grad.dtype is m.dtype


def complex_three_way_tests(cases, seeds=(0, 1)):
    """The three checks over ``cases``, as test functions for a module to bind."""

    @pytest.mark.parametrize("case", params(cases))
    def test_gradcheck(case, device):
        check_gradients(case, device)

    @pytest.mark.parametrize("case", params(cases))
    @pytest.mark.parametrize("seed", list(seeds))
    @pytest.mark.parametrize("precision", [np.float32, np.float64], ids=["c64", "c128"])
    def test_against_torch(case, seed, precision, device, torch_ref):
        check_against_torch(case, device, torch_ref, seed, precision)

    @pytest.mark.parametrize("case", params(cases))
    def test_meta_shapes(case):
        check_meta(case)

    return test_gradcheck, test_against_torch, test_meta_shapes
