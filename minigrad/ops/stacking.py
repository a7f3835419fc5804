"""hstack, vstack, dstack: `cat` of the tensors made at least 1-, 2- or 3-D (as PyTorch's
atleast_1d/2d/3d make them), so they record CatBackward0 and the views before it."""

from __future__ import annotations

from typing import Any

from minigrad.ops.index import cat
from minigrad.ops.views import reshape, unsqueeze

# the public functions: minigrad.hstack, ... (re-exported by ops/ and minigrad/)
__all__ = ["dstack", "hstack", "vstack"]


def _at_least(tensors: Any, ndim: int) -> list:
    """Each tensor with at least `ndim` dims, as torch.atleast_1d/2d/3d make them."""
    out = []
    for t in tensors:
        if t.array.ndim == 0:
            t = reshape(t, (1,) * ndim)
        elif t.array.ndim == 1 and ndim >= 2:
            t = unsqueeze(t, 0) if ndim == 2 else unsqueeze(unsqueeze(t, 0), -1)
        elif t.array.ndim == 2 and ndim == 3:
            t = unsqueeze(t, -1)
        out.append(t)
    return out


def hstack(tensors: Any) -> Any:
    """cat along dim 1 (dim 0 for 1-D tensors)"""
    tensors = _at_least(tensors, 1)
    return cat(tensors, dim=0 if tensors[0].array.ndim == 1 else 1)


def vstack(tensors: Any) -> Any:
    """cat along dim 0 of the tensors made at least 2-D"""
    return cat(_at_least(tensors, 2), dim=0)


def dstack(tensors: Any) -> Any:
    """cat along dim 2 of the tensors made at least 3-D"""
    return cat(_at_least(tensors, 3), dim=2)
