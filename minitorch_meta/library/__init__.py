"""``torch.library``: user-defined operators, run eagerly (no dispatcher, no compiler).

``custom_op`` and its registrations (``custom_op.py``) on the operator registry and call
path (``operator.py``), schemas (``schema.py``), PyTorch's older ``Library``/``define``/
``impl`` (``legacy.py``) and ``opcheck`` (``opcheck.py``). The ops are reachable as
``torch.ops.<namespace>.<name>``.
"""

from .custom_op import (
    CustomOpDef,
    custom_op,
    impl_abstract,
    register_autograd,
    register_fake,
    register_kernel,
)
from .legacy import Library, define, fallthrough_kernel, impl
from .opcheck import OpCheckError, opcheck
from .schema import infer_schema

__all__ = ["Library", "impl", "define", "fallthrough_kernel", "impl_abstract",
           "register_fake", "register_autograd", "register_kernel", "custom_op",
           "infer_schema", "opcheck", "CustomOpDef", "OpCheckError"]
