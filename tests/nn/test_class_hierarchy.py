"""The nn layer classes derive as PyTorch's: ``issubclass`` for every pair of classes both
frameworks name (their private bases too) gives PyTorch's answer, so ``isinstance(m,
nn.Conv2d)`` in an initialisation loop picks the layers it picks in PyTorch. The layers
that moved onto private bases keep their reprs, state_dict keys and results."""

from __future__ import annotations

import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import minitorch_meta as mt
from minitorch_meta import nn
from tests.devices import tensor_device


def _our_classes() -> dict:
    """Every class ``minitorch_meta.nn`` exports, and every base of theirs defined in
    ``minitorch_meta.nn``, by name (a name must mean one class)."""
    found = {}
    for value in vars(nn).values():
        if not inspect.isclass(value):
            continue
        for cls in value.__mro__:
            if cls.__module__.startswith("minitorch_meta.nn"):
                assert found.setdefault(cls.__name__, cls) is cls, f"two classes {cls.__name__}"
    return found


def _torch_classes(torch) -> dict:
    """Every class ``torch.nn`` exports, and every other class the modules in
    ``torch.nn.modules`` define (the private bases ``_ConvNd``, ``_MaxPoolNd``, ...,
    ``LazyModuleMixin``), by name; ``torch.nn``'s meaning first where a name is taken twice."""
    found = {name: value for name, value in vars(torch.nn).items() if inspect.isclass(value)}
    for info in pkgutil.iter_modules(torch.nn.modules.__path__):
        module = importlib.import_module(f"torch.nn.modules.{info.name}")
        for name, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == module.__name__:
                found.setdefault(name, value)
    return found


def test_every_pair_of_classes_relates_as_in_pytorch(torch_ref):
    ours, theirs = _our_classes(), _torch_classes(torch_ref)
    common = sorted(set(ours) & set(theirs))
    wrong = [f"issubclass({a}, {b}) is {issubclass(ours[a], ours[b])}, PyTorch says "
             f"{issubclass(theirs[a], theirs[b])}"
             for a in common for b in common
             if issubclass(ours[a], ours[b]) != issubclass(theirs[a], theirs[b])]
    assert wrong == []
    # Not vacuous: the families in question, public and private, are compared.
    assert {"Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose3d", "MaxPool1d",
            "MaxPool3d", "AvgPool3d", "AdaptiveAvgPool3d", "LazyConv2d", "Dropout",
            "Hardswish", "Softshrink", "_ConvNd", "_ConvTransposeNd", "_MaxPoolNd",
            "_AvgPoolNd", "_AdaptiveAvgPoolNd", "_DropoutNd", "_BatchNorm",
            "LazyModuleMixin", "LazyBatchNorm2d", "LazyInstanceNorm1d", "LazyConvTranspose3d",
            "_LazyConvXdMixin", "_LazyNormBase", "_InstanceNorm"} <= set(common)
    assert len(common) > 150


SIBLINGS = [  # (layer, the 2-D or sibling class it must not be an instance of)
    ("Conv1d(2, 3, 3)", "Conv2d"), ("Conv3d(2, 3, 3)", "Conv2d"),
    ("ConvTranspose1d(2, 3, 3)", "ConvTranspose2d"),
    ("ConvTranspose3d(2, 3, 3)", "ConvTranspose2d"), ("MaxPool1d(2)", "MaxPool2d"),
    ("MaxPool3d(2)", "MaxPool2d"), ("AvgPool1d(2)", "AvgPool2d"), ("AvgPool3d(2)", "AvgPool2d"),
    ("AdaptiveAvgPool1d(2)", "AdaptiveAvgPool2d"), ("AdaptiveAvgPool3d(2)", "AdaptiveAvgPool2d"),
    ("Hardswish()", "Hardsigmoid"), ("Softshrink()", "Hardshrink"),
]


@pytest.mark.parametrize("layer, other", SIBLINGS)
def test_a_layer_is_no_instance_of_its_sibling(layer, other):
    assert not isinstance(eval(f"nn.{layer}"), getattr(nn, other))


def test_lazy_conv2d_stays_a_conv2d_and_dropout_a_dropoutnd():
    from minitorch_meta.nn.channel_dropout import _DropoutNd

    assert isinstance(nn.LazyConv2d(3, 2), nn.Conv2d)
    assert isinstance(nn.LazyConv2d(3, 2), nn.LazyModuleMixin)
    assert isinstance(nn.Dropout(0.2), _DropoutNd)


def _model(nn_module):
    return nn_module.Sequential(
        nn_module.Conv1d(2, 2, 3), nn_module.Conv2d(2, 2, 3), nn_module.Conv3d(2, 2, 3),
        nn_module.ConvTranspose1d(2, 2, 2), nn_module.ConvTranspose2d(2, 2, 2),
        nn_module.ConvTranspose3d(2, 2, 2), nn_module.MaxPool1d(2), nn_module.MaxPool2d(2),
        nn_module.MaxPool3d(2), nn_module.AvgPool1d(2), nn_module.AvgPool2d(2),
        nn_module.AvgPool3d(2), nn_module.AdaptiveAvgPool1d(2), nn_module.AdaptiveAvgPool2d(2),
        nn_module.AdaptiveAvgPool3d(2), nn_module.Dropout(), nn_module.Dropout2d(),
        nn_module.Hardsigmoid(), nn_module.Hardswish(), nn_module.Hardshrink(),
        nn_module.Softshrink(), nn_module.BatchNorm2d(2))


def _counts(model, nn_module) -> dict:
    """How many of the model's layers ``isinstance`` finds per class, as user code counts."""
    names = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d",
             "ConvTranspose3d", "MaxPool1d", "MaxPool2d", "MaxPool3d", "AvgPool1d", "AvgPool2d",
             "AvgPool3d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveAvgPool3d",
             "Dropout", "Dropout2d", "Hardsigmoid", "Hardswish", "Hardshrink", "Softshrink",
             "BatchNorm2d"]
    return {name: sum(isinstance(m, getattr(nn_module, name)) for m in model.modules())
            for name in names}


def test_isinstance_counts_of_a_model_are_pytorchs(torch_ref):
    counts = _counts(_model(nn), nn)
    assert counts == _counts(_model(torch_ref.nn), torch_ref.nn)
    assert set(counts.values()) == {1}


def test_an_init_loop_on_conv2d_leaves_conv1d_and_conv3d_alone(device):
    model = nn.Sequential(nn.Conv1d(2, 3, 3), nn.Conv2d(2, 3, 3), nn.Conv3d(2, 3, 3),
                          nn.ConvTranspose1d(2, 3, 3), nn.ConvTranspose2d(2, 3, 3),
                          nn.ConvTranspose3d(2, 3, 3)).to(device)
    for m in model.modules():  # the ResNet idiom: one init per layer type
        if isinstance(m, (nn.Conv2d, nn.ConvTranspose2d)):
            nn.init.zeros_(m.weight)
        elif isinstance(m, (nn.Conv1d, nn.Conv3d, nn.ConvTranspose1d, nn.ConvTranspose3d)):
            nn.init.ones_(m.weight)
    sums = [m.weight.sum().item() for m in model]
    assert sums == [18.0, 0.0, 162.0, 18.0, 0.0, 162.0]
    assert {m.weight.device for m in model} == {tensor_device(device)}


# Layers whose class moved onto a private base: repr, state_dict keys and results as
# PyTorch's (with PyTorch's parameters copied in), with the input shape for each.
MOVED = [
    ("Conv1d(2, 3, 3, stride=2, padding=1, bias=False)", (2, 2, 7)),
    ("Conv2d(2, 4, 3, padding='same', groups=2)", (2, 2, 5, 5)),
    ("Conv3d(2, 3, (2, 3, 2), dilation=(1, 2, 1))", (1, 2, 4, 6, 4)),
    ("ConvTranspose1d(2, 3, 3, stride=2, output_padding=1)", (2, 2, 4)),
    ("ConvTranspose2d(2, 3, 2, stride=2, groups=1, bias=False)", (2, 2, 3, 3)),
    ("ConvTranspose3d(2, 4, 2, stride=(1, 2, 2), groups=2)", (1, 2, 3, 3, 3)),
    ("MaxPool1d(3, 2, padding=1, ceil_mode=True)", (2, 3, 8)),
    ("MaxPool1d(2)", (2, 3, 8)), ("MaxPool2d(2)", (2, 3, 4, 4)),
    ("MaxPool3d(2, dilation=1)", (1, 2, 4, 4, 4)),
    ("AvgPool1d(3, 2, 1, count_include_pad=False)", (2, 3, 7)), ("AvgPool1d(3)", (2, 3, 7)),
    ("AvgPool2d(2, padding=1)", (2, 3, 5, 5)),
    ("AvgPool3d(2, divisor_override=3)", (1, 2, 4, 4, 4)),
    ("AdaptiveAvgPool1d(3)", (2, 3, 7)), ("AdaptiveAvgPool2d((2, None))", (2, 3, 5, 4)),
    ("AdaptiveAvgPool3d(2)", (1, 2, 5, 4, 3)), ("Dropout(0.3)", (2, 5)),
    ("Hardsigmoid(inplace=True)", (2, 5)), ("Hardswish(inplace=True)", (2, 5)),
    ("Hardshrink(0.3)", (2, 5)), ("Softshrink(0.3)", (2, 5)),
]


def _copy_parameters(ours, theirs, device) -> None:
    with mt.no_grad():
        for (name, p), (torch_name, q) in zip(ours.named_parameters(),
                                              theirs.named_parameters(), strict=True):
            assert name == torch_name
            p.copy_(mt.tensor(q.detach().numpy(), device=device))


@pytest.mark.parametrize("layer, shape", MOVED, ids=[layer for layer, _ in MOVED])
def test_moved_layers_keep_repr_state_and_results(layer, shape, device, torch_ref):
    theirs = eval(f"torch_ref.nn.{layer}").double().eval()
    ours = eval(f"nn.{layer}").to(device=device, dtype=mt.float64).eval()
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _copy_parameters(ours, theirs, device)
    x = np.random.default_rng(0).standard_normal(shape)
    expected = theirs(torch_ref.tensor(x)).detach().numpy()
    got = ours(mt.tensor(x, device=device)).detach()
    np.testing.assert_allclose(got.cpu().numpy(), expected, rtol=1e-10, atol=1e-12)
