"""Which module of a PyTorch model made each node: forward hooks on every submodule.

`ModuleWatch(model)` is a context manager: while it is open, a forward pre-hook and a forward
hook on each of `model.named_modules()` keep the stack of modules whose forward is running,
so `current()` is the dotted path of the innermost one (`"layer2.0.conv1"`, `""` for the
model itself, None outside every forward). On exit every hook is removed, even after an
error. `records()` gives the `TraceModule`s of the modules that ran, in the order they were
first called. `compare.trace_torch` asks `current()` each time an op makes nodes.
"""

from __future__ import annotations

from typing import Any

from minigrad.teach.records import TraceModule

__all__ = ["ModuleWatch", "owners"]


class ModuleWatch:
    """The stack of running modules of `model` (see the module docstring)."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.stack: list[str] = []
        self.calls: dict[str, int] = {}  # path -> forward calls, in first-call order
        self.handles: list[Any] = []
        self.paths = {id(m): path for path, m in model.named_modules()}
        self.types = {path: type(m).__name__ for path, m in model.named_modules()}
        self.params = owners(model)

    def __enter__(self) -> ModuleWatch:
        try:
            for path, module in self.model.named_modules():
                self.handles.append(module.register_forward_pre_hook(
                    lambda m, args, path=path: self._enter(path)))
                self.handles.append(module.register_forward_hook(
                    lambda m, args, out, path=path: self._leave(path), always_call=True))
        except BaseException:
            self._remove()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self._remove()

    def _remove(self) -> None:
        for handle in self.handles:
            handle.remove()
        self.handles.clear()

    def _enter(self, path: str) -> None:
        self.stack.append(path)
        self.calls[path] = self.calls.get(path, 0) + 1

    def _leave(self, path: str) -> None:
        if self.stack and self.stack[-1] == path:
            self.stack.pop()

    def current(self) -> str | None:
        return self.stack[-1] if self.stack else None

    def records(self) -> list[TraceModule]:
        by_owner: dict[str, list[str]] = {}
        for name, path in self.params.items():
            by_owner.setdefault(path, []).append(name)
        return [TraceModule(path, self.types[path], by_owner.get(path, []), calls)
                for path, calls in self.calls.items()]


def owners(model: Any) -> dict[str, str]:
    """Each parameter's full name -> the path of the module that holds it directly."""
    found = {}
    for path, module in model.named_modules():
        for name, _ in module.named_parameters(recurse=False):
            full = f"{path}.{name}" if path else name
            found.setdefault(full, path)
    return {name: found[name] for name, _ in model.named_parameters() if name in found}
