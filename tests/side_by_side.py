"""Helpers for tests that run the same code on minigrad and on PyTorch and compare what happened.

`outcome(fn)` is what a call did, in a form both libraries share: ("ok", dtype name, shape,
rounded values) for a tensor, the value itself for anything else, or (exception class name,
message) with `torch.` and `minigrad.` spelled alike. `differences(cases, run)` runs every case
on both and lists those that disagree, so a failing test shows all of them at once.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

import minigrad


def _tensor(value: Any) -> bool:
    return hasattr(value, "dtype") and hasattr(value, "shape") and hasattr(value, "detach")


def summary(value: Any, decimals: int = 3) -> Any:
    """A tensor as (dtype name, shape, values rounded to `decimals`); tuples and lists of
    them item by item; anything else as it is."""
    if _tensor(value):
        values = np.asarray(value.detach().numpy(), dtype=np.float64)
        return (str(value.dtype).rsplit(".", 1)[-1], tuple(value.shape),
                np.round(values, decimals).tolist())
    if isinstance(value, (tuple, list)):
        return type(value).__name__, [summary(v, decimals) for v in value]
    return value


def words(exc: BaseException) -> str:
    """An exception's message with the library's name taken out."""
    return str(exc).replace("torch.", "LIB.").replace("minigrad.", "LIB.")


def outcome(fn: Callable[[], Any], messages: bool = True, decimals: int = 3) -> tuple:
    """("ok", summary of the result) or (exception class, its words, if `messages`)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return "ok", summary(fn(), decimals)
        except Exception as exc:  # noqa: BLE001 - compared with the other library's
            return (type(exc).__name__, words(exc)) if messages else (type(exc).__name__,)


def agree(ours: tuple, theirs: tuple) -> bool:
    """The same outcome; an error in PyTorch's words, to which minigrad may add a hint, or
    before which it names the op and shapes that do not broadcast (tutorials/differences.md,
    "Messages with a hint")."""
    if ours == theirs:
        return True
    return (ours[0] == theirs[0] != "ok" and len(ours) == len(theirs) == 2
            and (ours[1].startswith(theirs[1] + " (")
                 or "do not broadcast. " in ours[1] and ours[1].endswith(". " + theirs[1])))


def differences(cases: Iterable[Any], run: Callable[[Any, Any], Any], torch: Any,
                messages: bool = True) -> list:
    """`(case, minigrad's outcome, PyTorch's)` for each case where `run(lib, case)` differs."""
    found = []
    for case in cases:
        ours = outcome(lambda case=case: run(minigrad, case), messages)
        theirs = outcome(lambda case=case: run(torch, case), messages)
        if not agree(ours, theirs):
            found.append((case, ours, theirs))
    return found


def same(fn: Callable[[Any], Any], torch: Any, messages: bool = True) -> tuple:
    """(minigrad's outcome, PyTorch's) of `fn(lib)`: assert they are equal."""
    return (outcome(lambda: fn(minigrad), messages), outcome(lambda: fn(torch), messages))
