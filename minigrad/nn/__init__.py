"""`minigrad.nn`: modules, layers and losses, with PyTorch's names and behaviour.

    from minigrad import nn
    import minigrad.nn.functional as F
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
"""

from minigrad.nn import functional, init, utils
from minigrad.nn.containers import ModuleList, Sequential
from minigrad.nn.layers import (
    Dropout,
    Flatten,
    Identity,
    Linear,
    LogSoftmax,
    ReLU,
    Sigmoid,
    Softmax,
    Tanh,
)
from minigrad.nn.losses import BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, MSELoss, NLLLoss
from minigrad.nn.module import Module, Parameter

__all__ = [
    "functional", "init", "utils", "Module", "Parameter", "Sequential", "ModuleList", "Linear",
    "Identity", "ReLU", "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "Dropout", "Flatten",
    "MSELoss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss",
]

# convolution, pooling, normalisation, embedding
from minigrad.nn.conv import Conv1d, Conv2d, ConvTranspose2d  # noqa: E402
from minigrad.nn.normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm  # noqa: E402
from minigrad.nn.pooling import (  # noqa: E402
    AdaptiveAvgPool2d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    MaxPool1d,
    MaxPool2d,
)
from minigrad.nn.sparse import Embedding  # noqa: E402

__all__ += [
    "Conv1d", "Conv2d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d",
    "AdaptiveAvgPool2d", "AdaptiveMaxPool2d", "BatchNorm1d", "BatchNorm2d", "LayerNorm",
    "GroupNorm", "Embedding",
]

from minigrad.nn.attention import MultiheadAttention  # noqa: E402
from minigrad.nn.rnn import GRU, LSTM, RNN, RNNBase  # noqa: E402
from minigrad.nn.rnn_cells import GRUCell, LSTMCell, RNNCell, RNNCellBase  # noqa: E402

__all__ += ["MultiheadAttention", "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell",
            "LSTMCell", "GRUCell"]

# -- activations, losses, containers, plumbing (issue 19) --------------------------------------
from minigrad.nn.activation import (  # noqa: E402
    ELU,
    GELU,
    SELU,
    Hardtanh,
    LeakyReLU,
    Mish,
    ReLU6,
    SiLU,
    Softmin,
    Softplus,
)
from minigrad.nn.containers import ModuleDict  # noqa: E402
from minigrad.nn.losses import HuberLoss, KLDivLoss, L1Loss, SmoothL1Loss  # noqa: E402
from minigrad.nn.parameter_containers import ParameterDict, ParameterList  # noqa: E402

__all__ += ["ModuleDict", "ParameterList", "ParameterDict"]

__all__ += ["L1Loss", "SmoothL1Loss", "HuberLoss", "KLDivLoss"]
__all__ += ["GELU", "LeakyReLU", "ELU", "SELU", "SiLU", "Softplus", "Hardtanh", "ReLU6", "Mish",
            "Softmin"]

from minigrad.nn.transformer import TransformerEncoder, TransformerEncoderLayer  # noqa: E402

__all__ += ["TransformerEncoderLayer", "TransformerEncoder"]

# -- EmbeddingBag, Bilinear, DataParallel (issue 36) -------------------------------------------
from minigrad.nn.data_parallel import DataParallel  # noqa: E402
from minigrad.nn.layers import Bilinear  # noqa: E402
from minigrad.nn.sparse import EmbeddingBag  # noqa: E402

__all__ += ["EmbeddingBag", "Bilinear", "DataParallel"]
