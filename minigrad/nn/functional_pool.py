"""Pooling as functions (`F.max_pool1d/2d`, `F.avg_pool1d/2d`, `F.adaptive_avg_pool2d`,
`F.adaptive_max_pool2d`): PyTorch's arguments, defaults and error messages, then one op.

As in PyTorch, a 1-D pool is the 2-D one on a height of 1 (`unsqueeze(-2)`, the op,
`squeeze(-2)`), and an unbatched (C, H, W) input runs as a batch of one.
"""

from __future__ import annotations

from typing import Any

from minigrad import ops
from minigrad.autograd.tensor import Tensor
from minigrad.nn.functional_conv import ntuple
from minigrad.ops.base import pytorch_keeps_on
from minigrad.ops.out import takes_out
from minigrad.ops.pooling import (
    AdaptiveAvgPool2d,
    AdaptiveMaxPool2d,
    AvgPool2d,
    MaxPool2d,
    pool_geometry,
)
from minigrad.surface import dtypes

__all__ = ["max_pool1d", "max_pool2d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool2d",
           "adaptive_max_pool2d"]


def _planes(input: Tensor, name: str) -> Tensor:
    """A batched (N, C, H, W) or unbatched (C, H, W) input, as the ops take both: PyTorch's
    errors for other dims and for empty planes (an empty batch is computed)."""
    shape = list(input.shape)
    if name == "max_pool2d" and len(shape) not in (3, 4):
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if len(shape) < 3:  # (avg_pool2d reads dim -3 first)
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-len(shape)}, {len(shape) - 1}], but got -3)")
    if len(shape) not in (3, 4) or 0 in shape[-3:]:
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch "
                           f"size for input, but got:{shape}")
    if input.array.dtype.kind == "b":
        raise dtypes.kernel_error(name, input.array.dtype)
    return input


def _geometry(x: Tensor, kernel_size: Any, stride: Any, padding: Any, dilation: Any,
              ceil_mode: bool) -> dict:
    kernel = ntuple(kernel_size, 2, "kernel_size")
    stride = kernel if stride is None or stride == [] else ntuple(stride, 2, "stride")
    padding, dilation = ntuple(padding, 2, "padding"), ntuple(dilation, 2, "dilation")
    if 0 in stride:
        raise RuntimeError("stride should not be zero")
    for what, short, values in (("kernel size", "k", kernel), ("stride", "d", stride),
                                ("dilation", "dilation", dilation)):
        if min(values) <= 0:
            raise RuntimeError(f"{what} should be greater than zero, but got {short}H: "
                               f"{values[0]} {short}W: {values[1]}")
    if min(padding) < 0:
        raise RuntimeError(f"pad must be non-negative, but got pad: {min(padding)}")
    for p, k, d in zip(padding, kernel, dilation):
        if p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    dims = [pool_geometry(n, k, s, p, d, ceil_mode)
            for n, k, s, p, d in zip(x.shape[-2:], kernel, stride, padding, dilation)]
    outs = [o for o, _ in dims]
    if min(outs) < 1:
        c, h, w = x.shape[-3:]
        raise RuntimeError(f"Given input size: ({c}x{h}x{w}). Calculated output size: "
                           f"({c}x{outs[0]}x{outs[1]}). Output size is too small")
    return {"kernel": kernel, "stride": stride, "padding": tuple(p for _, p in dims),
            "ceil_mode": ceil_mode, "dilation": dilation}


def max_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """The max of each window (MaxPool2DWithIndicesBackward0); with return_indices also each
    max's index into its (H*W) plane."""
    x = _planes(input, "max_pool2d")
    out, indices = MaxPool2d.apply(x, **_geometry(x, kernel_size, stride, padding, dilation,
                                                  ceil_mode))
    if stride is None:  # (PyTorch's node shows a stride not given as ())
        pytorch_keeps_on(out, stride=())
    return (out, indices) if return_indices else out


@takes_out  # (PyTorch's binding takes out=)
def avg_pool2d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True,
               divisor_override: int | None = None) -> Tensor:
    """The mean of each window (AvgPool2DBackward0)."""
    x = _planes(input, "avg_pool2d")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    geo = _geometry(x, kernel_size, stride, padding, 1, ceil_mode)
    del geo["dilation"]
    out = AvgPool2d.apply(x, **geo, count_include_pad=count_include_pad,
                          divisor_override=divisor_override)
    return pytorch_keeps_on(out, stride=()) if stride is None else out


def _rows(input: Tensor, name: str) -> Tensor:
    """A 1-D pool's input (N, C, L) or (C, L) as planes of height 1."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"{name}: Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                           f"batch size for input, but got:{list(input.shape)}")
    return ops.unsqueeze(input, -2)


def _one_d(value: Any, default: Any = None) -> Any:
    value = default if value is None or value == [] else value
    return (1, ntuple(value, 1, "kernel_size")[0])


def max_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               dilation: Any = 1, ceil_mode: bool = False, return_indices: bool = False) -> Any:
    """max_pool2d on a height of 1 (unsqueeze, MaxPool2DWithIndicesBackward0, squeeze)"""
    _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices)
    out = max_pool2d(_rows(input, "max_pool1d"), _one_d(kernel_size),
                     _one_d(stride, kernel_size), (0, ntuple(padding, 1, "padding")[0]),
                     (1, ntuple(dilation, 1, "dilation")[0]), ceil_mode, return_indices)
    if return_indices:
        return ops.squeeze(out[0], -2), ops.squeeze(out[1], -2)
    return ops.squeeze(out, -2)


def _check_max_pool1d(input: Tensor, kernel_size: Any, stride: Any, padding: Any,
                      dilation: Any, ceil_mode: bool, return_indices: bool) -> None:
    """PyTorch's max_pool1d has checks (and words) of its own."""
    shape = list(input.shape)
    if len(shape) not in (2, 3) or 0 in shape[-2:]:
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{shape}")
    k = ntuple(kernel_size, 1, "kernel_size")[0]
    s = k if stride is None or stride == [] else ntuple(stride, 1, "stride")[0]
    p, d = ntuple(padding, 1, "padding")[0], ntuple(dilation, 1, "dilation")[0]
    for what, value in (("kernel_size", k), ("stride", s)):
        if value <= 0:
            raise RuntimeError(f"max_pool1d() {what} must be greater than zero, but got {value}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but "
                           f"got padding={p} and kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    out = pool_geometry(shape[-1], k, s, p, d, ceil_mode)[0]
    if out < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {out}")
    if input.array.dtype.kind != "f" and not return_indices:
        raise dtypes.kernel_error("max_pool1d_impl", input.array.dtype)


def avg_pool1d(input: Tensor, kernel_size: Any, stride: Any = None, padding: Any = 0,
               ceil_mode: bool = False, count_include_pad: bool = True) -> Tensor:
    """avg_pool2d on a height of 1 (unsqueeze, AvgPool2DBackward0, squeeze)"""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "avg_pool1d)")
    out = avg_pool2d(ops.unsqueeze(input, -2), _one_d(kernel_size),
                     _one_d(stride, kernel_size), (0, ntuple(padding, 1, "padding")[0]),
                     ceil_mode, count_include_pad)
    return ops.squeeze(out, -2)


def _output_size(input: Tensor, output_size: Any) -> tuple:
    """The (h, w) asked for, None keeping the input's (PyTorch's `_list_with_default`)."""
    if isinstance(output_size, int):
        return output_size, output_size
    wanted = tuple(output_size)
    if input.ndim <= len(wanted):
        raise ValueError(f"Input dimension should be at least {len(wanted) + 1}")
    wanted = tuple(n if o is None else o for o, n in zip(wanted, input.shape[-len(wanted):]))
    return ntuple(wanted, 2, "output_size")


def _adaptive(input: Tensor, size: tuple, name: str) -> tuple:
    if input.ndim not in (3, 4):
        raise RuntimeError(f"{name}(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    if min(size) < 0:
        raise RuntimeError(f"{name}(): elements of output_size must be greater than or equal "
                           f"to 0 but received {list(size)}")
    shape = list(input.shape)
    first = 1 if len(shape) == 3 or name == "adaptive_max_pool2d" else 2  # (channels may be 0)
    for d in range(first, len(shape)):
        if shape[d] == 0:
            raise RuntimeError(f"{name}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {shape} with dimension {d} "
                               "being empty")
    if input.array.dtype.kind != "f" and input.array.size:  # (nothing to compute: no kernel)
        raise dtypes.kernel_error(name, input.array.dtype)
    return size


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average over windows chosen to give an output of `output_size` (None: keep that dim).
    For an output of 1x1 PyTorch takes the mean of the last two dims (MeanBackward1, of any
    input of 2 dims or more), and so does minigrad."""
    size = _output_size(input, output_size)
    if size == (1, 1):
        return ops.mean(input, (-2, -1), keepdim=True)
    return AdaptiveAvgPool2d.apply(input, output_size=_adaptive(input, size,
                                                                "adaptive_avg_pool2d"))


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The max over windows chosen to give an output of `output_size`
    (AdaptiveMaxPool2DBackward0)."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: "
                           f"{list(input.shape)}")
    size = _adaptive(input, _output_size(input, output_size), "adaptive_max_pool2d")
    out, indices = AdaptiveMaxPool2d.apply(input, output_size=size)
    return (out, indices) if return_indices else out
