"""The CPU generator's state as bytes: what ``get_rng_state`` returns and takes back.

NumPy's ``default_rng`` is a PCG64 generator: two 128-bit numbers (the state and the odd
increment) and a buffered 32-bit half of the last 64-bit draw. They are written
little-endian, in that order, as 40 bytes (PyTorch's Mersenne Twister state is 5056 bytes
and cannot be exchanged with ours: docs/differences.md).
"""

from __future__ import annotations

import numpy as np

# (field, byte count) in the order they are written.
_LAYOUT = (("state", 16), ("inc", 16), ("has_uint32", 4), ("uinteger", 4))
STATE_SIZE = sum(size for _, size in _LAYOUT)


def pack(generator: np.random.Generator) -> np.ndarray:
    """``generator``'s state as a new uint8 array of ``STATE_SIZE`` bytes."""
    state = generator.bit_generator.state
    if state["bit_generator"] != "PCG64":
        raise RuntimeError(f"cannot save the state of a {state['bit_generator']} generator: "
                           "only NumPy's PCG64 (default_rng) is supported")
    values = {**state["state"], "has_uint32": state["has_uint32"],
              "uinteger": state["uinteger"]}
    data = b"".join(int(values[name]).to_bytes(size, "little") for name, size in _LAYOUT)
    return np.frombuffer(data, dtype=np.uint8).copy()


def unpack(generator: np.random.Generator, data: np.ndarray) -> None:
    """Put the state ``pack`` wrote (a uint8 array) back into ``generator``, in place."""
    if data.size != STATE_SIZE:
        raise RuntimeError(f"expected a CPU generator state of {STATE_SIZE} bytes (as "
                           f"get_rng_state() returns), but the state given has {data.size}")
    raw, values, start = np.ascontiguousarray(data).tobytes(), {}, 0
    for name, size in _LAYOUT:
        values[name] = int.from_bytes(raw[start:start + size], "little")
        start += size
    if values["inc"] % 2 == 0 or values["has_uint32"] > 1:
        raise RuntimeError("invalid CPU generator state: these bytes were not written by "
                           "get_rng_state() (PCG64's increment must be odd, the buffered "
                           "flag 0 or 1)")
    generator.bit_generator.state = {
        "bit_generator": "PCG64", "state": {"state": values["state"], "inc": values["inc"]},
        "has_uint32": values["has_uint32"], "uinteger": values["uinteger"]}
