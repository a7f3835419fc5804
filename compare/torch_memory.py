"""What PyTorch's graph keeps for backward, as the Trace records count memory (`TraceSaved`).

Each torch node exposes what it saved as `_saved_*` (tensors, tuples of tensors, numbers);
each tensor lies in a storage, which other nodes or a leaf may share: one piece of memory,
named once by its address (`m1`, `m2`, ...), of `untyped_storage().nbytes()` bytes, the sum of
the distinct ones being what PyTorch's saved-tensor hooks would count. After the backward, a
node whose `_saved_*` raise was freed, and PyTorch frees a node's saved tensors right after it
runs (unless retain_graph=True), so its step is where they went.
"""

from __future__ import annotations

from typing import Any

from compare.torch_values import tensors
from minigrad.teach.records import TraceSaved

__all__ = ["freed", "saved_memory"]


def saved_memory(graph: Any, node: Any, args: list[str]) -> list[TraceSaved]:
    """The `TraceSaved` records of one torch node (`graph`: a prepared TorchGraph)."""
    torch, out = graph.torch, []
    keys = _storage_names(graph)
    edges = list(node.next_functions)
    for key, value in graph.saved.get(node, {}).items():
        for t in tensors([value], torch):
            storage = t.untyped_storage()
            name = key
            edge = graph.edges_of.get(node, {}).get(key)
            if edge is not None and key != "result":  # an input: by its label
                name = next((args[i] for i, (nxt, nr) in enumerate(edges)
                             if nxt is edge[0] and nr == edge[1] and i < len(args)), key)
            where = keys.setdefault(storage.data_ptr(), f"m{len(keys) + 1}")
            out.append(TraceSaved(str(name), tuple(t.shape), str(t.dtype).replace("torch.", ""),
                                  int(storage.nbytes()), where, graph.leaf_storages.get(
                                      storage.data_ptr())))
    return out


def _storage_names(graph: Any) -> dict[int, str]:
    """The graph's names of memory by address, made once, with its leaves' addresses."""
    if not hasattr(graph, "storage_names"):
        graph.storage_names = {}
        graph.leaf_storages = {node.variable.untyped_storage().data_ptr(): graph.labels[node]
                               for node in graph.order if graph.name[node] == "AccumulateGrad"}
    return graph.storage_names


def freed(graph: Any, node: Any) -> bool:
    """Did a backward free what `node` saved (reading it now raises, as PyTorch says)?"""
    for key, value in graph.saved.get(node, {}).items():
        if not tensors([value], graph.torch):
            continue
        try:
            if key.startswith("saved["):  # a user's autograd.Function
                node.saved_tensors  # noqa: B018 (reading it is the test)
            else:
                getattr(node, "_saved_" + key)
        except RuntimeError:
            return True
        return False
    return False
