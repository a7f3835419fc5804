"""Forward mode: dual numbers, PyTorch's `torch.autograd.forward_ad`.

Reverse mode (the rest of this folder) runs the graph backwards once per output and gives a row
of the Jacobian, `vᵀJ`. Forward mode carries a *tangent* beside each value while the forward
runs: a tensor `x` paired with a direction `ẋ` is a dual tensor, and every op computes its
output's tangent from its inputs' tangents with its JVP rule (`jvp` beside `backward` in each
op's class). One forward pass gives `J v`, a column of the Jacobian:

    with forward_ad.dual_level():
        x = forward_ad.make_dual(primal, tangent)
        y, y_dot = forward_ad.unpack_dual(f(x))

Tangents live on the tensor, one per *level* (`Tensor._tangents`, {level: tangent}); leaving
a level forgets every tangent of that level. PyTorch's API allows one level at a time (a
nested `dual_level` is refused, as in PyTorch); minigrad's function transforms nest levels
with `push_level`/`pop_level` (torch.func.jvp of torch.func.jvp). How an op carries tangents
through is `jvp_apply.py`; nothing of this runs while no level exists (one truth test in
`Function.apply`).
"""

from __future__ import annotations

import weakref
from typing import Any, NamedTuple

import numpy as np

from minigrad.autograd import tensor as _tensor  # (used at call time: tensor.py imports us)

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level",
           "make_dual", "unpack_dual"]

NESTED = "Nested forward mode AD is not supported at the moment"
NO_LEVEL = ("Trying to create a dual Tensor for forward AD but no level exists, make sure to "
            "enter_dual_level() first.")
NOT_LAST = ("Trying to exit a forward AD level that was not the last one that was created. "
            "This is not supported.")
SIZE = ("Trying to set a forward gradient that has a different size than that of the "
        "original Tensor, this is not supported. Tensor is of size {} while the given "
        "forward gradient is of size {}.")


class _Levels:
    """The forward-mode levels that exist, and which of them ops see now.

    `kinds[i]` says who entered level i ("dual": the `dual_level` API; "transform": a
    function transform). While an op's JVP rule at level L runs, levels L and up are hidden
    (`hide_from(L)`): the rule computes with the primals, whose own tangents at outer levels
    still flow (that is how a transform of a transform differentiates twice). `visible` is how
    many levels ops see: `Function.apply` reads it, and does nothing more when it is 0.
    """

    __slots__ = ("cap", "duals", "kinds", "rules", "visible")

    def __init__(self) -> None:
        self.kinds: list[str] = []
        self.cap = 1 << 30  # levels from here up are hidden
        self.visible = 0
        # per level: the tensors holding a tangent, {id: weak reference} (not a WeakSet: that
        # compares tensors with ==, which is elementwise)
        self.duals: list[dict[int, weakref.ref]] = []
        self.rules = 0  # how many JVP rules are running now (see `in_rule`)

    def hide_from(self, level: int) -> int:
        """Hide levels `level` and up; return the previous cap, for `hide_from(old)`."""
        old, self.cap = self.cap, level
        self.visible = min(len(self.kinds), level)
        return old


LEVELS = _Levels()


def enter_dual_level() -> int:
    """Enter a new forward grad level (PyTorch allows one at a time) and return it."""
    if LEVELS.kinds:
        raise RuntimeError(NESTED)
    return push_level("dual")


def exit_dual_level(*, level: int | None = None) -> None:
    """Leave the last level entered, forgetting every tangent made at it."""
    top = len(LEVELS.kinds) - 1
    if level is None:
        level = top
    if level != top:
        raise RuntimeError(NOT_LAST)
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    pop_level(level)


def push_level(kind: str = "transform") -> int:
    """A new innermost level, for minigrad's function transforms (which nest); refused
    inside a `dual_level`, as PyTorch refuses torch.func.jvp there."""
    if "dual" in LEVELS.kinds:
        raise RuntimeError(NESTED)
    LEVELS.kinds.append(kind)
    LEVELS.duals.append({})
    LEVELS.hide_from(LEVELS.cap)
    return len(LEVELS.kinds) - 1


def pop_level(level: int) -> None:
    """Leave innermost level `level`: the tensors that held a tangent at it lose it."""
    if level != len(LEVELS.kinds) - 1:
        raise RuntimeError(NOT_LAST)
    for ref in LEVELS.duals.pop().values():
        t = ref()
        tangents = None if t is None else t._tangents
        if tangents is not None:
            tangents.pop(level, None)
            if not tangents:
                t._tangents = None
    LEVELS.kinds.pop()
    LEVELS.hide_from(LEVELS.cap)


class dual_level:
    """`with dual_level():` a forward AD level, left (its tangents forgotten) at the end.
    Also a decorator, as PyTorch's."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc: Any) -> None:
        exit_dual_level()

    def __call__(self, fn: Any) -> Any:
        import functools

        @functools.wraps(fn)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with dual_level():
                return fn(*args, **kwargs)
        return wrapper


class UnpackedDualTensor(NamedTuple):
    """What `unpack_dual` returns: the primal (a view of the tensor) and its tangent."""

    primal: Any
    tangent: Any


def make_dual(tensor: Any, tangent: Any, *, level: int | None = None) -> Any:
    """A view of `tensor` carrying `tangent` at `level` (default: the current one).

    As in PyTorch the tangent is kept as it is when it is laid out as the tensor is, copied
    otherwise (unless it requires grad); the result is a view, so backward reaches `tensor`
    through it."""
    if level is None:
        level = len(LEVELS.kinds) - 1
    if level < 0 or level >= len(LEVELS.kinds):
        raise RuntimeError(NO_LEVEL)
    Tensor = _tensor.Tensor
    for name, t in (("primal", tensor), ("tangent", tangent)):
        if not isinstance(t, Tensor):
            raise TypeError(f"make_dual(): argument '{name if name == 'tangent' else 'tensor'}' "
                            f"must be Tensor, not {type(t).__name__}")
        if t.array.dtype.kind not in "fc":
            raise ValueError(f"Expected {name} to be floating point or complex, but got: "
                             f"{_dtype_name(t)}")
    if tangent.array.shape != tensor.array.shape:
        raise RuntimeError(SIZE.format(list(tensor.array.shape), list(tangent.array.shape)))
    if own_tangent(tensor, level) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {level} is not supported.")
    old = LEVELS.hide_from(level)
    try:
        dual = tensor.view(tensor.array.shape)
    finally:
        LEVELS.hide_from(old)
    if tangent.array.strides != _strides_like(tensor.array, tangent.array.itemsize) and \
            not tangent._requires_grad:  # (one that requires grad is kept: its graph counts)
        laid_out = np.empty_like(tensor.array, dtype=tangent.array.dtype)
        laid_out[...] = tangent.array
        tangent = Tensor._make(laid_out, None, 0)
    set_tangent(dual, level, tangent)
    return dual


def unpack_dual(tensor: Any, *, level: int | None = None) -> UnpackedDualTensor:
    """`(primal, tangent)`: a view of `tensor` without its tangent at `level`, and that
    tangent (None when it has none, or when no level exists)."""
    if level is None:
        level = len(LEVELS.kinds) - 1
    if level < 0:
        return UnpackedDualTensor(tensor, None)
    old = LEVELS.hide_from(level)
    try:
        primal = tensor.view(tensor.array.shape)
    finally:
        LEVELS.hide_from(old)
    return UnpackedDualTensor(primal, own_tangent(tensor, level))


# -- where tangents live ------------------------------------------------------------------------
def own_tangent(t: Any, level: int) -> Any:
    """The tangent `t` itself holds at `level` (None: none)."""
    tangents = t._tangents
    return None if tangents is None else tangents.get(level)


def set_tangent(t: Any, level: int, tangent: Any) -> None:
    """Give `t` `tangent` at `level` (checked: same shape, as PyTorch checks)."""
    if tangent.array.shape != t.array.shape:
        raise RuntimeError(SIZE.format(list(t.array.shape), list(tangent.array.shape)))
    if t._tangents is None:
        t._tangents = {}
    t._tangents[level] = tangent
    LEVELS.duals[level][id(t)] = weakref.ref(t)


def copied(t: Any) -> dict | None:
    """`t`'s tangents, each a copy (for the old value an in-place op records: the tangents
    `t` keeps are written over)."""
    if not t._tangents:
        return None
    return {level: tangent.clone() for level, tangent in t._tangents.items()}


def detached(t: Any) -> Any:
    """`t.detach()` keeping its tangents (what autograd.grad returns: in PyTorch a gradient
    computed inside a level carries its tangent, forward-over-reverse)."""
    out = t.detach()
    for level, tangent in (t._tangents or {}).items():
        set_tangent(out, level, tangent)
    return out


def top_level(args: tuple) -> int:
    """The innermost visible level at which one of `args` has a tangent (-1: none)."""
    Tensor, top, cap = _tensor.Tensor, -1, LEVELS.cap
    for a in args:
        if isinstance(a, Tensor) and a._tangents is not None:
            for level in a._tangents:
                if top < level < cap:
                    top = level
    return top


def write_tangent(target: Any, new: Any) -> None:
    """After an in-place op wrote `new`'s values into `target`: `target`'s tangent becomes
    `new`'s, written into the tangent it already has, so that the views sharing it see the
    change. A view without a tangent first gets its window of its base's tangent (zeros for a
    base that had none), as do the base's other views: in PyTorch a view's tangent is always
    a view of its base's."""
    for level in range(LEVELS.visible):
        tangent = own_tangent(new, level)
        if tangent is None:
            continue
        current = own_tangent(target, level)
        base = target if target._base is None else target._base
        if current is None and (base is not target or base.__dict__.get("_views")):
            _windows_of(base, level, target)
            current = own_tangent(target, level)
        if current is None or current._requires_grad:  # (a recorded tangent is replaced,
            set_tangent(target, level, tangent)          # not overwritten: its graph holds)
        else:
            current.array[...] = tangent.array


def _windows_of(base: Any, level: int, view: Any) -> None:
    """Give `view` and the base's other live views without a tangent at `level` their window
    of the base's tangent (zeros for a base that has none)."""
    base_tangent = own_tangent(base, level)
    if base_tangent is None:
        base_tangent = _tensor.Tensor._make(np.zeros_like(base.array), None, 0)
        set_tangent(base, level, base_tangent)
    for v in {view, *(base.__dict__.get("_views") or ())} - {base}:
        if own_tangent(v, level) is None and v.array.dtype.kind in "fc":
            set_tangent(v, level, _window(v, base_tangent))


def _window(view: Any, base_tangent: Any) -> Any:
    """The part of `base_tangent` at `view`'s place in its base's memory, as a numpy view."""
    base, data = view._base.array, base_tangent.array
    ratio = data.itemsize / base.itemsize
    offset = view.array.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    if data.strides != _strides_like(base, data.itemsize) or not (
            base.flags.c_contiguous or base.flags.f_contiguous):
        raise RuntimeError("minigrad cannot find this view's tangent in its base's: the base's "
                           "tangent is laid out differently. Make the view after the base got "
                           "its tangent, or clone() the view.")
    strides = tuple(int(s * ratio) for s in view.array.strides)
    flat = data.reshape(-1, order="C" if data.flags.c_contiguous else "F")  # (memory order)
    start = int(offset * ratio) // data.itemsize
    window = np.lib.stride_tricks.as_strided(flat[start:], view.array.shape, strides)
    return _tensor.Tensor._make(window, None, 0)


def _strides_like(array: np.ndarray, itemsize: int) -> tuple:
    """`array`'s strides for elements of `itemsize` bytes."""
    return tuple(s // array.itemsize * itemsize for s in array.strides)


def _dtype_name(t: Any) -> str:
    from minigrad.surface import dtypes

    return dtypes.name(t.array.dtype)


def in_rule() -> bool:
    """True while a JVP rule runs: the ops it calls compute a tangent, not the program's
    values (a recorder of forward ops may leave them out)."""
    return LEVELS.rules > 0
