"""The Python examples of README.md and docs/usage.md run as written, block after block."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
BLOCK = re.compile(r"```python\n(.*?)```", re.S)
FASHION_MNIST = Path("/usr/share/datasets/fashion-mnist")


def _prepare(code: str) -> str:
    # The usage page shows this line raising MetaDataError; the test checks that separately.
    code = code.replace("x.sum().item()", "pass")
    if "FashionMNIST" in code:
        # The same script on the first 2,000 images, so that the test stays fast.
        code = code.replace("train.data", "train.data[:2000]").replace(
            "train.targets", "train.targets[:2000]")
    return code


@pytest.mark.parametrize("document", ["README.md", "docs/usage.md"])
def test_examples_run(document, tmp_path, monkeypatch):
    blocks = BLOCK.findall((ROOT / document).read_text())
    assert blocks, f"{document} has no python examples"
    if any("FashionMNIST" in b for b in blocks) and not FASHION_MNIST.is_dir():
        pytest.skip("the training example needs Debian's dataset-fashion-mnist package")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__example__"}
    for number, code in enumerate(blocks, 1):
        exec(compile(_prepare(code), f"<{document} example {number}>", "exec"), namespace)


def test_the_meta_data_example_raises_as_shown():
    import minitorch_meta as torch

    x = torch.rand(2**10, 3, 2**16, 2**16, device="meta")
    with pytest.raises(torch.MetaDataError, match="a meta tensor has a shape and a dtype"):
        x.sum().item()
