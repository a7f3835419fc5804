"""Pieces shared by the flat drawing (`viz`) and the module drawing (`module_drawing`): the
colours, a box's lines cut to fit, shapes, compact values, each edge's gradient."""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.surface.printing import format_values

COLORS = {"op": "lightgrey", "leaf": "lightblue", "param": "lightblue",
          "output": "darkolivegreen1", "saved": "orange", "module": "lightyellow"}
MAX_LINE = 200  # characters per line of a box (graphviz refuses strings of ~16 kB)


def edge_gradients(trace: Any) -> dict[tuple[str, int], Any]:
    """(op id, input index) -> the gradient the op sent along that edge (last pass)."""
    grads = {}
    for step in trace.steps:
        for i, g in enumerate(step.grad_inputs):
            if g is not None:
                grads[(step.node, i)] = g
    return grads


def fit(lines: list[str]) -> str:
    """A box's lines, each cut to MAX_LINE characters: any label can be drawn."""
    return "\n".join(line if len(line) <= MAX_LINE else line[:MAX_LINE - 1] + "…"
                     for line in lines)


def shape_text(shape: Any) -> str:
    return "?" if shape is None else str(tuple(int(n) for n in shape))


def compact(a: Any) -> str:
    """`[3., 3., 3.]` when small, else `(128, 256) norm 1.234`."""
    a = np.asarray(a)
    if a.size <= 6 and a.ndim <= 1:
        return format_values(a)
    with np.errstate(all="ignore"):
        norm = float(np.sqrt(np.sum(np.square(a.astype(np.float64)))))
    return f"{shape_text(a.shape)} norm {norm:.4g}"
