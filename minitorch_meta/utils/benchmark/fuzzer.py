"""``Fuzzer``: random benchmark inputs. Each step draws the parameters (redrawing until
every constraint and tensor limit holds), then makes the tensors from them.

One ``numpy.random.RandomState(seed)`` drives the draws, as in PyTorch, so a seed gives
PyTorch's parameters, sizes and layouts; it also seeds ``torch.manual_seed`` (the tensor
values are our generator's, not PyTorch's).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np

from .fuzzed_parameter import FuzzedParameter, ParameterAlias
from .fuzzed_tensor import FuzzedTensor

_MAX_DRAWS = 1000


class Fuzzer:
    """Draws ``parameters`` and makes ``tensors`` from them; ``take(n)`` yields ``n``
    ``(tensors, tensor_properties, params)`` triples (dicts by name). ``constraints`` are
    callables given the dict of drawn parameters; one returning False rejects the draw.
    Lists inside ``parameters`` and ``tensors`` are flattened one level.

    Raises:
        ValueError: a name used by both a parameter and a tensor; and from ``take``, when
            1000 draws in a row were rejected, or aliases form a cycle.
    """

    def __init__(self, parameters: list[FuzzedParameter | list[FuzzedParameter]],
                 tensors: list[FuzzedTensor | list[FuzzedTensor]],
                 constraints: list[Callable] | None = None, seed: int | None = None) -> None:
        if seed is None:
            seed = int(np.random.RandomState().randint(0, 2 ** 32 - 1, dtype=np.int64))
        self._seed = seed
        self._parameters = Fuzzer._unpack(parameters, FuzzedParameter)
        self._tensors = Fuzzer._unpack(tensors, FuzzedTensor)
        self._constraints = constraints or ()
        overlap = {p.name for p in self._parameters} & {t.name for t in self._tensors}
        if overlap:
            raise ValueError(f"Duplicate names in parameters and tensors: {overlap}")
        self._rejections = 0
        self._total_generated = 0

    @staticmethod
    def _unpack(values, cls) -> tuple:
        return tuple(itertools.chain.from_iterable([v] if isinstance(v, cls) else v
                                                   for v in values))

    def take(self, n: int) -> Iterator[tuple[dict, dict, dict]]:
        """``n`` steps from the seed's start: each the tensors, their properties and the
        parameters, by name."""
        import minitorch_meta as torch

        state = np.random.RandomState(self._seed)
        torch.manual_seed(int(state.randint(low=0, high=2 ** 63, dtype=np.int64)))
        for _ in range(n):
            params = self._generate(state)
            tensors, tensor_properties = {}, {}
            for t in self._tensors:
                tensors[t.name], tensor_properties[t.name] = t._make_tensor(params, state)
            yield tensors, tensor_properties, params

    @property
    def rejection_rate(self) -> float:
        """The share of parameter draws rejected so far."""
        return self._rejections / self._total_generated if self._total_generated else 0.0

    def _draw(self, state, strict_params: dict[str, Any]) -> dict[str, Any]:
        params = {}
        for p in self._parameters:
            if p.strict and p.name in strict_params:
                params[p.name] = strict_params[p.name]
            else:
                params[p.name] = p.sample(state)
                if p.strict:
                    strict_params[p.name] = params[p.name]
        return self._resolve_aliases(params)

    def _generate(self, state) -> dict[str, Any]:
        strict_params: dict[str, Any] = {}
        for _ in range(_MAX_DRAWS):
            params = self._draw(state, strict_params)
            self._total_generated += 1
            if (all(f(params) for f in self._constraints)
                    and all(t.satisfies_constraints(params) for t in self._tensors)):
                return params
            self._rejections += 1
        raise ValueError("Failed to generate a set of valid parameters.")

    @staticmethod
    def _resolve_aliases(params: dict[str, Any]) -> dict[str, Any]:
        params = dict(params)
        alias_count = sum(isinstance(v, ParameterAlias) for v in params.values())
        while alias_count:
            for k in list(params):
                if isinstance(params[k], ParameterAlias):
                    params[k] = params[params[k].alias_to]
            new_count = sum(isinstance(v, ParameterAlias) for v in params.values())
            if new_count == alias_count:
                raise ValueError(f"ParameterAlias cycle detected\n{params}")
            alias_count = new_count
        return params
