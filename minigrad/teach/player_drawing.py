"""Which drawing the backward player shows: graphviz's for a small graph, else its own.

graphviz lays out a small graph beautifully and quickly, but its time grows fast with the
graph (a 371-node unrolled LSTMCell took `dot` 608 s). So `drawing(trace)` asks `dot` only
for graphs of at most GRAPHVIZ_MAX_NODES nodes, gives it GRAPHVIZ_SECONDS, and otherwise, or
without `dot`, lays the graph out itself (`player_layout`). It says which one it used, and
why, as a key of the page's words (`player_words`) and the values to fill in.
"""

from __future__ import annotations

import shutil
import subprocess
from typing import Any

from minigrad.teach.player_layout import layered_svg

__all__ = ["GRAPHVIZ_MAX_NODES", "GRAPHVIZ_SECONDS", "drawing"]

GRAPHVIZ_MAX_NODES = 300
GRAPHVIZ_SECONDS = 10.0


class DotFailed(RuntimeError):
    """`dot` is missing, too slow, or failed: the reason is a key of the page's words."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def drawing(trace: Any) -> tuple[str, str, dict[str, Any]]:
    """(SVG, the words key saying how it was drawn, the values those words name)."""
    nodes = len(trace.nodes)
    if nodes > GRAPHVIZ_MAX_NODES:
        return layered_svg(trace), "layout_big", {"nodes": nodes, "limit": GRAPHVIZ_MAX_NODES}
    try:
        return graphviz_svg(trace), "layout_dot", {}
    except DotFailed as failed:
        return layered_svg(trace), failed.reason, {"seconds": f"{GRAPHVIZ_SECONDS:g}"}


def find_dot() -> str | None:
    """The path of graphviz's `dot` program, or None."""
    return shutil.which("dot")


def graphviz_svg(trace: Any) -> str:
    """viz's drawing of the trace laid out by `dot`, at its natural size (the page scales it).

    `dot` runs here rather than through the graphviz package, so that it can be stopped after
    GRAPHVIZ_SECONDS."""
    dot = find_dot()
    if dot is None:
        raise DotFailed("layout_no_dot")
    try:
        graph = trace.to_dot()
    except ImportError:  # the graphviz Python package, which writes the DOT text
        raise DotFailed("layout_no_dot") from None
    graph.graph_attr.pop("size", None)  # no 12-inch cap: the page zooms instead
    try:
        done = subprocess.run([dot, "-Tsvg"], input=graph.source.encode("utf-8"),
                              capture_output=True, timeout=GRAPHVIZ_SECONDS, check=False)
    except subprocess.TimeoutExpired:
        raise DotFailed("layout_slow") from None
    except OSError:
        raise DotFailed("layout_no_dot") from None
    if done.returncode != 0:
        raise DotFailed("layout_failed")
    return done.stdout.decode("utf-8")
