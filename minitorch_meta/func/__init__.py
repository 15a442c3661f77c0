"""``minitorch_meta.func`` (``torch.func``): function transforms.

- ``functional_call.py``: run a module with given parameters and buffers;
- ``grad_transforms.py``: ``grad``, ``grad_and_value``, ``vjp``, ``jacrev``, ``hessian``
  (on the reverse-mode engine; nested transforms give higher derivatives);
- ``vmap.py`` (with ``vmap_randomness.py``): map a function over a batch dimension, one
  call per element;
- ``forward_transforms.py``: ``jvp``, ``jacfwd``, ``linearize`` (forward-mode products,
  from ``autograd/forward_products.py``);
- ``pytree.py``: the nested tuples/lists/dicts of tensors the transforms walk;
- ``module_stacking.py``: ``stack_module_state`` (ensembles with ``vmap``);
- ``functionalize.py``: ``functionalize`` (the function itself, run eagerly);
- ``batch_norm_replacement.py``: ``replace_all_batch_norm_modules_``;
- ``rearrange.py``: ``rearrange`` (einops' patterns over reshape and permute).
"""

from .batch_norm_replacement import replace_all_batch_norm_modules_
from .forward_transforms import jacfwd, jvp, linearize
from .functional_call import functional_call
from .functionalize import functionalize
from .grad_transforms import grad, grad_and_value, hessian, jacrev, vjp
from .module_stacking import stack_module_state
from .rearrange import rearrange
from .vmap import vmap

__all__ = ["functional_call", "grad", "grad_and_value", "hessian", "jacfwd", "jacrev", "jvp",
           "linearize", "vjp", "vmap",
           "stack_module_state", "functionalize", "replace_all_batch_norm_modules_",
           "rearrange"]
