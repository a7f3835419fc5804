"""Which module made each op: the recorder's call stack of `nn.Module`s.

While someone listens to the engine's events, `nn.Module.__call__` announces each forward
with a `ModuleBegin` and a `ModuleEnd` event; the recorder hands them to `enter` and `leave`,
which keep the modules whose forward is running on a stack, each call with its own number.
`ModuleCalls.innermost()`, called by the recorder for each op, notes the calls on the stack
(each once) and returns the innermost one's number; `build()` then names each call by its
dotted path in the model (`layer2.0.conv1`, found in each parent's `_modules`), and gives
the `TraceModule` records: one per path, with its class, its own parameters and how many
times it ran.

The outermost module is the model itself, path `""` (as in `model.named_modules()`); another
outermost module (a loss module called next to the model) is named by its class
(`CrossEntropyLoss`). Given `params=model`, names come from `model.named_modules()`.
"""

from __future__ import annotations

import itertools
from typing import Any

from minigrad.teach.labels import UniqueLabels
from minigrad.teach.records import TraceModule


class ModuleCalls:
    """The module calls seen while recording, and their paths at the end."""

    def __init__(self, model: Any = None) -> None:
        # the module calls running now, outermost first, as (module, call number)
        self.stack: list[tuple[Any, int]] = []
        self.numbers = itertools.count(1)
        # call number -> (module, the enclosing call's number, 0 for none)
        self.calls: dict[int, tuple[Any, int]] = {}
        # id(module) -> its name in the model the trace was given (params=model)
        self.known: dict[int, str] = {}
        if model is not None and hasattr(model, "named_modules"):
            self.known = {id(m): name for name, m in model.named_modules()}

    def enter(self, module: Any) -> None:
        """A ModuleBegin event: `module`'s forward starts."""
        self.stack.append((module, next(self.numbers)))

    def leave(self, module: Any) -> None:
        """A ModuleEnd event: `module`'s forward ended. (A call that began before the
        recording did is not on the stack.)"""
        if self.stack and self.stack[-1][0] is module:
            self.stack.pop()

    def innermost(self) -> int:
        """The number of the innermost module call running now (0: none); notes new calls."""
        stack = self.stack
        if not stack:
            return 0
        for k in range(len(stack) - 1, -1, -1):
            module, number = stack[k]
            if number in self.calls:
                break  # (the calls around it were noted with it)
            self.calls[number] = (module, stack[k - 1][1] if k else 0)
        return stack[-1][1]

    def build(self) -> tuple[dict[int, str], list[TraceModule], dict[int, str]]:
        """Call number -> path; the TraceModules (in order of first call); and id(parameter)
        -> its full name (`layer1.0.conv1.weight`) for every parameter of a module that ran."""
        paths: dict[int, str] = {0: ""}
        by_module: dict[int, str] = {}  # id(module) -> path (a module keeps its first path)
        tops = UniqueLabels()
        records: dict[str, TraceModule] = {}
        param_names: dict[int, str] = {}
        for number in sorted(self.calls):
            module, parent = self.calls[number]
            path = by_module.get(id(module))
            if path is None:
                path = self._path(module, parent, paths, tops)
                by_module[id(module)] = path
            paths[number] = path
            record = records.get(path)
            if record is None:
                own = [(f"{path}.{name}" if path else name, p)
                       for name, p in module._parameters.items() if p is not None]
                record = records[path] = TraceModule(path, type(module).__name__,
                                                     [name for name, _ in own], 0)
                for name, p in own:
                    param_names.setdefault(id(p), name)
            record.calls += 1
        return paths, list(records.values()), param_names

    def _path(self, module: Any, parent: int, paths: dict[int, str],
              tops: UniqueLabels) -> str:
        if id(module) in self.known:
            return self.known[id(module)]
        if not parent:  # the model itself is "", a later outermost module its class name
            if not tops.used:
                tops.used.add("")
                return ""
            return tops(type(module).__name__)
        outer = self.calls[parent][0]
        prefix = paths[parent]
        name = _name_in(outer, module)
        if name is None:
            name = type(module).__name__
        return f"{prefix}.{name}" if prefix else name


def _name_in(outer: Any, module: Any) -> str | None:
    """`module`'s dotted name inside `outer` (a child, or deeper), or None."""
    for name, child in outer._modules.items():
        if child is module:
            return name
    for name, child in outer.named_modules():
        if child is module and name:
            return name
    return None
