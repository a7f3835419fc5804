"""compare: minigrad against PyTorch on the same expressions and models.

    import compare
    report = compare.against_torch(lambda x, y: (x * y).sum() * 3, x=[1., 2, 3], y=[4., 5, 6])
    print(report)          # forward / gradient errors, graph shape, verdict
    report.ok              # True when values and graph shape match
    compare.assert_matches_torch("sum(x*y)*3", x=[1., 2, 3], y=[4., 5, 6])
    compare.modules(mg_net, torch_net, x, loss="cross_entropy", target=labels)

torch is imported only when a comparison runs (`pip install torch==2.13.0`), and nothing is
imported with the package itself (so `python -m compare bench` can set up threads first).
Command line: `python -m compare EXPR x=... y=...`, `python -m compare corpus`,
`python -m compare bench`.
"""

from __future__ import annotations

import importlib
from typing import Any

_EXPORTS = {
    "against_torch": "compare.against",
    "assert_matches_torch": "compare.against",
    "modules": "compare.models",
    "Report": "compare.report",
    "constant": "compare.torch_bridge",
    "graph_of": "compare.graph",
    "outline": "compare.graph",
    "Graph": "compare.graph",
    "KNOWN_DIFFERENCES": "compare.graph_compare",
    "trace_torch": "compare.trace_torch",
}

__all__ = sorted(_EXPORTS)


_SUBMODULES = ("against", "corpus", "graph", "graph_compare", "models", "report", "source",
               "torch_bridge")


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:  # `compare.corpus.CORPUS` without importing it first
        return importlib.import_module(f"compare.{name}")
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'compare' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
