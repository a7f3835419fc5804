"""compare: minigrad against PyTorch on the same expressions and models.

    import compare
    report = compare.against_torch(lambda x, y: (x * y).sum() * 3, x=[1., 2, 3], y=[4., 5, 6])
    print(report)          # forward / gradient errors, graph shape, verdict
    report.ok              # True when values and graph shape match
    compare.assert_matches_torch("sum(x*y)*3", x=[1., 2, 3], y=[4., 5, 6])
    compare.modules(mg_net, torch_net, x, loss="cross_entropy", target=labels)

torch is imported only when a comparison runs (`pip install torch==2.13.0`).
Command line: `python -m compare EXPR x=... y=...`, `python -m compare corpus`.
"""

from compare.against import against_torch, assert_matches_torch
from compare.graph import KNOWN_DIFFERENCES, Graph, graph_of, outline
from compare.models import modules
from compare.report import Report
from compare.torch_bridge import constant

__all__ = [
    "KNOWN_DIFFERENCES",
    "Graph",
    "Report",
    "against_torch",
    "assert_matches_torch",
    "constant",
    "graph_of",
    "modules",
    "outline",
]
