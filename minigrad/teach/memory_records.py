"""What the records keep of a node besides its narration: the memory behind what it saved
(`TraceNode.memory`) and the values a program needs (`TraceNode.constants`).

A node keeps the tensors `save_for_backward` got, its own output where its backward reads it
(`saves_output`), and sometimes arrays of its own (`ctx.mask`, `ctx.share`: kept until the
graph is dropped, since backward frees only the saved tensors). Each lies in some memory:
the array that owns it (a view's base), which other nodes or a leaf may share. `MemoryNotes`
names each piece of memory once (`m1`, `m2`, ...) and keeps it alive until the records are
built, so that no other array can come to have its id meanwhile.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.node import AccumulateGrad
from minigrad.autograd.tensor import Tensor
from minigrad.teach.copies import Copies
from minigrad.teach.labels import UNKNOWN
from minigrad.teach.records import TraceSaved


def constant_values(node: Any, consts: dict[int, Any], attrs: dict[str, Any], copies: Copies
                    ) -> dict[Any, Any]:
    """What `Trace.to_python()` needs that the narration leaves out: the value of each input
    without an edge (by index; a tensor's as a copy of its array; an unknown one left out),
    and the settings the narration does not show (by name: a large `where` condition, a key
    holding an index array)."""
    values: dict[Any, Any] = {i: copies.of(v) if isinstance(v, Tensor) else v
                              for i, v in consts.items() if v is not UNKNOWN}
    if not isinstance(node, AccumulateGrad):
        values.update((k, v) for k, v in node.settings.items() if k not in attrs)
    return values


def owner(array: np.ndarray) -> np.ndarray:
    """The array that owns `array`'s memory (itself, or the base of the view it is)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


class MemoryNotes:
    """Per node, the arrays it keeps: `note(node)` while recording, `records(...)` at build."""

    def __init__(self) -> None:
        self.owners: dict[int, np.ndarray] = {}  # id(owner) -> owner, kept alive
        self.keys: dict[int, str] = {}  # id(owner) -> "m1", "m2", ... in the order first seen

    def key(self, array: np.ndarray) -> str:
        """The name of the memory `array` lies in."""
        base = owner(array)
        found = self.keys.get(id(base))
        if found is None:
            self.owners[id(base)] = base
            found = self.keys[id(base)] = f"m{len(self.keys) + 1}"
        return found

    def note(self, node: Any, where: list) -> list[tuple]:
        """(name, array, freed) for what `node` keeps: its saved tensors (named by `where[i]`,
        an input index or a text), its saved output ("result"), its own arrays (by name)."""
        kept = [(where[i], v.array, True) for i, v in enumerate(node.saved_values)
                if isinstance(v, Tensor)]
        if node.saved_output is not None:
            kept.append(("result", node.saved_output, True))
        kept += [(name, v, False) for name, v in vars(node).items()
                 if isinstance(v, np.ndarray) and not name.startswith("_")]
        for _, array, _ in kept:
            self.key(array)
        return kept

    def records(self, kept: list[tuple], args: list[str], leaves: dict[str, str]
                ) -> list[TraceSaved]:
        """The `TraceSaved` records of one node's notes; `args` read an input index as its
        label, `leaves` maps a memory's name to the leaf that owns it."""
        out = []
        for name, array, freed in kept:
            key = self.key(array)
            label = args[name] if isinstance(name, int) and name < len(args) else str(name)
            out.append(TraceSaved(label, tuple(array.shape), array.dtype.name,
                                  int(owner(array).nbytes), key, leaves.get(key), freed))
        return out

    def clear(self) -> None:
        self.owners.clear()
        self.keys.clear()
