"""`minigrad.nn.functional` (import it as `F`): layers and losses as plain functions.

Same names and arguments as `torch.nn.functional`; each checks its inputs with PyTorch's error
messages and then calls one op, so the graph has PyTorch's nodes.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minigrad import ops
from minigrad.autograd.grad_mode import is_grad_enabled
from minigrad.autograd.hooks import torch_type_name
from minigrad.autograd.tensor import Tensor
from minigrad.ops import losses as L
from minigrad.ops.bags import Trilinear
from minigrad.ops.base import constant, is_tensor
from minigrad.ops.products import linear
from minigrad.surface import dtypes, factories, meta

__all__ = [
    "one_hot", "bilinear",
    "linear", "relu", "relu_", "tanh", "sigmoid", "softmax", "log_softmax", "dropout", "mse_loss",
    "cross_entropy", "nll_loss", "binary_cross_entropy", "binary_cross_entropy_with_logits",
]


# -- activations -------------------------------------------------------------------------------
def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None
             ) -> Tensor:
    """y = x1^T W x2 + b for each output feature (W of shape (out, in1, in2)): PyTorch's
    graph, the inputs folded to rows, one TrilinearBackward0, a view back, + bias."""
    d1, d2 = input1.ndim, input2.ndim
    if d1 != d2:
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {d1} and {d2}")
    for i in range(d1 - 1):
        if input1.shape[i] != input2.shape[i]:
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {i}: "
                               f"got {input1.shape[i]} and {input2.shape[i]}")
    for k, x in ((1, input1), (2, input2)):
        if x.shape[-1] != weight.shape[k]:
            raise RuntimeError(f"bilinear(): input{k} size does not match weight size: got "
                               f"{x.shape[-1]} but expected {weight.shape[k]}")
    if bias is not None and bias.shape[0] != weight.shape[0]:
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.shape[0]} but expected {weight.shape[0]}")
    rows = Trilinear.apply(input1.reshape(-1, input1.shape[-1]), weight,
                           input2.reshape(-1, input2.shape[-1]))
    out = rows.reshape(tuple(input1.shape[:-1]) + (weight.shape[0],))
    return out if bias is None else out + bias


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(input, 0) elementwise (ReluBackward0); `inplace=True` writes it into input"""
    if inplace:
        return ops.inplace(input, lambda target, _: ops.relu(target), None)
    return ops.relu(input)


def relu_(input: Tensor) -> Tensor:
    """`relu(input, inplace=True)`: max(input, 0) written into input"""
    return relu(input, inplace=True)


def tanh(input: Tensor) -> Tensor:
    return ops.tanh(input)


def sigmoid(input: Tensor) -> Tensor:
    return ops.sigmoid(input)


def softmax_dim(ndim: int, name: str = "softmax") -> int:
    """The dim PyTorch picks when `dim` is not given (and warns about)."""
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=3)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
            ) -> Tensor:
    """exp(x) / sum(exp(x)) along `dim` (SoftmaxBackward0)"""
    return ops.softmax(input, softmax_dim(input.ndim) if dim is None else dim, dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None
                ) -> Tensor:
    """log(softmax(x)) along `dim`, computed stably (LogSoftmaxBackward0)"""
    return ops.log_softmax(input, softmax_dim(input.ndim, "log_softmax") if dim is None else dim,
                           dtype)


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False
            ) -> Tensor:
    """In training, zero each element with probability p and scale the rest by 1/(1-p).

    Recorded as `input * mask` (MulBackward0 with a constant mask), as in PyTorch, or with
    `inplace=True` as `input.mul_(mask)` (a leaf that requires grad refuses, in PyTorch's
    words); in evaluation (training=False) the input is returned unchanged.
    """
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0 or input.array.size == 0:  # (the input itself, as PyTorch)
        return input
    if p == 1:  # (all zeros, in the input's own dtype)
        mask = constant(np.zeros(input.array.shape, input.array.dtype))
    else:
        dtypes.check_cast(np.dtype(np.float32), input.array.dtype)  # (an int or bool input)
        keep = factories.generator().random(input.shape) >= p
        mask = constant((keep / (1.0 - p)).astype(input.dtype))
    return input.mul_(mask) if inplace else ops.mul(input, mask)


def one_hot(input: Tensor, num_classes: int = -1) -> Tensor:
    """Each integer class `c` as a row of zeros with a 1 at `c` (int64, one more dim; never
    recorded); `num_classes=-1`: one more than the largest class."""
    if not isinstance(input, Tensor) or input.array.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    labels = input.array
    if num_classes == -1 and meta.is_meta(labels):  # (the classes are values: none here)
        raise RuntimeError(meta.ITEM)
    if num_classes == -1:
        if labels.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(labels.max()) + 1
    if labels.size and labels.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if labels.size and labels.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor._make((labels[..., None] == np.arange(num_classes)).astype(np.int64), None, 0)


# -- losses ----------------------------------------------------------------------------------
def _array(value: Any) -> np.ndarray | None:
    return None if value is None else np.asanyarray(value.array if is_tensor(value) else value)


def mse_loss(input: Tensor, target: Any, size_average: bool | None = None,
             reduce: bool | None = None, reduction: str = "mean", weight: Any = None) -> Tensor:
    """mean (or sum) of (input - target)^2 (MseLossBackward0); with `weight`, PyTorch's
    pow, mul, sum, div (the mean divides by the weights' sum)"""
    reduction = _losses.legacy_reduction(size_average, reduce, reduction)
    L.check_reduction(reduction)
    input, target = _losses.broadcast_pair(input, target)
    if weight is not None:
        return _losses.weighted((input - target).pow(2), weight, input, reduction)
    input, target = _losses.promoted_pair(input, target, "mse_cpu")
    return L.MseLoss.apply(input, target, reduction=reduction)


def nll_loss(input: Tensor, target: Any, weight: Any = None, size_average: bool | None = None,
             ignore_index: int = -100, reduce: bool | None = None, reduction: str = "mean"
             ) -> Tensor:
    """-input[n, target[n]] averaged over the batch: input holds log-probabilities
    (NllLossBackward0; NllLoss2DBackward0 for inputs (N, C, d1, ...))"""
    _loss_input("nll_loss_nd", input)
    reduction = _losses.legacy_reduction(size_average, reduce, reduction)
    labels = target.array if isinstance(target, Tensor) else np.asanyarray(target)
    return _nll_loss(input, labels, weight, ignore_index, reduction)


def _loss_input(name: str, input: Any) -> None:
    """PyTorch's TypeError for a loss given an array, a list or a number as its input
    (`cross_entropy_loss(): argument 'input' (position 1) must be Tensor, not list`)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{torch_type_name(input)}")


def _nll_loss(input: Tensor, labels: np.ndarray, weight: Any, ignore_index: int,
              reduction: str) -> Tensor:
    """`nll_loss` of the labels' array (cross_entropy has it already): checks, then the op."""
    L.check_reduction(reduction)
    x_shape = input.array.shape
    if len(x_shape) != 2 or labels.shape != x_shape[:1]:  # not the usual (N, C) and N labels
        _losses.check_nll_shapes(x_shape, labels.shape)
        if len(x_shape) == 1 and labels.shape == (1,):
            labels = labels.reshape(())  # one sample: PyTorch takes its label as (1,) too
    if labels.dtype != np.int64 and labels.dtype != np.uint8:
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{dtypes.TORCH_NAMES.get(labels.dtype, labels.dtype.name)} "
                           "(class labels must be integers: "
                           "use minigrad.tensor([0, 2, 1]) or labels.long())")
    classes = x_shape[0] if len(x_shape) == 1 else x_shape[1]
    if weight is not None:
        _losses.check_class_weight(_array(weight), classes)
    if _check_labels(labels, classes, ignore_index) and not 0 <= ignore_index < classes:
        ignore_index = None  # no label can be the ignored one: NllLoss need not look for it
    if len(x_shape) <= 2:
        return L.NllLoss.apply(input, target=labels, weight=_array(weight), reduction=reduction,
                               ignore_index=ignore_index)
    return _losses.nll_loss2d(input, labels, _array(weight), reduction, ignore_index)


# the unsigned integer type of each size: a negative label seen as one is a huge number
_UNSIGNED = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}
# `_largest(a, None)` is a's largest element (a global: Python reads numpy's attributes slowly)
_largest = np.maximum.reduce


def _check_labels(labels: np.ndarray, classes: int, ignore_index: int) -> bool:
    """Every label is a class index in [0, classes), or ignore_index. True when every label
    is a class index."""
    if labels.size == 0 or _largest(labels.view(_UNSIGNED[labels.itemsize]), None) < classes:
        return True  # the usual case, told by one reduction (negatives are huge unsigned)
    bad = (labels != ignore_index) & ((labels < 0) | (labels >= classes))
    if bad.any():
        raise IndexError(f"Target {labels[bad].flat[0]} is out of bounds.")
    return False


def cross_entropy(input: Tensor, target: Any, weight: Any = None,
                  size_average: bool | None = None, ignore_index: int = -100,
                  reduce: bool | None = None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """nll_loss(log_softmax(input, 1), target): logits in, integer class labels as target.

    The graph is NllLossBackward0 <- LogSoftmaxBackward0, as PyTorch records it. A float
    target of the input's shape is read as class probabilities instead; `label_smoothing`
    mixes the target with the uniform distribution (both as PyTorch composes them, see
    functional_losses.py).
    """
    _loss_input("cross_entropy_loss", input)
    reduction = _losses.legacy_reduction(size_average, reduce, reduction)
    L.check_reduction(reduction)
    _losses.check_label_smoothing(label_smoothing)
    labels = target.array if isinstance(target, Tensor) else np.asanyarray(target)
    probabilities = labels.shape == tuple(input.shape)  # (as PyTorch reads them)
    if probabilities and labels.dtype.kind != "f":
        raise RuntimeError("Expected floating point type for target with class probabilities, "
                           f"got {dtypes.TORCH_NAMES.get(labels.dtype, labels.dtype.name)}")
    if input.array.ndim == 0:  # (the class dim, 1, does not exist)
        raise IndexError("Dimension out of range (expected to be in range of [-1, 0], but got 1)")
    dim = 0 if input.array.ndim == 1 else 1
    logp = ops.log_softmax(input, dim)
    if probabilities:
        return _losses.probability_cross_entropy(logp, _losses.as_target(target, input), weight,
                                                 ignore_index, reduction, label_smoothing)
    nll = _nll_loss(logp, labels, weight, ignore_index, reduction)
    if label_smoothing == 0.0:
        return nll
    return _losses.smoothed_cross_entropy(nll, logp, labels, weight, ignore_index, reduction,
                                          label_smoothing)


def binary_cross_entropy(input: Tensor, target: Any, weight: Any = None,
                         size_average: bool | None = None, reduce: bool | None = None,
                         reduction: str = "mean") -> Tensor:
    """-(t*log(p) + (1-t)*log(1-p)) for probabilities p (BinaryCrossEntropyBackward0)"""
    reduction = _losses.legacy_reduction(size_average, reduce, reduction)
    L.check_reduction(reduction)
    target = _losses.as_target(target, input)
    if target.shape != input.shape:
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input "
                         f"size ({input.shape}) is deprecated. Please ensure they have the same "
                         "size.")
    if target.dtype != input.dtype:
        raise RuntimeError(f"Found dtype {dtypes.TORCH_NAMES[target.array.dtype]} but expected "
                           f"{dtypes.TORCH_NAMES[input.array.dtype]}")
    if input.array.dtype.kind != "f":
        raise dtypes.kernel_error("binary_cross_entropy", input.array.dtype)
    if isinstance(weight, Tensor) and weight.requires_grad and is_grad_enabled():
        raise RuntimeError("The function 'binary_cross_entropy' is not differentiable with "
                           "respect to argument 'weight'. This input cannot have requires_grad "
                           "True.")
    return L.BinaryCrossEntropy.apply(input, target, weight=_array(weight), reduction=reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Any, weight: Any = None,
                                     size_average: bool | None = None,
                                     reduce: bool | None = None, reduction: str = "mean",
                                     pos_weight: Any = None) -> Tensor:
    """binary_cross_entropy(sigmoid(input), target), computed stably from the logits
    (BinaryCrossEntropyWithLogitsBackward0)"""
    reduction = _losses.legacy_reduction(size_average, reduce, reduction)
    L.check_reduction(reduction)
    target = _losses.as_target(target, input)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size "
                         f"({input.shape})")
    if input.array.dtype.kind != "f":
        raise dtypes.kernel_error("log_sigmoid_cpu", input.array.dtype)
    original, (input, target) = target, _losses.promoted_pair(input, target, "log_sigmoid_cpu",
                                                             out="target")
    return _losses.in_dtype(L.BinaryCrossEntropyWithLogits.apply(
        input, target, weight=_array(weight), pos_weight=_array(pos_weight), reduction=reduction),
        original)


# -- convolution, pooling, normalisation, embedding: their own files, re-exported here --------
from minigrad.nn import functional_conv, functional_norm, functional_pool  # noqa: E402
from minigrad.nn.functional_conv import *  # noqa: E402,F403
from minigrad.nn.functional_norm import *  # noqa: E402,F403
from minigrad.nn.functional_pool import *  # noqa: E402,F403

__all__ += [*functional_conv.__all__, *functional_pool.__all__, *functional_norm.__all__]

from minigrad.nn.functional_attention import scaled_dot_product_attention  # noqa: E402

__all__ += ["scaled_dot_product_attention"]


# -- more activations and losses (functional_activations.py, functional_losses.py) ----------
from minigrad.nn import functional_activations as _activations  # noqa: E402
from minigrad.nn import functional_losses as _losses  # noqa: E402
from minigrad.nn.functional_activations import *  # noqa: E402, F403
from minigrad.nn.functional_losses import *  # noqa: E402, F403

__all__ += _activations.__all__ + _losses.__all__
