"""PyTorch's legacy typed constructors: `FloatTensor([1, 2])`, `LongTensor(3)`, ... each the
legacy `Tensor(...)` (see Tensor.__init__) in its dtype, one int being a shape as in PyTorch
(`LongTensor(3)` is three zeros); `isinstance(x, FloatTensor)` asks
whether x is a float32 tensor, as in PyTorch."""

from __future__ import annotations

from typing import Any

from minigrad.autograd.tensor import Tensor
from minigrad.surface import dtypes
from minigrad.surface.size import Size


class _TypedTensor(type):
    """The metaclass of FloatTensor & co: calling one makes a Tensor of its dtype."""

    _dtype: dtypes.dtype

    def __call__(cls, *data: Any, **kwargs: Any) -> Tensor:
        if "dtype" in kwargs:
            raise TypeError(f"new() got an unexpected keyword argument 'dtype' ({cls.__name__} "
                            "has its dtype already)")
        if len(data) == 1 and isinstance(data[0], int | float) and not isinstance(data[0], bool):
            if isinstance(data[0], float):
                raise TypeError("new(): data must be a sequence (got float)")
            data = (Size([data[0]]),)  # `LongTensor(3)`: a shape, as in PyTorch
        return Tensor(*data, dtype=cls._dtype, **kwargs)

    def __instancecheck__(cls, obj: Any) -> bool:
        return isinstance(obj, Tensor) and obj.array.dtype == cls._dtype.dtype

    def __repr__(cls) -> str:
        return f"<class 'minigrad.{cls.__name__}'>"


def _typed(name: str, dtype: dtypes.dtype) -> type:
    return _TypedTensor(name, (), {"_dtype": dtype, "__module__": "minigrad",
                                   "__doc__": f"A legacy constructor of {dtype} tensors."})


FloatTensor = _typed("FloatTensor", dtypes.float32)
DoubleTensor = _typed("DoubleTensor", dtypes.float64)
HalfTensor = _typed("HalfTensor", dtypes.float16)
LongTensor = _typed("LongTensor", dtypes.int64)
IntTensor = _typed("IntTensor", dtypes.int32)
ShortTensor = _typed("ShortTensor", dtypes.int16)
CharTensor = _typed("CharTensor", dtypes.int8)
ByteTensor = _typed("ByteTensor", dtypes.uint8)
BoolTensor = _typed("BoolTensor", dtypes.bool)
