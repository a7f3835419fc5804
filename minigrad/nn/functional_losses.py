"""The losses of `torch.nn.functional` beyond mse/nll/bce (re-exported by
`minigrad.nn.functional`), and the parts of `cross_entropy` for probability targets and label
smoothing.

Where PyTorch computes a loss as one op (smooth_l1_loss, huber_loss) it is one node here too;
where PyTorch composes it from Tensor ops (l1_loss, kl_div, label smoothing, probability
targets) the same composition is recorded, so the graphs have PyTorch's shape.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minigrad import ops
from minigrad.autograd.broadcast import size_mismatch
from minigrad.autograd.tensor import Tensor
from minigrad.ops import loss_parts as P
from minigrad.ops import losses as L
from minigrad.ops.base import constant, is_tensor, promote_tensors
from minigrad.surface import dtypes

__all__ = ["l1_loss", "smooth_l1_loss", "huber_loss", "kl_div"]

KL_MEAN_WARNING = (
    "reduction: 'mean' divides the total loss by both the batch size and the support size."
    "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
    "'mean' will be changed to behave the same as 'batchmean' in the next major release.")


def legacy_reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """PyTorch's reading of the deprecated `size_average`/`reduce` arguments."""
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    new = "mean" if size_average and reduce else "sum" if reduce else "none"
    warnings.warn(f"size_average and reduce args will be deprecated, please use "
                  f"reduction='{new}' instead.", UserWarning, stacklevel=3)
    return new


def as_target(target: Any, input: Tensor) -> Tensor:
    """Targets may come as numpy arrays or lists; they become constant tensors."""
    if is_tensor(target):
        return target
    return constant(np.asanyarray(target, dtype=input.dtype))


def broadcast_pair(input: Tensor, target: Any, stacklevel: int = 3) -> tuple[Tensor, Tensor]:
    """(input, target) expanded to one shape, with PyTorch's warning when they differ (and
    its error when they do not broadcast), as PyTorch's losses do with broadcast_tensors."""
    target = as_target(target, input)
    if target.shape != input.shape:
        warnings.warn(f"Using a target size ({target.shape}) that is different to the input "
                      f"size ({input.shape}). This will likely lead to incorrect results due to "
                      "broadcasting. Please ensure they have the same size.", UserWarning,
                      stacklevel=stacklevel)
        mismatch = size_mismatch(input.shape, target.shape)
        if mismatch:
            raise RuntimeError(mismatch)
        shape = np.broadcast_shapes(input.shape, target.shape)
        input = input if input.shape == shape else ops.expand(input, *shape)
        target = target if target.shape == shape else ops.expand(target, *shape)
    return input, target


def promoted_pair(input: Tensor, target: Tensor, kernel: str, out: str = "") -> tuple:
    """(input, target) in their `torch.result_type` (PyTorch's losses compute in it), or
    the kernel's NotImplementedError for an integer one. `out`: "input" or "target" when
    the loss writes into that one's dtype (huber_loss, binary_cross_entropy_with_logits):
    PyTorch's error when the result type cannot be cast to it."""
    fixed = {"input": input, "target": target}.get(out)
    if fixed is not None:
        dtypes.check_cast(dtypes.result_type(input.array, target.array), fixed.array.dtype)
    input, target = promote_tensors(input, target)
    dtype = input.array.dtype
    if dtype.kind != "f":
        raise dtypes.kernel_error(kernel, dtype)
    return input, target


def in_dtype(loss: Tensor, like: Tensor) -> Tensor:
    """The loss in `like`'s dtype (where PyTorch writes it into that dtype)."""
    return loss if loss.array.dtype == like.array.dtype else loss.to(like.array.dtype)


def _reduced(losses: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.mean()


def _check_weight(weight: Any, input: Tensor) -> None:
    if weight is not None and tuple(weight.shape) != tuple(input.shape):
        raise ValueError("Weights and input must have the same size.")


def l1_loss(input: Tensor, target: Any, size_average: bool | None = None,
            reduce: bool | None = None, reduction: str = "mean", weight: Any = None) -> Tensor:
    """mean (or sum) of |input - target|, recorded as PyTorch does: MeanBackward0 <-
    AbsBackward0 <- SubBackward0 (sum(weight * |d|) / sum(weight) with `weight`)"""
    reduction = legacy_reduction(size_average, reduce, reduction)
    L.check_reduction(reduction)
    input, target = broadcast_pair(input, target)
    losses = (input - target).abs()
    return _reduced(losses, reduction) if weight is None else \
        weighted(losses, weight, input, reduction)


def weighted(losses: Tensor, weight: Tensor, input: Tensor, reduction: str) -> Tensor:
    """`weight * losses` reduced as PyTorch reduces a weighted l1/mse loss: "mean" divides
    by the sum of the weights"""
    _check_weight(weight, input)
    losses = losses * weight
    return losses.sum() / weight.sum() if reduction == "mean" else _reduced(losses, reduction)


def smooth_l1_loss(input: Tensor, target: Any, size_average: bool | None = None,
                   reduce: bool | None = None, reduction: str = "mean", beta: float = 1.0
                   ) -> Tensor:
    """0.5 * d^2 / beta where |d| < beta, else |d| - 0.5 * beta (SmoothL1LossBackward0;
    with beta=0 it is l1_loss, as in PyTorch)"""
    reduction = legacy_reduction(size_average, reduce, reduction)
    L.check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0.0:
        return l1_loss(input, target, reduction=reduction)
    input, target = promoted_pair(*broadcast_pair(input, target), "smooth_l1_cpu")
    beta = float(beta)
    return L.SmoothL1Loss.apply(input, target, reduction=reduction, delta=beta, scale=1 / beta)


def huber_loss(input: Tensor, target: Any, reduction: str = "mean", delta: float = 1.0,
               weight: Any = None) -> Tensor:
    """0.5 * d^2 where |d| < delta, else delta * (|d| - 0.5 * delta) (HuberLossBackward0)"""
    L.check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    original, (input, target) = input, broadcast_pair(input, target)
    if input.array.dtype.kind != "f" and input.array.dtype == target.array.dtype:
        raise dtypes.kernel_error("huber_cpu", input.array.dtype)
    mixed = target.array.dtype != input.array.dtype
    refused = f"Found dtype {dtypes.TORCH_NAMES[target.array.dtype]} but expected " \
        f"{dtypes.TORCH_NAMES[input.array.dtype]}"
    input, target = promoted_pair(input, target, "huber_cpu", out="input")
    if weight is not None:
        _check_weight(weight, input)
    losses = L.HuberLoss.apply(input, target, reduction="none" if weight is not None else
                               reduction, delta=float(delta))
    if mixed and losses.grad_fn is not None:  # (its forward computes; its backward refuses)
        losses.grad_fn.refused = refused
    if weight is not None:
        losses = _reduced(losses * weight, reduction)
    return in_dtype(losses, original)


def kl_div(input: Tensor, target: Any, size_average: bool | None = None,
           reduce: bool | None = None, reduction: str = "mean", log_target: bool = False
           ) -> Tensor:
    """sum of target * (log(target) - input): input holds log-probabilities, target
    probabilities (or log-probabilities with log_target=True).

    'batchmean' divides the sum by the batch size (the KL divergence per sample); 'mean'
    divides by the number of elements, and warns, as PyTorch does. A target that requires
    grad is differentiated through `target * log(target)` (zero where target is 0, with a nan
    gradient there): PyTorch records one XlogyBackward0 node there, minigrad a few nodes (the
    same gradient).
    """
    reduction = legacy_reduction(size_average, reduce, reduction)
    if reduction not in ("mean", "sum", "none", "batchmean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    target = as_target(target, input)
    if input.array.dtype.kind != "f" or target.array.dtype.kind != "f":
        raise RuntimeError("kl_div: Integral inputs not supported.")
    if reduction == "mean":
        warnings.warn(KL_MEAN_WARNING, UserWarning, stacklevel=2)
    if log_target:
        losses = target.exp() * (target - input)
    else:
        losses = _xlogx(target) - target * input
    if reduction == "batchmean":
        total = losses.sum()
        return total / input.shape[0] if input.ndim != 0 else total
    return _reduced(losses, reduction)


def _xlogx(t: Tensor) -> Tensor:
    """t * log(t), 0 where t == 0 (a constant when t needs no gradient, as xlogy's is)."""
    if not t.requires_grad:
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(t.array == 0, 0.0, t.array * np.log(t.array))
        return constant(values.astype(t.array.dtype))
    # where t == 0 the gradient is nan (0 * log 0), as PyTorch's xlogy gives it
    with np.errstate(divide="ignore", invalid="ignore"):
        return ops.where(constant(t.array == 0), constant(np.zeros((), t.array.dtype)),
                         t * t.log())


def check_nll_shapes(x: tuple, t: tuple) -> None:
    """PyTorch's errors for class labels of shape t that do not fit an input of shape x: (C,)
    with () or (1,), (N, C) with (N,), (N, C, d1, ...) with (N, d1, ...)."""
    if not x:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    batch = t[0] if t else 0
    if len(x) != 1 and x[0] != batch:
        raise ValueError(f"Expected input batch_size ({x[0]}) to match target batch_size "
                         f"({batch}).")
    if len(x) <= 2 and len(t) > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if len(x) == 1 and len(t) == 1 and t[0] != 1:
        raise ValueError(f"For 1D input, 1D target must have size 1, but got target size: "
                         f"{t[0]}")
    if len(x) == 4 and len(t) != 3:
        raise RuntimeError("only batches of spatial targets supported (3D tensors) but got "
                           f"targets of dimension: {len(t)}")
    if len(x) == 4 and t[1:] != x[2:]:
        raise RuntimeError(f"size mismatch (got input: {list(x)} , target: {list(t)}")
    if len(x) > 2 and t[1:] != x[2:]:
        raise RuntimeError(f"Expected target size {[x[0], *x[2:]]}, got {list(t)}")


def nll_loss2d(input: Tensor, labels: np.ndarray, weight: np.ndarray | None, reduction: str,
               ignore_index: int | None) -> Tensor:
    """nll_loss of an input (N, C, d1, ...), as PyTorch computes it: one NllLoss2DBackward0,
    with the input viewed as (N, C, 1, -1) first unless it is 4-D (and the losses viewed back
    to (N, d1, ...) for reduction='none')."""
    if input.ndim == 4:
        return L.NllLoss2d.apply(input, target=labels, weight=weight, reduction=reduction,
                                 ignore_index=ignore_index)
    n, c = input.shape[:2]
    flat = ops.view(input, n, c, 1, -1)
    out = L.NllLoss2d.apply(flat, target=labels.reshape(n, 1, -1), weight=weight,
                            reduction=reduction, ignore_index=ignore_index)
    return ops.view(out, n, *input.shape[2:]) if reduction == "none" else out


# -- cross_entropy's parts (the function itself is in functional.py) ------------------------
def check_label_smoothing(label_smoothing: float) -> None:
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: "
                           f"{label_smoothing:g}")


def check_class_weight(w: np.ndarray, classes: int, prefix: str = "") -> None:
    if w.shape != (classes,):
        raise RuntimeError(f"{prefix}weight tensor should be defined either for all {classes} "
                           f"classes or no classes but got weight tensor of shape: "
                           f"{list(w.shape)}")


def _class_weight(weight: Any, logp: Tensor, dim: int, prefix: str = "") -> Tensor:
    """The class weights as a constant shaped to broadcast along the class dim."""
    classes = logp.shape[dim]
    w = np.asanyarray(weight.array if is_tensor(weight) else weight)
    check_class_weight(w, classes, prefix)
    shape = [1] * logp.ndim
    shape[dim] = classes
    return constant(w.astype(logp.array.dtype).reshape(shape))


def probability_cross_entropy(logp: Tensor, target: Tensor, weight: Any, ignore_index: int,
                              reduction: str, label_smoothing: float) -> Tensor:
    """-(sum over classes of target * log_softmax(input)), targets being class probabilities.

    'mean' divides by the number of samples (N * d1 * ...), not by the weights, as PyTorch
    does; the graph is PyTorch's: DivBackward1 <- NegBackward0 <- SumBackward0 <- MulBackward0.
    """
    if ignore_index >= 0:
        raise RuntimeError("ignore_index is not supported for floating point target")
    dim = 0 if logp.ndim == 1 else 1
    classes = logp.shape[dim]
    if label_smoothing > 0:
        target = target * (1 - label_smoothing) + label_smoothing / classes
    product = logp * target
    if weight is not None:
        product = product * _class_weight(weight, logp, dim, "cross_entropy: ")
    if reduction == "none":
        return -product.sum(dim)
    if reduction == "sum":
        return -product.sum()
    return P.div_number(-product.sum(), logp.array.size // classes)


def smoothed_cross_entropy(nll: Tensor, logp: Tensor, labels: np.ndarray, weight: Any,
                           ignore_index: int, reduction: str, label_smoothing: float) -> Tensor:
    """(1 - eps) * nll_loss + eps / C * (the loss of a uniform target), as PyTorch composes
    it: AddBackward0 <- MulBackward1 (nll), MulBackward1 <- ... <- MaskedFillBackward0."""
    dim = 0 if logp.ndim == 1 else 1
    classes = logp.shape[dim]
    ignored = labels == ignore_index
    if weight is not None:
        w = _class_weight(weight, logp, dim)
        smooth = masked_fill(-(logp * w).sum(dim), ignored)
    else:
        smooth = masked_fill(-logp.sum(dim), ignored)
    if reduction == "mean":
        kept = labels[~ignored]
        total = np.asanyarray(weight.array if is_tensor(weight) else weight)[kept].sum() \
            if weight is not None else (~ignored).sum()
        smooth = smooth.sum() / constant(np.asanyarray(total, dtype=logp.array.dtype))
    elif reduction == "sum":
        smooth = smooth.sum()
    # (the smoothing term is scaled first: PyTorch's C++ makes its node first, so its
    # backward runs the nll term's node first, and so does minigrad's)
    scaled = P.mul_number(smooth, label_smoothing / classes)
    return P.mul_number(nll, 1 - label_smoothing) + scaled


def masked_fill(values: Tensor, mask: np.ndarray) -> Tensor:
    return P.masked_fill(values, mask=np.asanyarray(mask), value=0.0)
