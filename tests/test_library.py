"""``torch.library``: custom ops with fake (meta), autograd and device kernels, their
schemas against PyTorch's ``infer_schema``, ``torch.ops.<ns>.<name>``, the older
``Library``/``define``/``impl``, and ``opcheck``; values and gradients against PyTorch."""


import itertools

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import Tensor

torch = pytest.importorskip("torch")

_names = itertools.count()


def _unique(prefix: str = "op") -> str:
    # the registry is process-wide: each test defines ops of names of its own
    return f"{prefix}{next(_names)}"


def _mysin(library):
    """``mylib::mysin`` (x * sin(x) * k) in ``library`` (minitorch_meta or torch)."""
    name = f"testlib::{_unique('mysin')}"
    annotation = library.Tensor

    def mysin(x: annotation, k: float) -> annotation:
        return x.sin() * x * k

    op = library.library.custom_op(name, mutates_args=())(mysin)

    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * (x.cos() * x + x.sin()) * ctx.k, None

    def setup_context(ctx, inputs, output):
        ctx.save_for_backward(inputs[0])
        ctx.k = inputs[1]

    op.register_autograd(backward, setup_context=setup_context)
    op.register_fake(lambda x, k: library.empty_like(x))
    return op


def test_gradients_flow_through_the_registered_formula_like_pytorch():
    values = np.random.default_rng(0).standard_normal((3, 4))
    ours, theirs = _mysin(mt), _mysin(torch)
    x = mt.tensor(values, requires_grad=True)
    reference = torch.tensor(values, requires_grad=True)
    y, expected = ours(x, 2.5), theirs(reference, 2.5)
    assert type(y.grad_fn).__name__ == f"GeneratedBackwardFor_testlib_{ours._name}_defaultBackward"
    assert type(expected.grad_fn).__name__.startswith("GeneratedBackwardFor_testlib_mysin")
    (y * y).sum().backward()
    (expected * expected).sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), expected.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), reference.grad.numpy())


def test_gradcheck_through_a_custom_op():
    op = _mysin(mt)
    x = mt.randn(5, dtype=mt.float64, requires_grad=True)
    assert mt.autograd.gradcheck(lambda t: op(t, 1.5), (x,))


def test_the_fake_implementation_runs_for_meta_inputs_and_backward_too():
    op = _mysin(mt)
    x = mt.empty(2, 7, device="meta", requires_grad=True)
    y = op(x, 2.0)
    assert y.is_meta and y.shape == (2, 7)
    y.sum().backward()
    assert x.grad.is_meta and x.grad.shape == (2, 7)


def test_no_fake_means_no_meta_and_no_formula_means_backward_fails_as_in_pytorch():
    for library in (mt, torch):
        name = _unique()

        @library.library.custom_op(f"testlib::{name}", mutates_args=())
        def plain(x: library.Tensor) -> library.Tensor:
            return x * 2

        with pytest.raises(RuntimeError, match="There was no fake impl registered"):
            plain(library.empty(3, device="meta"))
        y = plain(library.ones(3, requires_grad=True))
        assert type(y.grad_fn).__name__ == \
            f"GeneratedBackwardFor_testlib_{name}_defaultBackward"
        with pytest.raises(RuntimeError, match="no autograd formula was registered"):
            y.sum().backward()


def test_torch_ops_namespace_reaches_the_op():
    op = _mysin(mt)
    packet = getattr(mt.ops.testlib, op._name)
    x = mt.tensor([0.5, 1.0])
    np.testing.assert_allclose(packet(x, 2.0).numpy(), op(x, 2.0).numpy())
    np.testing.assert_allclose(packet.default(x, k=2.0).numpy(), op(x, 2.0).numpy())
    assert str(packet.default) == f"testlib.{op._name}.default"
    assert packet.default._schema == f"testlib::{op._name}(Tensor x, float k) -> Tensor"
    with pytest.raises(AttributeError, match="has no overload name 'foo'"):
        _ = packet.foo
    with pytest.raises(AttributeError, match="has no attribute 'nothere'"):
        _ = mt.ops.testlib.nothere


@pytest.mark.parametrize("source", [
    "def f(x: T, y: int = 2, *, z: float = 1.0, w: list[int] | None = None) -> tuple[T, T]:"
    " pass",
    "def f(x: T, n: str, b: bool, o: T | None = None, s: float | None = None) -> list[T]: pass",
    "def f(x: T, dt: L.dtype = L.float64, dv: L.device | None = None) -> T: pass",
    "def f(x: T, l: list[float], m: list[bool], q: list[int] | None = None) -> int: pass",
    "def f(x: T, ys: list[T]) -> None: pass",
    "def f(x: T, y: T) -> T: pass",
])
@pytest.mark.parametrize("mutates_args", [(), "unknown", ("x",)])
def test_infer_schema_matches_pytorch(source, mutates_args):
    results = []
    for library in (mt, torch):
        namespace = {"T": library.Tensor, "L": library}
        exec(source, namespace)
        results.append(library.library.infer_schema(namespace["f"], mutates_args=mutates_args,
                                                    op_name="f"))
    assert results[0] == results[1]


@pytest.mark.parametrize("source, mutates_args, message", [
    ("def f(x, n: int) -> T: pass", (), "Parameter x must have a type annotation"),
    ("def f(x: T, n: dict) -> T: pass", (), "Parameter n has unsupported type"),
    ("def f(x: T, *args) -> T: pass", (), "We do not support positional-only args"),
    ("def f(x: T): pass", (), "No return type annotation was provided"),
    ("def f(x: T) -> T: pass", ("z",), r"\{'z'\} in mutates_args were not found"),
])
def test_infer_schema_errors_match_pytorch(source, mutates_args, message):
    for library in (mt, torch):
        namespace = {"T": library.Tensor}
        exec(source, namespace)
        with pytest.raises(ValueError, match=message):
            library.library.infer_schema(namespace["f"], mutates_args=mutates_args)


def test_bad_calls_raise_pytorchs_errors():
    for library in (mt, torch):
        @library.library.custom_op(f"testlib::{_unique()}", mutates_args=())
        def op(x: library.Tensor, k: float, n: int = 1) -> library.Tensor:
            return x * k

        x = library.ones(2)
        for args, kwargs, message in [
            ((3, 2.0), {}, "Expected a value of type 'Tensor' for argument 'x'"),
            ((x, "a"), {}, "Expected a value of type 'float' for argument 'k'"),
            ((x, 2.0, 2.5), {}, "Expected a value of type 'int' for argument 'n'"),
            ((x, 2.0), {"q": 1}, "Unknown keyword argument 'q'"),
            ((x, 2.0, 1, 1), {}, "expected at most 3 argument"),
            ((x,), {}, "is missing value for argument 'k'"),
        ]:
            with pytest.raises(RuntimeError, match=message):
                op(*args, **kwargs)


def test_returning_an_input_or_a_non_tensor_is_refused_as_in_pytorch():
    for library in (mt, torch):
        @library.library.custom_op(f"testlib::{_unique()}", mutates_args=())
        def same(x: library.Tensor) -> library.Tensor:
            return x

        @library.library.custom_op(f"testlib::{_unique()}", mutates_args=())
        def number(x: library.Tensor) -> library.Tensor:
            return 3

        with pytest.raises(RuntimeError, match="must not also be an input"):
            same(library.ones(2))
        with pytest.raises(RuntimeError, match="Unable to cast 3 to Tensor"):
            number(library.ones(2))


def test_mutating_op_writes_into_its_argument():
    @mt.library.custom_op(f"testlib::{_unique()}", mutates_args={"x"})
    def add_one(x: Tensor) -> None:
        x.add_(1)

    b = mt.ones(2)
    assert add_one(b) is None
    np.testing.assert_array_equal(b.numpy(), [2.0, 2.0])
    with pytest.raises(RuntimeError, match="non-functional operator"):
        add_one.register_autograd(lambda ctx, g: g)


def test_device_kernels_and_device_types():
    name = f"testlib::{_unique()}"

    @mt.library.custom_op(name, mutates_args=(), device_types="cpu")
    def scaled(x: Tensor) -> Tensor:
        return x * 2

    np.testing.assert_array_equal(scaled(mt.ones(2)).numpy(), [2.0, 2.0])
    scaled.register_kernel("cpu", lambda x: x * 3)
    np.testing.assert_array_equal(scaled(mt.ones(2)).numpy(), [3.0, 3.0])
    mt.library.register_kernel(name, "cpu", lambda x: x * 4)
    np.testing.assert_array_equal(scaled(mt.ones(2)).numpy(), [4.0, 4.0])

    cuda_only = mt.library.custom_op(f"testlib::{_unique()}", lambda x: x.clone(),
                                     mutates_args=(), schema="(Tensor x) -> Tensor",
                                     device_types="cuda")
    with pytest.raises(NotImplementedError, match="with arguments from the 'CPU' backend"):
        cuda_only(mt.ones(2))
    with pytest.raises(RuntimeError, match="foo"):
        scaled.register_kernel("foo", lambda x: x)


def test_custom_op_name_errors():
    for bad in ("mysin", "a::b::c", "my lib::c"):
        with pytest.raises(ValueError):
            mt.library.custom_op(bad, mutates_args=())(lambda x: x)
    with pytest.raises(ValueError, match="name of a module of minitorch_meta.ops"):
        mt.library.custom_op("conv::f", mutates_args=(), schema="(Tensor x) -> Tensor")(
            lambda x: x)


def test_library_define_and_impl_like_pytorch():
    results = []
    for library in (mt, torch):
        namespace = _unique("legacy")
        lib = library.library.Library(namespace, "DEF")
        assert lib.define("foo(Tensor x, *, float a=1.0) -> Tensor") == "foo"
        lib.impl("foo", lambda x, a=1.0: x * a, "CPU")
        op = getattr(library.ops, namespace).foo
        x = library.tensor([1.0, 2.0], requires_grad=True)
        y = op(x, a=3.0)
        assert y.grad_fn.name() == "MulBackward0"  # autograd sees the kernel's ops
        with pytest.raises(NotImplementedError, match="Meta"):
            op(library.ones(2, device="meta"))
        library.library.register_fake(f"{namespace}::foo", lambda x, a=1.0, lib=library:
                                      lib.empty_like(x))
        assert op(library.ones(2, device="meta")).shape == (2,)
        with pytest.raises(RuntimeError, match="Only a single TORCH_LIBRARY"):
            library.library.Library(namespace, "DEF")
        with pytest.raises(RuntimeError, match="multiple times"):
            lib.define("foo(Tensor x) -> Tensor")
        with pytest.raises(ValueError, match="Unsupported kind: BAD"):
            library.library.Library(namespace, "BAD")
        library.library.define(f"{namespace}::bar", "(Tensor x) -> Tensor")
        library.library.impl(f"{namespace}::bar", "cpu")(lambda x: x + 1)
        results.append(getattr(library.ops, namespace).bar(
            library.ones(2)).tolist())
    assert results[0] == results[1] == [2.0, 2.0]


def test_what_the_older_api_refuses():
    lib = mt.library.Library(_unique("legacy"), "FRAGMENT")
    lib.define("foo(Tensor x) -> Tensor")
    with pytest.raises(NotImplementedError, match="register_autograd"):
        lib.impl("foo", lambda x: x, "Autograd")
    with pytest.raises(NotImplementedError, match="with_keyset"):
        lib.impl("foo", lambda keyset, x: x, "CPU", with_keyset=True)
    with pytest.raises(NotImplementedError, match="is not supported"):
        lib.impl("foo", lambda x: x, "Functionalize")
    with pytest.raises(NotImplementedError, match="built-in ops"):
        mt.library.Library("aten", "IMPL")


def test_composite_implicit_kernel_runs_on_meta_and_is_differentiated_through():
    namespace = _unique("legacy")
    lib = mt.library.Library(namespace, "DEF")
    lib.define("square(Tensor x) -> Tensor")
    lib.impl("square", lambda x: x * x, "CompositeImplicitAutograd")
    op = getattr(mt.ops, namespace).square
    assert op(mt.empty(4, 3, device="meta")).shape == (4, 3)
    x = mt.tensor([1.0, -2.0], requires_grad=True)
    op(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, -4.0])


def test_opcheck_matches_pytorchs_results():
    for library in (mt, torch):
        op = _mysin(library)
        x = library.randn(3, requires_grad=True)
        assert library.library.opcheck(op, (x, 2.0)) == {
            "test_schema": "SUCCESS", "test_autograd_registration": "SUCCESS",
            "test_faketensor": "SUCCESS", "test_aot_dispatch_dynamic": "SUCCESS"}

        @library.library.custom_op(f"testlib::{_unique()}", mutates_args=())
        def bad_fake(x: library.Tensor) -> library.Tensor:
            return x.sum(0)

        bad_fake.register_fake(lambda x, lib=library: lib.empty_like(x))
        result = library.library.opcheck(bad_fake, (library.randn(3, 2),),
                                         test_utils="test_faketensor", raise_exception=False)
        assert "Shapes torch.Size([2]) and torch.Size([3, 2]) are not equal" in \
            str(result["test_faketensor"])

        @library.library.custom_op(f"testlib::{_unique()}", mutates_args=())
        def sneaky(x: library.Tensor) -> library.Tensor:
            x.add_(1)
            return x + 1

        with pytest.raises(Exception, match="Argument x is not defined as mutable but was "
                                            "mutated") as caught:
            library.library.opcheck(sneaky, (library.randn(2),), test_utils="test_schema")
        assert type(caught.value).__name__ == "OpCheckError"
        with pytest.raises(ValueError, match="expected test_utils to be subset"):
            library.library.opcheck(op, (x, 2.0), test_utils="bogus")
        with pytest.raises(ValueError, match="op must be instance of"):
            library.library.opcheck(lambda t: t, (x,))


def test_opcheck_reports_a_missing_formula():
    @mt.library.custom_op(f"testlib::{_unique()}", mutates_args=())
    def plain(x: Tensor) -> Tensor:
        return x * 2

    plain.register_fake(lambda x: mt.empty_like(x))
    result = mt.library.opcheck(plain, (mt.randn(3, requires_grad=True),),
                                raise_exception=False)
    assert "no autograd formula" in str(result["test_aot_dispatch_dynamic"])
    assert result["test_faketensor"] == "SUCCESS"
