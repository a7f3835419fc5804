"""Normalisation layers: batch norm, layer norm, group norm.

All three norms compute x_hat = (x - mean) / sqrt(var + eps) over some dims, then
`x_hat * weight + bias`: batch norm over the batch and positions of each channel, layer norm
over the last dims of each sample, group norm over each group of channels of each sample.
They share one backward (`input_grad`): the mean and the variance depend on every element
too, so the gradient of x is the plain one (grad * weight / std) minus its mean and minus
its part along x_hat. Backwards are Tensor ops, so they can be differentiated again.
"""

from __future__ import annotations

import math

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.base import constant


def normalized(x, dims: tuple, eps: float) -> tuple:
    """(x_hat, 1/std) over `dims`, in Tensor ops (biased variance, as the forward)."""
    centred = x - x.mean(dims, keepdim=True)
    invstd = ((centred * centred).mean(dims, keepdim=True) + eps) ** -0.5
    return centred * invstd, invstd


def input_grad(gh, xhat, invstd, dims: tuple):
    """d loss/dx from gh = d loss/dx_hat: invstd * (gh - mean(gh) - x_hat * mean(gh*x_hat))."""
    return invstd * (gh - gh.mean(dims, keepdim=True)
                     - xhat * (gh * xhat).mean(dims, keepdim=True))


def _normalize_array(x: np.ndarray, dims: tuple, eps: float) -> tuple:
    if x.size == 0:  # an empty batch: nothing to normalise, and no statistics of nothing
        shape = tuple(1 if d in dims else n for d, n in enumerate(x.shape))
        return x.copy(), np.zeros(shape, x.dtype), np.ones(shape, x.dtype)
    mean = x.mean(dims, keepdims=True)
    var = x.var(dims, keepdims=True)
    return (x - mean) / np.sqrt(var + eps), mean, var


def _affine(xhat: np.ndarray, weight, bias, shape: tuple) -> np.ndarray:
    if xhat.size == 0:  # (an empty batch: nothing to scale, whatever the weight's size)
        return xhat
    out = xhat if weight is None else xhat * weight.array.reshape(shape)
    return out if bias is None else out + bias.array.reshape(shape)


def _affine_jvp(th, xhat, w, tw, tb, shape: tuple):
    """The tangent of `x_hat * weight + bias` from x_hat's (th) and the parameters'."""
    out = th if w is None else th * w.reshape(shape) + xhat * tw.reshape(shape)
    return out if tb is None else out + tb.reshape(shape)


_NORM_FORMULA = r"x_hat = (x - mean) / sqrt(var + eps), y = x_hat * weight + bias ;  " \
    r"dx = (1/std) * (gh - mean(gh) - x_hat * mean(gh * x_hat)), gh = grad * weight ;  " \
    r"dweight = sum(grad * x_hat) ;  dbias = sum(grad)"


class NativeBatchNorm(Function, numpy_forward=True):
    """each channel normalised over the batch (and positions), then scaled and shifted"""

    node_name = "NativeBatchNormBackward0"
    pytorch_keeps = {"weight": 1}
    formula = _NORM_FORMULA + r"   (sums and means over the batch and positions; in eval " \
        r"mode mean and var are the running statistics, constants)"
    source = "batch_norm({args})"
    gradients = (None, "sum({g} * x_hat)", "sum({g})")
    tangent = "x_hat's tangent * weight + x_hat * {t1} + {t2}"

    @staticmethod
    def forward(ctx, input, weight, bias, *, running_mean, running_var, training, momentum,
                eps):
        x = input.array
        dims = (0, *range(2, x.ndim))
        shape = (1, -1) + (1,) * (x.ndim - 2)
        ctx.dims, ctx.shape, ctx.eps = dims, shape, eps
        ctx.batch_stats = training or running_mean is None
        if x.size == 0:  # (nothing to normalise: in the input's dtype if a float, else in the
            # weight's; PyTorch's graph of an empty batch saves the weight alone, if any)
            ctx.keep_as_pytorch(result1=np.empty(0, x.dtype), result2=np.empty(0, x.dtype))
            ctx.empty = [None if t is None else (t.array.shape, t.array.dtype)
                         for t in (input, weight, weight)]
            if weight is not None:  # (so a second backward is refused, as PyTorch's)
                ctx.save_for_backward(weight)
            kept = x.dtype.kind == "f" or weight is None
            return np.empty(x.shape, x.dtype if kept else weight.array.dtype)
        ctx.save_for_backward(input, weight)
        if ctx.batch_stats:
            xhat, mean, var = _normalize_array(x, dims, eps)
            ctx.keep_as_pytorch(result1=mean.reshape(-1), result2=(1 / np.sqrt(var + eps)
                                                                   ).reshape(-1))
            if training and running_mean is not None:  # in place, as PyTorch (no graph)
                n = x.size // x.shape[1]
                running_mean[...] = (1 - momentum) * running_mean + momentum * mean.reshape(-1)
                running_var[...] = (1 - momentum) * running_var + momentum * var.reshape(-1) \
                    * n / max(n - 1, 1)
        else:
            mean = running_mean.reshape(shape).astype(x.dtype)
            invstd = 1 / np.sqrt(running_var.reshape(shape).astype(x.dtype) + eps)
            xhat = (x - mean) * invstd
            ctx.stats = mean, invstd
            ctx.keep_as_pytorch(result1=np.empty(0, x.dtype), result2=np.empty(0, x.dtype))
        return _affine(xhat, weight, bias, shape).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        empty = getattr(ctx, "empty", None)
        if empty is not None:  # (an empty batch: zero gradients, each of its input's shape)
            if empty[1] is not None:  # (the weight was saved: freed by a first backward)
                ctx.unpack_saved()
            return tuple(constant(np.zeros(*kept)) if need and kept else None
                         for kept, need in zip(empty, ctx.needs_input_grad))
        x, w = ctx.unpack_saved()
        need_x, need_w, need_b = ctx.needs_input_grad
        dims, shape = ctx.dims, ctx.shape
        if ctx.batch_stats:
            xhat, invstd = normalized(x, dims, ctx.eps)
        else:
            mean, inv = ctx.stats
            invstd = constant(inv)
            xhat = (x - constant(mean)) * invstd
        gx = None
        if need_x:
            gh = grad if w is None else grad * w.reshape(shape)
            gx = input_grad(gh, xhat, invstd, dims) if ctx.batch_stats else gh * invstd
        return (gx, (grad * xhat).sum(dims) if need_w else None,
                grad.sum(dims) if need_b else None)

    @staticmethod
    def jvp(ctx, tx, tw, tb):
        x, w, _ = ctx.inputs
        dims, shape = (0, *range(2, x.ndim)), (1, -1) + (1,) * (x.ndim - 2)
        if ctx.training or ctx.running_mean is None:
            xhat, invstd = normalized(x, dims, ctx.eps)
            th = input_grad(tx, xhat, invstd, dims)  # (the normalisation's Jacobian is symmetric)
        else:
            invstd = constant(1 / np.sqrt(ctx.running_var.reshape(shape).astype(x.dtype) + ctx.eps))
            xhat = (x - constant(ctx.running_mean.reshape(shape).astype(x.dtype))) * invstd
            th = tx * invstd
        return _affine_jvp(th, xhat, w, tw, tb, shape)


class NativeLayerNorm(Function, numpy_forward=True):
    """each sample normalised over its last dims, then scaled and shifted elementwise"""

    node_name = "NativeLayerNormBackward0"
    pytorch_keeps = {"weight": 1, "bias": 2}
    formula = _NORM_FORMULA + r"   (means over the normalised last dims; sums over the rest)"
    source = "layer_norm({args})"
    gradients = (None, "sum({g} * x_hat)", "sum({g})")
    tangent = "x_hat's tangent * weight + x_hat * {t1} + {t2}"

    @staticmethod
    def forward(ctx, input, weight, bias, *, normalized_shape, eps):
        x = input.array
        k = len(normalized_shape)
        ctx.dims, ctx.rest = tuple(range(x.ndim - k, x.ndim)), tuple(range(x.ndim - k))
        ctx.eps = eps
        xhat, mean, var = _normalize_array(x, ctx.dims, eps)
        ctx.keep_as_pytorch(result1=mean, result2=1 / np.sqrt(var + eps))
        ctx.save_for_backward(input, weight)
        return _affine(xhat, weight, bias, tuple(normalized_shape)).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.unpack_saved()
        need_x, need_w, need_b = ctx.needs_input_grad
        xhat, invstd = normalized(x, ctx.dims, ctx.eps)
        gx = input_grad(grad if w is None else grad * w, xhat, invstd, ctx.dims) \
            if need_x else None
        return (gx, (grad * xhat).sum(ctx.rest) if need_w else None,
                grad.sum(ctx.rest) if need_b else None)

    @staticmethod
    def jvp(ctx, tx, tw, tb):
        x, w, _ = ctx.inputs
        dims = tuple(range(x.ndim - len(ctx.normalized_shape), x.ndim))
        xhat, invstd = normalized(x, dims, ctx.eps)
        th = input_grad(tx, xhat, invstd, dims)
        return _affine_jvp(th, xhat, w, tw, tb, tuple(ctx.normalized_shape))


class NativeGroupNorm(Function, numpy_forward=True):
    """each group of channels of each sample normalised, then scaled and shifted per channel"""

    node_name = "NativeGroupNormBackward0"
    pytorch_keeps = {"weight": 1}
    formula = _NORM_FORMULA + r"   (means over each group's channels and positions)"
    source = "group_norm({args})"
    gradients = (None, "sum({g} * x_hat)", "sum({g})")
    tangent = "x_hat's tangent * weight + x_hat * {t1} + {t2}"

    @staticmethod
    def forward(ctx, input, weight, bias, *, num_groups, eps):
        x = input.array
        grouped = x.reshape(x.shape[0], num_groups, math.prod(x.shape[1:]) // num_groups)
        xhat, mean, var = _normalize_array(grouped, (2,), eps)
        xhat = xhat.reshape(x.shape)
        ctx.keep_as_pytorch(result1=mean[..., 0], result2=1 / np.sqrt(var[..., 0] + eps))
        ctx.groups, ctx.eps = num_groups, eps
        ctx.shape, ctx.dims = (1, -1) + (1,) * (x.ndim - 2), (0, *range(2, x.ndim))
        ctx.save_for_backward(input, weight)
        return _affine(xhat, weight, bias, ctx.shape).astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        x, w = ctx.unpack_saved()
        need_x, need_w, need_b = ctx.needs_input_grad
        per_group = (x.shape[0], ctx.groups, math.prod(x.shape[1:]) // ctx.groups)
        xhat, invstd = normalized(x.reshape(per_group), (2,), ctx.eps)
        gx = None
        if need_x:
            gh = (grad if w is None else grad * w.reshape(ctx.shape)).reshape(per_group)
            gx = input_grad(gh, xhat, invstd, (2,)).reshape(x.shape)
        xhat = xhat.reshape(x.shape)
        return (gx, (grad * xhat).sum(ctx.dims) if need_w else None,
                grad.sum(ctx.dims) if need_b else None)

    @staticmethod
    def jvp(ctx, tx, tw, tb):
        x, w, _ = ctx.inputs
        per_group = (x.shape[0], ctx.num_groups, -1)
        xhat, invstd = normalized(x.reshape(per_group), (2,), ctx.eps)
        th = input_grad(tx.reshape(per_group), xhat, invstd, (2,)).reshape(x.shape)
        shape = (1, -1) + (1,) * (x.ndim - 2)
        return _affine_jvp(th, xhat.reshape(x.shape), w, tw, tb, shape)
