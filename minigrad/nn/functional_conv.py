"""Convolutions as functions (`F.conv1d`, `F.conv2d`, `F.conv_transpose2d`), and `F.unfold`,
`F.fold`, `F.pad`: PyTorch's arguments and error messages, then one op.

An unbatched input (C, *S) is run as a batch of one, as PyTorch does (`unsqueeze`, the op,
`squeeze`: the graph's root is then SqueezeBackward1).
"""

from __future__ import annotations

from typing import Any

from minigrad import ops
from minigrad.autograd.tensor import Tensor
from minigrad.ops.convolution import Convolution
from minigrad.ops.unfolding import Col2Im, ConstantPadNd, Im2Col
from minigrad.ops.windows import pairs
from minigrad.surface.dtypes import C_NAMES, TORCH_NAMES

__all__ = ["conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "unfold", "fold", "pad"]


def ntuple(value: Any, n: int, name: str = "") -> tuple:
    """An int as n copies; a tuple or list of n ints as it is (PyTorch's `_ntuple`)."""
    if isinstance(value, int):
        return (value,) * n
    value = tuple(value)
    if len(value) != n:
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                           f"values to match the convolution dimensions, but got {name}="
                           f"{list(value)}")
    return value


def _padding(padding: Any, kernel: tuple, stride: tuple, dilation: tuple) -> tuple:
    """(before, after) pairs: 'valid' is none, 'same' keeps the size (the odd one after)."""
    nd = len(kernel)
    if isinstance(padding, str):
        if padding == "valid":
            return ((0, 0),) * nd
        if padding != "same":
            raise RuntimeError(f"Invalid padding string: '{padding}'")
        if any(s != 1 for s in stride):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        total = [d * (k - 1) for k, d in zip(kernel, dilation)]
        return tuple((t // 2, t - t // 2) for t in total)
    padding = ntuple(padding, nd, "padding")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    return pairs(padding)


def _batch(input: Tensor, nd: int, name: str) -> tuple[Tensor, bool]:
    shape = list(input.shape)
    if len(shape) not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"{name}, but got input of size: {shape}")
    batched = len(shape) == nd + 2
    return (input if batched else ops.unsqueeze(input, 0)), batched


def _check_geometry(kernel: tuple, stride: tuple, padding: tuple, dilation: tuple, groups: int,
                    transposed: bool) -> None:
    """PyTorch's errors for a stride, dilation, padding, groups or kernel it cannot use."""
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    kernel, dilation = (1,) * (2 - len(kernel)) + kernel, (1,) * (2 - len(dilation)) + dilation
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"kernel size should be greater than zero, but got kernel_height: "
                           f"{kernel[0]} kernel_width: {kernel[1]}")
    if any(d == 0 for d in dilation):
        got = (f"dilation_height: {dilation[0]}, dilation_width: {dilation[1]}" if transposed
               else str(list(dilation)))
        raise RuntimeError(f"dilation should be greater than zero, but got {got}")


def _check_bias_dtype(x: Tensor, bias: Any) -> None:
    """A convolution checks its bias's dtype against the input's before anything else."""
    if bias is not None and bias.array.dtype != x.array.dtype:
        raise RuntimeError(f"Input type ({C_NAMES[x.array.dtype]}) and bias type "
                           f"({C_NAMES[bias.array.dtype]}) should be the same")


def _check_dtype(x: Tensor, weight: Tensor) -> tuple[Tensor, Tensor]:
    """... and its weight's last (a transposed one, its bias's neither); an empty batch runs
    no kernel and checks nothing: it is computed in the input's dtype, if a float, else in the
    weight's (both returned, in that dtype)."""
    if x.array.size == 0 and x.array.dtype != weight.array.dtype:
        if x.array.dtype.kind == "f":
            return x, weight.to(x.array.dtype)
        return x.to(weight.array.dtype), weight
    if x.array.dtype != weight.array.dtype:
        raise RuntimeError(f"expected scalar type {TORCH_NAMES[x.array.dtype]} but found "
                           f"{TORCH_NAMES[weight.array.dtype]}")
    return x, weight


def _check(x: Tensor, weight: Tensor, bias: Any, groups: int, transposed: bool) -> None:
    """PyTorch's errors for a weight that does not fit the input."""
    w, xs = list(weight.shape), list(x.shape)
    if len(w) != len(xs):
        raise RuntimeError(f"Expected {len(xs)}-dimensional weight for {len(xs)}-dimensional "
                           f"input {xs}, but got {len(w)}-dimensional weight of size {w} instead")
    if w[0] == 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {w} instead")
    if w[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size [{w}] instead")
    want = w[0] if transposed else w[1] * groups
    if xs[1] != want:
        given = "transposed=1" if transposed else f"groups={groups}"
        raise RuntimeError(f"Given {given}, weight of size {w}, expected input{xs} to have "
                           f"{want} channels, but got {xs[1]} channels instead")
    out = w[1] * groups if transposed else w[0]
    if bias is not None and list(bias.shape) != [out]:
        raise RuntimeError(f"Given weight of size {w}, expected bias to be 1-dimensional with "
                           f"{out} elements, but got bias of size {list(bias.shape)} instead")


def _check_planes(x: Tensor, nd: int) -> None:
    """PyTorch's refusal of an empty plane (an empty batch is computed, whatever its planes)."""
    if x.shape[0] and 0 in x.shape[2:]:  # (a 1-D one is run as 2-D, of height 1, in PyTorch)
        shown = [*x.shape[:2], 1, *x.shape[2:]] if nd == 1 else list(x.shape)
        raise RuntimeError("Only zero batch or zero channel inputs are supported, but got input "
                           f"shape: {shown}")


def _check_fits(sizes: tuple, kernel: tuple, pads: tuple, dilation: tuple) -> None:
    padded = [s + a + b for s, (a, b) in zip(sizes, pads)]
    spans = [d * (k - 1) + 1 for k, d in zip(kernel, dilation)]
    if any(s < k for s, k in zip(padded, spans)):
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, spans))}). Kernel size can't be greater "
                           "than actual input size")


def _conv(input: Tensor, weight: Tensor, bias: Any, stride: Any, padding: Any, dilation: Any,
          groups: int, nd: int) -> Tensor:
    _check_bias_dtype(input, bias)
    x, batched = _batch(input, nd, f"conv{nd}d")
    kernel = tuple(weight.shape[2:])
    stride, dilation = ntuple(stride, nd, "stride"), ntuple(dilation, nd, "dilation")
    _check_geometry(kernel, stride, () if isinstance(padding, str) else ntuple(
        padding, nd, "padding"), dilation, groups, transposed=False)
    _check(x, weight, bias, groups, transposed=False)
    pads = _padding(padding, kernel, stride, dilation)
    _check_fits(x.shape[2:], kernel, pads, dilation)
    _check_planes(x, nd)
    x, weight = _check_dtype(x, weight)
    out = Convolution.apply(x, weight, bias, stride=stride, padding=pads, dilation=dilation,
                            groups=groups)
    return out if batched else ops.squeeze(out, 0)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """1-D convolution: input (N, C, L), weight (O, C/groups, K) (ConvolutionBackward0)"""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride: Any = 1,
           padding: Any = 0, dilation: Any = 1, groups: int = 1) -> Tensor:
    """2-D convolution: input (N, C, H, W), weight (O, C/groups, kH, kW)
    (ConvolutionBackward0)"""
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2)


def _conv_transpose(input: Tensor, weight: Tensor, bias: Any, stride: Any, padding: Any,
                    output_padding: Any, groups: int, dilation: Any, nd: int) -> Tensor:
    x, batched = _batch(input, nd, f"conv_transpose{nd}d")
    kernel = tuple(weight.shape[2:])
    stride, dilation = ntuple(stride, nd, "stride"), ntuple(dilation, nd, "dilation")
    padding, extra = ntuple(padding, nd, "padding"), ntuple(output_padding, nd, "output_padding")
    _check_geometry(kernel, stride, padding, dilation, groups, transposed=True)
    _check(x, weight, bias, groups, transposed=True)
    _check_planes(x, nd)
    x, weight = _check_dtype(x, weight)
    if any(e >= s for e, s in zip(extra, stride)):
        # (PyTorch also takes output_padding < dilation; minigrad only below the stride)
        raise RuntimeError("output padding must be smaller than either stride or dilation, but "
                           f"got output_padding={list(extra)}, stride={list(stride)}, "
                           f"dilation={list(dilation)}")
    size = tuple((n - 1) * s - 2 * p + d * (k - 1) + e + 1 for n, s, p, d, k, e in zip(
        x.shape[2:], stride, padding, dilation, kernel, extra))
    # (an empty batch is computed to an empty plane; a negative size PyTorch refuses in the
    # words of the reshape that fails there, minigrad in these)
    if any(n < 0 for n in size) or any(n == 0 for n in size) and x.shape[0]:
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, x.shape[2:]))})"
                           f". Calculated output size per channel: "
                           f"({' x '.join(map(str, size))}). Output size is too small")
    out = Convolution.apply(x, weight, bias, stride=stride, padding=pairs(padding),
                            dilation=dilation, groups=groups, transposed=True, size=size)
    return out if batched else ops.squeeze(out, 0)


def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """1-D transposed convolution: weight (C, O/groups, K) (ConvolutionBackward0)"""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 1)


def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None,
                     stride: Any = 1, padding: Any = 0, output_padding: Any = 0,
                     groups: int = 1, dilation: Any = 1) -> Tensor:
    """2-D transposed convolution (the input's gradient of conv2d, run forward): weight
    (C, O/groups, kH, kW) (ConvolutionBackward0)"""
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups,
                           dilation, 2)


def _geometry(kernel_size: Any, dilation: Any, padding: Any, stride: Any) -> dict:
    return {"kernel": ntuple(kernel_size, 2, "kernel_size"),
            "dilation": ntuple(dilation, 2, "dilation"),
            "padding": pairs(ntuple(padding, 2, "padding")), "stride": ntuple(stride, 2, "stride")}


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0,
           stride: Any = 1) -> Tensor:
    """im2col: (N, C, H, W) -> (N, C*kH*kW, L), one column per window (Im2ColBackward0)"""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"Input Error: Only 3D or 4D input Tensors are supported (got "
                           f"{input.ndim}D)")
    geo = _geometry(kernel_size, dilation, padding, stride)
    _check_fits(input.shape[-2:], geo["kernel"], geo["padding"], geo["dilation"])
    return Im2Col.apply(input, **geo)


def fold(input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1,
         padding: Any = 0, stride: Any = 1) -> Tensor:
    """col2im: (N, C*kH*kW, L) -> (N, C, *output_size), overlaps summed (Col2ImBackward0)"""
    geo = _geometry(kernel_size, dilation, padding, stride)
    if input.ndim not in (2, 3):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 "
                           "batch size and non-zero dimensions for input, but got: "
                           f"{list(input.shape)}")
    channels, length = input.shape[-2:]
    k = geo["kernel"][0] * geo["kernel"][1]
    if channels % k:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={channels} and "
                           f"kernel_size={geo['kernel']}.")
    size = ntuple(output_size, 2, "output_size")
    per_dim = [(n + 2 * p - d * (kk - 1) - 1) // s + 1 for n, kk, s, (p, _), d in zip(
        size, geo["kernel"], geo["stride"], geo["padding"], geo["dilation"])]
    blocks = per_dim[0] * per_dim[1]
    if length != blocks:
        raise RuntimeError(f"Given output_size={size}, kernel_size={geo['kernel']}, dilation="
                           f"{geo['dilation']}, padding={tuple(p for p, _ in geo['padding'])}, "
                           f"stride={geo['stride']}, expected size of input's dimension 2 to "
                           f"match the calculated number of sliding blocks {per_dim[0]} * "
                           f"{per_dim[1]} = {blocks}, but got input.size(2)={length}.")
    return Col2Im.apply(input, size=size, **geo)


def pad(input: Tensor, pad: Any, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last dims: `pad` = (left, right) for the last dim, then the one before, ...
    Only mode='constant' (ConstantPadNdBackward0); other modes raise NotImplementedError."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the "
                           f"input dimension but got padding length {len(pad)} and input of "
                           f"dimension {input.ndim}")
    if mode != "constant":
        if mode in ("reflect", "replicate", "circular"):
            raise NotImplementedError(f"pad mode '{mode}' is not implemented in minigrad "
                                      "(only 'constant')")
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    return ConstantPadNd.apply(input, pad=pad, value=0.0 if value is None else value)
