"""One op of the coursework: what the student reads, what the teacher's solution is, how it is
checked.

An `Op` is plain data. Its `kind` decides the shapes the grader draws and which checks run
(`CHECKS`); the text a student reads is the op's own line (`what`), its maths, and the notes of
its kind (`KIND_NOTES`), in English or Chinese.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from minigrad.testing.domains import REAL, Domain

# The checks, in the order they run. A kind with harder shapes has one more: broadcasting for
# two inputs, another `dim` for a reduction, a batch in front of a matmul.
ORDER = ("forward", "backward", "broadcasting", "dim", "batched", "second", "stability",
         "speed")
SHAPES = {"binary": "broadcasting", "reduce": "dim", "along": "dim", "matmul": "batched",
          "transpose": "dim"}
KINDS = ("unary", "power", "binary", "reduce", "along", "matmul", "transpose", "reshape")
POINTS = {"forward": 1, "backward": 2, "broadcasting": 1, "dim": 1, "batched": 1, "second": 1,
          "stability": 1, "speed": 1}
# A check counts only when the checks it builds on passed (otherwise it is "not judged"):
# nothing is credited on top of a wrong backward, and a wrong op scores nothing.
BUILDS_ON = {"broadcasting": ("backward",), "dim": ("backward",), "batched": ("backward",),
             "second": ("backward",), "stability": ("forward", "backward"),
             "speed": ("backward",)}
HIDDEN_CHECKS = ("stability",)  # run only in the teacher's grade (the others have hidden cases)


@dataclass(frozen=True)
class Op:
    """One exercise: `cls` is the class the student writes in `homework/{name}.py`."""

    name: str
    cls: str
    kind: str
    signature: str  # forward's parameters after ctx: "a, b" or "x, dim=None, keepdim=False"
    maths: str | dict[str, str]  # the derivative: "out = a * b;  d out/da = b" (or per language)
    what: dict[str, str]  # {"en": "...", "zh": "..."}: one line, what the op computes
    forward: str  # the teacher's forward body (solution), dedented
    backward: str  # the teacher's backward body (solution), dedented
    reference: Callable[..., Any] | None  # the same op with minigrad's Tensor methods (None:
    # a lecturer's op, whose reference is the teacher's own solution)
    domains: tuple[Domain, ...] = (REAL,)
    second: bool = True  # twice differentiable: gradgradcheck applies
    hint: dict[str, str] = field(default_factory=dict)  # one more note, per language

    @property
    def inputs(self) -> tuple[str, ...]:
        """The tensor inputs: the parameters without a default ("a", "b" or "x")."""
        return tuple(p.strip() for p in self.signature.split(",")
                     if p.strip() and "=" not in p and p.strip() not in PARAMS)

    @property
    def shapes_check(self) -> str | None:
        """The name of this kind's harder-shapes check, or None."""
        return SHAPES.get(self.kind)

    @property
    def checks(self) -> tuple[str, ...]:
        return tuple(c for c in ORDER if (c != "second" or self.second) and
                     (c not in SHAPES.values() or c == self.shapes_check))

    def maths_in(self, lang: str) -> str:
        return self.maths if isinstance(self.maths, str) else self.maths[lang]

    def domain(self, i: int) -> Domain:
        return self.domains[min(i, len(self.domains) - 1)]


# Settings (keyword arguments of apply), never tensors.
PARAMS = ("dim", "keepdim", "exponent", "dim0", "dim1", "shape")

KIND_NOTES: dict[str, dict[str, str]] = {
    "unary": {
        "en": "Shapes: x has any shape (a scalar too); out and the gradient have x's shape.",
        "zh": "形状：x 可以是任意形状（包括标量）；out 和梯度都与 x 同形。",
    },
    "power": {
        "en": "Shapes: x has any shape; `exponent` is a Python number (a setting, not an "
              "input: backward returns one gradient, for x).",
        "zh": "形状：x 可以是任意形状；`exponent` 是一个 Python 数（是设置，不是输入："
              "backward 只返回 x 的梯度）。",
    },
    "binary": {
        "en": "Shapes: a and b broadcast together (numpy's rules) and out has the broadcast "
              "shape. Each gradient must have the shape of its own input: where broadcasting "
              "added or stretched a dimension, sum the gradient over it "
              "(`g.sum_to_size(a.shape)`, or `.sum(dim, keepdim=True)` by hand).",
        "zh": "形状：a 和 b 按 numpy 的规则广播，out 是广播后的形状。每个梯度必须和它自己的输入"
              "同形：广播新增或拉伸过的维度，要把梯度沿这些维度加起来（`g.sum_to_size(a.shape)`，"
              "或者自己用 `.sum(dim, keepdim=True)`）。",
    },
    "reduce": {
        "en": "Shapes: with dim=None every element is reduced and out is a scalar; with a dim "
              "(negative counts from the end) that dimension is reduced, and kept with size 1 "
              "when keepdim=True. The gradient has x's shape: put the reduced dimension back "
              "(`grad.unsqueeze(dim)` when keepdim=False), then spread it over x.",
        "zh": "形状：dim=None 时对所有元素归约，out 是标量；给定 dim（负数从后往前数）时"
              "只归约这一维，keepdim=True 时这一维保留为 1。梯度与 x 同形：先把被归约的那一维放回去"
              "（keepdim=False 时用 `grad.unsqueeze(dim)`），再铺满 x 的形状。",
    },
    "along": {
        "en": "Shapes: x has at least one dimension; the op works along `dim` (negative counts "
              "from the end). The gradient has x's shape, and every sum in it runs along the "
              "same `dim`.",
        "zh": "形状：x 至少有一维；运算沿着 `dim` 进行（负数从后往前数）。梯度与 x 同形，"
              "其中每一次求和也都沿着同一个 `dim`。",
    },
    "matmul": {
        "en": "Shapes: a is (n, k) or has batch dimensions in front, (..., n, k); b is (k, m); "
              "out is (..., n, m). When a has a batch, b was used once per batch element: "
              "its gradient is the sum over the batch, of shape (k, m).",
        "zh": "形状：a 是 (n, k)，或者前面带批次维 (..., n, k)；b 是 (k, m)；out 是 (..., n, m)。"
              "a 带批次时，b 在每个批次元素里都用了一次：它的梯度是对批次求和，形状为 (k, m)。",
    },
    "transpose": {
        "en": "Shapes: x has at least two dimensions; out is x with dimensions dim0 and dim1 "
              "swapped (negative counts from the end). The gradient has x's shape.",
        "zh": "形状：x 至少有两维；out 是把 x 的 dim0 和 dim1 两维交换后的结果（负数从后往前数）。"
              "梯度与 x 同形。",
    },
    "reshape": {
        "en": "Shapes: `shape` has as many elements as x (one entry may be -1); the gradient "
              "has x's shape.",
        "zh": "形状：`shape` 的元素个数与 x 相同（可以有一项是 -1）；梯度与 x 同形。",
    },
}
