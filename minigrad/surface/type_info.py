"""Questions about tensors and dtypes: is_tensor, is_floating_point, numel, finfo, iinfo."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.tensor import Tensor
from minigrad.surface import dtypes


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def _tensor_argument(op: str, value: Any) -> Tensor:
    if not isinstance(value, Tensor):
        raise TypeError(f"{op}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(value).__name__}")
    return value


def is_floating_point(input: Tensor) -> bool:
    return _tensor_argument("is_floating_point", input).array.dtype.kind == "f"


def numel(input: Tensor) -> int:
    return int(_tensor_argument("numel", input).array.size)


class finfo:  # noqa: N801 - PyTorch's spelling
    """The limits of a float dtype (the default dtype when none is given), as torch.finfo."""

    def __init__(self, type: Any = None) -> None:  # noqa: A002 - PyTorch's name
        d = dtypes.numpy_dtype(type) if type is not None else dtypes.default_float()
        if d.kind != "f":
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        info = np.finfo(d)
        self.bits, self.dtype = info.bits, d.name
        self.eps, self.max, self.min = float(info.eps), float(info.max), float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -info.precision

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, "
                f"eps={self.eps:g}, smallest_normal={self.smallest_normal:g}, "
                f"tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:  # noqa: N801 - PyTorch's spelling
    """The limits of an integer dtype, as torch.iinfo."""

    def __init__(self, type: Any) -> None:  # noqa: A002 - PyTorch's name
        d = dtypes.numpy_dtype(type)
        if d.kind == "b":
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if d.kind not in "iu":
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        info = np.iinfo(d)
        self.bits, self.dtype, self.min, self.max = info.bits, d.name, int(info.min), int(info.max)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
