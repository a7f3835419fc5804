"""Gradient flow: how big each layer's gradient is, from the output back to the input.

A layer here is a weight (every parameter but the biases, as in the forum's `plot_grad_flow`),
in the model's order. For each, |grad| and |grad| / |weight|, the size of one SGD step next to
the weight. `flow_trend(rows)` says when that ratio falls (or grows) steadily by a thousand
times or more from the last layer to the first: vanishing (exploding) gradients, the trend a
table row by row hides. `plot_flow(reports)` draws one report, or several (one per training
step), on a log scale with matplotlib (`grad_report.GradFlow` records a report per step).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from minigrad.nn.grad_display import figure

__all__ = ["FlowData", "Trend", "flow_data", "flow_trend", "plot_flow"]

TREND_LIMIT = 1e3  # how much the ratio must change from the last layer to the first
STEADY = 0.7  # the share of layer-to-layer steps that must go the same way


@dataclass(frozen=True)
class FlowData:
    """What a flow plot shows: the layers' names, |grad| and |grad| / |weight| (nan where a
    layer has no gradient, or a zero one, which a log scale cannot show)."""

    layers: list[str]
    grad_norms: np.ndarray
    ratios: np.ndarray


@dataclass(frozen=True)
class Trend:
    """`kind` ("vanishing" or "exploding") of the ratio from the last layer to the first."""

    kind: str
    first: str
    last: str
    first_ratio: float
    last_ratio: float
    layers: int

    @property
    def total(self) -> float:
        return max(self.first_ratio, self.last_ratio) / min(self.first_ratio, self.last_ratio)

    def words(self) -> dict[str, Any]:
        return {"first": self.first, "last": self.last, "first_ratio": self.first_ratio,
                "last_ratio": self.last_ratio, "total": f"{self.total:.1e}",
                "factor": self.total ** (1 / max(self.layers - 1, 1))}


def _is_layer(row: Any) -> bool:
    return row.requires_grad and row.name.rpartition(".")[2] != "bias"


def flow_data(rows: list) -> FlowData:
    layers = [r for r in rows if _is_layer(r)]
    norms = np.array([np.nan if not r.grad_norm else r.grad_norm for r in layers], float)
    ratios = np.array([r.grad_norm / r.weight_norm if r.grad_norm and r.weight_norm > 0
                       else np.nan for r in layers], float)
    return FlowData([r.name for r in layers], norms, ratios)


def flow_trend(rows: list) -> Trend | None:
    """Vanishing or exploding, when the ratio changes steadily and by TREND_LIMIT or more."""
    data = flow_data(rows)
    keep = ~np.isnan(data.ratios)
    ratios, names = data.ratios[keep], [n for n, k in zip(data.layers, keep) if k]
    if len(ratios) < 3:
        return None
    growing = np.mean(np.diff(ratios) > 0)  # toward the output
    first, last = float(ratios[0]), float(ratios[-1])
    if last / first >= TREND_LIMIT and growing >= STEADY:
        kind = "vanishing"
    elif first / last >= TREND_LIMIT and 1 - growing >= STEADY:
        kind = "exploding"
    else:
        return None
    return Trend(kind, names[0], names[-1], first, last, len(ratios))


def plot_flow(reports: list, ax: Any = None, labels: list[str] | None = None) -> Any:
    """Draw each report's flow (solid: |grad| / |weight|, dashed: |grad|); return the Figure.

    Several reports (one per training step) are drawn from light to dark, so the picture
    shows how the flow changes as the model trains. `ax`: a matplotlib Axes to draw into.
    """
    if ax is None:  # (a Figure that Jupyter shows inline: grad_display.figure)
        ax = figure(figsize=(8, 4.5), layout="constrained").add_subplot()
    datas = [flow_data(r) for r in reports]
    if labels is None:
        labels = [""] if len(datas) == 1 else [f"step {i + 1}" for i in range(len(datas))]
    shades = np.linspace(0.35, 1.0, len(datas)) if len(datas) > 1 else [1.0]
    for data, label, shade in zip(datas, labels, shades):
        x = np.arange(len(data.layers))
        blue, orange = (0.12, 0.47, 0.71, shade), (1.0, 0.5, 0.05, shade)
        ax.plot(x, data.ratios, "o-", color=blue,
                label=f"|grad| / |weight| {label}".rstrip())
        ax.plot(x, data.grad_norms, "s--", color=orange, label=f"|grad| {label}".rstrip())
    layers = datas[-1].layers if datas else []
    ax.set_xticks(np.arange(len(layers)), layers, rotation=60, ha="right", fontsize=8)
    # a log scale needs one positive number: with none (every gradient zero or missing) the
    # figure could not be drawn at all, so the picture says so instead
    drawable = any(np.isfinite(np.concatenate([d.ratios, d.grad_norms])).any() for d in datas)
    if drawable:
        ax.set_yscale("log")
    ax.set_xlabel("layer (input → output)")
    ax.set_ylabel("gradient size (log scale)")
    trend = flow_trend(reports[-1]) if reports else None
    ax.set_title("gradient flow" + (f": {trend.kind}" if trend is not None else "")
                 + ("" if drawable else ": no layer has a nonzero gradient"))
    ax.grid(True, which="major", alpha=0.3)
    ax.legend(fontsize=7, ncols=2 if len(datas) > 1 else 1)
    return ax.figure
