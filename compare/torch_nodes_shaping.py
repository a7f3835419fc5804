"""minigrad's settings of the shaping, indexing and sorting nodes, read off what PyTorch saves
on them (`_saved_dim`, `_saved_dims`, ...): an entry of `torch_nodes.SETTINGS` per node name,
so that a PyTorch graph traced by `compare.trace_torch` is narrated as minigrad's own is.

PyTorch keeps a dim as the call gave it (-1); minigrad keeps it counted from the front.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


def _ndim(facts: Any, extra: int = 0) -> int:
    shape = facts.in_shapes[0] if facts.in_shapes else None
    if shape is None:
        shape = facts.saved.get("self_sym_sizes")
    if shape is None:
        raise ValueError("input shape unknown")
    return max(len(shape) + extra, 1)


def _dim(facts: Any, name: str = "dim", extra: int = 0) -> int:
    return facts.saved[name] % _ndim(facts, extra)


def _along(facts: Any) -> dict[str, Any]:
    return {"dim": _dim(facts)}


def _axes(facts: Any) -> tuple:
    return tuple(d % _ndim(facts) for d in facts.saved["dims"])


def _diagonal(facts: Any, extra: int = 0) -> dict[str, Any]:
    return {"offset": facts.saved["offset"], "dim1": _dim(facts, "dim1", extra),
            "dim2": _dim(facts, "dim2", extra)}


SHAPING_SETTINGS: dict[str, Callable[[Any], dict[str, Any]]] = {
    "SplitBackward0": lambda f: {"dim": _dim(f), "split_size": f.saved["split_size"]},
    "UnsafeSplitBackward0": lambda f: {"dim": _dim(f), "split_size": f.saved["split_size"]},
    "SplitWithSizesBackward0": lambda f: {"dim": _dim(f),
                                          "split_sizes": list(f.saved["split_sizes"])},
    "UnbindBackward0": _along,
    "NarrowCopyBackward0": lambda f: {"dim": _dim(f), "start": f.saved["start"],
                                      "length": f.saved["length"]},
    "FlipBackward0": lambda f: {"axes": _axes(f)},
    "RollBackward0": lambda f: {"shifts": tuple(f.saved["shifts"]), "axes": _axes(f)},
    "RepeatBackward0": lambda f: {"repeats": tuple(f.saved["repeats"])},
    "DiagonalBackward0": _diagonal,
    "DiagEmbedBackward0": lambda f: _diagonal(f, extra=1),
    "TrilBackward0": lambda f: {"diagonal": f.saved["diagonal"]},
    "TriuBackward0": lambda f: {"diagonal": f.saved["diagonal"]},
    "UnfoldBackward0": lambda f: {"dimension": _dim(f, "dimension"), "size": f.saved["size"],
                                  "step": f.saved["step"]},
    "GatherBackward0": _along,
    "ScatterBackward0": _along,
    "ScatterBackward1": _along,
    "ScatterAddBackward0": _along,
    "IndexSelectBackward0": _along,
    "IndexAddBackward0": _along,
    "IndexFillBackward0": _along,
    "IndexFillBackward1": _along,
    "SortBackward0": _along,
    "SortBackward1": _along,
    "TopkBackward0": _along,
    "KthvalueBackward0": _along,
    "MedianBackward1": _along,
    "NanmedianBackward1": _along,
    "ModeBackward0": _along,
}
