"""A backward step's "rule" line in the narration: the node's derivative rule, kept to the
inputs that get a gradient, with the notes a teacher adds (what a constant input is, an op's
remark: a mean's 1/n)."""

from __future__ import annotations

from typing import Any

from minigrad.teach import op_words as op_text
from minigrad.teach.text_width import width


def rule_with_notes(narrator: Any, node: Any, constant: list[bool], n: int | None) -> str:
    """The rule of `node` (a TraceNode) as `narrator` (explain's `_Narrator`) says it;
    `constant[i]`: input i gets no gradient; `n`: how many input elements each output
    element stands for (None: unknown)."""
    if not node.formula:
        if narrator.trace.engine != "minigrad":  # an op of the recording engine minigrad lacks
            return narrator.say("engine_rule", engine=narrator.trace.engine, name=node.name)
        return narrator.say("no_formula")
    text = op_text.rule(node.name, node.formula, constant, narrator.lang)  # (a formula keeps
    # its ASCII " ;  " between the inputs' parts in Chinese too: it is code, not prose)
    notes = []
    if node.name in op_text.TAKES_CONSTANTS and any(constant) and not all(constant):
        uses_c = op_text.uses_c(node.name, constant)
        for i, c in enumerate(constant):
            if c:
                value = node.args[i] if i < len(node.args) else "c"
                notes.append(narrator.say("constant", c="c", value=value)
                             if uses_c and value != "c" else
                             narrator.say("constant_unknown", c=value))
    remark = op_text.note(node.name, narrator.lang, n)
    if remark:
        notes.append(remark)
    if not notes:
        return text
    p = narrator.p
    remark = f"{p['open']}{p['sep'].join(notes)}{p['close']}"
    if width(text) + width(remark) > 72:  # too long for one line: the remark goes below
        return f"{text}\n{remark}"
    return f"{text}   {remark}"
