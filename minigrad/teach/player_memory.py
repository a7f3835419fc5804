"""The backward player's memory bar (`player_assets/memory_bar.py`): its data and its place.

For each step, from before the first one to after the last: the bytes the graph still holds
for backward (saved tensors) and of the gradients waiting in their buffers, with a line that
says so in English and in Chinese; the largest total (the peak) sets the bar's full width.
"""

from __future__ import annotations

import html
from typing import Any

from minigrad.teach.memory import memory_report, size_text

WORDS = {
    "en": {"title": "Memory",
           "line": "graph {held} · gradients {grads} · peak {peak}{freed}",
           "freed": " · freed {freed}"},
    "zh": {"title": "内存",
           "line": "计算图 {held} · 梯度 {grads} · 峰值 {peak}{freed}",
           "freed": " · 释放 {freed}"},
}


def memory_data(trace: Any) -> dict[str, Any]:
    """What the bar shows at each step (index 0: before backward)."""
    report = memory_report(trace)
    seeds = sum(int(getattr(s, "nbytes", 0) or 0) for b in trace.backwards[:1] for s in b.seeds
                if s is not None)
    at = [(report.total, seeds, 0)] + [(s.held, s.gradients, s.freed) for s in report.steps]
    peak = max([report.peak] + [h + g for h, g, _ in at])
    return {"max": peak, "ui": {lang: {"title": w["title"]} for lang, w in WORDS.items()},
            "at": [{"held": h, "grads": g, "text": {lang: w["line"].format(
                held=size_text(h), grads=size_text(g), peak=size_text(peak),
                freed=w["freed"].format(freed=size_text(f)) if f else "")
                for lang, w in WORDS.items()}} for h, g, f in at]}


def memory_section(lang: str) -> str:
    """The bar's element, for the page's right column (its data is the player's, `memory`)."""
    return (f'<section id="memory"><h2 id="memory-title">{html.escape(WORDS[lang]["title"])}'
            '</h2><div id="memory-bar"><span class="held"></span><span class="grads"></span>'
            '</div><p id="memory-text"></p></section>')
