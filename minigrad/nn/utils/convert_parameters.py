"""Parameters as one vector and back, as `torch.nn.utils.convert_parameters`."""

from __future__ import annotations

from collections.abc import Iterable

from minigrad import ops
from minigrad.autograd.tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """Every parameter flattened and concatenated, in order (recorded: CatBackward0 of
    ViewBackward0s, as in PyTorch)."""
    return ops.cat([p.view(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Slice `vec` back into the parameters' shapes and make those their values (`.data`)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected minigrad.Tensor, but got: {type(vec).__name__}")
    start = 0
    for p in parameters:
        n = p.numel()
        p.data = vec[start:start + n].view_as(p).data
        start += n
