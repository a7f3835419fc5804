"""Which module of a PyTorch model made each node: forward hooks common to all modules.

`ModuleWatch(model)` is a context manager: while it is open, a global forward pre-hook and
forward hook (`torch.nn.modules.module.register_module_forward_pre_hook`, PyTorch's hooks for
debugging tools) keep the stack of the model's modules whose forward is running, so
`current()` is the dotted path of the innermost one (`"layer2.0.conv1"`, `""` for the model
itself, None outside every forward); other modules' calls are passed over. On exit both hooks
are removed, even after an error. `records()` gives the `TraceModule`s of the modules that
ran, in the order they were first called. `compare.trace_torch` asks `current()` each time an
op makes nodes.

speed: two global hooks, not two on every submodule (a Transformer trace: 3%).

`Members(model)`: the model's modules, parameters and buffers by name, as
`named_modules()`, `named_parameters()` and `named_buffers()` give them, read in one walk
that the watch and `compare.torch_graph` share.
"""

from __future__ import annotations

from typing import Any

from minigrad.teach.records import TraceModule

__all__ = ["Members", "ModuleWatch"]


class ModuleWatch:
    """The stack of running modules of `model` (see the module docstring)."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.members = Members(model)
        self.stack: list[str] = []
        self.calls: dict[str, int] = {}  # path -> forward calls, in first-call order
        self.handles: list[Any] = []
        self.paths = {id(m): path for path, m in self.members.modules.items()}
        self.types = {path: type(m).__name__ for path, m in self.members.modules.items()}
        # parameter name -> the path of the module holding it (`layer1.0.conv1.weight` is
        # held by `layer1.0.conv1`: a parameter's own name has no dot)
        self.params = {name: name.rpartition(".")[0] for name in self.members.params}

    def __enter__(self) -> ModuleWatch:
        from torch.nn.modules import module

        try:
            self.handles.append(module.register_module_forward_pre_hook(self._enter))
            self.handles.append(module.register_module_forward_hook(self._leave,
                                                                    always_call=True))
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

    def _enter(self, module: Any, args: Any) -> None:
        path = self.paths.get(id(module))
        if path is not None:
            self.stack.append(path)
            self.calls[path] = self.calls.get(path, 0) + 1

    def _leave(self, module: Any, args: Any, out: Any) -> None:
        path = self.paths.get(id(module))
        if path is not None and self.stack and self.stack[-1] == path:
            self.stack.pop()

    def current(self) -> str | None:
        return self.stack[-1] if self.stack else None

    def records(self) -> list[TraceModule]:
        by_owner: dict[str, list[str]] = {}
        for name, path in self.params.items():
            by_owner.setdefault(path, []).append(name)
        return [TraceModule(path, self.types[path], by_owner.get(path, []), calls)
                for path, calls in self.calls.items()]


class Members:
    """A module's submodules, parameters and buffers by full name, each once (the first name
    it is found under), in PyTorch's order; a parameter or buffer set to None left out."""

    def __init__(self, model: Any) -> None:
        self.modules: dict[str, Any] = dict(model.named_modules())
        self.params = _named(self.modules, "_parameters")
        self.buffers = _named(self.modules, "_buffers")


def _named(modules: dict[str, Any], attr: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    seen: set[int] = set()
    for path, module in modules.items():
        for name, t in getattr(module, attr).items():
            if t is not None and id(t) not in seen:
                seen.add(id(t))
                out[f"{path}.{name}" if path else name] = t
    return out
