"""PyTorch's layout and memory-format objects: `minigrad.strided`, `minigrad.preserve_format`,
`contiguous_format`, `channels_last`, `channels_last_3d`, as factories' `layout=` and
`clone`/`contiguous`/`float`/... `memory_format=` take them; and the keyword-only options
every factory takes (`layout=`, `device=`, `requires_grad=`, `pin_memory=`, `out=`), shown in
its signature by `keywords`.

Every minigrad tensor is a strided (dense) numpy array and keeps its values in its own order,
so these are accepted and checked as PyTorch checks them (type, and channels_last's rank),
and change no value: a program passing them computes what PyTorch computes.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

from minigrad.surface import devices

__all__ = ["channels_last", "channels_last_3d", "contiguous_format", "layout",
           "memory_format", "preserve_format", "strided"]

FLAGS = ("requires_grad", "pin_memory")
MADE = ("out", "layout", "device", "requires_grad", "pin_memory")  # (every factory's)
LIKE = ("layout", "device", "requires_grad", "pin_memory", "memory_format")  # (the *_like's)


class layout:  # noqa: N801 (PyTorch's name)
    """A tensor's layout (`minigrad.strided`, the only one minigrad has)."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"minigrad.{self._name}"

    def __reduce__(self) -> str:
        return self._name


class memory_format:  # noqa: N801 (PyTorch's name)
    """An order of a tensor's elements in memory, as `memory_format=` takes it."""

    def __init__(self, name: str, rank: int | None = None) -> None:
        self._name, self.rank = name, rank

    def __repr__(self) -> str:
        return f"minigrad.{self._name}"

    def __reduce__(self) -> str:
        return self._name


strided = layout("strided")
preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last", 4)
channels_last_3d = memory_format("channels_last_3d", 5)


def check_memory_format(value: Any, op: str, ndim: int) -> None:
    """PyTorch's errors for `memory_format=` (None means preserve_format)."""
    if value is None:
        return
    if not isinstance(value, memory_format):
        raise TypeError(f"{op}(): argument 'memory_format' must be torch.memory_format, not "
                        f"{type(value).__name__}")
    if value.rank is not None and ndim != value.rank:
        raise RuntimeError(f"required rank {value.rank} tensor to use {value._name} format")


def check_layout(value: Any, op: str) -> None:
    """`layout=`: minigrad.strided (or None) only."""
    if value is not None and not isinstance(value, layout):
        raise TypeError(f"{op}(): argument 'layout' must be torch.layout, not "
                        f"{type(value).__name__}")


def check_options(op: str, device: Any, layout: Any, pin_memory: bool) -> bool:
    """The options every factory takes: the CPU or the meta device (True), a layout, no
    pinned memory."""
    check_layout(layout, op)
    if pin_memory:
        raise RuntimeError(devices.NO_PINNED)
    return devices.wants_meta(device)


def keywords(*names: str) -> Callable[[Callable], Callable]:
    """A factory's signature shows PyTorch's keyword-only `names` where its `**kw` is: they
    pass to `leaf` (or are read before), which takes them."""
    def mark(fn: Callable) -> Callable:
        sig = inspect.signature(fn)
        params = [p for p in sig.parameters.values() if p.kind is not p.VAR_KEYWORD]
        have = {p.name for p in params}
        params += [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY,
                                     default=False if n in FLAGS else None)
                   for n in names if n not in have]
        fn.__signature__ = sig.replace(parameters=params)  # type: ignore[attr-defined]
        return fn
    return mark
