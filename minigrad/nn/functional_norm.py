"""Normalisation and embedding as functions (`F.batch_norm`, `F.layer_norm`, `F.group_norm`,
`F.embedding`): PyTorch's arguments and error messages, then one op.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from minigrad.autograd.grad_mode import no_grad
from minigrad.autograd.tensor import Tensor
from minigrad.ops.bags import EmbeddingBag
from minigrad.ops.base import pytorch_keeps_on
from minigrad.ops.embedding import Embedding
from minigrad.ops.normalization import NativeBatchNorm, NativeGroupNorm, NativeLayerNorm
from minigrad.ops.out import write_out
from minigrad.surface import dtypes, meta
from minigrad.surface.size import Size

__all__ = ["batch_norm", "layer_norm", "group_norm", "embedding", "embedding_bag", "normalize"]


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:
    """input / max(||input||_p, eps) along `dim`: each slice scaled to norm 1 (PyTorch's graph:
    norm, clamp_min, expand, div)."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    return write_out(input / denom, out, "div")


def _array(t: Any) -> np.ndarray | None:
    return None if t is None else t.array


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
               weight: Tensor | None = None, bias: Tensor | None = None,
               training: bool = False, momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) over the batch and positions (NativeBatchNormBackward0).

    In training the batch's statistics are used and running_mean/running_var (if given) are
    updated in place: new = (1 - momentum) * old + momentum * batch (the variance unbiased).
    In eval the running statistics are used.
    """
    check_batch_norm(input, running_mean, running_var, weight, bias, training)
    if meta.in_use:  # (the running statistics are no inputs of the node: checked here)
        meta.check_inputs((input, running_mean, running_var))
    return NativeBatchNorm.apply(input, weight, bias, running_mean=_array(running_mean),
                                 running_var=_array(running_var), training=training,
                                 momentum=momentum, eps=eps)


def check_batch_norm(input: Tensor, running_mean: Any, running_var: Any, weight: Any,
                     bias: Any, training: bool) -> None:
    """PyTorch's errors for batch norm's arguments (none for an empty input)."""
    if input.array.size == 0:
        return
    c = input.shape[1] if input.ndim > 1 else 0
    for name, t in (("running_mean", running_mean), ("running_var", running_var),
                    ("weight", weight), ("bias", bias)):
        if t is not None and t.array.size != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.array.size}")
    if training and input.array.size // max(c, 1) == 1:  # (an empty batch is computed)
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {input.shape}")
    if input.array.dtype.kind != "f" and input.array.size:  # (an empty one runs no kernel)
        raise dtypes.kernel_error("batch_norm", input.array.dtype)
    check_same_dtype(input, running_mean, running_var, weight, bias)
    if not training and (running_mean is None or running_var is None):
        raise RuntimeError("running_mean and running_var must be defined in evaluation mode")


def check_same_dtype(input: Tensor, *params: Any, kernel: str = "") -> None:
    """PyTorch's error for a norm whose parameters or statistics are of another dtype than
    its input (a float16 input may have float32 ones); then, with `kernel`, its error for an
    input that is not a float."""
    dtype = input.array.dtype
    given = [t.array.dtype for t in params if t is not None]
    if any(d != dtype and not (dtype == np.float16 and d == np.float32) for d in given):
        raise RuntimeError("mixed dtype (CPU): " + (
            "expect parameter to have scalar type of Float" if any(d != np.float32 for d in given)
            else "all inputs must share same datatype."))
    if kernel and dtype.kind != "f" and input.array.size:
        raise dtypes.kernel_error(kernel, dtype)


def layer_norm(input: Tensor, normalized_shape: Any, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise each sample over its last dims, `normalized_shape` (NativeLayerNormBackward0)"""
    shape = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    check_same_dtype(input, weight, bias)  # (layer_norm checks the dtypes first)
    if tuple(input.shape[input.ndim - len(shape):]) != shape or len(shape) > input.ndim:
        raise RuntimeError(f"Given normalized_shape={list(shape)}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and tuple(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but "
                               f"got {name} of shape {list(t.shape)} and normalized_shape = "
                               f"{list(shape)}")
    if input.array.dtype.kind != "f":  # (even of an empty input)
        raise dtypes.kernel_error("LayerNormKernelImpl", input.array.dtype)
    return NativeLayerNorm.apply(input, weight, bias, normalized_shape=shape, eps=eps)


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-5) -> Tensor:
    """Normalise each group of channels of each sample (NativeGroupNormBackward0)"""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    shape = list(input.shape)
    size = [shape[0] * shape[1] // num_groups, num_groups, *shape[2:]]  # (PyTorch's check)
    if size[0] * math.prod(size[2:]) == 1:  # (train or eval)
        raise ValueError(f"Expected more than 1 value per channel when training, got input "
                         f"size {size}")
    if shape[1] % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {shape} and "
                           f"num_groups={num_groups}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and (t.ndim != 1 or t.shape[0] != shape[1]):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of "
                               f"channels in input, but got {name} of shape {list(t.shape)} "
                               f"and input of shape {shape}")
    check_same_dtype(input, weight, bias, kernel="GroupNormKernelImpl")
    return NativeGroupNorm.apply(input, weight, bias, num_groups=num_groups, eps=eps)


def embedding(input: Any, weight: Tensor, padding_idx: int | None = None,
              max_norm: float | None = None, norm_type: float = 2.0,
              scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """The rows of `weight` at the integer indices `input` (EmbeddingBackward0). The row
    `padding_idx` gets no gradient; with max_norm, the rows looked up are first rescaled in
    place to norm at most max_norm (as PyTorch's embedding_renorm_)."""
    indices = input.array if isinstance(input, Tensor) else np.asanyarray(input)
    if indices.dtype.kind not in "iu":
        kind = {"float32": "Float", "float64": "Double", "bool": "Bool"}.get(
            indices.dtype.name, indices.dtype.name)
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the "
                           f"following scalar types: Long, Int; but got minigrad.{kind}Tensor "
                           "instead (while checking arguments for embedding)")
    rows = weight.shape[0]
    if indices.size and (indices.min() < 0 or indices.max() >= rows):
        raise IndexError("index out of range in self")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding: scale_grad_by_freq and sparse are not supported "
                                  "by minigrad")
    if padding_idx is not None and padding_idx < 0:
        padding_idx += rows
    if max_norm is not None:
        _renorm(weight, indices, max_norm, norm_type)
    return Embedding.apply(weight, indices=indices, padding_idx=padding_idx)


def embedding_bag(input: Any, weight: Tensor, offsets: Any = None,
                  max_norm: float | None = None, norm_type: float = 2,
                  scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Per bag of indices the sum, mean or max of the rows of `weight` they pick (one
    EmbeddingBagBackward0): a 2-D `input` is one bag per row; a 1-D one is cut into bags at
    `offsets`. PyTorch's checks, in its order."""
    indices = input.array if isinstance(input, Tensor) else np.asanyarray(input)
    psw = per_sample_weights
    if psw is not None and psw.shape != tuple(indices.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({psw.shape}) is not None, "
                         f"then it must have the same shape as the input "
                         f"({Size(indices.shape)})")
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.ndim}")
    if indices.ndim == 2:
        if offsets is not None:
            kind = "<class 'minigrad.Tensor'>" if isinstance(offsets, Tensor) else type(offsets)
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {kind}")
        starts = np.arange(0, indices.size, max(indices.shape[1], 1))
        indices, include_last_offset = indices.reshape(-1), False
        psw = None if psw is None else psw.reshape(-1)
    elif indices.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        starts = offsets.array if isinstance(offsets, Tensor) else np.asanyarray(offsets)
        if starts.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{indices.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if mode == "max" and (scale_grad_by_freq or sparse):
        raise ValueError("max mode does not support scaling the gradient by the frequency"
                         if scale_grad_by_freq else "max mode does not support sparse weights")
    bad = np.flatnonzero((indices < 0) | (indices >= weight.shape[0]))
    if bad.size:
        raise RuntimeError(f"Index {bad[0]} of input takes value {indices[bad[0]]} which is not "
                           f"in the valid range [0, {weight.shape[0]})")
    if max_norm is not None:
        _renorm(weight, indices, max_norm, norm_type)
    if psw is not None and mode != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights was not None. "
                                  "per_sample_weights is only supported for mode='sum' "
                                  f"(got mode='{mode}'). Please open a feature request on "
                                  "GitHub.")
    if scale_grad_by_freq or sparse:
        raise NotImplementedError("embedding_bag: scale_grad_by_freq and sparse are not "
                                  "supported by minigrad")
    starts = starts.astype(np.int64)[:-1] if include_last_offset else starts.astype(np.int64)
    if padding_idx is not None and padding_idx < 0:
        padding_idx += weight.shape[0]
    out = EmbeddingBag.apply(weight, psw, indices=indices.astype(np.int64), offsets=starts,
                             mode=mode, padding_idx=padding_idx)
    offsets = np.asanyarray(offsets.array if isinstance(offsets, Tensor) else offsets) \
        if offsets is not None else starts  # (PyTorch's node keeps them as given, or made)
    return pytorch_keeps_on(out, offsets=offsets)


def _renorm(weight: Tensor, indices: np.ndarray, max_norm: float, norm_type: float) -> None:
    """Rescale, in place, the looked-up rows whose norm passes max_norm (no graph)."""
    with no_grad():
        table = weight.array
        picked = np.unique(indices)
        norms = np.linalg.norm(table[picked], ord=norm_type, axis=1)
        over = norms > max_norm
        scale = max_norm / (norms[over] + 1e-7)
        table[picked[over]] *= scale[:, None].astype(table.dtype)
    weight._bump_version()  # changed in place, as PyTorch's embedding_renorm_
