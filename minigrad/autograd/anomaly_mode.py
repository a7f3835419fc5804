"""Anomaly mode's checks: name the node whose backward failed or produced NaN.

`autograd.detect_anomaly()` turns the mode on; while it is on, `Function.apply` keeps the
forward stack of every node it records, and the engine calls `check` after each step and
`warn` when a backward raises, printing the forward line that made the node (as PyTorch).
"""

from __future__ import annotations

import sys
import warnings
from typing import Any

import numpy as np


def check(node: Any, grads: list) -> None:
    """PyTorch's check: the first output holding NaN names the node (inf is no anomaly)."""
    for i, g in enumerate(grads):
        if g is not None and np.isnan(getattr(g, "array", g)).any():  # (a Tensor, or an array)
            warn(node)
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th "
                               "output.")


def warn(node: Any) -> None:
    """Warn, and print to stderr, where the failing node was created."""
    stack = "".join(node._creation_stack or ["  (no forward trace: the node was created "
                                             "outside detect_anomaly)\n"])
    text = (f"Error detected in {node.name()}. Traceback of forward call that caused the "
            f"error:\n{stack}")
    warnings.warn(text, UserWarning, stacklevel=3)
    print(text, file=sys.stderr, end="")
