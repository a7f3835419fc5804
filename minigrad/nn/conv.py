"""Convolution layers: Conv1d, Conv2d, ConvTranspose2d (as in torch.nn).

Weights are (out_channels, in_channels/groups, *kernel_size), or (in_channels,
out_channels/groups, *kernel_size) for the transposed one, initialised as PyTorch's
`reset_parameters`: kaiming_uniform_ with a=sqrt(5), so U(-1/sqrt(fan_in), 1/sqrt(fan_in)),
and the bias from the same range. Only padding_mode='zeros' is implemented in minigrad.
"""

from __future__ import annotations

import math
from typing import Any

from minigrad.autograd.tensor import Tensor
from minigrad.nn import functional_conv as FC
from minigrad.nn import init
from minigrad.nn.module import Module, Parameter
from minigrad.surface import dtypes
from minigrad.surface.factories import empty

PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


class _ConvNd(Module):
    """What every convolution layer keeps: sizes, geometry, weight and bias."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any,
                 padding: Any, dilation: Any, transposed: bool, output_padding: Any,
                 groups: int, bias: bool, padding_mode: str, device: Any, dtype: Any, nd: int
                 ) -> None:
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("valid", "same"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and FC.ntuple(stride, nd) != (1,) * nd:
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in PADDING_MODES:
            raise ValueError(f"padding_mode must be one of {set(PADDING_MODES)}, but got "
                             f"padding_mode='{padding_mode}'")
        if padding_mode != "zeros":
            raise NotImplementedError(f"padding_mode='{padding_mode}' is not implemented in "
                                      "minigrad (only 'zeros')")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = FC.ntuple(kernel_size, nd)
        self.stride, self.dilation = FC.ntuple(stride, nd), FC.ntuple(dilation, nd)
        self.padding = padding if isinstance(padding, str) else FC.ntuple(padding, nd)
        self.transposed, self.output_padding = transposed, FC.ntuple(output_padding, nd)
        self.groups, self.padding_mode = groups, padding_mode
        dtype = dtype or dtypes.float32
        shape = (in_channels, out_channels // groups) if transposed else (
            out_channels, in_channels // groups)
        self.weight = Parameter(empty(*shape, *self.kernel_size, dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * len(self.kernel_size):
            s += f", padding={self.padding}"
        if self.dilation != (1,) * len(self.dilation):
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * len(self.output_padding):
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Conv1d(_ConvNd):
    """1-D convolution over (N, C, L) inputs"""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         False, 0, groups, bias, padding_mode, device, dtype, 1)

    def forward(self, input: Tensor) -> Tensor:
        return FC.conv1d(input, self.weight, self.bias, self.stride, self.padding,
                         self.dilation, self.groups)


class Conv2d(_ConvNd):
    """2-D convolution over (N, C, H, W) inputs"""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, dilation: Any = 1, groups: int = 1, bias: bool = True,
                 padding_mode: str = "zeros", device: Any = None, dtype: Any = None) -> None:
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         False, 0, groups, bias, padding_mode, device, dtype, 2)

    def forward(self, input: Tensor) -> Tensor:
        params = self._parameters  # (read directly: see Linear.forward)
        return FC.conv2d(input, params["weight"] if "weight" in params else self.weight,
                         params["bias"] if "bias" in params else self.bias, self.stride,
                         self.padding, self.dilation, self.groups)


class ConvTranspose2d(_ConvNd):
    """2-D transposed convolution (the gradient of a Conv2d's input, run forward): each input
    value spreads the kernel over one window of the output."""

    def __init__(self, in_channels: int, out_channels: int, kernel_size: Any, stride: Any = 1,
                 padding: Any = 0, output_padding: Any = 0, groups: int = 1, bias: bool = True,
                 dilation: Any = 1, padding_mode: str = "zeros", device: Any = None,
                 dtype: Any = None) -> None:
        if isinstance(padding, str):
            raise ValueError(f"Invalid padding string {padding!r} for ConvTranspose2d")
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                         True, output_padding, groups, bias, padding_mode, device, dtype, 2)

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        extra = self.output_padding if output_size is None else self._output_padding(
            input, list(output_size))
        return FC.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                   extra, self.groups, self.dilation)

    def _output_padding(self, input: Tensor, output_size: list) -> tuple:
        """The output_padding that makes the output `output_size` (PyTorch's rule)."""
        lead = 2 if input.ndim == 4 else 1
        if len(output_size) == lead + 2:
            output_size = output_size[lead:]
        if len(output_size) != 2:
            raise ValueError(f"ConvTranspose2D: for {input.ndim}D input, output_size must have "
                             f"2 or {lead + 2} elements (got {len(output_size)})")
        smallest = [(n - 1) * s - 2 * p + d * (k - 1) + 1 for n, s, p, d, k in zip(
            input.shape[lead:], self.stride, self.padding, self.dilation, self.kernel_size)]
        largest = [m + s - 1 for m, s in zip(smallest, self.stride)]
        if any(not lo <= n <= hi for n, lo, hi in zip(output_size, smallest, largest)):
            raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                             f"range from {smallest} to {largest} (for an input of "
                             f"{input.shape[lead:]})")
        return tuple(n - m for n, m in zip(output_size, smallest))
