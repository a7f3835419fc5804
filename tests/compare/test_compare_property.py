"""Random expressions (minigrad.testing.strategies.expressions) run in minigrad and in PyTorch
from the same inputs: same values, same gradients, same graph shape (or a documented
difference). At least 300 expressions per run; the "ci" profile of conftest.py makes the run
derandomized under CI=true."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from compare import against_torch
from minigrad.testing import strategies as mst

EXAMPLES = 300


@settings(max_examples=EXAMPLES)
@given(data=st.data())
def test_random_expressions_match_torch(torch_mod, data):
    expr = data.draw(mst.expressions(("x", "y"), max_depth=3), label="expression")
    leaves = data.draw(mst.expression_inputs(expr), label="inputs")
    report = against_torch(expr, torch_fn=expr.torch_fn(torch_mod), name=expr.source,
                           gradient="random", **dict(zip(expr.names, leaves)))
    assert report.ok, f"{expr!r}\n{report}"
