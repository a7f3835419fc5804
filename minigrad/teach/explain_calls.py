"""The narration of calls that are no node of their own, and of what a checkpoint redoes.

einsum and tensordot are recorded as their pieces (as PyTorch records them): a heading over
those pieces says which call they make up, in the forward listing and again over their
backward steps, with what that backward does. A checkpointed block gets a heading too; the
backward step that runs it again lists the ops it reran (and, for the reentrant variant, the
backward it ran through them, step by step).
"""

from __future__ import annotations

import textwrap
from typing import Any

from minigrad.teach.call_phrases import CALL_PHRASES
from minigrad.teach.text_width import pad, width

WRAP = 96


def heading(narrator: Any, node: Any, part: str) -> list[str]:
    """` ▸ einsum('ij,jk->ik', A, B): ...`: what the next ops (part "forward") or backward
    steps ("backward") of `node`'s call are."""
    words = CALL_PHRASES[narrator.lang]
    what = words.get(f"{node.call_kind}_{part}", "")
    text = f"{node.call}: {what}" if what else node.call
    lines = textwrap.wrap(text, WRAP, break_long_words=False, break_on_hyphens=False)
    return [" ▸ " + lines[0]] + ["   " + line for line in lines[1:]]


def labels(narrator: Any) -> list[int]:
    """The widths of the left-column words these lines add (reruns, then)."""
    words = CALL_PHRASES[narrator.lang]
    return [width(words["reran_label"]), width(words["then_label"])]


def redone(narrator: Any, step: Any, indent: str, col: int) -> list[str]:
    """The ops this step ran again (a checkpoint's block) and the backward passes it ran
    through them, under the step's "incoming" and "rule" lines."""
    words = CALL_PHRASES[narrator.lang]
    out: list[str] = []
    ops = [narrator.nodes[i] for i in step.recomputed]
    if ops:
        node = narrator.nodes[step.node]
        key = "reran_reentrant" if node.name == "CheckpointFunctionBackward" else "reran"
        out.append(indent + pad(words["reran_label"], col) + words[key].format(n=len(ops)))
        lead = indent + " " * col
        cols = [max(width(n.label) for n in ops), max(width(n.source) for n in ops),
                max(width(n.name) for n in ops)]
        for n in ops:
            row = (f"{lead}{pad(n.label, cols[0])} = {pad(n.source, cols[1])}  "
                   f"{pad(n.name, cols[2])}  ")
            value = narrator.value(n.value) if n.value is not None else ""
            out.append((row + _hang(value, width(row))).rstrip())
    for backward in step.nested:
        lines = narrator.backward(backward, None)
        root = narrator.nodes[backward.roots[0]].label if backward.roots else "?"
        n = len(backward.steps)
        out.append(indent + pad(words["then_label"], col) + words["then"].format(
            root=root, n=n, s="" if n == 1 else "s"))
        out += [indent + "  " + line if line else line for line in lines[1:]]
    return out


def _hang(text: str, column: int) -> str:
    first, newline, _ = text.partition("\n")
    if not newline:
        return text
    at = first.rfind("tensor(")
    return text.replace("\n", "\n" + " " * (column + (width(first[:at]) if at > 0 else 0)))
