"""``replace_all_batch_norm_modules_``: make every batch-norm layer of a model use its
batch's statistics only, as ``torch.func.replace_all_batch_norm_modules_``.

Under ``vmap`` a layer that updates running statistics would write one buffer from every
element of the batch; PyTorch's remedy is to drop those buffers. Each ``BatchNorm1d/2d/3d``
(and lazy form) that tracks running statistics gets ``running_mean``, ``running_var`` and
``num_batches_tracked`` set to None and ``track_running_stats`` to False, in place.
"""

from __future__ import annotations


def replace_all_batch_norm_modules_(root):
    """``root``, each of its batch-norm modules (``root`` included) changed in place."""
    from ..nn.batchnorm import _BatchNorm

    for module in root.modules():
        if isinstance(module, _BatchNorm) and module.track_running_stats:
            module.running_mean = None
            module.running_var = None
            module.num_batches_tracked = None
            module.track_running_stats = False
    return root
