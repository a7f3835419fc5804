"""Telling a trace how a function transform did its work.

A transform (`jacobian`, `hessian`, `jacrev`, `vmap`, ...) is wrapped by `transform(name)`:
while somebody listens it emits `TransformBegin` before and `TransformEnd` after, and the
transform may `note(...)` why it ran as many passes as it did (the strategy, how many rows it
computed one at a time, ...). The passes themselves are the engine's own events
(`BackwardBegin`, forward-mode passes) that a listener sees in between; with nobody listening,
this costs one truth test per call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from minigrad.autograd import events

_open: list[dict] = []  # the notes of the transforms running now, innermost last


def transform(name: str) -> Callable:
    """Decorate a transform called `name` so that listeners see where it begins and ends."""
    def wrap(fn: Callable) -> Callable:
        @functools.wraps(fn)
        def run(*args: Any, **kwargs: Any) -> Any:
            if not events.listening():
                return fn(*args, **kwargs)
            notes: dict = {}
            _open.append(notes)
            events.emit(events.TransformBegin(name))
            try:
                return fn(*args, **kwargs)
            except BaseException as exc:
                # (a BaseException that is no Exception is a signal, not an error: vmap's
                # NoBatchingRule drops a batched attempt, whose transforms did not happen)
                notes["raised"] = type(exc).__name__
                notes["dropped"] = not isinstance(exc, Exception)
                raise
            finally:
                _open.pop()  # (transforms nest: the innermost ends first)
                events.emit(events.TransformEnd(name, dict(notes)))
        return run
    return wrap


def note(**facts: Any) -> None:
    """Add facts to what the innermost running transform will report (when listened to)."""
    if _open:
        _open[-1].update(facts)
