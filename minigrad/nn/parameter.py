"""`Parameter`: a Tensor that is a module's weight (as torch.nn.Parameter)."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.tensor import Tensor
from minigrad.surface import dtypes


class Parameter(Tensor):
    """A Tensor that is a module's weight: requires grad by default and is registered when
    assigned to a Module attribute. Shares memory with the tensor it is made from."""

    __slots__ = ()

    def __init__(self, data: Any = None, requires_grad: bool = True) -> None:
        super().__init__(np.empty(0, dtype=dtypes.float32) if data is None else data)
        if isinstance(data, Tensor):
            self.array = data.array  # share memory, as torch.nn.Parameter(t) does
        self.requires_grad_(requires_grad)
