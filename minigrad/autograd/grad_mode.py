"""Grad mode: whether new operations are recorded in the graph, and anomaly mode's switch.

Grad mode belongs to a thread, as in PyTorch: `no_grad()` in one thread leaves the others
recording, and a new thread starts with it on. It is a `ContextVar` (a read costs ~25 ns; a
`threading.local` attribute ~170 ns, on every op). Anomaly mode is one switch for the whole
process, as PyTorch's is.
"""

from __future__ import annotations

import contextvars
import functools
import inspect
from collections.abc import Callable
from typing import Any

GRAD_ENABLED = contextvars.ContextVar("grad_enabled", default=True)  # per thread (and task)
INFERENCE = contextvars.ContextVar("inference_mode", default=False)  # inside inference_mode


class _State:
    """Both switches, on one object so readers find them in one place: `grad_enabled` reads
    and sets this thread's GRAD_ENABLED (the hot paths read GRAD_ENABLED.get() directly)."""

    __slots__ = ("anomaly_check_nan", "anomaly_enabled")

    def __init__(self) -> None:
        self.anomaly_enabled = False
        self.anomaly_check_nan = True  # (anomaly mode's NaN check, as PyTorch's check_nan)

    @property
    def grad_enabled(self) -> bool:
        return GRAD_ENABLED.get()

    @grad_enabled.setter
    def grad_enabled(self, mode: bool) -> None:
        GRAD_ENABLED.set(mode)


state = _State()


def is_grad_enabled() -> bool:
    return state.grad_enabled


class set_grad_enabled:
    """Turn recording on or off; usable as a call, a context manager or a decorator."""

    def __init__(self, mode: bool) -> None:
        if not isinstance(mode, bool):
            raise TypeError("set_grad_enabled(): argument 'enabled' (position 1) must be bool, "
                            f"not {type(mode).__name__}")
        self.prev = state.grad_enabled
        self.mode = mode
        state.grad_enabled = mode

    def __enter__(self) -> None:
        state.grad_enabled = self.mode

    def __exit__(self, *exc: Any) -> None:
        state.grad_enabled = self.prev

    def __call__(self, fn: Callable) -> Callable:
        state.grad_enabled = self.prev  # constructing the decorator must not flip the mode
        return decorate(fn, self.clone)

    def clone(self) -> set_grad_enabled:
        """A new context of the same mode (what a decorated function enters on each call)."""
        context = object.__new__(set_grad_enabled)
        context.mode, context.prev = self.mode, state.grad_enabled
        return context

    def __repr__(self) -> str:
        return f"minigrad.autograd.grad_mode.set_grad_enabled(mode={self.mode})"


def decorate(fn: Callable, context: Callable[[], Any]) -> Callable:
    """`fn` run inside a fresh `context()` on each call, as PyTorch's context decorators do.

    A generator function is entered afresh each time it resumes and left each time it yields,
    so its body runs in the mode while the code that drives it keeps its own (a plain wrapper
    would set the mode only while the generator object is made, which runs none of its body).
    """
    if inspect.isgeneratorfunction(fn):
        @functools.wraps(fn)
        def generator(*args: Any, **kwargs: Any) -> Any:
            gen = fn(*args, **kwargs)
            try:
                with context():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with context():
                            gen.close()
                        raise
                    except BaseException as exc:  # thrown in by the caller: pass it on
                        with context():
                            response = gen.throw(exc)
                    else:
                        with context():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value

        return generator

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with context():
            return fn(*args, **kwargs)

    return wrapper


class _GradModeContext:
    """Base of no_grad / enable_grad: a context manager and a decorator, with or without
    parentheses (`@no_grad()` and `@no_grad`, as in PyTorch 2)."""

    mode = True

    def __new__(cls, *args: Any) -> Any:
        if len(args) == 1 and callable(args[0]) and not isinstance(args[0], bool):
            return super().__new__(cls)(args[0])  # bare `@no_grad`: the wrapped function
        return super().__new__(cls)

    def __enter__(self) -> None:
        self.prev = state.grad_enabled
        state.grad_enabled = self.mode

    def __exit__(self, *exc: Any) -> None:
        state.grad_enabled = self.prev

    def __call__(self, fn: Callable) -> Callable:
        return decorate(fn, self.clone)

    def clone(self) -> Any:
        """A new context of the same kind and mode."""
        context = object.__new__(type(self))
        context.mode = self.mode
        return context


class no_grad(_GradModeContext):
    """Inside, operations are not recorded: results have no grad_fn."""

    mode = False


class enable_grad(_GradModeContext):
    """Inside, operations are recorded again (even within no_grad)."""

    mode = True


class inference_mode(_GradModeContext):
    """`torch.inference_mode(mode=True)`: `no_grad`, and every tensor made inside is an
    inference tensor (`x.is_inference()`): PyTorch's kind that may never be saved for a
    backward, nor changed in place or made to require grad outside inference mode (node.py,
    tensor.py and ops/in_place.py raise its errors). `inference_mode(False)` turns both off.
    minigrad saves no time by them: they only keep PyTorch's rules."""

    mode = False  # (grad mode inside; also what a bare `@inference_mode` uses)

    def __init__(self, mode: bool = True) -> None:
        self.mode = not mode

    def __enter__(self) -> None:
        super().__enter__()
        self.token = INFERENCE.set(not self.mode)

    def __exit__(self, *exc: Any) -> None:
        INFERENCE.reset(self.token)
        super().__exit__(*exc)


def is_inference_mode_enabled() -> bool:
    return INFERENCE.get()
