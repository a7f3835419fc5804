"""Random tensors: rand, randn, randint, randperm, normal and the *_like forms, all drawn from
`generator=`, or `minigrad.default_generator` (so `manual_seed` makes them repeat; bernoulli
and multinomial, which are also Tensor methods, are in ops/sampling.py). The numbers differ
from PyTorch's for the same seed: numpy's generator is not PyTorch's.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.tensor import Tensor
from minigrad.surface import dtypes, layouts
from minigrad.surface.factories import float_dtype, leaf
from minigrad.surface.layouts import LIKE, MADE, keywords
from minigrad.surface.random import Generator, numpy_rng
from minigrad.surface.size import sizes


def _float_only(op: str, np_dtype: np.dtype) -> np.dtype:
    if np_dtype.kind != "f":
        raise NotImplementedError(f'"{op}" not implemented for '
                                  f"'{dtypes.TORCH_NAMES.get(np_dtype, np_dtype.name)}'")
    return np_dtype


@keywords("size", *MADE)
def randn(*lengths: Any, generator: Generator | None = None, dtype: Any = None, **kw: Any
          ) -> Tensor:
    """Standard normal samples: randn(2, 3), randn((2, 3)), randn(size=(2, 3))."""
    rng = numpy_rng(generator, "randn")
    np_dtype = _float_only("normal_kernel_cpu", float_dtype(dtype))
    shape = sizes("randn", lengths, kw.pop("size", None))
    return leaf(rng.standard_normal(shape).astype(np_dtype), op="randn", **kw)


@keywords("size", *MADE)
def rand(*lengths: Any, generator: Generator | None = None, dtype: Any = None, **kw: Any
         ) -> Tensor:
    """Uniform samples in [0, 1)."""
    rng = numpy_rng(generator, "rand")
    np_dtype = _float_only("check_uniform_bounds", float_dtype(dtype))
    shape = sizes("rand", lengths, kw.pop("size", None))
    return leaf(rng.random(shape).astype(np_dtype), op="rand", **kw)


@keywords(*MADE)
def randint(low: int, high: Any = None, size: Any = None, *, generator: Generator | None = None,
            dtype: Any = None, **kw: Any) -> Tensor:
    """Integers in [low, high): randint(high, size) or randint(low, high, size); int64."""
    rng = numpy_rng(generator, "randint")
    if size is None and isinstance(high, tuple | list):  # randint(high, size)
        low, high, size = 0, low, high
    elif size is None:
        raise TypeError(f"randint(): argument 'size' (position 2) must be tuple of ints, not "
                        f"{type(high).__name__}")
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    np_dtype = dtypes.numpy_dtype(dtype) or dtypes.int64.dtype
    shape = sizes("randint", (size,))
    return leaf(rng.integers(low, high, shape).astype(np_dtype), op="randint", **kw)


@keywords(*MADE)
def randperm(n: int, *, generator: Generator | None = None, dtype: Any = None, **kw: Any
             ) -> Tensor:
    """A random permutation of 0..n-1 (int64)."""
    rng = numpy_rng(generator, "randperm")
    np_dtype = dtypes.numpy_dtype(dtype) or dtypes.int64.dtype
    return leaf(rng.permutation(n).astype(np_dtype), op="randperm", **kw)


@keywords(*MADE)
def normal(mean: Any = 0.0, std: Any = 1.0, size: Any = None, *,
           generator: Generator | None = None, dtype: Any = None, **kw: Any) -> Tensor:
    """Samples of N(mean, std): the four forms of PyTorch (tensor or number mean and std,
    broadcast together; two numbers need `size`)."""
    rng = numpy_rng(generator, "normal")
    tensors = [a for a in (mean, std) if isinstance(a, Tensor)]
    if not tensors and size is None:
        raise TypeError("normal() received an invalid combination of arguments - got "
                        f"({type(mean).__name__}, {type(std).__name__}), but expected one of:\n"
                        " * (Tensor mean, Tensor std)\n * (Tensor mean, float std = 1)\n"
                        " * (float mean, Tensor std)\n * (float mean, float std, tuple of ints "
                        "size)\n")
    m = mean.array if isinstance(mean, Tensor) else mean
    s = std.array if isinstance(std, Tensor) else std
    if np.any(np.asanyarray(s) < 0):
        raise RuntimeError(f"normal expects std >= 0.0, but found std {np.min(s):g}")
    if tensors:
        np_dtype = np.result_type(*[t.array.dtype for t in tensors])
        if size is None:
            try:
                shape = np.broadcast_shapes(np.shape(m), np.shape(s))
            except ValueError:
                raise RuntimeError(_mismatch(np.shape(m), np.shape(s))) from None
        else:
            shape = sizes("normal", (size,))
    else:
        np_dtype, shape = float_dtype(dtype), sizes("normal", (size,))
    values = rng.normal(m, s, shape).astype(np_dtype)
    return leaf(values, op="normal", **kw)


def _mismatch(a: tuple, b: tuple) -> str:
    dim = next(i for i in range(1, max(len(a), len(b)) + 1)
               if (a[-i] if i <= len(a) else 1) != (b[-i] if i <= len(b) else 1)
               and 1 not in ((a[-i] if i <= len(a) else 1), (b[-i] if i <= len(b) else 1)))
    n = max(len(a), len(b)) - dim
    return (f"The size of tensor a ({a[-dim]}) must match the size of tensor b ({b[-dim]}) at "
            f"non-singleton dimension {n}")


@keywords("generator", *LIKE)
def randn_like(input: Tensor, dtype: Any = None, **kw: Any) -> Tensor:
    layouts.check_memory_format(kw.pop("memory_format", None), "like", input.array.ndim)
    return randn(*input.array.shape, dtype=dtype or input.array.dtype, **kw)


@keywords("generator", *LIKE)
def rand_like(input: Tensor, dtype: Any = None, **kw: Any) -> Tensor:
    layouts.check_memory_format(kw.pop("memory_format", None), "like", input.array.ndim)
    return rand(*input.array.shape, dtype=dtype or input.array.dtype, **kw)


@keywords("generator", *LIKE)
def randint_like(input: Tensor, low: int, high: int | None = None, dtype: Any = None,
                 **kw: Any) -> Tensor:
    """Integers in [low, high) (or [0, low)), shaped and typed as `input` unless told."""
    layouts.check_memory_format(kw.pop("memory_format", None), "like", input.array.ndim)
    if high is None:
        low, high = 0, low
    return randint(low, high, input.array.shape, dtype=dtype or input.array.dtype, **kw)

