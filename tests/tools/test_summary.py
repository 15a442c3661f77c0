"""``summary``: rows, totals and conventions, computed on meta without touching the model."""

from __future__ import annotations

import math
import tracemalloc

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import minitorch_meta as mt
from minitorch_meta import nn
from minitorch_meta.models import LectureNet, LeNet
from minitorch_meta.nn import functional as F


def _rows_by_layer(result):
    return [(r["name"], r["input_shapes"], r["parameters"], r["products_per_sample"])
            for r in result.rows]


def test_lecture_net_rows_equal_the_hand_computed_table():
    """The EE-559 table: input sizes, parameters and products per sample, by the formulas."""
    result = mt.summary(LectureNet(), input_size=(100, 1, 28, 28))
    conv1_products = 32 * 24 * 24 * (1 * 5 * 5)      # out channels x out pixels x kernel volume
    conv2_products = 64 * 4 * 4 * (32 * 5 * 5)
    expected = [
        ("", [[100, 1, 28, 28]], 105_506, conv1_products + conv2_products + 256 * 200 + 200 * 10),
        ("conv1", [[100, 1, 28, 28]], 32 * 1 * 5 * 5 + 32, conv1_products),
        ("max_pool2d", [[100, 32, 24, 24]], 0, 0),
        ("relu", [[100, 32, 8, 8]], 0, 0),
        ("conv2", [[100, 32, 8, 8]], 64 * 32 * 5 * 5 + 64, conv2_products),
        ("max_pool2d", [[100, 64, 4, 4]], 0, 0),
        ("relu", [[100, 64, 2, 2]], 0, 0),
        ("view", [[100, 64, 2, 2]], 0, 0),
        ("fc1", [[100, 256]], 256 * 200 + 200, 256 * 200),
        ("relu", [[100, 200]], 0, 0),
        ("fc2", [[100, 200]], 200 * 10 + 10, 200 * 10),
    ]
    assert _rows_by_layer(result) == expected
    assert result.rows[-1]["output_shape"] == [100, 10]
    assert result.totals["products"] == 100 * expected[0][3]
    bias_additions = 100 * (32 * 24 * 24 + 64 * 4 * 4 + 200 + 10)
    assert result.totals["flops"] == 2 * result.totals["products"] + bias_additions


def test_parameter_totals_match_numel_and_pytorch():
    model = LeNet()
    result = mt.summary(model, input_size=(2, 3, 32, 32))
    assert result.totals["parameters"] == sum(p.numel() for p in model.parameters())
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for the count")
    tn = torch.nn

    class TorchLeNet(tn.Module):
        def __init__(self):
            super().__init__()
            self.conv1, self.conv2 = tn.Conv2d(3, 6, 5), tn.Conv2d(6, 16, 5)
            self.fc1, self.fc2 = tn.Linear(400, 120), tn.Linear(120, 84)
            self.fc3 = tn.Linear(84, 10)

    assert result.totals["parameters"] == sum(p.numel() for p in TorchLeNet().parameters())


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 4), c=st.integers(1, 5), o=st.integers(1, 6), k=st.integers(1, 4),
       size=st.integers(4, 12), stride=st.integers(1, 3), padding=st.integers(0, 2),
       bias=st.booleans(), features=st.integers(1, 9))
def test_conv_and_linear_products_equal_the_closed_forms(n, c, o, k, size, stride, padding,
                                                          bias, features):
    conv = nn.Conv2d(c, o, k, stride=stride, padding=padding, bias=bias, device="meta")
    out = (size + 2 * padding - k) // stride + 1
    result = mt.summary(conv, input_size=(n, c, size, size))
    assert result.totals["products"] == n * o * out * out * c * k * k
    bias_additions = n * o * out * out if bias else 0
    assert result.totals["flops"] == 2 * result.totals["products"] + bias_additions
    linear = nn.Linear(features, o, bias=bias, device="meta")
    result = mt.summary(linear, input_size=(n, features))
    assert result.totals["products"] == n * features * o
    assert result.rows[0]["products_per_sample"] == features * o


class _Einsum(nn.Module):
    def __init__(self, equation):
        super().__init__()
        self.equation = equation

    def forward(self, *operands):
        return mt.einsum(self.equation, *operands)


def test_einsum_products_count_the_plain_sum():
    q, k = mt.empty(4, 5, 8, device="meta"), mt.empty(4, 7, 8, device="meta")
    result = mt.summary(_Einsum("bqd,bkd->bqk"), input_data=(q, k))
    assert result.totals["products"] == 4 * 5 * 7 * 8  # as q @ k.transpose(1, 2)
    a, b, c = (mt.empty(*shape, device="meta") for shape in ((2, 3), (3, 4), (4, 5)))
    result = mt.summary(_Einsum("ij,jk,kl->il"), input_data=(a, b, c))
    assert result.totals["products"] == (2 * 5) * (3 * 4) * 2  # two products per term


def test_a_model_on_cpu_is_untouched():
    model = LectureNet()
    model.eval()
    before = {name: p.detach().numpy().copy() for name, p in model.named_parameters()}
    calls = []
    handle = model.fc1.register_forward_hook(lambda module, inputs, output: calls.append(1))
    mt.summary(model, input_size=(8, 1, 28, 28))
    assert not model.training and not model.conv1.training
    for name, p in model.named_parameters():
        assert p.device.type == "cpu" and p.grad is None
        np.testing.assert_array_equal(p.detach().numpy(), before[name])
    assert calls == [1]  # the user's hook ran during the summary and is still there
    model(mt.zeros(1, 1, 28, 28))
    assert calls == [1, 1]
    handle.remove()
    assert not model._forward_hooks and not model.conv1._forward_pre_hooks


def test_existing_gradients_survive_a_summary():
    model = nn.Linear(3, 2)
    model(mt.ones(4, 3)).sum().backward()
    grad = model.weight.grad.numpy().copy()
    mt.summary(model, input_size=(4, 3))
    np.testing.assert_array_equal(model.weight.grad.numpy(), grad)


def test_terabyte_input_allocates_under_a_megabyte():
    model = LeNet()
    shape = (2**10, 3, 2**15, 2**15)   # about 13 TB of float32 activations
    tracemalloc.start()
    try:
        with pytest.raises(mt.ShapeError):  # LeNet's fc1 wants 400 features; the rule says so
            mt.summary(model, input_size=shape)
        conv_only = nn.Sequential(nn.Conv2d(3, 6, 5), nn.ReLU(), nn.MaxPool2d(2, 2))
        result = mt.summary(conv_only, input_size=shape)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 2**20
    assert result.totals["activation_bytes"] > 10 * 2**40


def test_module_called_twice_gives_two_rows_and_depth_limits_the_table():
    class Twice(nn.Module):
        def __init__(self):
            super().__init__()
            self.block = nn.Sequential(nn.Linear(4, 4), nn.ReLU())

        def forward(self, x):
            return self.block(self.block(x))

    result = mt.summary(Twice(), input_size=(2, 4), depth=1)
    names = [r["name"] for r in result.rows]
    assert names.count("block") == 2 and names.count("block.0") == 2
    assert {r["name"] for r in result.visible_rows()} == {"", "block"}
    assert "block.0" not in str(result)


def test_several_inputs_and_keyword_inputs():
    class Pair(nn.Module):
        def __init__(self):
            super().__init__()
            self.a, self.b = nn.Linear(3, 5), nn.Linear(7, 5)

        def forward(self, x, y=None):
            return self.a(x) + self.b(y)

    by_size = mt.summary(Pair(), input_size=[(2, 3), (2, 7)])
    by_data = mt.summary(Pair(), input_data={"x": mt.zeros(2, 3), "y": mt.zeros(2, 7)})
    assert by_size.rows[0]["input_shapes"] == [[2, 3], [2, 7]]
    assert by_size.totals["products"] == by_data.totals["products"] == 2 * (3 * 5 + 7 * 5)


def test_training_step_estimate_adds_gradients_and_optimizer_state():
    model = nn.Linear(100, 10)
    sgd = mt.summary(model, input_size=(1, 100), optimizer="sgd").totals
    adam = mt.summary(model, input_size=(1, 100), optimizer="adam").totals
    params = 4 * (100 * 10 + 10)
    assert sgd["parameter_bytes"] == params and sgd["gradient_bytes"] == params
    assert adam["optimizer_state_bytes"] == 2 * params
    assert adam["training_step_peak_bytes"] - sgd["training_step_peak_bytes"] == 2 * params


def test_output_formats_carry_the_same_rows():
    result = mt.summary(LectureNet(), input_size=(1, 1, 28, 28))
    as_dict = result.to_dict()
    assert len(as_dict["rows"]) == len(result.rows)
    csv_lines = result.to_csv().strip().splitlines()
    assert len(csv_lines) == 1 + len(result.rows)
    assert csv_lines[1].startswith(",LectureNet,1x1x28x28,1x10,105506")
    markdown = result.to_markdown()
    assert "| conv1 | Conv2d(1, 32, kernel_size=(5, 5), stride=(1, 1)) |" in markdown
    table = str(result)
    assert "Total params" in table and "460,800" in table
    widths = {len(line) for line in table.splitlines() if line.startswith("=")}
    assert len(widths) == 1


def test_functional_ops_in_forward_are_counted():
    class Functional(nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = nn.Parameter(mt.ones(6, 4))

        def forward(self, x):
            return F.relu(mt.flatten(x, 1).mm(self.weight.t()))

    result = mt.summary(Functional(), input_size=(5, 2, 2))
    assert result.totals["products"] == 5 * 4 * 6
    assert result.rows[0]["output_shape"] == [5, 6]


@pytest.mark.parametrize("kwargs, message", [
    ({}, "exactly one of input_size"),
    ({"input_size": (1, 3), "input_data": mt.zeros(1, 3)}, "exactly one of input_size"),
    ({"input_size": "1,3"}, "must be a shape"),
    ({"input_size": (1, 3), "optimizer": "rmsprop"}, "optimizer must be one of"),
])
def test_bad_arguments(kwargs, message):
    with pytest.raises(ValueError, match=message):
        mt.summary(nn.Linear(3, 1), **kwargs)


def test_per_sample_products_do_not_depend_on_the_batch_size():
    """Whole-batch products scale with the batch; per-sample figures do not."""
    small = mt.summary(LeNet(), input_size=(1, 3, 32, 32))
    assert math.isclose(small.totals["products_per_sample"],
                        mt.summary(LeNet(), input_size=(4096, 3, 32, 32)).totals[
                            "products_per_sample"])


def test_lazy_modules_stay_lazy_after_a_summary():
    from minitorch_meta.nn.parameter import is_lazy

    model = nn.Sequential(nn.Conv2d(3, 6, 5), nn.Flatten(), nn.LazyLinear(10))
    result = mt.summary(model, input_size=(2, 3, 32, 32))
    assert result.totals["parameters"] == (6 * 3 * 25 + 6) + (6 * 28 * 28 * 10 + 10)
    assert is_lazy(model[2].weight) and type(model[2]).__name__ == "LazyLinear"
    assert model[0].weight.device.type == "cpu"
