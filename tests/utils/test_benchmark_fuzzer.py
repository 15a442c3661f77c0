"""benchmark.Fuzzer: for a seed, the parameters, sizes, strides and layout properties
PyTorch's fuzzer gives (one NumPy RandomState drives both); constraints, strict and aliased
parameters; the errors."""

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta.utils import benchmark

from ..devices import cuda_param


def _fuzzer(module, seed, dtype_name="float32", constraints=()):
    """A fuzzer of ``module`` (ours or PyTorch's benchmark) over two tensors and every kind of
    parameter; ``dtype_name`` of that library's dtypes."""
    torch_module = mt if module is benchmark else __import__("torch")
    dtype = getattr(torch_module, dtype_name)
    return module.Fuzzer(
        parameters=[
            module.FuzzedParameter("k0", 1, 1024, distribution="loguniform"),
            [module.FuzzedParameter("k1", 1, 64, distribution="uniform"),
             module.FuzzedParameter("step", 1, 4, distribution="uniform")],
            module.FuzzedParameter("scale", 0.5, 2.0, distribution="uniform", strict=True),
            module.FuzzedParameter("dim", 1, 3, distribution="uniform"),
        ],
        tensors=[
            module.FuzzedTensor("x", size=("k0", "k1", 3), steps=("step", 1, "step"),
                                dim_parameter="dim", probability_contiguous=0.4,
                                max_elements=8192, min_elements=4, dtype=dtype),
            [module.FuzzedTensor("y", size=("k1", "k0"), probability_contiguous=1.0,
                                 max_allocation_bytes=16384, dtype=dtype)],
        ],
        constraints=[lambda p: p["k1"] % 2 == 0, *constraints], seed=seed)


@pytest.mark.parametrize("dtype_name", ["float32", "float64", "int16", "uint8"])
@pytest.mark.parametrize("seed", [0, 1, 7, 12345])
def test_draws_and_layouts_as_pytorch(torch_ref, seed, dtype_name):
    from torch.utils import benchmark as torch_benchmark

    ours, theirs = _fuzzer(benchmark, seed, dtype_name), _fuzzer(torch_benchmark, seed, dtype_name)
    for (t1, p1, params1), (t2, p2, params2) in zip(ours.take(6), theirs.take(6)):
        assert params1 == params2
        for name in ("x", "y"):
            assert tuple(t1[name].shape) == tuple(t2[name].shape)
            assert t1[name].stride() == t2[name].stride()
            assert str(t1[name].dtype) == str(t2[name].dtype)
            a, b = p1[name], p2[name]
            assert (a["numel"], a["steps"], a["is_contiguous"], a["dtype"]) == (
                b["numel"], b["steps"], b["is_contiguous"], b["dtype"])
            np.testing.assert_array_equal(a["order"], b["order"])
    assert ours.rejection_rate == theirs.rejection_rate > 0


def test_values_and_limits():
    fuzzer = _fuzzer(benchmark, 3)
    for tensors, properties, params in fuzzer.take(20):
        x, y = tensors["x"], tensors["y"]
        assert 4 <= x.numel() <= 8192 and params["k1"] % 2 == 0
        assert y.numel() * 4 <= 16384 and y.is_contiguous()
        assert ((x >= 0) & (x < 1)).all().item()
        assert properties["x"]["dtype"] == "torch.float32"
    ints = _fuzzer(benchmark, 3, "int32")
    x = next(ints.take(1))[0]["x"]
    assert ((x >= 1) & (x < 127)).all().item() and x.dtype == mt.int32


def test_complex_elements_count_their_bytes():
    # PyTorch counts a complex64 element as 4 bytes (its float32 part): it allows twice the
    # memory max_allocation_bytes says
    tensor = benchmark.FuzzedTensor("z", size=(4, 4), dtype=mt.complex64,
                                    max_allocation_bytes=16 * 8)
    assert tensor.satisfies_constraints({})
    tensor = benchmark.FuzzedTensor("z", size=(4, 4), dtype=mt.complex64,
                                    max_allocation_bytes=16 * 8 - 1)
    assert not tensor.satisfies_constraints({})


def test_the_seed_repeats_the_values():
    a = next(_fuzzer(benchmark, 5).take(1))[0]["x"]
    b = next(_fuzzer(benchmark, 5).take(1))[0]["x"]
    assert mt.equal(a, b)


def test_strict_parameters_keep_their_first_draw_while_others_are_redrawn():
    # the constraint rejects most draws of ``free``; ``fixed`` must not be redrawn meanwhile
    seen = []

    def constraint(params):
        seen.append(params["fixed"])
        return params["free"] == 7

    fuzzer = benchmark.Fuzzer(
        parameters=[benchmark.FuzzedParameter("fixed", 0, 10 ** 9, distribution="uniform",
                                              strict=True),
                    benchmark.FuzzedParameter("free", 1, 10, distribution="uniform")],
        tensors=[], constraints=[constraint], seed=0)
    next(fuzzer.take(1))
    assert len(seen) > 1 and len(set(seen)) == 1 and fuzzer.rejection_rate > 0


def test_custom_distribution_and_aliases():
    # PyTorch's own check refuses every normalised dict (its test is inverted): by hand here
    fuzzer = benchmark.Fuzzer(
        parameters=[benchmark.FuzzedParameter("n", 2, 9, distribution="uniform"),
                    benchmark.FuzzedParameter("m", distribution={
                        1: 0.5, benchmark.ParameterAlias("n"): 0.5}),
                    benchmark.FuzzedParameter("k", distribution={
                        benchmark.ParameterAlias("m"): 1.0})],
        tensors=[benchmark.FuzzedTensor("x", size=("n",)),
                 benchmark.FuzzedTensor("y", size=("k",))],
        seed=0)
    draws = [params for _, _, params in fuzzer.take(200)]
    assert all(p["m"] in (1, p["n"]) and p["k"] == p["m"] for p in draws)
    assert 60 < sum(p["m"] == 1 for p in draws) < 140
    assert type(draws[0]["m"]) is int
    assert repr(benchmark.ParameterAlias("n")) == "ParameterAlias[alias_to: n]"


def test_tensor_constructor_receives_size_dtype_and_params():
    calls = []

    def constructor(size, dtype, **params):
        calls.append((size, dtype, params))
        return mt.zeros(size, dtype=dtype)

    fuzzer = benchmark.Fuzzer(
        parameters=[benchmark.FuzzedParameter("n", 2, 5, distribution="uniform")],
        tensors=[benchmark.FuzzedTensor("x", size=("n", 2), steps=(1, 3), dtype=mt.float64,
                                        tensor_constructor=constructor)], seed=1)
    tensors, properties, params = next(fuzzer.take(1))
    assert calls == [((params["n"], 6), mt.float64, params)]
    assert tuple(tensors["x"].shape) == (params["n"], 2) and properties["x"]["steps"] == (1, 3)


@pytest.mark.parametrize("device", [cuda_param()])
def test_cuda_tensors(device):
    fuzzer = benchmark.Fuzzer(
        parameters=[benchmark.FuzzedParameter("n", 2, 5, distribution="uniform")],
        tensors=[benchmark.FuzzedTensor("x", size=("n", 3), cuda=True)], seed=1)
    assert next(fuzzer.take(1))[0]["x"].device.type == device


def test_errors():
    with pytest.raises(AssertionError, match="Unknown distribution: normal"):
        benchmark.FuzzedParameter("a", 1, 2, distribution="normal")
    with pytest.raises(AssertionError, match="Distribution is not normalized"):
        benchmark.FuzzedParameter("a", distribution={1: 0.5, 2: 0.6})
    with pytest.raises(AssertionError, match="Probabilities cannot be negative"):
        benchmark.FuzzedParameter("a", distribution={1: -0.5, 2: 1.5})
    with pytest.raises(AssertionError, match="'minval' must be None"):
        benchmark.FuzzedParameter("a", 1, distribution={1: 1.0})
    with pytest.raises(ValueError, match="Duplicate names in parameters and tensors: {'x'}"):
        benchmark.Fuzzer([benchmark.FuzzedParameter("x", 1, 2, distribution="uniform")],
                         [benchmark.FuzzedTensor("x", size=(1,))])
    impossible = benchmark.Fuzzer([benchmark.FuzzedParameter("n", 1, 2, distribution="uniform")],
                                  [], constraints=[lambda p: False], seed=0)
    with pytest.raises(ValueError, match="Failed to generate a set of valid parameters."):
        next(impossible.take(1))
    assert impossible.rejection_rate == 1.0
    cycle = benchmark.Fuzzer(
        [benchmark.FuzzedParameter("a", distribution={benchmark.ParameterAlias("b"): 1.0}),
         benchmark.FuzzedParameter("b", distribution={benchmark.ParameterAlias("a"): 1.0})],
        [], seed=0)
    with pytest.raises(ValueError, match="ParameterAlias cycle detected"):
        next(cycle.take(1))
