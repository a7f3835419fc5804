"""Layers: Linear, the activations, Dropout, Flatten, Identity (as in torch.nn)."""

from __future__ import annotations

import math
from typing import Any

from minigrad import ops
from minigrad.autograd.tensor import Tensor
from minigrad.nn import functional as F
from minigrad.nn import init
from minigrad.nn.module import Module, Parameter
from minigrad.ops.unary import Relu
from minigrad.surface import dtypes
from minigrad.surface.factories import empty


class Linear(Module):
    """y = x @ weight.T + bias, with weight (out_features, in_features).

    Initialised as PyTorch does: weight and bias from U(-1/sqrt(in_features),
    1/sqrt(in_features)) (kaiming_uniform_ with a=sqrt(5)).
    """

    def __init__(self, in_features: int, out_features: int, bias: bool = True,
                 device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in_features, self.out_features = in_features, out_features
        dtype = dtype or dtypes.float32
        self.weight = Parameter(empty(out_features, in_features, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features) if self.in_features > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        # self.weight and self.bias, read from the registry directly: as attributes they are
        # found only after a failed lookup, through Module.__getattr__ (~1 us each). A weight
        # that is no parameter (parametrized: a property; weight-normed: an attribute) is read
        # as an attribute.
        params = self._parameters
        if "weight" in params and "bias" in params:
            return F.linear(input, params["weight"], params["bias"])
        # (replaced by plain attributes, as PyTorch's forward-mode tutorial does with duals)
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


class Bilinear(Module):
    """y = x1^T W x2 + b, W of shape (out_features, in1_features, in2_features)"""

    def __init__(self, in1_features: int, in2_features: int, out_features: int,
                 bias: bool = True, device: Any = None, dtype: Any = None) -> None:
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = Parameter(empty(out_features, in1_features, in2_features, device=device,
                                      dtype=dtype or dtypes.float32))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype or dtypes.float32,
                                        device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Weight and bias from U(-1/sqrt(in1_features), 1/sqrt(in1_features)), as PyTorch."""
        if self.in1_features <= 0:
            raise ValueError(f"in1_features must be > 0, but got (in1_features="
                             f"{self.in1_features})")
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
                f"out_features={self.out_features}, bias={self.bias is not None}")


class Identity(Module):
    """Returns its input unchanged (a placeholder layer)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class ReLU(Module):
    """max(x, 0) elementwise"""

    def __init__(self, inplace: bool = False) -> None:
        super().__init__()
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        if self.inplace:
            return F.relu(input, inplace=True)
        return Relu.apply(input)  # (what F.relu does, one call less in every forward)

    def extra_repr(self) -> str:
        return "inplace=True" if self.inplace else ""


class Tanh(Module):
    """tanh elementwise"""

    def forward(self, input: Tensor) -> Tensor:
        return F.tanh(input)


class Sigmoid(Module):
    """1 / (1 + exp(-x)) elementwise"""

    def forward(self, input: Tensor) -> Tensor:
        return F.sigmoid(input)


class Softmax(Module):
    """exp(x) / sum(exp(x)) along `dim`"""

    def __init__(self, dim: int | None = None) -> None:
        super().__init__()
        self.dim = dim

    def forward(self, input: Tensor) -> Tensor:
        return F.softmax(input, self.dim)

    def extra_repr(self) -> str:
        return f"dim={self.dim}"


class LogSoftmax(Softmax):
    """log(softmax(x)) along `dim`"""

    def forward(self, input: Tensor) -> Tensor:
        return F.log_softmax(input, self.dim)


class Dropout(Module):
    """In training mode, zero each element with probability p and scale the rest by 1/(1-p);
    in eval mode, do nothing."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Flatten(Module):
    """Merge dims start_dim..end_dim into one (by default all but the batch dim)."""

    def __init__(self, start_dim: int = 1, end_dim: int = -1) -> None:
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input: Tensor) -> Tensor:
        return ops.flatten(input, self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"
