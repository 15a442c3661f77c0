"""``minitorch_meta.func`` (``torch.func``): function transforms.

- ``functional_call.py``: run a module with given parameters and buffers;
- ``grad_transforms.py``: ``grad``, ``grad_and_value``, ``vjp``, ``jacrev`` (first order,
  on the reverse-mode engine);
- ``vmap.py`` (with ``vmap_randomness.py``): map a function over a batch dimension, one
  call per element;
- ``unsupported.py``: ``jvp``, ``jacfwd``, ``hessian``, which need forward-mode or
  higher-order autograd and raise ``NotImplementedError``;
- ``pytree.py``: the nested tuples/lists/dicts of tensors the transforms walk.
"""

from .functional_call import functional_call
from .grad_transforms import grad, grad_and_value, jacrev, vjp
from .unsupported import hessian, jacfwd, jvp
from .vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "vjp", "vmap"]
