"""`grad_report(model)`: after `loss.backward()`, one row per parameter with its gradient's
size, and a warning where something is off.

The four warnings, and what they usually mean:
- missing: requires_grad but `.grad` is None: the parameter was not used in the loss, or
  backward has not run (or zero_grad ran after it);
- frozen: requires_grad=False: no gradient, and the optimizer will skip it;
- vanishing: the gradient is all zeros, or tiny next to the weight (|g| / |w| < 1e-7): a dead
  ReLU upstream, a saturated sigmoid/tanh;
- exploding: the gradient is nan/inf, or huge next to the weight (|g| / |w| > 1e3).

Then the trend across layers (`grad_flow.flow_trend`): in a deep net whose early layers get
gradients a thousand times smaller (relative to their weights) than the last one's, the
gradient is vanishing on its way back, even where no single row is flagged.
`grad_report(model).plot()` draws that flow (matplotlib); `GradFlow(model)`, called after each
backward, draws how it changes over training steps.

`model` may be a minigrad or a PyTorch model (anything with `named_parameters()`, tensors of
either kind: torch is never imported here), a dict or list of parameters, or a `Trace` (its
leaves).
"""

from __future__ import annotations

import sys
import unicodedata
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np

from minigrad.autograd.tensor import Tensor
from minigrad.nn.grad_display import png, report_html
from minigrad.nn.grad_flow import flow_trend, plot_flow

# the table's column headings, in the report's language (same keys in every language)
HEADERS = {
    "en": {"name": "name", "shape": "shape", "requires_grad": "requires_grad",
           "norm": "grad norm", "mean": "grad mean", "max": "max |grad|", "zeros": "zeros",
           "warning": "warning"},
    "zh": {"name": "参数名", "shape": "形状", "requires_grad": "requires_grad",
           "norm": "梯度范数", "mean": "梯度均值", "max": "最大|梯度|", "zeros": "零值占比",
           "warning": "提示"},
}
FLAGS = {
    "en": {"missing": "no grad", "frozen": "frozen", "vanishing": "vanishing",
           "exploding": "exploding"},
    "zh": {"missing": "无梯度", "frozen": "已冻结", "vanishing": "梯度消失",
           "exploding": "梯度爆炸"},
}
MESSAGES = {
    "en": {
        "missing": "no gradient (.grad is None): was it used in the loss? did backward run?",
        "frozen": "frozen (requires_grad=False): it gets no gradient and the optimizer will "
                  "not change it",
        "zeros": "vanishing: the gradient is all zeros; is a ReLU upstream dead (its input "
                 "always negative), or a sigmoid/tanh saturated?",
        "small": "vanishing: |grad| / |weight| = {ratio:.1e} (< {limit:.0e}); this parameter "
                 "will barely move",
        "nonfinite": "exploding: the gradient contains nan or inf; lower the learning rate, "
                     "check the loss (log of 0?), or clip with nn.utils.clip_grad_norm_",
        "large": "exploding: |grad| / |weight| = {ratio:.1e} (> {limit:.0e}); lower the "
                 "learning rate or clip with nn.utils.clip_grad_norm_",
        "summary": "{n} parameters, {bad} with warnings.",
        "healthy": "{n} parameters, all gradients look healthy.",
        "vanishing_trend": "vanishing gradients: |grad| / |weight| falls {total} times from "
                           "the last layer ({last}: {last_ratio:.1e}) to the first ({first}: "
                           "{first_ratio:.1e}), about {factor:.0f}x per layer: the early layers "
                           "barely learn. Usual causes: saturating sigmoid/tanh, a deep stack "
                           "without normalization or residual connections, a poor init.",
        "exploding_trend": "exploding gradients: |grad| / |weight| grows {total} times from "
                           "the last layer ({last}: {last_ratio:.1e}) to the first ({first}: "
                           "{first_ratio:.1e}), about {factor:.0f}x per layer. Lower the "
                           "learning rate, clip with nn.utils.clip_grad_norm_, or normalize.",
    },
    "zh": {
        "missing": "没有梯度（.grad 是 None）：这个参数参与损失的计算了吗？backward() 运行过了吗？",
        "frozen": "已冻结（requires_grad=False）：它不会得到梯度，优化器也不会更新它",
        "zeros": "梯度消失：梯度全是 0。是不是上游的 ReLU“死”了（输入总是负数），"
                 "或者 sigmoid/tanh 饱和了？",
        "small": "梯度消失：|梯度| / |权重| = {ratio:.1e}（小于 {limit:.0e}），"
                 "这个参数几乎不会更新",
        "nonfinite": "梯度爆炸：梯度里有 nan 或 inf。调小学习率，"
                     "检查损失（是不是对 0 取了对数？），或者用 nn.utils.clip_grad_norm_ 裁剪",
        "large": "梯度爆炸：|梯度| / |权重| = {ratio:.1e}（大于 {limit:.0e}）。调小学习率，"
                 "或者用 nn.utils.clip_grad_norm_ 裁剪",
        "summary": "共 {n} 个参数，其中 {bad} 个有警告。",
        "healthy": "共 {n} 个参数，梯度看起来都正常。",
        "vanishing_trend": "梯度消失：|梯度| / |权重| 从最后一层（{last}：{last_ratio:.1e}）"
                           "到第一层（{first}：{first_ratio:.1e}）缩小了 {total} 倍，"
                           "每层约 {factor:.0f} 倍：前面的层几乎学不动。常见原因：sigmoid/tanh "
                           "饱和、很深却没有归一化或残差连接、初始化不当。",
        "exploding_trend": "梯度爆炸：|梯度| / |权重| 从最后一层（{last}：{last_ratio:.1e}）"
                           "到第一层（{first}：{first_ratio:.1e}）增大了 {total} 倍，"
                           "每层约 {factor:.0f} 倍。调小学习率、用 nn.utils.clip_grad_norm_ "
                           "裁剪，或者加归一化。",
    },
}


@dataclass(frozen=True)
class GradRow:
    """One parameter's line of the report. Statistics are None when there is no gradient."""

    name: str
    shape: tuple
    requires_grad: bool
    grad_norm: float | None
    grad_mean: float | None
    grad_max: float | None  # max |g|
    zero_fraction: float | None
    weight_norm: float
    warnings: tuple = ()  # codes: "missing", "frozen", "vanishing", "exploding"
    messages: tuple = ()  # the same warnings as sentences, in the report's language


def _is_tensor(value: Any) -> bool:
    """A minigrad or torch tensor (or parameter): anything with data and requires_grad."""
    return isinstance(value, Tensor) or (hasattr(value, "requires_grad")
                                         and hasattr(value, "detach"))


def _values(t: Any) -> np.ndarray:
    """float64 numpy values of a minigrad tensor, a torch tensor (bfloat16 too) or an array."""
    if isinstance(t, Tensor):
        return t.array.astype(np.float64)
    if hasattr(t, "detach"):  # torch: on the CPU, as float (numpy has no bfloat16)
        return t.detach().cpu().double().numpy()
    return np.asanyarray(t, dtype=np.float64)


@dataclass(frozen=True)
class _Leaf:
    """A Trace's leaf seen as a parameter: its recorded value and final gradient."""

    value: np.ndarray
    grad: np.ndarray | None
    requires_grad: bool = True


def _named(params: Any) -> list[tuple[str, Any]]:
    if hasattr(params, "leaves") and hasattr(params, "backwards"):  # a Trace
        leaves = [x for x in params.leaves if x.is_param] or list(params.leaves)
        return [(x.label, _Leaf(np.asanyarray(x.value), x.grad)) for x in leaves]
    if hasattr(params, "named_parameters"):
        return list(params.named_parameters())
    if _is_tensor(params):
        return [("0", params)]
    if hasattr(params, "items"):
        return list(params.items())
    items = list(params)
    return [(str(i), p) if _is_tensor(p) else tuple(p) for i, p in enumerate(items)]


def _row(name: str, p: Any, lang: str, vanishing: float, exploding: float) -> GradRow:
    msg = MESSAGES[lang]
    values = p.value if isinstance(p, _Leaf) else p
    weight_norm = float(np.linalg.norm(_values(values).ravel()))
    shape = tuple(np.shape(p.value)) if isinstance(p, _Leaf) else tuple(p.shape)
    if not p.requires_grad:
        return GradRow(name, shape, False, None, None, None, None, weight_norm, ("frozen",),
                       (msg["frozen"],))
    if p.grad is None:
        return GradRow(name, shape, True, None, None, None, None, weight_norm, ("missing",),
                       (msg["missing"],))
    g = _values(p.grad).ravel()
    with np.errstate(invalid="ignore", over="ignore"):
        norm = float(np.linalg.norm(g)) if g.size else 0.0
        mean = float(g.mean()) if g.size else 0.0
        gmax = float(np.max(np.abs(g))) if g.size else 0.0
    zeros = float(np.mean(g == 0)) if g.size else 1.0
    ratio = norm / weight_norm if weight_norm > 0 else None
    codes, texts = [], []
    if not np.all(np.isfinite(g)):
        codes.append("exploding")
        texts.append(msg["nonfinite"])
    elif g.size and zeros == 1.0:
        codes.append("vanishing")
        texts.append(msg["zeros"])
    elif ratio is not None and ratio < vanishing:
        codes.append("vanishing")
        texts.append(msg["small"].format(ratio=ratio, limit=vanishing))
    elif (ratio if ratio is not None else norm) > exploding:
        codes.append("exploding")
        texts.append(msg["large"].format(ratio=ratio if ratio is not None else norm,
                                         limit=exploding))
    return GradRow(name, shape, True, norm, mean, gmax, zeros, weight_norm, tuple(codes),
                   tuple(texts))


def _width(text: str) -> int:
    """Columns the text takes in a terminal (Chinese characters take two)."""
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text)


def _pad(text: str, width: int) -> str:
    return text + " " * (width - _width(text))


def _number(value: float | None) -> str:
    return "-" if value is None else f"{value:.3e}"


def _cells(rows: list[GradRow], lang: str) -> list[tuple[str, ...]]:
    """Each row's cells as text, in the order of HEADERS."""
    flags = FLAGS[lang]
    return [(r.name, str(r.shape), str(r.requires_grad),
             "None" if r.grad_norm is None and r.requires_grad else _number(r.grad_norm),
             _number(r.grad_mean), _number(r.grad_max),
             "-" if r.zero_fraction is None else f"{r.zero_fraction:.0%}",
             ", ".join(flags[c] for c in r.warnings)) for r in rows]


def _notes(rows: list[GradRow], lang: str) -> list[str]:
    """Each warning as a sentence, then the trend across layers (if any) and the summary."""
    bad = [r for r in rows if r.warnings]
    notes = [f"{r.name}: {text}" for r in bad for text in r.messages]
    trend = flow_trend(rows)
    if trend is not None:
        notes.append(MESSAGES[lang][f"{trend.kind}_trend"].format(**trend.words()))
    key = "summary" if bad or trend is not None else "healthy"
    return notes + [MESSAGES[lang][key].format(n=len(rows), bad=len(bad))]


def format_grad_report(rows: list[GradRow], lang: str = "en") -> str:
    """The aligned table of `rows`, then each warning as a sentence, then a summary."""
    table = [tuple(HEADERS[lang].values()), *_cells(rows, lang)]
    widths = [max(_width(line[i]) for line in table) for i in range(len(table[0]))]
    numeric = (3, 4, 5, 6)
    lines = []
    for line in table:
        cells = [" " * (widths[i] - _width(c)) + c if i in numeric and line is not table[0]
                 else _pad(c, widths[i]) for i, c in enumerate(line)]
        lines.append("  ".join(cells).rstrip())
    notes = _notes(rows, lang)
    warnings = notes[:sum(len(r.messages) for r in rows if r.warnings)]
    if warnings:
        lines += [""] + warnings
    return "\n".join(lines + [""] + notes[len(warnings):])


class GradReport(list):
    """The rows of `grad_report` (a list of GradRow), with the trend across layers and a
    picture of the gradient flow. In Jupyter it shows itself as a table, suspects
    highlighted (`_repr_html_`)."""

    lang = "en"

    @property
    def trend(self) -> Any:
        """The `grad_flow.Trend` across the layers ("vanishing" / "exploding"), or None."""
        return flow_trend(self)

    def plot(self, ax: Any = None) -> Any:
        """Per layer, |grad| and |grad| / |weight| on a log scale; returns the Figure (which
        Jupyter shows as a picture)."""
        return plot_flow([self], ax=ax)

    def __str__(self) -> str:
        return format_grad_report(list(self), self.lang)

    def _repr_html_(self) -> str:
        rows = list(self)
        return report_html(rows, tuple(HEADERS[self.lang].values()), _cells(rows, self.lang),
                           _notes(rows, self.lang))

    def _repr_pretty_(self, printer: Any, cycle: bool) -> None:
        """IPython's text form: the table, not a list of GradRow."""
        printer.text(str(self))


def grad_report(model: Any, lang: str = "en", *, vanishing: float = 1e-7,
                exploding: float = 1e3, file: TextIO | None = None, show: bool = True
                ) -> GradReport:
    """Print (unless show=False) and return a table of every parameter's gradient.

    `model`: a minigrad or PyTorch Module, a dict such as `dict(model.named_parameters())`,
    (name, param) pairs, plain tensors, or a Trace. `lang="zh"` prints the headers and
    warnings in Chinese. `vanishing` and `exploding` are the limits on |grad| / |weight|.
    The result is a list of GradRow with `.trend` and `.plot()`.
    """
    if lang not in MESSAGES:
        raise ValueError(f"grad_report: lang must be one of {sorted(MESSAGES)}, got {lang!r}")
    rows = GradReport(_row(name, p, lang, vanishing, exploding) for name, p in _named(model))
    rows.lang = lang
    if show:
        print(format_grad_report(rows, lang), file=file if file is not None else sys.stdout)
    return rows


class GradFlow:
    """Call it after each `backward()` (`flow()` or `flow.record()`); `flow.plot()` draws
    every recorded step's flow in one picture. Works on minigrad and PyTorch models. In
    Jupyter, a GradFlow left at the end of a cell shows that picture."""

    def __init__(self, model: Any) -> None:
        self.model = model
        self.reports: list = []
        self.steps: list[Any] = []

    def record(self, step: Any = None) -> Any:
        report = grad_report(self.model, show=False)
        self.reports.append(report)
        self.steps.append(len(self.steps) + 1 if step is None else step)
        return report

    __call__ = record

    def plot(self, ax: Any = None) -> Any:
        return plot_flow(self.reports, ax, [f"step {s}" for s in self.steps])

    def _repr_png_(self) -> bytes | None:
        return png(self.plot()) if self.reports else None

    def __repr__(self) -> str:
        return f"<GradFlow: {len(self.reports)} steps recorded>"
