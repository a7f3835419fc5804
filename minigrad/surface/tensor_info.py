"""What a tensor tells about itself, as PyTorch's Tensor does: shape, size(), dtype, device,
numel(), item(), numpy(), len(), iteration, conversions to Python numbers, and the printed form.

A mixin of `minigrad.autograd.tensor.Tensor`: none of it takes part in autograd, so it lives
outside the engine's folder (a learner reading how backward works can skip this file).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from minigrad import ops
from minigrad.autograd.grad_mode import GRAD_ENABLED
from minigrad.surface import devices, dtypes, layouts, meta
from minigrad.surface.printing import meta_repr, tensor_repr
from minigrad.surface.size import Size, shape_of


class TensorInfo:
    """Tensor's plain information (`self.array` is the numpy array)."""

    array: np.ndarray

    @property
    def shape(self) -> Size:
        return shape_of(self.array.shape)

    def size(self, dim: int | None = None) -> Any:
        return shape_of(self.array.shape) if dim is None else self.array.shape[dim]

    @property
    def dtype(self) -> dtypes.dtype:
        """As PyTorch shows it (`minigrad.float32`); equal to numpy's dtype of `.array`."""
        return dtypes.of(self.array.dtype)

    @property
    def T(self) -> Any:  # (a Tensor)
        return ops.T_property(self)

    @property
    def ndim(self) -> int:
        return self.array.ndim

    def dim(self) -> int:
        return self.array.ndim

    def numel(self) -> int:
        return int(self.array.size)

    nelement = numel

    def is_floating_point(self) -> bool:
        return self.array.dtype.kind == "f"

    def element_size(self) -> int:
        """Bytes per element (4 for float32)."""
        return self.array.dtype.itemsize

    @property
    def device(self) -> devices.device:
        return devices.META if type(self.array) is meta.MetaArray else devices.CPU

    @property
    def is_meta(self) -> bool:
        """On the meta device: a shape and a dtype, no values (surface/meta.py)."""
        return type(self.array) is meta.MetaArray

    @property
    def is_cpu(self) -> bool:
        return type(self.array) is not meta.MetaArray

    def _is_view(self) -> bool:
        """Whether this tensor is a view of another (`._base`), as PyTorch's private method
        that torchviz calls."""
        return self._base is not None

    @property
    def is_cuda(self) -> bool:
        return False

    @property
    def layout(self) -> layouts.layout:
        return layouts.strided

    def __len__(self) -> int:
        if self.array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return len(self.array)

    def __iter__(self):
        if self.array.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(len(self.array)))

    def item(self) -> Any:
        if self.array.size != 1:
            raise RuntimeError(f"a Tensor with {self.array.size} elements cannot be converted "
                               "to Scalar")
        if type(self.array) is meta.MetaArray:
            raise RuntimeError(meta.ITEM)
        return self.array.item()

    def tolist(self) -> Any:
        return self.array.tolist()  # (a meta tensor's raises meta.NO_DATA)

    def numpy(self, *, force: bool = False) -> np.ndarray:
        """The numpy array itself (shared memory); `force=True` as `detach().numpy()`."""
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if type(self.array) is meta.MetaArray:
            raise TypeError(meta.NO_NUMPY)
        return self.array

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        return self.numpy() if dtype is None else self.numpy().astype(dtype)

    def __float__(self) -> float:
        if self._requires_grad and GRAD_ENABLED.get():  # (PyTorch: only where grad mode is on)
            _warn_scalar_once()
        return float(self.item())

    def __complex__(self) -> complex:
        if self._requires_grad and GRAD_ENABLED.get():
            _warn_scalar_once()
        return complex(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.array.dtype.kind not in "iub" or self.array.size != 1:
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        return int(self.item())

    def __bool__(self) -> bool:
        if self.array.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        return bool(self.item())

    def __hash__(self) -> int:
        return id(self)

    def __repr__(self) -> str:
        suffixes, on_meta = [], type(self.array) is meta.MetaArray
        if (self.array.dtype != dtypes.default_float()) if on_meta else \
                not dtypes.implied(self.array):  # (a meta tensor has no values to imply it)
            suffixes.append(f"dtype={dtypes.name(self.array.dtype)}")
        if self.grad_fn is not None:
            suffixes.append(f"grad_fn=<{self.grad_fn.display_name()}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        if self._tangents:  # forward mode: the tangent (at the innermost level), as PyTorch
            suffixes.append(f"tangent={self._tangents[max(self._tangents)]}")
        heading = "Parameter containing:\n" if type(self).__name__ == "Parameter" else ""
        if on_meta:  # no values to show: `...`, as PyTorch
            return heading + meta_repr(self.array.shape, suffixes)
        return heading + tensor_repr(self.array, suffixes)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        """As in PyTorch, a 0-d tensor formats as its number: `f"loss {loss:.4f}"`."""
        if self.array.ndim == 0 and type(self.array) is not meta.MetaArray:
            return self.array.item().__format__(spec)
        if spec:  # (a meta tensor, or one of more dims: as PyTorch's)
            raise TypeError("unsupported format string passed to Tensor.__format__")
        return object.__format__(self, spec)


_warned_scalar: list[bool] = []  # PyTorch says it once per process (TORCH_WARN_ONCE)
SCALAR_WARNING = ("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                  "behavior.\nConsider using tensor.detach() first.")


def _warn_scalar_once() -> None:
    """`float(t)` of a tensor that requires grad: PyTorch's UserWarning, the first time."""
    if not _warned_scalar:
        _warned_scalar.append(True)
        warnings.warn(SCALAR_WARNING, UserWarning, stacklevel=3)
