"""torch tensors and node metadata as the records keep them: numpy copies, dtypes, shapes."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["array", "arrays", "dtype_name", "metadata", "np_dtype", "tensors"]


def metadata(node: Any) -> list[tuple]:
    """(shape, dtype) of each output of a node, as torch recorded them."""
    try:
        return [(tuple(m.shape), m.dtype) for m in node._input_metadata]
    except (AttributeError, RuntimeError):
        return []


_NP_DTYPES: dict[Any, Any] = {}


def dtype_name(dtype: Any) -> str:
    """torch's name of a dtype (`bfloat16`, which numpy has not: its values are kept as
    float32 arrays)."""
    return str(dtype).removeprefix("torch.")


def np_dtype(dtype: Any, torch: Any) -> Any:
    if dtype is None:
        return None
    found = _NP_DTYPES.get(dtype)  # speed: not a tensor made per node (a Transformer: 10%)
    if found is None:
        try:
            found = torch.empty((), dtype=dtype).numpy().dtype
        except (TypeError, RuntimeError):
            found = np.dtype(np.float32)
        _NP_DTYPES[dtype] = found
    return found


def array(t: Any) -> np.ndarray:
    """A numpy copy of a torch tensor (bfloat16 and such as float32)."""
    try:
        # speed: numpy(force=True) detaches, moves to the CPU and resolves conj/neg bits (a
        # ZeroTensor too, as SgnBackward0 sends) in one call (a Transformer trace: 6%)
        return t.numpy(force=True).copy()
    except TypeError:
        return t.detach().cpu().float().numpy().copy()


def arrays(values: Any) -> list[np.ndarray | None]:
    return [None if v is None else array(v) for v in values]


def tensors(values: Any, torch: Any) -> list:
    """The tensors among `values`, looking into tuples (`max(dim)` gives values, indices)."""
    out, stack = [], list(values)
    while stack:
        v = stack.pop(0)
        if isinstance(v, torch.Tensor):
            out.append(v)
        elif isinstance(v, tuple | list):
            stack[:0] = list(v)
    return out
