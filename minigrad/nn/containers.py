"""Containers: Sequential (layers applied in order), ModuleList (a registered list) and
ModuleDict (a registered dict), with PyTorch's indexing, editing and reprs."""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from minigrad.nn.module import Module, _addindent


class _IndexedModules(Module):
    """What Sequential and ModuleList share: children named "0", "1", ... kept numbered in
    order (after a `del` or `insert` too, as in PyTorch)."""

    def _index(self, idx: int) -> int:
        n = len(self._modules)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return idx % n

    def _key(self, idx: int) -> str:
        return list(self._modules)[self._index(idx)]

    def _renumber(self, modules: list[Module]) -> None:
        self._modules.clear()
        for i, module in enumerate(modules):
            self.add_module(str(i), module)

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):
            return type(self)(*list(self._modules.values())[idx]) if isinstance(
                self, Sequential) else type(self)(list(self._modules.values())[idx])
        return self._modules[self._key(idx)]

    def __setitem__(self, idx: int, module: Module) -> None:
        self.add_module(self._key(idx), module)

    def __delitem__(self, idx: int | slice) -> None:
        modules = list(self._modules.values())
        if isinstance(idx, slice):
            del modules[idx]
        else:
            del modules[self._index(idx)]
        self._renumber(modules)

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[Module]:
        return iter(self._modules.values())

    def append(self, module: Module) -> Any:
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules: Iterable[Module]) -> Any:
        if not isinstance(modules, Iterable):
            raise TypeError(f"{type(self).__name__}.extend should be called with an iterable, "
                            f"but got {type(modules).__name__}")
        for module in modules:
            self.append(module)
        return self

    def insert(self, index: int, module: Module) -> Any:
        modules = list(self._modules.values())
        modules.insert(index, module)
        self._renumber(modules)
        return self

    def pop(self, index: int = -1) -> Module:
        module = self[index]
        del self[index]
        return module

    def __iadd__(self, other: Iterable[Module]) -> Any:
        return self.extend(other)

    def __add__(self, other: Iterable[Module]) -> Any:
        out = type(self)()
        for module in [*self, *other]:
            out.append(module)
        return out


class Sequential(_IndexedModules):
    """Apply the given modules one after another; they are named "0", "1", ... (or by the
    keys of an OrderedDict), so their parameters are `0.weight`, `0.bias`, ..."""

    def __init__(self, *args: Any) -> None:
        super().__init__()
        if len(args) == 1 and isinstance(args[0], OrderedDict):
            for name, module in args[0].items():
                self.add_module(name, module)
        else:
            for i, module in enumerate(args):
                self.add_module(str(i), module)

    def forward(self, input: Any) -> Any:
        for module in self._modules.values():
            input = module(input)
        return input

    def __getitem__(self, idx: int | slice) -> Any:
        if isinstance(idx, slice):  # (the names are kept, as in PyTorch)
            return Sequential(OrderedDict(list(self._modules.items())[idx]))
        return super().__getitem__(idx)


class ModuleList(_IndexedModules):
    """A list of modules that registers them (a plain Python list would hide their
    parameters from `parameters()`). Its repr folds repeated layers: `(0-2): 3 x Linear(...)`."""

    def __init__(self, modules: Iterable[Module] | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.extend(modules)

    def __repr__(self) -> str:
        reprs = [repr(m) for m in self]
        if not reprs:
            return self._get_name() + "()"
        blocks: list[list] = []  # [first index, last index, repr]
        for i, text in enumerate(reprs):
            if blocks and blocks[-1][2] == text:
                blocks[-1][1] = i
            else:
                blocks.append([i, i, text])
        lines = [_addindent(f"({a}): {text}" if a == b else f"({a}-{b}): {b - a + 1} x {text}",
                            2) for a, b, text in blocks]
        return self._get_name() + "(\n  " + "\n  ".join(lines) + "\n)"


class ModuleDict(Module):
    """A dict of modules that registers them under their keys (in insertion order)."""

    def __init__(self, modules: Mapping[str, Module] | Iterable | None = None) -> None:
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key: str) -> Module:
        return self._modules[key]

    def __setitem__(self, key: str, module: Module) -> None:
        self.add_module(key, module)

    def __delitem__(self, key: str) -> None:
        del self._modules[key]

    def __len__(self) -> int:
        return len(self._modules)

    def __iter__(self) -> Iterator[str]:
        return iter(self._modules)

    def __contains__(self, key: object) -> bool:
        return key in self._modules

    def keys(self) -> Any:
        return self._modules.keys()

    def values(self) -> Any:
        return self._modules.values()

    def items(self) -> Any:
        return self._modules.items()

    def pop(self, key: str) -> Module:
        module = self[key]
        del self[key]
        return module

    def clear(self) -> None:
        self._modules.clear()

    def update(self, modules: Mapping[str, Module] | Iterable) -> None:
        pairs = modules.items() if isinstance(modules, Mapping) else modules
        for key, module in pairs:
            self[key] = module
