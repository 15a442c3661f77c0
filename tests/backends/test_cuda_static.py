"""Static checks of the CUDA path, run without a GPU.

1. Every array-module name the shared kernels use (``xp.<name>``, ``self.xp.<name>``,
   array methods and attributes, random-generator methods) exists in CuPy, so no
   NumPy-only call hides on the CUDA path.
2. No module of the package names ``numpy`` where it should use the array module of its
   inputs: only the files listed in ``NUMPY_ALLOWED`` (with the reason) may import it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import minitorch_meta

PACKAGE = Path(minitorch_meta.__file__).parent
# The shared kernels: xp.py and the mixins it is made of (every backends/xp*.py).
XP_FILES = sorted((PACKAGE / "backends").glob("xp*.py"))

# Local names in the kernel files that hold something other than a device array, and what they hold.
NON_ARRAY_RECEIVERS = {
    "self": None, "super()": None,    # the backend itself
    "dtype": None,                    # a minitorch_meta dtype (``dtype.numpy``)
    "math": None,                     # Python's math module (``math.pi``)
    "functools": None,                # Python's functools (``@functools.cache`` on a table)
    "saved": None,                    # a kernel's saved tuple for backward (``saved.u``)
    "g": None, "bt": None,            # Winograd's transform matrices, built as Python lists
    "xp.finfo()": None, "xp.iinfo()": None,  # NumPy's type information in CuPy too
    "rng": "generator", "generator": "generator",  # xp.random.default_rng(...)
}


def _attribute_chain(node: ast.Attribute) -> list[str]:
    """``self.xp.random.default_rng`` -> ["self", "xp", "random", "default_rng"]."""
    chain = []
    while isinstance(node, ast.Attribute):
        chain.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        chain.append(node.id)
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        chain.append(node.func.id + "()")
    elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        chain.append(".".join(_attribute_chain(node.func)) + "()")  # xp.finfo(...).eps
    else:
        chain.append("<expr>")
    return chain[::-1]


def collect_xp_names(source: str) -> dict[str, set[str]]:
    """The names a kernel file uses on the array module, on arrays, and on random generators."""
    found = {"module": set(), "array": set(), "generator": set()}
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute) or isinstance(node.ctx, ast.Store):
            continue
        chain = _attribute_chain(node)
        if len(chain) != _depth(node) + 1:
            continue  # visited as part of a longer chain already
        if chain[0] == "xp":
            found["module"].add(".".join(chain[1:]))
        elif chain[:2] == ["self", "xp"]:
            if len(chain) > 2:  # a bare ``self.xp`` is the module itself
                found["module"].add(".".join(chain[2:]))
        elif chain[0] in NON_ARRAY_RECEIVERS:
            kind = NON_ARRAY_RECEIVERS[chain[0]]
            if kind:
                found[kind].add(chain[1])
        else:  # an array: a local name, a subscript, a call result
            found["array"].add(chain[1])
    return found


def _depth(node: ast.Attribute) -> int:
    depth = 0
    while isinstance(node, ast.Attribute):
        depth, node = depth + 1, node.value
    return depth


def _outermost_only(tree_names: set[str]) -> set[str]:
    """Drop "random" when "random.default_rng" is present (the prefix is implied)."""
    return {n for n in tree_names if not any(m.startswith(n + ".") for m in tree_names)}


@pytest.fixture(scope="module")
def xp_names():
    names = {"module": set(), "array": set(), "generator": set()}
    for path in XP_FILES:
        for kind, found in collect_xp_names(path.read_text()).items():
            names[kind] |= found
    names["module"] = _outermost_only(names["module"])
    return names


def test_the_collector_sees_the_kernels_calls(xp_names):
    # Guards the parser itself: these are certainly used by the kernels.
    assert {"matmul", "zeros", "take_along_axis", "random.default_rng"} <= xp_names["module"]
    assert {"reshape", "transpose", "shape", "strides", "argmax"} <= xp_names["array"]
    assert {"random", "standard_normal"} <= xp_names["generator"]


def _resolve(root, dotted: str) -> bool:
    for part in dotted.split("."):
        if not hasattr(root, part):
            return False
        root = getattr(root, part)
    return True


def test_every_array_module_name_exists_in_cupy(xp_names):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed: pip install -e '.[cuda]'")
    missing = sorted(n for n in xp_names["module"] if not _resolve(cupy, n))
    assert not missing, f"the shared kernels call xp.<name> that CuPy lacks: {missing}"


def test_every_array_method_and_attribute_exists_on_cupy_arrays(xp_names):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed: pip install -e '.[cuda]'")
    # Attributes of the dtype object (x.dtype.kind) are NumPy dtypes in CuPy too.
    missing = sorted(n for n in xp_names["array"] if not hasattr(cupy.ndarray, n))
    assert not missing, f"the shared kernels use attributes cupy.ndarray lacks: {missing}"


def test_every_generator_method_exists_in_cupy(xp_names):
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed: pip install -e '.[cuda]'")
    missing = sorted(n for n in xp_names["generator"] if not hasattr(cupy.random.Generator, n))
    assert not missing, f"the shared kernels use generator methods CuPy lacks: {missing}"


def test_the_cupy_only_pieces_exist_in_cupy():
    cupy = pytest.importorskip("cupy", reason="CuPy is not installed: pip install -e '.[cuda]'")
    import cupyx

    for dotted in ("asnumpy", "lib.stride_tricks.as_strided", "cuda.Device",
                   "cuda.runtime.getDeviceCount", "cuda.runtime.getDevice",
                   "cuda.runtime.driverGetVersion", "cuda.runtime.runtimeGetVersion"):
        assert _resolve(cupy, dotted), dotted
    assert hasattr(cupyx, "scatter_add")
    import cupyx.scipy.special

    assert hasattr(cupyx.scipy.special, "erf")
    assert hasattr(cupy.cuda.Device, "synchronize")


# -- who may name numpy ------------------------------------------------------------------

# Path (relative to the package; a trailing "/" means the whole folder) -> why NumPy is right.
NUMPY_ALLOWED = {
    "utils/benchmark/": "torch.utils.benchmark: statistics of timings on the host, and the "
                        "Fuzzer's draws from NumPy's RandomState, as PyTorch's Fuzzer draws",
    "backends/numpy_backend.py": "it is the NumPy backend",
    "backends/numpy_minmax.py": "a kernel of the NumPy backend's alone (CuPy needs no such help)",
    "backends/numpy_select.py": "the NumPy backend's where (CuPy's select does not branch)",
    "backends/numpy_erf.py": "the NumPy backend's erf (CuPy has cupyx.scipy.special.erf)",
    "backends/numpy_scatter.py": "the NumPy backend's scatter-add (CuPy has cupyx.scatter_add)",
    "backends/meta.py": "NumPy dtypes and broadcast_shapes describe shapes, no data",
    "dtypes.py": "our dtypes wrap NumPy dtype objects",
    "float8_casts.py": "float8 exists on the CPU only: PyTorch's conversions on NumPy arrays",
    "ops/shapes.py": "shape rules use NumPy only on shapes and zero-size stand-ins",
    "factories.py": "host data (lists, NumPy arrays) is parsed before backend.asarray",
    "formatting.py": "printing works on the host copy from backend.to_numpy",
    "tensor.py": "list indices are parsed on the host before backend.asarray",
    "functions.py": "recognises NumPy scalars given as operands",
    "serialization.py": "checkpoints are NumPy arrays on the host",
    "__config__.py": "it reports NumPy's version (and its BLAS), computing nothing",
    "data/": "datasets are read into host NumPy arrays, then moved",
    "tools/": "benchmarks compare against raw NumPy; summaries work on shapes",
    "cli/": "the command line loads data on the host",
    "distributed/": "sample orders and metric values are host data; tensors use backends",
    "training/": "the command line's datasets are prepared on the host, then moved",
    "nn/init.py": "fan computations on shapes",
    "legacy.py": "host data (lists, NumPy arrays) is recognised before tensor() copies it",
    "testing.py": "assert_close compares the host copies from backend.to_numpy",
    "backends/numpy_rng_state.py": "the NumPy backend's generator state (PCG64's fields)",
    "conversion.py": "asarray recognises host NumPy arrays and scalars before sharing them",
    "combinatorial_functions.py": "combinations' positions depend only on the length: built "
                                  "on the host (meta too), then moved once",
    "shared_memory.py": "shared memory, mapped files and pinned memory are host memory: "
                        "NumPy arrays over mmaps",
    "build_flags.py": "it reads NumPy's build configuration (its BLAS), computing nothing",
    "symbolic_numbers.py": "sym_max/sym_min take NumPy scalars as numbers, as PyTorch's do",
    "utils/tensorboard/": "logged values are host copies (tensor.cpu()) written into files",
}

# Where a NumPy call would bypass the array module of the inputs: never allowed.
NUMPY_FORBIDDEN = ("backends/xp.py", "backends/xp_conv.py", "backends/xp_pooling.py",
                   "backends/xp_avg_pooling.py",
                   "backends/cupy_backend.py", "ops/", "autograd.py", "nn/functional.py",
                   "optim/")


def _names_numpy(path: Path) -> bool:
    tree = ast.parse(path.read_text())
    for node in ast.walk(tree):
        if isinstance(node, ast.Import) and any(a.name.split(".")[0] == "numpy"
                                                for a in node.names):
            return True
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "numpy":
            return True
        if isinstance(node, ast.Name) and node.id in ("np", "numpy"):
            return True
    return False


def _matches(relative: str, patterns) -> bool:
    return any(relative == p or (p.endswith("/") and relative.startswith(p)) for p in patterns)


def _modules_naming_numpy() -> list[str]:
    return sorted(str(p.relative_to(PACKAGE)) for p in PACKAGE.rglob("*.py") if _names_numpy(p))


def test_the_kernels_and_ops_never_name_numpy():
    offenders = [m for m in _modules_naming_numpy()
                 if _matches(m, NUMPY_FORBIDDEN) and m != "ops/shapes.py"]
    assert not offenders, (f"{offenders} name numpy: use the array module of the inputs "
                           "(backend kernels) so the code also runs on CuPy")


def test_only_the_listed_modules_name_numpy():
    unexpected = [m for m in _modules_naming_numpy() if not _matches(m, NUMPY_ALLOWED)]
    assert not unexpected, (f"{unexpected} name numpy but are not in NUMPY_ALLOWED; use the "
                            "backend's kernels, or add the file with the reason NumPy is right")


def test_the_numpy_detector_works():
    assert _names_numpy(PACKAGE / "backends" / "numpy_backend.py")
    assert not any(_names_numpy(path) for path in XP_FILES)
