"""Which positional arguments a transform differentiates: `argnums` read and checked with
PyTorch's words (an int, or a non-empty tuple of distinct ints; negative counts from the
end), and the arguments put back with new values at those places."""

from __future__ import annotations

from typing import Any


def _one(argnum: Any, num_args: int) -> int:
    if not isinstance(argnum, int):
        raise RuntimeError(f"argnum must be int, got: {type(argnum)}")
    if 0 <= argnum < num_args:
        return argnum
    if -num_args <= argnum < 0:
        return argnum + num_args
    raise RuntimeError(f"Got argnum={argnum}, but only {num_args} positional inputs")


def checked(argnums: Any, num_args: int) -> Any:
    """argnums with negative numbers made positive (an int stays an int)."""
    if not isinstance(argnums, int | tuple):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")
    if isinstance(argnums, int):
        return _one(argnums, num_args)
    wrapped = tuple(_one(a, num_args) for a in argnums)
    if not argnums:
        raise RuntimeError("argnums must be non-empty")
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"argnums elements must be unique, got {argnums}")
    return wrapped


def sliced(args: tuple, argnums: Any, as_tuple: bool = True) -> Any:
    """The arguments at `argnums`: a tuple (or the one argument, for an int and not
    `as_tuple`)."""
    argnums = checked(argnums, len(args))
    if isinstance(argnums, int):
        return (args[argnums],) if as_tuple else args[argnums]
    return tuple(args[i] for i in argnums)


def replaced(args: tuple, new: Any, argnums: Any) -> tuple:
    """`args` with the ones at `argnums` replaced by `new` (one value, or a tuple)."""
    argnums = checked(argnums, len(args))
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    return tuple(new[argnums.index(i)] if i in argnums else a for i, a in enumerate(args))
