"""The modules of a Trace as a tree, read from the records alone (`TraceNode.module`,
`Trace.modules`), so that it works the same for minigrad's and PyTorch's recordings.

A module's parent is the nearest recorded module whose path is a prefix of its own
(`layer2.0` for `layer2.0.conv1`; a container that never ran, such as a ModuleList, is
skipped), the model itself (`""`) at depth 0. Each node belongs to its module; a parameter's
AccumulateGrad to the module that owns the parameter (`TraceModule.params`), else to the
module of its first user; an input to none (`None`).
"""

from __future__ import annotations

from typing import Any

import numpy as np


class ModuleTree:
    """Parents, depths and members of the modules of one Trace."""

    def __init__(self, trace: Any) -> None:
        self.trace = trace
        self.leaves = {leaf.node: leaf for leaf in trace.leaves}
        paths = list(trace.modules)
        for n in trace.nodes:  # (records may name modules only through their nodes)
            if n.module and n.module not in trace.modules and n.module not in paths:
                paths.append(n.module)
        self.paths = paths
        known = set(paths)
        self.parent: dict[str, str | None] = {}
        for path in paths:
            self.parent[path] = None if path == "" else _nearest(path, known)
        self.has_children = {p for p in self.parent.values() if p is not None}
        self.depth: dict[str, int] = {}
        for path in paths:
            self.depth[path] = self._depth(path)
        self.module_of = self._members()

    def _depth(self, path: str) -> int:
        depth, at = 0, self.parent.get(path)
        while at is not None:
            depth, at = depth + 1, self.parent.get(at)
        return depth if path == "" else depth + (0 if "" in self.parent else 1)

    def _members(self) -> dict[str, str | None]:
        """node id -> the module it belongs to (None: an input, outside every module)."""
        owner = {name: m.path for m in self.trace.modules.values() for name in m.params}
        users: dict[str, str] = {}
        for n in self.trace.nodes:
            for i in n.inputs:
                if i is not None and i not in users and not n.is_leaf:
                    users[i] = n.module
        members: dict[str, str | None] = {}
        for n in self.trace.nodes:
            if not n.is_leaf:
                members[n.id] = n.module
            elif n.module:
                members[n.id] = n.module
            elif n.label in owner:
                members[n.id] = owner[n.label]
            elif self.is_param(n) and n.id in users:
                members[n.id] = users[n.id]
            else:
                members[n.id] = None
        return members

    def is_param(self, node: Any) -> bool:
        leaf = self.leaf(node.id)
        return leaf is not None and leaf.is_param

    def leaf(self, node_id: str) -> Any:
        return self.leaves.get(node_id)

    def type_of(self, path: str) -> str:
        m = self.trace.modules.get(path)
        return m.type if m is not None else ""

    def ancestor(self, path: str | None, depth: int) -> str | None:
        """The module drawn as one box at `depth` that holds `path`: its ancestor at `depth`,
        or itself when it is shallower and has no submodules; None when `path` is None or
        a shallower module with submodules (drawn open, as a cluster)."""
        if path is None:
            return None
        if self.depth.get(path, 0) < depth:
            return None if path in self.has_children or path == "" else path
        while self.depth.get(path, 0) > depth:
            path = self.parent[path]
        return path

    def inside(self, path: str | None, outer: str) -> bool:
        """Is `path` the module `outer` or inside it?"""
        if path is None:
            return False
        return outer == "" or path == outer or path.startswith(outer + ".")

    def children(self, path: str) -> list[str]:
        return [p for p in self.paths if self.parent.get(p) == path]


def _nearest(path: str, known: set[str]) -> str | None:
    parts = path.split(".")
    for k in range(len(parts) - 1, 0, -1):
        prefix = ".".join(parts[:k])
        if prefix in known:
            return prefix
    return "" if "" in known else None


def norm(arrays: list[Any]) -> float | None:
    """The L2 norm of several arrays together (None when there are none)."""
    arrays = [a for a in arrays if a is not None]
    if not arrays:
        return None
    with np.errstate(all="ignore"):
        return float(np.sqrt(sum(float(np.sum(np.square(np.asarray(a, dtype=np.float64))))
                                 for a in arrays)))
