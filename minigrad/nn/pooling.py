"""Pooling layers: MaxPool1d/2d, AvgPool1d/2d, AdaptiveAvgPool2d, AdaptiveMaxPool2d (as in
torch.nn, with its arguments, defaults and reprs; the stride defaults to the kernel size)."""

from __future__ import annotations

from typing import Any

from minigrad.autograd.tensor import Tensor
from minigrad.nn import functional_pool as FP
from minigrad.nn.module import Module


class _MaxPoolNd(Module):
    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 dilation: Any = 1, return_indices: bool = False, ceil_mode: bool = False
                 ) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class MaxPool1d(_MaxPoolNd):
    """The max of each window along the last dim of (N, C, L) inputs"""

    def forward(self, input: Tensor) -> Any:
        return FP.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                             self.ceil_mode, self.return_indices)


class MaxPool2d(_MaxPoolNd):
    """The max of each window of (N, C, H, W) inputs"""

    def forward(self, input: Tensor) -> Any:
        return FP.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                             self.ceil_mode, self.return_indices)


class AvgPool1d(Module):
    """The mean of each window along the last dim of (N, C, L) inputs"""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True) -> None:
        super().__init__()
        self.kernel_size = _single(kernel_size)
        self.stride = _single(stride if stride is not None else kernel_size)
        self.padding = _single(padding)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input: Tensor) -> Tensor:
        return FP.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def _single(value: Any) -> tuple:
    return tuple(value) if isinstance(value, tuple | list) else (value,)


class AvgPool2d(Module):
    """The mean of each window of (N, C, H, W) inputs"""

    def __init__(self, kernel_size: Any, stride: Any = None, padding: Any = 0,
                 ceil_mode: bool = False, count_include_pad: bool = True,
                 divisor_override: int | None = None) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input: Tensor) -> Tensor:
        return FP.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class AdaptiveAvgPool2d(Module):
    """The mean over windows chosen to give an output of `output_size`"""

    def __init__(self, output_size: Any) -> None:
        super().__init__()
        self.output_size = output_size

    def forward(self, input: Tensor) -> Tensor:
        return FP.adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class AdaptiveMaxPool2d(AdaptiveAvgPool2d):
    """The max over windows chosen to give an output of `output_size`"""

    def __init__(self, output_size: Any, return_indices: bool = False) -> None:
        super().__init__(output_size)
        self.return_indices = return_indices

    def forward(self, input: Tensor) -> Any:
        return FP.adaptive_max_pool2d(input, self.output_size, self.return_indices)
