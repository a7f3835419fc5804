"""Loss functions, each one op (one node), as PyTorch records them.

`mse_loss` is `MseLossBackward0[input, target]`, `nll_loss` is `NllLossBackward0[input]` (the
integer labels get no edge), `binary_cross_entropy` and `..._with_logits` have edges to input
and target. Options (reduction, weights, labels) are passed to `apply` as keywords, so they
are not inputs of the node.

`reduction` is 'mean' (divide by the number of elements; for nll_loss by the summed class
weights), 'sum' or 'none' (one loss per element). Backward first spreads the incoming
gradient over the elements (`_spread`), then applies the elementwise derivative.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd import tensor as _tensor  # resolved at call time (tensor.py imports the ops)
from minigrad.autograd.function import Function
from minigrad.ops.base import constant
from minigrad.ops.tangent_rules import linear
from minigrad.ops.views import unsqueeze_array

REDUCTIONS = ("mean", "sum", "none")


def check_reduction(reduction: str) -> None:
    if reduction not in REDUCTIONS:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(values: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "mean":
        return np.asanyarray(values.mean(), dtype=values.dtype)
    if reduction == "sum":
        return np.asanyarray(values.sum(), dtype=values.dtype)
    return values


def _reduced(values: Any, reduction: str) -> Any:
    """`_reduce` in Tensor ops (a JVP rule's tangent of the losses)."""
    return values.mean() if reduction == "mean" else values.sum() if reduction == "sum" \
        else values


def _weighted(ctx: Any, values: Any) -> Any:
    """`values` times the per-element weights, when the loss has them (`weight=`)."""
    return values if ctx.weight is None else values * constant(ctx.weight)


def _spread(ctx: Any, grad: Any) -> Any:
    """What each element's loss receives of the incoming gradient."""
    return grad / ctx.numel if ctx.reduction == "mean" else grad


def _spread_weighted(ctx: Any, grad: Any) -> Any:
    """`_spread`, times the per-element weights when the loss has them (`ctx.weight`)."""
    g = _spread(ctx, grad)
    return g if ctx.weight is None else g * constant(ctx.weight)


class MseLoss(Function, numpy_forward=True):
    """(input - target)^2, averaged or summed"""

    node_name = "MseLossBackward0"
    formula = r"d mse/dinput = 2*(input - target) * grad / N ;  d mse/dtarget = -2*(input - " \
        r"target) * grad / N   (N = number of elements for 'mean', 1 otherwise)"
    source = "mse_loss({args})"
    gradients = ()
    tangent = "reduce(2 * ({0} - {1}) * ({t0} - {t1}))"

    @staticmethod
    def forward(ctx, input, target, *, reduction="mean"):
        ctx.save_for_backward(input, target)
        ctx.reduction = reduction
        diff = input.array - target.array
        ctx.numel = diff.size
        return _reduce(diff * diff, reduction)

    @staticmethod
    def backward(ctx, grad):
        input, target = ctx.unpack_saved()
        d = _spread(ctx, grad) * 2 * (input - target)
        need_input, need_target = ctx.needs_input_grad
        return d if need_input else None, -d if need_target else None

    @staticmethod
    def jvp(ctx, tx, tt):
        x, t = ctx.inputs
        return _reduced((x - t) * (tx - tt) * 2, ctx.reduction)


class NllLoss(Function, numpy_forward=True):
    """-input[n, target[n]] (negative log-likelihood of the labelled class)"""

    node_name = "NllLossBackward0"
    pytorch_keeps = {"self": 0}
    formula = r"d nll/dinput[n, c] = -w[c] * grad / sum(w[target]) if c == target[n], else 0" \
        r"   (w = class weights, 1 by default; '/ sum' only for 'mean')"
    source = "nll_loss({0}, target)"
    gradients = ()
    tangent = "nll_loss({t0}, target)"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, input, *, target, weight=None, reduction="mean", ignore_index=-100):
        # ignore_index=None: the caller (F.nll_loss) found no label that can be ignored
        x, labels = input.array, np.asanyarray(target)
        single = x.ndim == 1  # one sample: input (C,), target ()
        if x.ndim == 2 and weight is None and len(labels) and (
                ignore_index is None or not (labels == ignore_index).any()):
            out, coef = _nll_plain(x, labels, reduction)
        else:
            out, coef = _nll_general(x, labels, weight, reduction, ignore_index)
        ctx.save_for_backward(_tensor.make(coef, None, 0))  # (coef: always an array)
        ctx.reduction, ctx.single = reduction, single
        ctx.keep_as_pytorch(target=labels, total_weight=_total_weight(
            x, labels, weight, ignore_index))  # (as PyTorch's node)
        return out

    @staticmethod
    def backward(ctx, grad):
        (coef,) = ctx.unpack_saved()
        if ctx.reduction == "none" and not ctx.single:
            grad = grad.unsqueeze(1)  # one loss per sample: broadcast over the classes
        return grad * coef

    @staticmethod
    def backward_arrays(ctx, grad):
        """The same gradient as `backward`, in numpy alone (used when nothing is recorded)."""
        (coef,) = ctx.unpack_saved()
        if ctx.reduction == "none" and not ctx.single:
            grad = unsqueeze_array(grad, 1)
        return grad * coef.array


# speed: the MLP step bench is 3-8% slower without it (A/B in one process, noisy machine)
def _total_weight(x: np.ndarray, labels: np.ndarray, weight: Any, ignore_index: Any
                  ) -> np.ndarray:
    """The summed weight of the labels not ignored (PyTorch's node keeps it)."""
    valid = labels != ignore_index if ignore_index is not None else np.ones(labels.shape, bool)
    w = np.ones(x.shape[0 if x.ndim == 1 else 1], x.dtype) if weight is None else weight
    return np.asanyarray((w[np.where(valid, labels, 0)] * valid).sum(), x.dtype)


def _nll_plain(x: np.ndarray, labels: np.ndarray, reduction: str) -> tuple:
    """The usual case, input (N, C) with N > 0, no class weights and no ignored label: every
    sample weighs 1. Same results as `_nll_general`, with plain integer indexing (~4x faster)."""
    n = len(labels)
    rows = np.arange(n)
    losses = -x[rows, labels]
    coef = np.zeros(x.shape, x.dtype)  # d(sum of losses)/dx
    if reduction == "mean":
        total = x.dtype.type(n)  # the summed weights: one per sample
        # -1 / total written where the -1s go (the zeros divided by total stay +0.0): the
        # bits of `coef / total`, without a second array
        coef[rows, labels] = x.dtype.type(-1) / total
        return np.asanyarray(np.add.reduce(losses, axis=None) / total), coef
    coef[rows, labels] = -1
    if reduction == "sum":
        return np.asanyarray(np.add.reduce(losses, axis=None)), coef
    return losses, coef


def _nll_general(x: np.ndarray, labels: np.ndarray, weight: Any, reduction: str,
                 ignore_index: int | None) -> tuple:
    """Any input (C,), (N, C) or (N, C, d1, ...), class weights, ignored labels.

    Returns the loss and its gradient with respect to x (for an incoming gradient of 1).
    """
    single = x.ndim == 1
    xs = np.moveaxis(x[None] if single else x, 1, -1)  # (N, *d, C): classes last
    labels = labels[None] if single else labels
    valid = np.full(labels.shape, True) if ignore_index is None else labels != ignore_index
    safe = np.where(valid, labels, 0)
    w = np.ones(x.shape[0 if single else 1], x.dtype) if weight is None else weight
    w_picked = (w[safe] * valid).astype(x.dtype)
    picked = np.take_along_axis(xs, safe[..., None], -1)[..., 0]
    losses = -w_picked * picked
    coef = np.zeros_like(xs)  # d(sum of losses)/dx, classes last
    np.put_along_axis(coef, safe[..., None], -w_picked[..., None], -1)
    if reduction == "mean":
        total = w_picked.sum()
        with np.errstate(invalid="ignore", divide="ignore"):
            out, coef = np.asanyarray(losses.sum() / total, x.dtype), coef / total
    elif reduction == "sum":
        out = np.asanyarray(losses.sum(), x.dtype)
    else:
        out = losses[0] if single else losses
    return out, coef[0] if single else np.moveaxis(coef, -1, 1)


class BinaryCrossEntropy(Function, numpy_forward=True):
    """-(target*log(input) + (1-target)*log(1-input)), logs clamped at -100 as in PyTorch"""

    node_name = "BinaryCrossEntropyBackward0"
    formula = r"d bce/dinput = w * (input - target) / (input*(1 - input)) * grad ;  " \
        r"d bce/dtarget = w * (log(1-input) - log(input)) * grad"
    source = "binary_cross_entropy({args})"
    gradients = ()
    tangent = "reduce(w * (({0}-{1}) / ({0}(1-{0})) * {t0} + (log(1-{0}) - log {0}) * {t1}))"

    @staticmethod
    def forward(ctx, input, target, *, weight=None, reduction="mean"):
        x, t = input.array, target.array
        if not np.all((x >= 0) & (x <= 1)):  # (NaN too)
            raise RuntimeError("all elements of input should be between 0 and 1 "
                               "(binary_cross_entropy expects probabilities: apply sigmoid "
                               "first, or use binary_cross_entropy_with_logits)")
        if not np.all((t >= 0) & (t <= 1)):
            raise RuntimeError("all elements of target should be between 0 and 1")
        with np.errstate(divide="ignore"):
            log_x = np.maximum(np.log(x), -100)
            log_1mx = np.maximum(np.log(1 - x), -100)
        losses = -(t * log_x + (1 - t) * log_1mx)
        if weight is not None:
            losses = losses * weight
        ctx.save_for_backward(input, target)
        ctx.weight, ctx.reduction, ctx.numel = weight, reduction, losses.size
        return _reduce(losses.astype(x.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, grad):
        x, t = ctx.unpack_saved()
        g = _spread_weighted(ctx, grad)
        need_input, need_target = ctx.needs_input_grad
        d_input = d_target = None
        if need_input:
            d_input = g * (x - t) / ((1 - x) * x).clamp(min=1e-12)
        if need_target:
            d_target = g * ((1 - x).log().clamp(min=-100) - x.log().clamp(min=-100))
        return d_input, d_target

    @staticmethod
    def jvp(ctx, tx, tt):
        x, t = ctx.inputs
        by_x = tx * (x - t) / ((1 - x) * x).clamp(min=1e-12)
        by_t = tt * ((1 - x).log().clamp(min=-100) - x.log().clamp(min=-100))
        return _reduced(_weighted(ctx, by_x + by_t), ctx.reduction)


def _softplus(x: Any) -> Any:
    """log(1 + e^x), computed without overflow (Tensor ops, so it can be differentiated)"""
    # maximum(x, 0) sends half the gradient at x == 0, so the kinks of the two terms cancel
    # and the derivative is sigmoid(0) = 0.5 there (relu would give 0)
    return x.maximum(constant(np.zeros((), x.array.dtype))) + ((-x.abs()).exp() + 1).log()


class BinaryCrossEntropyWithLogits(Function, numpy_forward=True):
    """binary cross-entropy of sigmoid(input), computed stably from the logits"""

    node_name = "BinaryCrossEntropyWithLogitsBackward0"
    formula = r"d bce/dinput = w * (sigmoid(input)*(pw*target + 1 - target) - pw*target) * " \
        r"grad ;  d bce/dtarget = w * (pw*softplus(-input) - softplus(input)) * grad" \
        r"   (pw = pos_weight, 1 by default)"
    source = "binary_cross_entropy_with_logits({args})"
    gradients = ()
    tangent = ("reduce(w * (sigmoid({0}) (pw {1} + 1 - {1}) - pw {1}) * {t0} + "
               "w * (pw softplus(-{0}) - softplus({0})) * {t1})")

    @staticmethod
    def forward(ctx, input, target, *, weight=None, pos_weight=None, reduction="mean"):
        x, t = input.array, target.array
        softplus_neg = np.log1p(np.exp(-np.abs(x))) + np.maximum(-x, 0)  # -log(sigmoid(x))
        if pos_weight is None:
            losses = (1 - t) * x + softplus_neg
        else:
            losses = (1 - t) * x + (1 + (pos_weight - 1) * t) * softplus_neg
        if weight is not None:
            losses = losses * weight
        ctx.save_for_backward(input, target)
        ctx.weight, ctx.pos_weight = weight, pos_weight
        ctx.reduction, ctx.numel = reduction, losses.size
        return _reduce(losses.astype(x.dtype, copy=False), reduction)

    @staticmethod
    def backward(ctx, grad):
        x, t = ctx.unpack_saved()
        g = _spread_weighted(ctx, grad)
        pw = 1 if ctx.pos_weight is None else constant(ctx.pos_weight)
        need_input, need_target = ctx.needs_input_grad
        d_input = d_target = None
        if need_input:
            d_input = g * (x.sigmoid() * (pw * t + 1 - t) - pw * t)
        if need_target:
            d_target = g * (pw * _softplus(-x) - _softplus(x))
        return d_input, d_target

    @staticmethod
    def jvp(ctx, tx, tt):
        x, t = ctx.inputs
        pw = 1 if ctx.pos_weight is None else constant(ctx.pos_weight)
        by_x = tx * (x.sigmoid() * (pw * t + 1 - t) - pw * t)
        by_t = tt * (pw * _softplus(-x) - _softplus(x))
        return _reduced(_weighted(ctx, by_x + by_t), ctx.reduction)


class NllLoss2d(NllLoss):
    """-input[n, target[n, d...], d...] for inputs (N, C, d1, ...): PyTorch's nll_loss2d"""

    node_name = "NllLoss2DBackward0"


class HuberLoss(Function, numpy_forward=True):
    """0.5 * d^2 where |d| < delta, else delta * (|d| - 0.5 * delta), d = input - target"""

    node_name = "HuberLossBackward0"
    formula = r"d huber/dinput = clamp(input - target, -delta, delta) * grad / N ;  " \
        r"d huber/dtarget = -(the same)"
    source = "huber_loss({args})"
    gradients = ()
    tangent = "reduce(clamp({0} - {1}, -delta, delta) * ({t0} - {t1}))"

    @staticmethod
    def forward(ctx, input, target, *, reduction="mean", delta=1.0, scale=1.0):
        # (scale: smooth_l1_loss is huber_loss with delta = beta, divided by beta)
        ctx.save_for_backward(input, target)
        ctx.reduction, ctx.delta, ctx.scale = reduction, delta, scale
        d = input.array - target.array
        ctx.numel = d.size
        a = np.abs(d)
        losses = np.where(a < delta, 0.5 * d * d, delta * (a - 0.5 * delta))
        if scale != 1.0:
            losses = losses * scale
        return _reduce(losses.astype(d.dtype, copy=False), reduction)

    # (`ctx.refused`: huber_loss of two dtypes, whose backward PyTorch refuses, functional)
    @staticmethod
    def backward(ctx, grad):
        refused = getattr(ctx, "refused", None)
        if refused:
            raise RuntimeError(refused)
        input, target = ctx.unpack_saved()
        d = _spread(ctx, grad) * (input - target).clamp(-ctx.delta, ctx.delta)
        d = d * ctx.scale if ctx.scale != 1.0 else d
        need_input, need_target = ctx.needs_input_grad
        return d if need_input else None, -d if need_target else None

    @staticmethod
    def jvp(ctx, tx, tt):
        x, t = ctx.inputs
        per = (x - t).clamp(-ctx.delta, ctx.delta) * (tx - tt)
        scale = ctx.settings.get("scale", 1.0)  # (smooth_l1_loss's 1 / beta)
        return _reduced(per * scale if scale != 1.0 else per, ctx.reduction)


class SmoothL1Loss(HuberLoss):
    """0.5 * d^2 / beta where |d| < beta, else |d| - 0.5 * beta: huber_loss(delta=beta) / beta"""

    node_name = "SmoothL1LossBackward0"
    formula = r"d smooth_l1/dinput = clamp(input - target, -beta, beta) / beta * grad / N ;  " \
        r"d smooth_l1/dtarget = -(the same)"
    source = "smooth_l1_loss({args})"
