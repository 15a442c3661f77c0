"""``minitorch_meta.nn``: modules, layers, parameters, initialisers and the functional API.

``from minitorch_meta import nn`` gives PyTorch's names: ``nn.Module``, ``nn.Parameter``,
``nn.Linear``, ``nn.Conv2d``, ``nn.Sequential``, ``nn.init``, ``nn.functional`` ...
"""

from ..hooks import RemovableHandle
from . import functional, grad, init
from .activation import GELU, LeakyReLU, LogSoftmax, ReLU, Sigmoid, SiLU, Softmax, Tanh
from .adaptive_max_pooling import AdaptiveMaxPool1d, AdaptiveMaxPool2d
from .adaptive_softmax import AdaptiveLogSoftmaxWithLoss
from .alpha_dropout import AlphaDropout, FeatureAlphaDropout
from .avg_pooling import AdaptiveAvgPool2d, AvgPool2d
from .batchnorm import BatchNorm1d, BatchNorm2d, BatchNorm3d
from .bilinear import Bilinear
from .channel_dropout import Dropout1d, Dropout2d, Dropout3d
from .channel_shuffle import ChannelShuffle
from .container import ModuleDict, ModuleList, ParameterList, Sequential
from .container_module import Container
from .conv import Conv1d, Conv2d
from .conv3d import Conv3d, ConvTranspose3d
from .conv_transpose import ConvTranspose1d, ConvTranspose2d
from .cross_map_lrn import CrossMapLRN2d
from .ctc_loss import CTCLoss
from .data_parallel import DataParallel
from .dropout import Dropout
from .embedding import Embedding
from .embedding_bag import EmbeddingBag
from .extra_activations import (
    CELU,
    GLU,
    Hardshrink,
    RReLU,
    Softmin,
    Softshrink,
    Tanhshrink,
    Threshold,
)
from .flatten import Flatten, Unflatten
from .fold import Fold, Unfold
from .fractional_max_pooling import FractionalMaxPool2d, FractionalMaxPool3d
from .instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from .lazy import LazyLinear, LazyModuleMixin
from .lazy_conv import (
    LazyConv1d,
    LazyConv2d,
    LazyConv3d,
    LazyConvTranspose1d,
    LazyConvTranspose2d,
    LazyConvTranspose3d,
)
from .lazy_norm import (
    LazyBatchNorm1d,
    LazyBatchNorm2d,
    LazyBatchNorm3d,
    LazyInstanceNorm1d,
    LazyInstanceNorm2d,
    LazyInstanceNorm3d,
)
from .linear import Identity, Linear
from .linear_cross_entropy_loss import LinearCrossEntropyLoss
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    NLLLoss2d,
    SmoothL1Loss,
)
from .lp_pooling import LPPool1d, LPPool2d, LPPool3d
from .margin_loss import (  # the margin, embedding and likelihood losses
    CosineEmbeddingLoss,
    GaussianNLLLoss,
    HingeEmbeddingLoss,
    MarginRankingLoss,
    MultiLabelMarginLoss,
    MultiLabelSoftMarginLoss,
    MultiMarginLoss,
    PoissonNLLLoss,
    SoftMarginLoss,
    TripletMarginLoss,
    TripletMarginWithDistanceLoss,
)
from .module import Module
from .more_activations import (
    ELU,
    SELU,
    Hardsigmoid,
    Hardswish,
    Hardtanh,
    LogSigmoid,
    Mish,
    PReLU,
    ReLU6,
    Softmax2d,
    Softplus,
    Softsign,
)
from .multihead_attention import MultiheadAttention
from .normalization import GroupNorm, LayerNorm, LocalResponseNorm, RMSNorm
from .padding import (
    CircularPad1d,
    CircularPad2d,
    CircularPad3d,
    ConstantPad1d,
    ConstantPad2d,
    ConstantPad3d,
    ReflectionPad1d,
    ReflectionPad2d,
    ReflectionPad3d,
    ReplicationPad1d,
    ReplicationPad2d,
    ReplicationPad3d,
    ZeroPad1d,
    ZeroPad2d,
    ZeroPad3d,
)
from .parameter import Buffer, Parameter, UninitializedBuffer, UninitializedParameter
from .parameter_dict import ParameterDict
from .pixel_shuffle import PixelShuffle, PixelUnshuffle
from .pooling import MaxPool2d
from .pooling1d import AdaptiveAvgPool1d, AvgPool1d, MaxPool1d
from .pooling3d import AdaptiveAvgPool3d, AdaptiveMaxPool3d, AvgPool3d, MaxPool3d
from .rnn import GRU, LSTM, RNN, RNNBase
from .rnn_cell import GRUCell, LSTMCell, RNNCell, RNNCellBase
from .similarity import CosineSimilarity, PairwiseDistance
from .sync_batchnorm import SyncBatchNorm
from .transformer import (
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)
from .unpooling import MaxUnpool1d, MaxUnpool2d, MaxUnpool3d
from .upsampling import Upsample, UpsamplingBilinear2d, UpsamplingNearest2d

__all__ = [
    "AdaptiveAvgPool2d", "AvgPool2d",
    "BCELoss", "BCEWithLogitsLoss", "BatchNorm1d", "BatchNorm2d",
    "Conv2d", "CrossEntropyLoss", "Dropout", "Flatten", "HuberLoss", "Identity", "KLDivLoss",
    "L1Loss", "LazyConv2d", "LeakyReLU",
    "LazyLinear",
    "LazyModuleMixin", "Linear", "LogSoftmax", "MSELoss", "MaxPool2d", "Module", "ModuleDict",
    "ModuleList", "NLLLoss", "Parameter", "ReLU", "RemovableHandle", "Sequential", "Sigmoid",
    "SmoothL1Loss", "Softmax", "Tanh",
    "UninitializedParameter", "Unflatten",
    "functional", "grad", "init",
    "ConstantPad2d", "ReflectionPad2d", "ReplicationPad2d", "Upsample", "ZeroPad2d",
    "Embedding", "GELU", "LayerNorm", "ParameterList", "SiLU",
    "CosineSimilarity", "Dropout2d", "ELU", "Hardsigmoid", "Hardswish", "Hardtanh", "LogSigmoid",
    "Mish", "PReLU", "ReLU6", "SELU", "Softmax2d", "Softplus", "Softsign",
    "AdaptiveAvgPool1d", "AvgPool1d", "Conv1d", "ConvTranspose1d", "ConvTranspose2d",
    "MaxPool1d",
    "GRU", "GRUCell", "LSTM", "LSTMCell", "RNN", "RNNBase", "RNNCell", "RNNCellBase",
    "CosineEmbeddingLoss", "GaussianNLLLoss", "HingeEmbeddingLoss", "MarginRankingLoss",
    "MultiLabelMarginLoss", "MultiLabelSoftMarginLoss", "MultiMarginLoss", "PairwiseDistance",
    "PoissonNLLLoss", "SoftMarginLoss", "TripletMarginLoss", "TripletMarginWithDistanceLoss",
    "MultiheadAttention", "Transformer", "TransformerDecoder", "TransformerDecoderLayer",
    "TransformerEncoder", "TransformerEncoderLayer",
    "BatchNorm3d", "GroupNorm", "InstanceNorm1d", "InstanceNorm2d", "InstanceNorm3d",
    "LocalResponseNorm", "RMSNorm",
    "Fold", "Unfold",
    "AdaptiveMaxPool1d", "AdaptiveMaxPool2d", "PixelShuffle", "PixelUnshuffle",
    "CELU", "GLU", "Hardshrink", "RReLU", "Softmin", "Softshrink", "Tanhshrink", "Threshold",
    "AlphaDropout", "Dropout1d", "Dropout3d", "FeatureAlphaDropout",
    "Bilinear",
    "LPPool1d", "LPPool2d", "MaxUnpool1d", "MaxUnpool2d",
    "CircularPad1d", "CircularPad2d", "CircularPad3d", "ConstantPad1d", "ConstantPad3d",
    "ReflectionPad1d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad3d", "ZeroPad1d",
    "ZeroPad3d", "UpsamplingBilinear2d", "UpsamplingNearest2d",
    "EmbeddingBag",
    "CTCLoss",
    "ParameterDict",
    "ChannelShuffle",
    "AdaptiveAvgPool3d", "AdaptiveMaxPool3d", "AvgPool3d", "Conv3d", "ConvTranspose3d",
    "MaxPool3d",
    "LazyBatchNorm1d", "LazyBatchNorm2d", "LazyBatchNorm3d", "LazyConv1d", "LazyConv3d",
    "LazyConvTranspose1d", "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyInstanceNorm1d",
    "LazyInstanceNorm2d", "LazyInstanceNorm3d", "UninitializedBuffer",
    "FractionalMaxPool2d", "FractionalMaxPool3d",
    "AdaptiveLogSoftmaxWithLoss",
    "Buffer", "LPPool3d", "MaxUnpool3d",
    "LinearCrossEntropyLoss", "LinearCrossEntropyOptions",
    "NLLLoss2d",
    "Container", "CrossMapLRN2d",
    "DataParallel", "SyncBatchNorm",
]


def __getattr__(name):
    # ``nn.parallel`` loads on first use: it brings the distributed package with it.
    # ``nn.utils`` (gradient clipping) too, as ``torch.nn.utils`` is reached in PyTorch, and
    # ``nn.modules`` (PyTorch's path of the layers and of the global module hooks).
    if name in ("parallel", "utils", "modules"):
        import importlib

        return importlib.import_module(f".{name}", __name__)
    raise AttributeError(f"module 'minitorch_meta.nn' has no attribute {name!r}")
