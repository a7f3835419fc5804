"""What every op module shares: operands and PyTorch's dtype promotion, `constant()`, dims,
the error for shapes that do not broadcast, `binary` (the call of a two-input op) and `cast`."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
from numpy import ndarray  # (np.ndarray is a slow lookup: numpy's module has __getattr__)

from minigrad.autograd import broadcast  # (its names are read at call time: it imports tensor)
from minigrad.autograd import tensor as _tensor  # resolved at call time (tensor.py imports the ops)
from minigrad.autograd.function import Function
from minigrad.autograd.gradients import array_of
from minigrad.ops.tangent_rules import linear
from minigrad.surface import dtypes, meta


def is_tensor(x: Any) -> bool:
    return isinstance(x, _tensor.Tensor)


unwrap = array_of  # the numpy array of a Tensor; numbers, arrays and None pass through


def operands(a: Any, b: Any, op: str = "") -> tuple:
    """The numpy operands of a binary op (+ - * /, `op` its name): each tensor's array,
    numbers as they are, except that a Python float next to a float array becomes a 0-d
    array of that dtype. Anything else than a float array with one of its own dtype or a
    number (int and bool tensors, mixed dtypes, Python bools) goes through `promote`.

    That is the value numpy computes with anyway (NEP 50: a Python number takes the array's
    dtype), so the result has the same bits; but numpy takes a 0-d array ~0.4 us faster than
    a Python float, which on a small tensor (`y * 0.9`) is about half of the whole op.
    """
    Tensor = _tensor.Tensor
    x = a.array if isinstance(a, Tensor) else a
    if type(b) is float:  # the usual case: tensor (op) number
        if type(x) is not ndarray:
            return x, b
        known = _float_arrays.get(x.dtype)
        if known is None:  # not a float array: PyTorch's promotion
            return promote(x, b, op)
        y = known.get(b)
        return x, float_array(b, x.dtype) if y is None else y
    y = b.array if isinstance(b, Tensor) else b
    if type(x) is ndarray:
        dtype = x.dtype
        if dtype.kind == "f" and (type(y) is ndarray and y.dtype is dtype or type(y) is int):
            return x, y  # float arrays of one dtype, or a float array and an int
    elif type(x) is float and type(y) is ndarray and y.dtype in _float_arrays:
        return float_array(x, y.dtype), y
    return promote(x, y, op)


# PyTorch's errors for `-` with bools (numpy's differ, or it computes)
SUB_BOOLS = ("Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
             "`^` or `logical_xor()` operator instead.")
SUB_BOOL = ("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
            "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
NEG_BOOL = ("Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
            "to invert a mask, use the `~` or `logical_not()` operator instead.")


def _is_bool(x: Any) -> bool:
    return type(x) is bool or isinstance(x, (ndarray, np.bool_)) and x.dtype.kind == "b"


def promote(x: Any, y: Any = None, op: str = "") -> tuple:
    """The one promotion step of every op with an int or bool tensor, a number or mixed
    dtypes: numpy operands (arrays, Python numbers; None is left out) converted so that numpy
    computes in PyTorch's result dtype (`dtypes.result_type`; float32 for true division of
    integers), or PyTorch's error for what PyTorch refuses (`-` with bools).
    """
    if op == "sub" and (_is_bool(x) or _is_bool(y)):
        raise RuntimeError(SUB_BOOLS if _is_bool(x) and _is_bool(y) else SUB_BOOL)
    dtype = dtypes.result_type(x, y)
    if dtype.kind != "f" and op == "div":
        dtype = dtypes.float32
    return _as_dtype(x, dtype), _as_dtype(y, dtype)


def _as_dtype(x: Any, dtype: np.dtype) -> Any:
    """x in `dtype`: an array converted; a float stays a number (numpy takes the array's
    dtype for it); an int as a 0-d array (numpy refuses `uint8 array - 1`, PyTorch wraps)."""
    if type(x) is ndarray:
        return x if x.dtype == dtype else x.astype(dtype)
    if x is None or type(x) is float and dtype.kind == "f":
        return x
    return np.asanyarray(x).astype(dtype)


def promote_tensors(a: Any, b: Any, op: str = "") -> tuple:
    """`promote` for tensors (or numbers): a tensor of another dtype is cast (its graph
    kept: ToCopyBackward0), numbers stay numbers unless neither is a tensor."""
    Tensor = _tensor.Tensor
    x, y = unwrap(a), unwrap(b)
    if type(x) is ndarray and type(y) is ndarray and x.dtype.kind == "f" == y.dtype.kind and (
            x.dtype is y.dtype or x.ndim and y.ndim):
        # one float dtype; or two float tensors, which numpy promotes as PyTorch does, inside
        # the op (PyTorch records no cast node for them)
        return a, b
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):  # where(c, 1.5, 0)
        dtype = dtypes.result_type(x, y)
        return constant(np.asanyarray(x, dtype)), constant(np.asanyarray(y, dtype))
    px, py = promote(x, y, op)
    return _cast_like(a, px), _cast_like(b, py)


def _cast_like(a: Any, x: Any) -> Any:
    """Tensor `a` in the dtype of its promoted array `x` (numbers stay as they are)."""
    if not isinstance(a, _tensor.Tensor) or x.dtype == a.array.dtype:
        return a
    return a.to(x.dtype)


# The constants of a program come back every step (`x * 0.9`, a learning rate): each is made
# into an array once per float dtype. (Not 0.0, equal to -0.0 as a key; not NaN, never found.)
# speed: the small-op chain bench is ~11% slower without it (A/B in one process, same runs)
_float_arrays: dict = {np.dtype(t): {} for t in (np.float16, np.float32, np.float64)}


def float_array(value: float, dtype: np.dtype) -> np.ndarray:
    """`value` as a read-only 0-d array of the float dtype `dtype` (see `operands`)."""
    known = _float_arrays.get(dtype)
    array = None if known is None else known.get(value)
    if array is None:
        array = np.array(value, dtype)
        array.flags.writeable = False
        if known is not None and value and value == value:  # (not 0.0 or -0.0, not NaN)
            if len(known) >= 256:  # many different numbers: start again
                known.clear()
            known[value] = array
    return array


def constant(array: Any) -> Any:
    """A Tensor that needs no gradient (masks, indices, zeros) for use in backward formulas."""
    t = _tensor.make(np.asanyarray(array), None, 0)
    if meta.in_use:  # (an op's own helper, a mask or indices: it meets meta tensors as it is)
        t._helper = True
    return t


_ARRAY_LIKE = (np.ndarray, np.generic, list, tuple)


def as_operand(x: Any) -> Any:
    """Numbers stay numbers (weakly typed, like PyTorch scalars); arrays become Tensors."""
    if isinstance(x, (_tensor.Tensor, int, float)):  # a tuple: `A | B` would build a type
        return x
    if isinstance(x, _ARRAY_LIKE):
        return _tensor.Tensor(x)
    raise TypeError(f"unsupported operand type for a minigrad op: {type(x).__name__}")


def shape_of(x: Any) -> tuple:
    return tuple(np.shape(unwrap(x)))


def normalize_dims(dim: Any, ndim: int) -> tuple[int, ...]:
    """`dim` (None, int or sequence, negatives allowed) as a sorted tuple of axes."""
    if type(dim) is int and -ndim <= dim < ndim:  # the common case, one valid dim: no loop
        return (dim % ndim,)
    if dim is None:
        return tuple(range(ndim))
    dims = (dim,) if isinstance(dim, int | np.integer) else tuple(dim)
    n = ndim if ndim else 1  # a 0-d tensor accepts dim 0 and -1, as in PyTorch
    out = []
    for d in dims:
        if not -n <= d < n:
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-n}, {n - 1}], but got {d})")
        if d % n in out:
            raise RuntimeError(f"dim {d % n} appears multiple times in the list of dims")
        out.append(d % n)
    return tuple(sorted(out))


def normalize_dim(dim: Any, ndim: int, name: str = "", where: str = "") -> int:
    """One `dim` (an int, negatives allowed) as an axis, for the ops that take exactly one
    (cumsum, argmax, max(dim), ...): PyTorch's TypeError for anything else, which names the
    op (`name`) and, where PyTorch does, the argument's position (`where`: " (position 1)")."""
    if isinstance(dim, bool) or not isinstance(dim, int | np.integer):
        raise TypeError(f"{name}(): argument 'dim'{where} must be int, not "
                        f"{type(dim).__name__}")
    return normalize_dims(int(dim), ndim)[0]


def tensor_input(name: str, input: Any, arg: str = "input", position: int = 1) -> None:
    """PyTorch's TypeError for a function given a number or a list where it takes a tensor
    (`sin(1)`); numpy arrays and scalars pass (minigrad's own code hands them to ops)."""
    if not isinstance(input, _tensor.Tensor | ndarray | np.generic):
        raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, not "
                        f"{type(input).__name__}")


def keepdims_alias(fn: Any) -> Any:
    """Let a reduction take numpy's `keepdims=` for `keepdim=`, as PyTorch's do
    (`A.sum(axis=1, keepdims=True)`, the spelling of d2l's linear-algebra chapter), and check
    that it is given a tensor."""

    @functools.wraps(fn)
    def reduction(*args: Any, keepdims: Any = None, **kwargs: Any) -> Any:
        if args:
            tensor_input(fn.__name__, args[0])
        if keepdims is not None:
            if "keepdim" in kwargs:
                raise TypeError(f"{fn.__name__}() got multiple values for argument 'keepdim'")
            kwargs["keepdim"] = keepdims
        return fn(*args, **kwargs)

    return reduction


def binary(op: type, name: str, a: Any, b: Any, promote: bool = False, **settings: Any) -> Any:
    """`op.apply(a, b, **settings)` for the two-input op `name`: numbers stay numbers, arrays
    become tensors; `promote`: first cast them to PyTorch's result dtype (+ - * / need not:
    their forward promotes, see `operands`). Shapes that do not broadcast get PyTorch's error,
    naming both."""
    Tensor = _tensor.Tensor
    if not isinstance(a, Tensor):
        a = as_operand(a)
        if not isinstance(a, Tensor) and not isinstance(b, Tensor | ndarray):
            a = Tensor._make(dtypes.as_array(a), None, 0)  # (two numbers: PyTorch's 0-d tensor)
    if not isinstance(b, float) and not isinstance(b, Tensor):
        b = as_operand(b)
    try:
        if promote:
            a, b = promote_tensors(a, b, name)
        return op.apply(a, b, **settings) if settings else op.apply(a, b)
    except ValueError:
        sa, sb = np.shape(unwrap(a)), np.shape(unwrap(b))
        try:
            np.broadcast_shapes(sa, sb)
        except ValueError:
            raise RuntimeError(broadcast.broadcast_message(name, sa, sb)) from None
        raise


def cast(input: Any, dtype: Any, to_meta: bool = False) -> Any:
    """a copy in another dtype (float32 <-> float64 keep the graph: ToCopyBackward0), or on
    the meta device (`x.to("meta")`: its shape and dtype, no values; surface/meta.py)"""
    if to_meta:
        return Cast.apply(input, dtype=np.dtype(dtype), device="meta")
    return Cast.apply(input, dtype=np.dtype(dtype))


class Cast(Function, numpy_forward=True):
    """a converted to another dtype"""

    node_name = "ToCopyBackward0"
    formula = r"d(to(a))/da = 1 (converted back to a's dtype)"
    source = "{0}.to({dtype})"
    gradients = ()
    tangent = "{t0}.to({dtype})"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, dtype, device=None):
        ctx.in_dtype = a.array.dtype
        if device == "meta":
            return meta.empty(a.array.shape, dtype)
        return a.array.astype(dtype)

    @staticmethod
    def backward(ctx, grad):
        return cast(grad, ctx.in_dtype)


def pytorch_keeps_on(out: Any, **values: Any) -> Any:
    """Keep, on the node that made `out`, what PyTorch's node keeps that only the public
    function knows (index_fill's index, a stride not given): see saved_names.py."""
    first = out[0] if isinstance(out, tuple) else out
    if first.grad_fn is not None:
        first.grad_fn.keep_as_pytorch(**values)
    return out


def no_dim_given(out: Any) -> Any:
    """Note on the node of a reduction called without a dim that none was given: PyTorch's
    node then shows `_saved_dim` (and var's `_saved_correction`) as None."""
    first = out[0] if isinstance(out, tuple) else out
    if first.grad_fn is not None:
        first.grad_fn.no_dim = True
    return out
