"""A lesson as PyTorch runs it: the check that keeps the lessons true of PyTorch.

Every ```python block not fenced ```python minigrad-only runs with `minigrad` renamed `torch`
(`for_torch`), in one namespace, and must print the lesson's own output block, read with the
same renaming (`minigrad.Size([2])` is `torch.Size([2])`). A block may name masks on its fence
(```python torch-mask=random): the parts of the printout that differ by design, blanked on both
sides before comparing. Each mask is in `MASKS`, with its reason, and tutorials/differences.md
lists it (a test checks).

    ran = tutorial.run(torch_version(tutorial.load(path)))
    problems = torch_failures(ran)
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, replace
from typing import Any


@dataclass(frozen=True)
class Mask:
    """A part of a printout where PyTorch differs from minigrad by design: every match of
    `pattern` becomes `replacement`, in the lesson's output and in PyTorch's, before comparing.
    `reason` is why; tutorials/differences.md lists every mask with it."""

    name: str
    pattern: str
    replacement: str
    reason: str

    def apply(self, text: str) -> str:
        return re.sub(self.pattern, self.replacement, text)


MASKS: dict[str, Mask] = {m.name: m for m in (
    Mask("address", r" at 0x[0-9a-fA-F]+", " at 0x...",
         "an object's memory address changes on every run, in PyTorch and in minigrad"),
    Mask("random", r" *[-+]?\d+(?:\.\d*)?(?:e[-+]?\d+)?", " #",
         "minigrad.manual_seed(0) seeds numpy's generator, not PyTorch's: random numbers, "
         "and what is computed from them, differ (every number becomes #; the rest of the "
         "printout must match)"),
)}


def for_torch(code: str) -> str:
    """A block's code for PyTorch: the name `minigrad` becomes `torch` (`import minigrad`,
    `minigrad.tensor`, `from minigrad import nn`, `minigrad.utils.data`, ...)."""
    return re.sub(r"\bminigrad\b", "torch", code)


def torch_version(lesson: Any) -> Any:
    """The `tutorial.Lesson` as PyTorch runs it: its blocks not fenced minigrad-only, with
    `for_torch` code, each paired with the lesson's own output block. `run` it like any lesson.
    (Its tracebacks and traced source lines show the renamed code.)"""
    cells = [replace(c, code=replace(c.code, text=for_torch(c.code.text)), printed="",
                     error=None)
             for c in lesson.cells if not c.code.minigrad_only]
    return replace(lesson, lines=[for_torch(line) for line in lesson.lines], cells=cells,
                   filename=f"{lesson.path or 'markdown'} (on PyTorch)")


def masked(text: str, names: list[str]) -> str:
    """`text` with the named masks applied (an unknown name is an error)."""
    for name in names:
        if name not in MASKS:
            raise KeyError(f"unknown torch-mask {name!r}; the masks are {sorted(MASKS)} "
                           "(minigrad/teach/tutorial_torch.py MASKS)")
        text = MASKS[name].apply(text)
    return "\n".join(line.rstrip() for line in text.rstrip().splitlines())  # as `normalise`


def torch_failures(ran: Any) -> list[str]:
    """Like `failures`, for a `torch_version` that ran: each block must print the lesson's
    output, with `minigrad` renamed `torch` as in the code (`minigrad.Size([2])` reads
    `torch.Size([2])`), once the block's masks are applied to both."""
    where = ran.path or "markdown"
    messages = []
    for cell in ran.cells:
        line = cell.code.start + 1
        if cell.error is not None:
            messages.append(f"{where}:{line}: on PyTorch, this code block raised:\n"
                            f"{cell.error}\n(fence it ```python minigrad-only if it is "
                            "minigrad's own, and say so in tutorials/differences.md)")
            break
        names = cell.code.masks
        want, got = masked(for_torch(cell.expected), names), masked(cell.printed, names)
        if want != got:
            diff = difflib.unified_diff(want.splitlines(), got.splitlines(),
                                        "the lesson shows", "PyTorch prints", lineterm="")
            messages.append(f"{where}:{line}: on PyTorch, this code block prints something "
                            "else than the lesson shows:\n" + "\n".join(diff))
    return messages
