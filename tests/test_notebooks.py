"""The notebooks in ``notebooks/``: stored clean, one parameters cell each, and each runs top to
bottom without an error when executed with small sizes.

Execution uses nbclient with an ipykernel started on *this* interpreter (``sys.executable``,
the venv's python under ``make test``), whatever kernelspecs the machine has, and with
matplotlib's inline backend, which needs no display yet really draws every figure (into
the cell outputs, as in Jupyter), so plotting code is exercised too. Each notebook's cell tagged
``parameters`` is replaced by the small values below before executing.
"""

from __future__ import annotations

import ast
import json
import os
import re
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
NOTEBOOK_DIR = REPO / "notebooks"

#: The notebooks of issue 8, and the small parameters the tests run each with.
SMALL_PARAMETERS = {
    "01_reasoning_about_shapes.ipynb": """
BATCH = 1024
TIMEIT_NUMBER = 10
REAL_BATCH = 2
""",
    "02_modules_and_batch_processing.ipynb": """
N = 8
D_IN = 16
D_OUT = 12
SEED = 0
""",
    "03_train_mnist.ipynb": """
N_TRAIN = 256
N_TEST = 200
EPOCHS = 2
BATCH_SIZE = 64
LR = 0.05
SEED = 0
DATA_ROOT = "~/.cache/minitorch_meta"
""",
    "04_batch_vs_loop.ipynb": """
N = 16
D_IN = 32
D_OUT = 24
BATCH_SIZES = [1, 4, 16]
REPEAT = 2
PAUSE = 0.0
""",
}

#: Wall-clock budget of one notebook's cells (kernel start-up excluded).
NOTEBOOK_TIMEOUT = 120
KERNEL_STARTUP_TIMEOUT = 60


def _load(path: Path) -> dict:
    with open(path, encoding="utf-8") as file:
        return json.load(file)


def _source(cell: dict) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else source


def _parameter_cells(notebook: dict) -> list[dict]:
    return [cell for cell in notebook["cells"]
            if "parameters" in cell.get("metadata", {}).get("tags", [])]


def _assigned_names(source: str) -> set[str]:
    return {target.id for node in ast.parse(source).body if isinstance(node, ast.Assign)
            for target in node.targets if isinstance(target, ast.Name)}


def _notebook_paths() -> list[Path]:
    return sorted(NOTEBOOK_DIR.glob("*.ipynb"))


NOTEBOOKS = [pytest.param(path, id=path.stem) for path in _notebook_paths()]


def test_every_notebook_is_there_and_has_small_parameters():
    found = {path.name for path in _notebook_paths()}
    assert found == set(SMALL_PARAMETERS), (
        f"notebooks/ holds {sorted(found)}; the tests know {sorted(SMALL_PARAMETERS)}")


@pytest.mark.parametrize("path", NOTEBOOKS)
def test_notebook_is_stored_without_outputs(path):
    notebook = _load(path)
    dirty = [index for index, cell in enumerate(notebook["cells"]) if cell["cell_type"] == "code"
             and (cell.get("outputs") or cell.get("execution_count") is not None)]
    assert not dirty, (f"{path.name}: code cells {dirty} have outputs or execution counts; "
                       "clear them before committing")


@pytest.mark.parametrize("path", NOTEBOOKS)
def test_notebook_has_one_parameters_cell(path):
    cells = _parameter_cells(_load(path))
    assert len(cells) == 1, f"{path.name}: {len(cells)} cells tagged 'parameters', expected 1"
    assert cells[0]["cell_type"] == "code"
    names = _assigned_names(_source(cells[0]))
    small = _assigned_names(SMALL_PARAMETERS[path.name])
    assert names == small, (f"{path.name}: the parameters cell sets {sorted(names)} but the "
                            f"tests' small values set {sorted(small)}")


@pytest.mark.parametrize("path", NOTEBOOKS)
def test_notebook_does_not_import_pytorch(path):
    for cell in _load(path)["cells"]:
        if cell["cell_type"] != "code":
            continue
        for node in ast.walk(ast.parse(_source(cell))):
            if isinstance(node, ast.Import):
                modules = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                modules = [node.module or ""]
            else:
                continue
            assert not any(m == "torch" or m.startswith("torch.") for m in modules), (
                f"{path.name} imports PyTorch: {ast.unparse(node)}")


def _python_path() -> str:
    """The kernel imports minitorch_meta from this checkout, as the tests do."""
    return os.pathsep.join(p for p in (str(REPO), os.environ.get("PYTHONPATH", "")) if p)


def _kernel_manager_class():
    """An nbclient kernel manager whose kernel is ipykernel on ``sys.executable``."""
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
    from jupyter_client.manager import AsyncKernelManager
    from traitlets import default

    class ThisPythonKernelSpecManager(KernelSpecManager):
        def get_kernel_spec(self, kernel_name):
            return KernelSpec(
                argv=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
                display_name=f"Python ({sys.executable})", language="python",
                env={"MPLBACKEND": "module://matplotlib_inline.backend_inline",
                     "PYTHONPATH": _python_path()})

    class ThisPythonKernelManager(AsyncKernelManager):
        @default("kernel_spec_manager")
        def _kernel_spec_manager_default(self):
            return ThisPythonKernelSpecManager()

    return ThisPythonKernelManager


def _with_small_parameters(notebook, name: str):
    (cell,) = [cell for cell in notebook.cells if "parameters" in cell.metadata.get("tags", [])]
    cell.source = SMALL_PARAMETERS[name].strip() + "\n"
    return notebook


@pytest.mark.slow
@pytest.mark.parametrize("path", NOTEBOOKS)
def test_notebook_runs(path):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    pytest.importorskip("ipykernel")
    notebook = _with_small_parameters(nbformat.read(path, as_version=4), path.name)
    notebook.cells.append(nbformat.v4.new_code_cell(
        "import sys\n"
        "assert 'torch' not in sys.modules, 'the notebook imported PyTorch'\n"
        "assert sys.executable == " + repr(sys.executable) + ", sys.executable"))
    deadline = []

    def timeout(cell) -> int:
        # One budget for the whole notebook: each cell gets what the earlier ones left.
        if not deadline:
            deadline.append(time.monotonic() + NOTEBOOK_TIMEOUT)
        return max(1, int(deadline[0] - time.monotonic()))

    client = nbclient.NotebookClient(
        notebook, kernel_name="python3", kernel_manager_class=_kernel_manager_class(),
        timeout_func=timeout, startup_timeout=KERNEL_STARTUP_TIMEOUT,
        resources={"metadata": {"path": str(NOTEBOOK_DIR)}})
    try:
        client.execute()
    except nbclient.exceptions.CellTimeoutError as error:
        pytest.fail(f"{path.name} took more than {NOTEBOOK_TIMEOUT} s: {error}")
    except nbclient.exceptions.CellExecutionError as error:
        message = re.sub(r"\x1b\[[0-9;]*m", "", str(error))  # IPython's colours
        pytest.fail(f"{path.name} failed:\n{message}", pytrace=False)
    errors = [output for cell in notebook.cells for output in cell.get("outputs", [])
              if output.get("output_type") == "error"]
    assert not errors, f"{path.name}: error outputs {errors}"
    plotting = [c for c in notebook.cells if c.cell_type == "code" and "plt." in c.source]
    drawn = [o for c in plotting for o in c.get("outputs", []) if "image/png" in o.get("data", {})]
    assert len(drawn) >= len([c for c in plotting if "plt.show()" in c.source]), \
        f"{path.name}: some figures were not drawn"
