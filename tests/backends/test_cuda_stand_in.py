"""The CuPy stand-in (tests/cuda_stand_in) follows CuPy's rules: each rule it enforces is
checked here to fail where CuPy fails, so the stand-in's CUDA run can be trusted to catch
those mistakes. Built without installing it (``sys.modules`` is left alone)."""

from __future__ import annotations

import copy
import pickle

import numpy as np
import pytest

pytest.importorskip("cupy", reason="the stand-in takes its names from CuPy: "
                                   "pip install -e '.[cuda]'")

from tests.cuda_stand_in import installed  # noqa: E402
from tests.cuda_stand_in.array import OPERATOR_NAMES, DeviceArray  # noqa: E402
from tests.cuda_stand_in.namespace import build_cupy, build_cupyx  # noqa: E402


@pytest.fixture(scope="module")
def cp():
    import cupy

    if installed():
        return cupy  # this run uses the stand-in already
    return build_cupy(cupy)


@pytest.fixture(scope="module")
def real_cupy_ndarray():
    import sys

    real = sys.modules["cupy"]
    return real.ndarray if not installed() else real._real.ndarray


def test_arrays_are_device_arrays_and_results_stay_on_the_device(cp):
    a = cp.asarray(np.arange(6.0).reshape(2, 3))
    assert isinstance(a, DeviceArray) and isinstance(a, cp.ndarray)
    for result in (a + 1, cp.exp(a), a.sum(axis=0), cp.matmul(a, a.T), a[0], a.reshape(3, 2)):
        assert isinstance(result, DeviceArray)
    np.testing.assert_array_equal(cp.asnumpy(cp.matmul(a, a.T)), [[5.0, 14.0], [14.0, 50.0]])


def test_reductions_and_elements_are_0d_arrays_not_scalars(cp):
    a = cp.asarray(np.array([1.0, 2.0, 3.0]))
    for result in (a.sum(), cp.max(a), a[1], cp.asarray(np.ones((2, 2)))[1, 1]):
        assert isinstance(result, DeviceArray) and result.shape == ()
    assert float(a.sum()) == 6.0 and int(a[2]) == 3


def test_element_of_an_array_is_a_view(cp):
    a = cp.asarray(np.zeros(3))
    element = a[1]
    element[...] = 7.0
    assert float(a[1]) == 7.0


def test_host_arrays_are_refused_where_cupy_refuses_them(cp):
    a, host = cp.asarray(np.ones(3)), np.ones(3)
    for call in (lambda: cp.add(a, host), lambda: a + host, lambda: host + a,
                 lambda: cp.concatenate([a, host]), lambda: cp.matmul(host, a),
                 lambda: cp.add(a, [1.0, 2.0, 3.0])):
        with pytest.raises(TypeError, match="Unsupported type"):
            call()
    with pytest.raises(ValueError, match="non-scalar numpy.ndarray"):
        a[:] = host


def test_host_data_is_accepted_where_cupy_copies_it(cp):
    a = cp.asarray(np.arange(5.0))
    np.testing.assert_array_equal(cp.asnumpy(a[np.array([0, 2])]), [0.0, 2.0])
    np.testing.assert_array_equal(cp.asnumpy(a[[1, 3]]), [1.0, 3.0])
    a[np.array([0, 1])] = 9.0
    np.testing.assert_array_equal(cp.asnumpy(cp.array([1, 2])), [1, 2])
    assert float(a[0]) == 9.0
    assert float((a * np.float32(2))[0]) == 18.0  # NumPy scalars are scalars to CuPy too


def test_device_arrays_never_become_host_arrays_implicitly(cp):
    a = cp.asarray(np.ones(3))
    with pytest.raises(TypeError, match="Implicit conversion to a NumPy array"):
        np.asarray(a)
    with pytest.raises(TypeError):
        np.insert(a, 0, 1.0)  # a NumPy function CuPy does not implement
    np.testing.assert_array_equal(a.get(), np.ones(3))


def test_numpy_functions_on_device_arrays_dispatch_to_cupy(cp):
    a = cp.asarray(np.arange(4.0))
    assert isinstance(np.sum(a), DeviceArray) and isinstance(np.exp(a), DeviceArray)


def test_names_cupy_lacks_are_missing(cp):
    for name in ("frompyfunc", "nditer", "memmap"):
        assert hasattr(np, name)
        with pytest.raises(AttributeError, match="CuPy lacks it"):
            getattr(cp, name)


def test_array_attributes_are_cupys(cp, real_cupy_ndarray):
    a = cp.asarray(np.ones(2))
    for name in ("getfield", "resize", "setflags"):  # NumPy's methods that CuPy lacks
        assert hasattr(np.ndarray, name) and not hasattr(real_cupy_ndarray, name)
        with pytest.raises(AttributeError, match="cupy.ndarray"):
            getattr(a, name)
    assert a.data.ptr == a.data.mem.ptr and a[1:].data.ptr == a.data.ptr + 8
    assert a[1:].data.mem.ptr == a.data.mem.ptr


def test_every_operator_the_stand_in_defines_exists_on_cupy_arrays(real_cupy_ndarray):
    missing = [name for name in OPERATOR_NAMES if not hasattr(real_cupy_ndarray, name)]
    assert not missing


def test_keyword_arguments_are_checked_against_cupys_signatures(cp):
    a = cp.asarray(np.ones((2, 2)))
    with pytest.raises(TypeError, match="unexpected keyword"):
        cp.sum(a, where=True)  # NumPy takes it, CuPy does not
    assert float(cp.sum(a, axis=0, keepdims=True)[0, 0]) == 2.0


def test_ufunc_methods_exist_for_cupys_ufuncs_only(cp):
    a = cp.asarray(np.array([3.0, 1.0, 2.0]))
    assert float(cp.add.reduce(a)) == 6.0
    np.testing.assert_array_equal(cp.asnumpy(cp.multiply.accumulate(a)), [3.0, 3.0, 6.0])
    with pytest.raises(NotImplementedError, match="maximum.reduce"):
        cp.maximum.reduce(a)
    with pytest.raises(NotImplementedError, match="maximum.accumulate"):
        cp.maximum.accumulate(a)
    with pytest.raises(TypeError, match="initial"):
        cp.add.reduce(a, initial=1.0)
    with pytest.raises(NotImplementedError, match="multiply.at"):
        cp.multiply.at(a, [0], 2.0)
    cp.add.at(a, np.array([0, 0]), 1.0)
    assert float(a[0]) == 5.0


def test_generators_have_cupys_methods_only(cp):
    rng = cp.random.default_rng(0)
    assert rng.random((2, 3), dtype=np.float32).dtype == np.float32
    assert isinstance(rng.standard_normal(4), DeviceArray)
    for name in ("permutation", "normal", "choice", "shuffle"):
        with pytest.raises(AttributeError, match="Generator"):
            getattr(rng, name)


def test_scatter_add_erf_and_strides(cp):
    import cupy as real_cupy
    import cupyx

    x = build_cupyx(cupyx if not installed() else cupyx._real, cp)
    target = cp.asarray(np.zeros(3))
    x.scatter_add(target, np.array([0, 0, 2]), cp.asarray(np.array([1.0, 2.0, 3.0])))
    np.testing.assert_array_equal(target.get(), [3.0, 0.0, 3.0])
    np.testing.assert_allclose(x.scipy.special.erf(cp.asarray(np.array([0.5]))).get(),
                               [0.5204998778130465], rtol=1e-15)
    windows = cp.lib.stride_tricks.as_strided(cp.asarray(np.arange(4.0)), (3, 2), (8, 8))
    np.testing.assert_array_equal(windows.get(), [[0, 1], [1, 2], [2, 3]])
    assert real_cupy is not None


def test_unsupported_dtypes_are_refused(cp):
    with pytest.raises(ValueError, match="Unsupported dtype"):
        cp.asarray(np.array(["a", "b"]))
    with pytest.raises(ValueError, match="Unsupported dtype"):
        cp.asarray([1, 2], dtype=object)


def test_copies_and_pickles_stay_device_arrays(cp):
    a = cp.asarray(np.arange(3.0))
    for b in (copy.copy(a), copy.deepcopy(a), pickle.loads(pickle.dumps(a))):
        assert isinstance(b, DeviceArray)
        np.testing.assert_array_equal(b.get(), a.get())
        b[0] = 5.0
        assert float(a[0]) == 0.0


def test_the_runtime_reports_one_device(cp):
    assert cp.cuda.runtime.getDeviceCount() == 1 and cp.cuda.runtime.getDevice() == 0
    with cp.cuda.Device(0) as device:
        device.synchronize()
    with pytest.raises(ValueError, match="one device"):
        cp.cuda.Device(1)


def test_runtime_pieces_are_cupys(cp):
    """The stand-in's streams, events, device and memory pool offer CuPy's names only."""
    import cupy as installed_cupy

    real = installed_cupy._real if installed() else installed_cupy
    from tests.cuda_stand_in import memory, runtime

    pairs = [(runtime.Device, real.cuda.Device), (runtime.Stream, real.cuda.Stream),
             (runtime.Event, real.cuda.Event), (memory.MemoryPool, real.cuda.MemoryPool)]
    for stand_in, cupy_class in pairs:
        offered = {n for n in vars(stand_in) if not n.startswith("_")}
        assert offered <= set(dir(cupy_class)), (stand_in, offered - set(dir(cupy_class)))
    assert hasattr(real, "get_default_memory_pool")
    for name in ("get_current_stream", "get_elapsed_time", "Stream", "Event", "Device"):
        assert hasattr(real.cuda, name) and hasattr(cp.cuda, name)
    with pytest.raises(AttributeError, match="lacks: remove them"):
        runtime._checked(real.cuda, {"no_such_cupy_name": None})


def test_memory_pool_counts_live_arrays(cp):
    pool = cp.get_default_memory_pool()
    before, reserved = pool.used_bytes(), pool.total_bytes()
    a = cp.zeros(1000)
    assert pool.used_bytes() == before + 8000 and pool.total_bytes() == reserved + 8000
    view = a[::2]
    assert pool.used_bytes() == before + 8000  # a view occupies nothing more
    del a, view
    assert pool.used_bytes() == before and pool.total_bytes() == reserved + 8000  # cached
    pool.free_all_blocks()
    assert pool.total_bytes() == pool.used_bytes()


def test_events_and_streams(cp):
    start, end = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    end.record(cp.cuda.Stream())
    assert cp.cuda.get_elapsed_time(start, end) >= 0.0
    with pytest.raises(RuntimeError, match="without timing"):
        cp.cuda.get_elapsed_time(start, cp.cuda.Event(disable_timing=True))
    stream = cp.cuda.Stream(non_blocking=False, priority=0)
    previous = cp.cuda.get_current_stream()
    stream.use()
    assert cp.cuda.get_current_stream(0) is stream
    previous.use()
    assert cp.cuda.Stream.null.ptr == 0 and stream.done
    props = cp.cuda.runtime.getDeviceProperties(0)
    assert {"name", "totalGlobalMem", "major", "minor", "multiProcessorCount"} <= set(props)
    free, total = cp.cuda.runtime.memGetInfo()
    assert 0 <= free <= total
