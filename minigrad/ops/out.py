"""`out=`: a function's result written into a tensor the caller gives, as PyTorch does.

The result is computed as usual, then copied into `out` (cast to its dtype when PyTorch can,
resized, with PyTorch's warning, when its shape differs) and `out` is returned. As in
PyTorch, nothing that requires grad may take part: an `out=` call is never recorded.
"""

from __future__ import annotations

import functools
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad.autograd import events
from minigrad.autograd import tensor as _tensor
from minigrad.autograd.grad_mode import state
from minigrad.surface.dtypes import TORCH_NAMES

__all__: list[str] = []  # (the wrapped public functions are in surface/out_functions.py)

_KIND = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
RESIZED = ("An output with one or more elements was resized since it had shape {old}, which "
           "does not match the required output shape {new}. This behavior is deprecated, and "
           "in a future PyTorch release outputs will not be resized unless they have zero "
           "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
           "elements with t.resize_(0).")


def check_out(out: Any, op: str, *inputs: Any) -> None:
    """PyTorch's checks before an out= call: `out` is a tensor (or a tuple of them), and
    nothing requires grad (out= calls are not recorded)."""
    outs = out if isinstance(out, tuple | list) else (out,)
    for o in outs:
        if not isinstance(o, _tensor.Tensor):
            raise TypeError(f"{op}(): argument 'out' must be Tensor, not {type(o).__name__}")
    if state.grad_enabled and any(isinstance(t, _tensor.Tensor) and t.requires_grad
                                  for t in (*outs, *_flat(inputs))):
        raise RuntimeError(f"{op}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


def _flat(values: tuple) -> list:
    found = []
    for v in values:
        found.extend(v if isinstance(v, list | tuple) else (v,))
    return found


def write_out(result: Any, out: Any, op: str, cast_any: bool = False) -> Any:
    """`result` written into `out` (None: `result` itself); `cast_any`: the factories, whose
    result takes out's dtype whatever it is."""
    if out is None:
        return result
    if isinstance(result, tuple):
        return type(result)(*(write_out(r, o, op, cast_any) for r, o in zip(result, out)))
    check_out(out, op, result)
    src, dst = result.array, out.array
    if not cast_any and _KIND[src.dtype.kind] > _KIND[dst.dtype.kind]:
        raise RuntimeError(f"result type {TORCH_NAMES[src.dtype]} can't be cast to the desired "
                           f"output type {TORCH_NAMES[dst.dtype]}")
    if events.listening():
        events.emit(events.InPlaceChange(out))
    if dst.shape == src.shape:
        dst[...] = src
    else:
        if dst.size:
            warnings.warn(RESIZED.format(old=list(dst.shape), new=list(src.shape)),
                          UserWarning, stacklevel=3)
        out.array = np.array(src, dtype=dst.dtype)
    out._bump_version()
    return out


def takes_out(fn: Callable, op: str | None = None) -> Callable:
    """`fn` with PyTorch's keyword-only `out=` (the wrapped function's own calls stay as they
    are: Tensor's operators call the op itself, not this)."""
    name = op or fn.__name__

    @functools.wraps(fn)
    def with_out(*args: Any, out: Any = None, **kwargs: Any) -> Any:
        if out is None:
            return fn(*args, **kwargs)
        check_out(out, name, *args, *kwargs.values())
        return write_out(fn(*args, **kwargs), out, name)

    sig = inspect.signature(fn)
    params = [p for p in sig.parameters.values() if p.name != "out"]
    at = next((i for i, p in enumerate(params) if p.kind == p.VAR_KEYWORD), len(params))
    params.insert(at, inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None))
    with_out.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
    return with_out
