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
from minigrad.surface import return_types
from minigrad.surface.dtypes import TORCH_NAMES

__all__: list[str] = []  # (the wrapped public functions are in surface/out_functions.py)

_KIND = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}
RESIZED = ("An output with one or more elements was resized since it had shape {old}, which "
           "does not match the required output shape {new}. This behavior is deprecated, and "
           "in a future PyTorch release outputs will not be resized unless they have zero "
           "elements. You can explicitly reuse an out tensor t by resizing it, inplace, to zero "
           "elements with t.resize_(0).")


# ops whose PyTorch kernel wants `out` of the result's very dtype (the others cast to it), each
# with PyTorch's words; {res}/{out} are dtype names as `Float`, {res_c}/{out_c} as C++'s `float`
_FOUND = "Found dtype {out} but expected {res}"
_EXPECTED = "Expected out tensor to have dtype {res_c}, but got {out_c} instead"
_SAME = "{op}(): self and result must have the same scalar type"
_DOT = "result dtype {out} does not match input dtype {res}"
EXACT = {
    **dict.fromkeys(("abs", "bitwise_not", "ceil", "clamp", "clamp_max", "clamp_min", "clip",
                     "fix", "floor", "frac", "neg", "round", "sgn", "sign", "trunc"), _FOUND),
    **dict.fromkeys(("bmm", "diag", "gather", "index_add", "log_softmax", "matmul", "mm", "msort",
                     "mv", "norm", "scatter", "scatter_add", "softmax", "tril", "triu"),
                    _EXPECTED),
    "index_select": _SAME, "masked_select": _SAME, "dot": _DOT, "vdot": _DOT,
    "where": "Expected out type to be {res} but got {out}",
    "take": "take(): self and out expected to have the same dtype, but got self.dtype = {res} "
            "and out.dtype = {out}",
    "nan_to_num": "nan_to_num: dtype of out: {out} should be same as input: {res}",
    "histc": "torch.histogram: input tensor and hist tensor should have the same dtype, but got "
             "input {res_c} and hist {out_c}",
    "amax": "Expected the dtype for input and out to match, but got {res} for input's dtype and "
            "{out} for out's dtype.",
    "logcumsumexp": "expected scalar_type {res} but found {out}",
    "narrow_copy": "Expected self.dtype() == output.dtype() to be true, but got false.  (Could "
                   "this error message be improved?  If so, please report an enhancement request "
                   "to PyTorch.)",
    "tensordot": "tensordot: Expected the output tensor to have dtype {res}, but got an output "
                 "tensor with dtype {out}",
}
EXACT["amin"] = EXACT["amax"]
_CPP = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
        "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
        "bool": "bool", "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


def _check_dtype(src: np.dtype, dst: np.dtype, op: str, factory: bool) -> None:
    if factory or src == dst:
        return
    names = {"res": TORCH_NAMES[src], "out": TORCH_NAMES[dst], "res_c": _CPP.get(src.name),
             "out_c": _CPP.get(dst.name), "op": op}
    if op in EXACT:
        raise RuntimeError(EXACT[op].format(**names))
    if _KIND[src.kind] > _KIND[dst.kind]:
        raise RuntimeError("result type {res} can't be cast to the desired output type {out}"
                           .format(**names))


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


def write_out(result: Any, out: Any, op: str, factory: bool = False) -> Any:
    """`result` written into `out` (None: `result` itself). A factory's values take out's
    dtype whatever it is, resize it silently and may make it require grad, as PyTorch's."""
    if out is None:
        return result
    if isinstance(result, tuple):
        kind = return_types.out_kind(type(result))
        return kind(*(write_out(r, o, op) for r, o in zip(result, out)))
    check_out(out, op, None if factory else result)
    src, dst = result.array, out.array
    _check_dtype(src.dtype, dst.dtype, op, factory)
    if events.listening():
        events.emit(events.InPlaceChange(out))
    if dst.shape == src.shape:
        dst[...] = src
    else:
        if dst.size and not factory:
            warnings.warn(RESIZED.format(old=list(dst.shape), new=list(src.shape)),
                          UserWarning, stacklevel=3)
        out.array = np.array(src, dtype=dst.dtype)
    out._bump_version()
    return out.requires_grad_(True) if factory and result.requires_grad else out


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
