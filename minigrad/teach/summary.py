"""The one-screen table a long explanation opens with: the gradient of each module.

One row per module that owns parameters: its class, parameter count, the norm of its
parameters' gradients, that norm over the weights' norm, the backward steps that ran in it,
and a warning:
- exploding: nan/inf in the gradient, or |grad| / |weight| > 1e3;
- no gradient: a parameter that requires grad got None (the loss does not use it);
- vanishing: the gradient is all zeros, |grad| / |weight| < 1e-7, or it is 10^4 times
  smaller than in the module where it is largest (so the first layers of a deep sigmoid
  net, where each layer shrinks it, stand out);
- frozen: the module has parameters that do not require grad (they are not in the graph).
Rows with a warning come first (exploding, no gradient, vanishing, frozen; the smallest
ratio first), then the rest from the smallest ratio up: the suspect is on top.
Works from the records alone (`module_tree`), in English and Chinese (`summary_phrases`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from minigrad.teach.module_tree import ModuleTree, norm
from minigrad.teach.summary_phrases import SUMMARY_PHRASES
from minigrad.teach.text_width import pad, width

EXPLODING = 1e3  # |grad| / |weight| above this: exploding (as grad_report)
VANISHING = 1e-7  # below this: vanishing (as grad_report)
RELATIVE = 1e-4  # this much smaller than the largest ratio in the model: vanishing
MAX_ROWS = 40  # one screen
SEVERITY = {"exploding": 0, "none": 1, "vanishing": 2, "frozen": 3}


@dataclass
class Row:
    path: str
    type: str
    params: int
    grad_norm: float | None
    ratio: float | None
    steps: list[int]
    warning: str = ""  # a SEVERITY key, or ""
    detail: str = ""


def module_rows(trace: Any) -> list[Row]:
    """The rows, suspects first."""
    tree = ModuleTree(trace)
    by_label = {leaf.label: leaf for leaf in trace.leaves}
    steps = trace.step_numbers()
    members: dict[str, list[str]] = {}
    for node_id, path in tree.module_of.items():
        if path is not None:
            members.setdefault(path, []).append(node_id)
    rows = []
    for m in trace.modules.values():
        if not m.params:
            continue
        leaves = [by_label[name] for name in m.params if name in by_label]
        size = sum(int(np.prod(leaf.shape, dtype=np.int64)) for leaf in leaves)
        grads = [leaf.grad for leaf in leaves]
        g, w = norm(grads), norm([leaf.value for leaf in leaves])
        ratio = None if g is None or not w else g / w
        numbers = sorted(k for i in members.get(m.path, []) for k in steps.get(i, []))
        row = Row(m.path, m.type, size, g, ratio, numbers)
        if any(x is None for x in grads) and trace.backwards:
            row.warning = "none"
        elif g is not None and not math.isfinite(g) or (ratio or 0) > EXPLODING:
            row.warning = "exploding"
        elif len(leaves) < len(m.params):
            row.warning = "frozen"
        rows.append(row)
    best = max((r.ratio for r in rows if r.ratio is not None and math.isfinite(r.ratio)),
               default=None)
    for r in rows:
        if r.warning or r.ratio is None:
            continue
        if r.grad_norm == 0 or r.ratio < VANISHING or (best and r.ratio < RELATIVE * best):
            r.warning = "vanishing"
            r.detail = "" if not best or r.grad_norm == 0 else f"{best / r.ratio:.1e}"
    rows.sort(key=lambda r: (0 if r.warning else 1, SEVERITY.get(r.warning, 9),
                             r.ratio if r.ratio is not None and math.isfinite(r.ratio)
                             else -1.0))
    return rows


def summary_lines(trace: Any, lang: str = "en") -> list[str]:
    """The table as text lines (a title, a header, a row per module)."""
    p = SUMMARY_PHRASES[lang]
    rows = module_rows(trace)
    if not rows:
        return []
    best = next((r.path for r in sorted(rows, key=lambda r: -(r.ratio or 0))), "")
    table = [[p["module"], p["type"], p["params"], p["grad_norm"], p["ratio"], p["steps"],
              p["warning"]]]
    for r in rows[:MAX_ROWS]:
        table.append([r.path or p["model"], r.type, f"{r.params:,}", _num(r.grad_norm),
                      _num(r.ratio), _span(r.steps), _warning(r, p, best)])
    widths = [max(width(row[k]) for row in table) for k in range(len(table[0]) - 1)]
    lines = [p["title"].format(n=len(rows), steps=len(trace.steps))]
    for row in table:
        cells = [pad(c, w) for c, w in zip(row, widths)]
        lines.append(("  " + "  ".join(cells) + "  " + row[-1]).rstrip())
    if len(rows) > MAX_ROWS:
        lines.append("  " + p["more"].format(n=len(rows) - MAX_ROWS))
    return lines


def _warning(r: Row, p: dict[str, str], best: str) -> str:
    if r.warning == "vanishing" and r.detail:
        return p["vanishing_vs"].format(x=r.detail, best=best or p["model"])
    return p.get(r.warning, "")


def _num(v: float | None) -> str:
    return "-" if v is None else f"{v:.2e}"


def _span(steps: list[int]) -> str:
    if not steps:
        return "-"
    return str(steps[0]) if steps[0] == steps[-1] else f"{steps[0]}–{steps[-1]}"
