"""The backend registry: device type -> backend factory, and one backend per device.

A backend registered here from outside the package (see ``tests/backends``) works with
every op and module unchanged: ops only ever talk to the ``Backend`` interface.
"""

from __future__ import annotations

from collections.abc import Callable

from ..errors import DeviceError

# device type -> callable(index) -> Backend. Filled below with the built-in backends.
_FACTORIES: dict[str, Callable] = {}
# (device type, index) -> Backend, so that each device has exactly one backend object.
_INSTANCES: dict = {}
# The seed given to ``manual_seed`` (or drawn at first use): every backend is seeded from it.
_SEED: list = []


def register_backend(device_type: str, factory: Callable) -> None:
    """Make ``device_type`` usable as a device: ``factory(index)`` returns its ``Backend``."""
    if not device_type.isidentifier():
        raise ValueError(f"device type must be an identifier such as 'cpu', got {device_type!r}")
    _FACTORIES[device_type] = factory
    for key in [k for k in _INSTANCES if k[0] == device_type]:
        del _INSTANCES[key]


def unregister_backend(device_type: str) -> None:
    """Remove a device type registered with ``register_backend`` (built-ins included)."""
    _FACTORIES.pop(device_type, None)
    for key in [k for k in _INSTANCES if k[0] == device_type]:
        del _INSTANCES[key]


def is_registered(device_type: str) -> bool:
    return device_type in _FACTORIES


def registered_types() -> list[str]:
    return list(_FACTORIES)


def get_backend(device):
    """The backend of ``device`` (a ``device`` object), created on first use."""
    key = (device.type, device.index)
    backend = _INSTANCES.get(key)
    if backend is None:
        try:
            factory = _FACTORIES[device.type]
        except KeyError:
            raise DeviceError(f"no backend registered for device type {device.type!r}; "
                              f"registered: {registered_types()}") from None
        backend = factory(device.index)
        # "cuda" asked after "cuda:0" (the current device) was made: that one, or the two
        # would be different backends of one device, and their tensors refused together.
        made = _INSTANCES.get((device.type, backend.device.index))
        if made is not None:
            _INSTANCES[key] = made
            return made
        from ..random import seed_backend

        seed_backend(backend, process_seed())
        _INSTANCES[key] = backend
        # "cuda" and "cuda:0" (the current device) must share one backend object.
        _INSTANCES[(device.type, backend.device.index)] = backend
    return backend


def make_current(backend) -> None:
    """Let the device type of ``backend`` without an index (``"cuda"``) mean its device from
    now on: ``cuda.set_device`` changes which GPU is current."""
    _INSTANCES[(backend.device.type, None)] = backend


def created_backends() -> list:
    """Every backend created so far, once each (``torch.func.vmap`` swaps their default
    generators for its ``randomness`` modes)."""
    return list({id(b): b for b in _INSTANCES.values()}.values())


def any_created(device_type: str) -> bool:
    """Whether a backend of ``device_type`` (``"cuda"``) has been created: until then no
    work of that device can be queued (``utils.benchmark``'s clock asks before each reading,
    so this is cheaper than ``created_backends``)."""
    return any(key[0] == device_type for key in _INSTANCES)


def process_seed() -> int:
    """The seed of every default generator: ``set_seed``'s, else one drawn from the OS on
    first use (then kept, so that ``initial_seed()`` can name it)."""
    if not _SEED:
        from ..random import fresh_seed

        _SEED.append(fresh_seed())
    return _SEED[0]


def set_seed(seed: int) -> None:
    """Reseed every backend created so far, and remember ``seed`` for later ones."""
    from ..random import seed_backend

    _SEED[:] = [seed]
    for backend in created_backends():
        seed_backend(backend, seed)


def _numpy_factory(index):
    from .numpy_backend import NumpyBackend

    if index is not None:
        raise DeviceError(f"the cpu device takes no index, got 'cpu:{index}'")
    return NumpyBackend()


def _cupy_factory(index):
    from .cupy_backend import CupyBackend

    return CupyBackend(index)


def _meta_factory(index):
    from .meta import MetaBackend

    if index is not None:
        raise DeviceError(f"the meta device takes no index, got 'meta:{index}'")
    return MetaBackend()


register_backend("cpu", _numpy_factory)
register_backend("cuda", _cupy_factory)
register_backend("meta", _meta_factory)
