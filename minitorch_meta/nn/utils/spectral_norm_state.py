"""The state-dict hooks of the hook-based ``nn.utils.spectral_norm``: PyTorch's
checkpoint versioning, so that checkpoints of its first version still load.

Version 1 (the current one) keeps the buffer ``<name>_v`` and no ``<name>``; version 0
kept ``<name>`` (the normalised weight) and no ``<name>_v``. ``state_dict`` records the
version in the module's ``_metadata`` entry (``{"spectral_norm": {"<name>.version": 1}}``);
loading a dict without it that has ``<name>`` (a version-0 checkpoint) solves for the
``v`` that gives back its ``u`` and its ``sigma``, as PyTorch does.
"""

from __future__ import annotations

from ... import functions
from ...autograd import no_grad
from ...linalg import multi_dot


class SpectralNormStateDictHook:
    """Records the version in the module's ``local_metadata`` when it is saved."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __call__(self, module, state_dict, prefix: str, local_metadata: dict) -> None:
        versions = local_metadata.setdefault("spectral_norm", {})
        key = self.fn.name + ".version"
        if key in versions:
            raise RuntimeError(f"Unexpected key in metadata['spectral_norm']: {key}")
        versions[key] = self.fn._version


class SpectralNormLoadStateDictPreHook:
    """Turns a version-0 checkpoint's ``<name>`` into the ``<name>_v`` loaded instead."""

    def __init__(self, fn) -> None:
        self.fn = fn

    def __call__(self, state_dict, prefix: str, local_metadata: dict, strict: bool,
                 missing_keys: list, unexpected_keys: list, error_msgs: list) -> None:
        fn = self.fn
        version = local_metadata.get("spectral_norm", {}).get(fn.name + ".version", None)
        if version is not None and version >= 1:
            return
        weight_key = prefix + fn.name
        if (version is None and weight_key not in state_dict
                and all(weight_key + s in state_dict for s in ("_orig", "_u", "_v"))):
            return  # a current dict without metadata (made by hand): load it as it is
        missing = [weight_key + s for s in ("_orig", "", "_u") if weight_key + s not in state_dict]
        if missing:
            if strict:
                missing_keys.extend(missing)
            return
        with no_grad():
            weight_orig = state_dict[weight_key + "_orig"]
            weight = state_dict.pop(weight_key)
            sigma = (weight_orig / weight).mean()
            weight_mat = fn.reshape_weight_to_matrix(weight_orig)
            u = state_dict[weight_key + "_u"]
            state_dict[weight_key + "_v"] = solve_v(weight_mat, u, sigma)


def solve_v(weight_mat, u, sigma):
    """The ``v`` with ``u = normalize(W v)`` and ``u . (W v) = sigma``: ``v = (W^T W)^+
    W^T u``, rescaled (the pseudo-inverse, as ``W^T W`` may be singular).

    Shape:
        ``weight_mat``: ``(h, w)``; ``u``: ``(h,)``; result: ``(w,)``.
    """
    gram = weight_mat.t().mm(weight_mat)
    v = multi_dot([gram.pinverse(), weight_mat.t(), u.unsqueeze(1)]).squeeze(1)
    return v.mul_(sigma / functions.dot(u, functions.mv(weight_mat, v)))
