"""A forward-mode pass seen like a backward pass: drawn, and stepped through in the player.

`ForwardView(trace, k)` is a Trace made of forward-mode pass k of `trace`: its ops are the
graph's op nodes, its dual inputs the leaves (the `.grad` column holds their tangents), the
tensors without a tangent constants, and each op one step that takes the tangents in along
its input edges and sends its own out along its output edges. So the drawing shows the
tangent on each edge (`tangent [1., 0., 0.]`) and the output's tangent in the output box, and
the player (`to_html`) steps through the ops in the order they ran, with the narration of
`explain_forward` and its own words (`FORWARD_UI`).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from minigrad.teach import player, viz
from minigrad.teach.explain import _Narrator as Narrator
from minigrad.teach.explain_forward import forward_sections
from minigrad.teach.forward_phrases import FORWARD_PHRASES
from minigrad.teach.records import (
    TraceBackward,
    TraceLeaf,
    TraceNode,
    TraceRecords,
    TraceStep,
)

FORWARD_UI = {
    "en": {"title": "minigrad · forward-mode player", "before": "Before the forward pass",
           "start": "Only the inputs have tangents. Press Next (or →) to run the first op.",
           "finished": "Forward pass finished: every op has its tangent.",
           "no_steps": "No op ran on dual numbers, so there is nothing to step through.",
           "leaves": "Inputs and their tangents", "legend_sent": "tangents coming in",
           "legend_incoming": "tangent going out", "drawn_grad": "tangent",
           "grad_suffix": "'"},
    "zh": {"title": "minigrad · 前向模式逐步演示", "before": "前向传播开始前",
           "start": "只有输入带着切向量。按「下一步」（或 →）执行第一个运算。",
           "finished": "前向传播完成：每个运算都得到了切向量。",
           "no_steps": "没有在对偶数上运行的运算，因此没有可以逐步查看的步骤。",
           "leaves": "输入及其切向量", "legend_sent": "传入的切向量",
           "legend_incoming": "传出的切向量", "drawn_grad": "切向量", "grad_suffix": "'"},
}
FORWARD_VIEW_WORDS = {
    "en": {"grad": "tangent", "legend_leaf": "a dual input: its value and tangent",
           "legend_op": "an op (its node's name) and the code that made it",
           "legend_output": "the output and its tangent",
           "legend_constant": "a tensor without a tangent (it does not move)",
           "legend_steps": "Tangents flow along the arrows, in the numbered steps."},
    "zh": {"grad": "切向量", "legend_leaf": "对偶输入：它的值和切向量",
           "legend_op": "一个运算（节点名）和产生它的代码",
           "legend_output": "输出和它的切向量",
           "legend_constant": "不带切向量的张量（它不随方向变化）",
           "legend_steps": "切向量沿箭头方向流动，按步骤编号依次进行。"},
}


class ForwardView(TraceRecords):
    """Forward-mode pass `k` of `trace` as records the drawing and the player read (made by
    `Trace.forward_view(k)`; explain, draw, render and play it as a Trace)."""

    def __init__(self, trace: Any, k: int = 0) -> None:
        if not trace.forwards:
            raise ValueError("this Trace recorded no forward-mode pass (run the ops on dual "
                             "numbers inside the trace: minigrad.autograd.forward_ad)")
        record = trace.forwards[k]
        nodes, leaves, made = [], [], {}
        for label, value, tangent in record.inputs:
            made[label] = f"f{len(nodes) + 1}"
            nodes.append(TraceNode(made[label], "AccumulateGrad", label, shape=value.shape,
                                   value=value))
            leaves.append(TraceLeaf(label, made[label], value.shape, value, tangent))
        steps = []
        for s in record.steps:
            node_id = f"f{len(nodes) + 1}"
            inputs = [made.get(a) for a in s.args]
            nodes.append(TraceNode(node_id, s.name, s.label, s.source, s.rule or "", s.shape,
                                   s.value, inputs, list(s.args), dict(s.attrs)))
            made[s.label] = node_id
            steps.append(TraceStep(s.index, node_id, [s.tangent],
                                   [t if src is not None else None
                                    for t, src in zip(s.tangents, inputs)]))
        last = record.steps[-1] if record.steps else None
        passes = [TraceBackward([made[last.label]], [last.tangent], steps)] if last else []
        for p in passes:
            p.forward = True  # (the player: tangents go out along a node's output edges)
        super().__init__(nodes, leaves, passes, trace.engine)
        self.output = None
        self.forwards, self.transforms = [record], []
        self._for_player = False

    def explanation(self, lang: str = "en", timing: bool = True, lines: bool | None = None,
                    summary: bool | None = None) -> str:
        """The forward-mode narration in three parts, as the player cuts it: the inputs, the
        pass (one block per op), the tangent out and the summary."""
        narrator = Narrator(self, lang)
        out = forward_sections(narrator)[1:]
        record, say = self.forwards[0], FORWARD_PHRASES[lang]
        intro, body = out[:2 if record.inputs else 1], out[2 if record.inputs else 1:-1]
        n = len(record.steps)
        head = say["view_pass"].format(n=n, s="" if n == 1 else "s")
        summary_line = say["summary"].format(ops=n, s="" if n == 1 else "s", passes=1, es="")
        return "\n".join(intro + ["", head] + body + ["", out[-1].strip(), summary_line])

    def explain(self, lang: str = "en") -> None:
        print(self.explanation(lang=lang))

    def to_dot(self, params: Any = None, show_grads: bool = True, show_values: bool = True,
               show_saved: bool = False, depth: int | None = None, collapse: bool = True,
               lang: str = "en", legend: bool | None = None) -> Any:
        """The drawing with each edge's tangent (`tangent [1., 0., 0.]`)."""
        words = {} if self._for_player else FORWARD_VIEW_WORDS[lang]  # (the player words it)
        return viz.draw(self, show_grads=show_grads, show_values=show_values, lang=lang,
                        legend=legend, words=words)

    def render(self, path: str | os.PathLike, format: str | None = None, **options: Any
               ) -> Path:
        """Draw to `path` as "svg" or "png" (from the suffix by default); needs graphviz."""
        return viz.render(self.to_dot(**options), path, format=format)

    def to_html(self, path: str | os.PathLike | None = None, svg: str | None = None,
                lang: str = "en") -> str:
        """The forward-mode player: one page stepping through the ops and their tangents."""
        self._for_player = True
        try:
            page = player.page(self, svg=svg, lang=lang, words=FORWARD_UI)
        finally:
            self._for_player = False
        if path is not None:
            Path(path).write_text(page, encoding="utf-8")
        return page

