"""``minitorch_meta.func`` (``torch.func``): function transforms.

- ``functional_call.py``: run a module with given parameters and buffers;
- ``grad_transforms.py``: ``grad``, ``grad_and_value``, ``vjp``, ``jacrev``, ``hessian``
  (on the reverse-mode engine; nested transforms give higher derivatives);
- ``vmap.py`` (with ``vmap_randomness.py``): map a function over a batch dimension, one
  call per element;
- ``forward_transforms.py``: ``jvp``, ``jacfwd``, ``linearize`` (forward-mode products,
  from ``autograd/forward_products.py``);
- ``pytree.py``: the nested tuples/lists/dicts of tensors the transforms walk.
"""

from .forward_transforms import jacfwd, jvp, linearize
from .functional_call import functional_call
from .grad_transforms import grad, grad_and_value, hessian, jacrev, vjp
from .vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "vjp", "vmap"]
