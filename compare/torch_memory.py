"""What PyTorch's graph keeps for backward, as the Trace records count memory (`TraceSaved`).

Each torch node exposes what it saved as `_saved_*` (tensors, tuples of tensors, numbers);
each tensor lies in a storage, which other nodes or a leaf may share: one piece of memory,
named once by its address (`m1`, `m2`, ...), of `untyped_storage().nbytes()` bytes, the sum of
the distinct ones being what PyTorch's saved-tensor hooks would count. After the backward, a
node whose `_saved_*` raise was freed, and PyTorch frees a node's saved tensors right after it
runs (unless retain_graph=True), so its step is where they went.

A non-reentrant checkpoint (`torch.utils.checkpoint(..., use_reentrant=False)`) changes what
is kept: its saved-tensor hooks take what the block's nodes save and keep a handle instead,
and reading `_saved_*` runs the block again and hands back new tensors, which the graph never
held. So `checkpoint_held` notes, before anything is read, which saved tensors a checkpoint's
hooks hold (their unpack hook is torch.utils.checkpoint's): those count nothing, and what the
checkpoint keeps instead, the block's inputs, counts once, with the block's first node.
"""

from __future__ import annotations

from typing import Any

from compare.torch_values import tensors
from minigrad.teach.records import TraceSaved

__all__ = ["checkpoint_held", "freed", "saved_memory"]

CHECKPOINT = "torch.utils.checkpoint"  # the module of a non-reentrant checkpoint's hooks


def checkpoint_held(node: Any) -> tuple[set[str], dict[int, list]]:
    """What of `node`'s saved tensors a non-reentrant checkpoint's hooks hold instead of the
    graph: their keys, and per checkpoint (by id) the inputs it keeps to run its block again.
    Read before `_saved_*` (which runs the block again) and before backward."""
    keys: set[str] = set()
    frames: dict[int, list] = {}
    for attr in [a for a in dir(type(node)) if a.startswith("_raw_saved_")]:
        try:
            raws = getattr(node, attr)
        except RuntimeError:  # (freed by an earlier backward)
            continue
        many = isinstance(raws, list | tuple)
        for i, raw in enumerate(raws if many else [raws]):
            frame = _frame(getattr(raw, "unpack_hook", None))
            if frame is None:
                continue
            name = attr[len("_raw_saved_"):]
            keys.add(f"saved[{i}]" if name == "tensors" and many else name)
            frames[id(frame)] = [a.unpack() for a in frame.saved_args
                                 if type(a).__name__ == "SavedTensor"]
    return keys, frames


def _frame(hook: Any) -> Any:
    """The checkpoint frame behind a saved tensor's unpack hook, if it is a checkpoint's."""
    if getattr(hook, "__module__", None) != CHECKPOINT or not hook.__closure__:
        return None
    cells = dict(zip(hook.__code__.co_freevars, hook.__closure__))
    return cells["frame"].cell_contents if "frame" in cells else None


def saved_memory(graph: Any, node: Any, args: list[str]) -> list[TraceSaved]:
    """The `TraceSaved` records of one torch node (`graph`: a prepared TorchGraph)."""
    torch, out = graph.torch, []
    keys = _storage_names(graph)
    edges = list(node.next_functions)
    held, frames = graph.checkpointed.get(node, (set(), {}))
    for inputs in [v for k, v in frames.items() if k not in graph.frames_counted]:
        for t in inputs:  # (what a checkpoint keeps for its block, with its first node)
            storage = t.untyped_storage()
            where = keys.setdefault(storage.data_ptr(), f"m{len(keys) + 1}")
            label = graph.labels.get(t.grad_fn) if t.grad_fn is not None else None
            out.append(TraceSaved(f"{label or 'input'} (kept by the checkpoint)",
                                  tuple(t.shape), str(t.dtype).replace("torch.", ""),
                                  int(storage.nbytes()), where,
                                  graph.leaf_storages.get(storage.data_ptr())))
    graph.frames_counted.update(frames)
    for key, value in graph.saved.get(node, {}).items():
        if key in held:  # (a handle: the tensor comes back from the block run again)
            continue
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
