"""Importing minitorch_meta, and using it on cpu and meta, never imports CuPy.

Checked in a fresh interpreter: the test process itself may have imported CuPy already.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent("""
    import sys
    import minitorch_meta as mt
    import minitorch_meta.cuda
    import minitorch_meta.nn.functional as F

    assert "cupy" not in sys.modules, "import minitorch_meta imported cupy"
    for device in ("cpu", "meta"):
        x = mt.randn(2, 1, 8, 8, device=device)
        w = mt.randn(3, 1, 3, 3, device=device, requires_grad=True)
        v = mt.randn(12, 4, device=device, requires_grad=True)
        h = F.relu(F.max_pool2d(F.conv2d(x, w), 3))
        loss = F.cross_entropy(F.linear(h.flatten(1), v.t()), mt.tensor([0, 1], device=device))
        loss.backward()
        assert tuple(w.grad.shape) == (3, 1, 3, 3)
    assert "cupy" not in sys.modules, "using cpu/meta imported cupy"
    assert "cupyx" not in sys.modules
    print("ok")
""")


def test_import_and_cpu_meta_use_never_import_cupy():
    done = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
