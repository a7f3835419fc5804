"""The printed report: value differences per tensor, the graph verdict, and one `ok`."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from compare.graph_compare import GraphComparison


@dataclass
class TensorDiff:
    """How far minigrad's values are from PyTorch's for one tensor (the output or a gradient).

    An element passes when `|minigrad - torch| <= atol + rtol * |torch|` (numpy's `allclose`);
    `worst` is the element that misses that bound by the most (or comes closest to it).
    `max_rel` leaves out elements where both values are within `atol` of zero.
    """

    what: str
    shape: tuple | None
    max_abs: float = 0.0
    max_rel: float = 0.0
    worst: tuple | None = None
    minigrad_value: float | None = None
    torch_value: float | None = None
    ok: bool = True
    note: str = ""


def diff(what: str, mine: np.ndarray | None, theirs: np.ndarray | None, atol: float,
         rtol: float) -> TensorDiff:
    """Compare two arrays (None: no gradient on that side)."""
    if mine is None or theirs is None:
        same = mine is None and theirs is None
        missing = "minigrad" if mine is None else "torch"
        return TensorDiff(what, _shape(mine), ok=same,
                          note="" if same else f"{missing} has no gradient (None)")
    if mine.shape != theirs.shape:
        return TensorDiff(what, mine.shape, np.inf, np.inf, ok=False,
                          note=f"shapes differ: {mine.shape} vs {theirs.shape}")
    note = ""
    if mine.dtype != theirs.dtype:
        note = f"dtypes differ: minigrad {mine.dtype}, torch {theirs.dtype}"
    a, b = mine.astype(np.float64), theirs.astype(np.float64)
    if a.size == 0:
        return TensorDiff(what, a.shape, ok=not note, note=note)
    with np.errstate(invalid="ignore", divide="ignore"):
        both_nan = np.isnan(a) & np.isnan(b)
        same_inf = np.isinf(a) & (a == b)
        err = np.where(both_nan | same_inf, 0.0, np.abs(a - b))
        err = np.where(np.isnan(err), np.inf, err)
        size = np.maximum(np.abs(a), np.abs(b))
        rel = np.where((err == 0) | (size <= atol), 0.0, err / size)  # not among ~zeros
        excess = err / (atol + rtol * np.abs(np.nan_to_num(b)))
    worst = np.unravel_index(int(np.argmax(excess)), a.shape)
    ok = bool(np.all(excess <= 1)) and not note
    return TensorDiff(what, a.shape, float(err.max()), float(np.nanmax(rel)),
                      tuple(int(i) for i in worst), float(a[worst]), float(b[worst]), ok, note)


def _shape(x: np.ndarray | None) -> tuple | None:
    return None if x is None else tuple(x.shape)


def _num(x: float | None) -> str:
    return "-" if x is None else f"{x:.3g}"


@dataclass
class Report:
    """minigrad against PyTorch on one callable or model: print it, or ask `.ok`."""

    title: str
    forward: TensorDiff
    grads: list[TensorDiff]
    graph: GraphComparison | None
    atol: float
    rtol: float
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return (self.forward.ok and all(g.ok for g in self.grads)
                and (self.graph is None or self.graph.ok))

    def failures(self) -> list[str]:
        """One phrase per thing that did not match (empty when `ok`)."""
        out = [f"{d.what}: {d.note or f'max abs err {_num(d.max_abs)} at {d.worst}'}"
               for d in [self.forward, *self.grads] if not d.ok]
        if self.graph is not None and not self.graph.ok:
            out.append("graph shape differs: " + self.graph.divergence.describe())
        return out

    def table(self) -> str:
        head = ("", "shape", "max abs err", "max rel err", "worst at", "minigrad", "torch", "")
        rows = [head]
        for d in [self.forward, *self.grads]:
            shape = "None" if d.shape is None else str(d.shape)
            rows.append((d.what, shape, _num(d.max_abs), _num(d.max_rel),
                         "-" if d.worst is None else str(d.worst), _num(d.minigrad_value),
                         _num(d.torch_value), "ok" if d.ok else "MISMATCH"))
        widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
        lines = ["  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip() for r in rows]
        for d in [self.forward, *self.grads]:
            if d.note:
                lines.append(f"note ({d.what}): {d.note}")
        return "\n".join(lines)

    def __str__(self) -> str:
        parts = [f"{self.title}   (float64; an element matches when |minigrad - torch| <= "
                 f"{self.atol:g} + {self.rtol:g} * |torch|)", self.table()]
        if self.graph is not None:
            parts.append(str(self.graph))
        parts.extend(self.notes)
        parts.append("result: OK" if self.ok else "result: MISMATCH - " +
                     "; ".join(self.failures()))
        return "\n".join(parts)

    def summary(self, width: int = 0) -> str:
        """One line: verdict, title (padded to `width`), worst gradient error, graph verdict."""
        worst = max([d.max_rel for d in self.grads if d.max_rel is not None] or [0.0])
        graph = "-" if self.graph is None else self.graph.verdict()
        return (f"{'ok  ' if self.ok else 'FAIL'}  {self.title:<{width}}  (grads max rel err "
                f"{worst:.1e}, graph {graph})")


def values(x: Any) -> np.ndarray | None:
    """A tensor of either engine (or None) as a numpy array."""
    if x is None:
        return None
    return np.array(x.detach().numpy())
