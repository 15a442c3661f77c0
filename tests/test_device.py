"""device: parsing, equality, reprs, the default-device context manager, errors."""

from __future__ import annotations

import pytest

import minitorch_meta as mt


def test_parsing_and_equality():
    assert mt.device("cuda:1") == mt.device("cuda", 1) and mt.device("cuda:1").index == 1
    assert mt.device("cpu").type == "cpu" and mt.device("cpu").index is None
    assert mt.device(0) == mt.device("cuda:0")
    assert mt.device(mt.device("meta")) == "meta"
    assert mt.device("cuda") != mt.device("cuda:0")  # as in PyTorch
    assert len({mt.device("cpu"), mt.device("cpu")}) == 1
    assert str(mt.device("cuda:2")) == "cuda:2"
    assert repr(mt.device("cuda", 3)) == "device(type='cuda', index=3)"


@pytest.mark.parametrize("spec, message", [
    ("tpu", "unknown device type 'tpu' in 'tpu'; expected one of cpu, cuda, meta"),
    ("cuda:x", "invalid device string 'cuda:x': the index after ':' must be a non-negative "
               "integer"),
    ("cuda:-1", "invalid device string 'cuda:-1'"),
])
def test_bad_device_strings(spec, message):
    with pytest.raises(mt.DeviceError, match=message.replace("(", r"\(").replace(")", r"\)")):
        mt.device(spec)


def test_other_device_errors():
    with pytest.raises(mt.DeviceError, match="already has an index"):
        mt.device("cuda:0", 1)
    with pytest.raises(mt.DeviceError, match="device index must be non-negative, got -1"):
        mt.device("cuda", -1)
    with pytest.raises(TypeError, match="device\\(\\) expects a string"):
        mt.device(1.5)
    with pytest.raises(mt.DeviceError, match="the cpu device takes no index, got 'cpu:1'"):
        mt.zeros(1, device="cpu:1")
    with pytest.raises(mt.DeviceError, match="the meta device takes no index"):
        mt.zeros(1, device="meta:0")
    assert issubclass(mt.DeviceError, RuntimeError)


def test_default_device_nests_and_restores():
    with mt.device("meta") as d:
        assert d == mt.device("meta") and mt.ones(1).is_meta
        with mt.device("cpu"):
            assert not mt.ones(1).is_meta
        assert mt.ones(1).is_meta
    assert not mt.ones(1).is_meta


def test_importing_the_package_does_not_import_cupy():
    import subprocess
    import sys

    code = ("import sys, minitorch_meta as mt; mt.zeros(2) + 1; "
            "print('cupy' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "False"


def test_every_public_name_exists():
    missing = [name for name in mt.__all__ if not hasattr(mt, name)]
    assert not missing
