"""`minigrad.testing`: prove a backward right.

- `gradcheck(fn, inputs)` / `gradgradcheck(fn, inputs)`: analytic vs finite-difference
  Jacobians in float64, with a report that names the input, the element and both values;
- `minigrad.testing.op_table`: the op table (every op, how to call it, its domain, PyTorch's
  node);
- `minigrad.testing.strategies`: hypothesis strategies (shapes, tensors, expressions). It is
  imported only when used, so this package works without hypothesis installed.
"""

from __future__ import annotations

import importlib
from typing import Any

from minigrad.testing import op_table
from minigrad.testing.gradcheck import GradcheckError, gradcheck, gradgradcheck

__all__ = ["GradcheckError", "gradcheck", "gradgradcheck", "op_table", "strategies"]


def __getattr__(name: str) -> Any:
    if name == "strategies":  # needs hypothesis: imported on first use only
        return importlib.import_module("minigrad.testing.strategies")
    raise AttributeError(f"module 'minigrad.testing' has no attribute {name!r}")
