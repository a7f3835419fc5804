"""The hidden stability cases always hold values a naive formula overflows on, whatever the
teacher's secret: an unstable softmax (`np.exp(x)` without subtracting the max) cannot pass the
stability check by the luck of the draw."""

from __future__ import annotations

import numpy as np

from minigrad.course.cases import draw
from minigrad.course.catalog import OPS


def test_every_stability_case_overflows_a_naive_exp() -> None:
    for op in (OPS["softmax"], OPS["log_softmax"], OPS["exp"]):
        for secret in range(200):
            cases = [c for c in draw(op, "stability", secret) if c.hidden == "extreme"]
            assert cases, op.name
            for case in cases:
                x = case.arrays[0]
                if x.size:
                    assert x.max() > 709 and (x.size == 1 or x.min() < -709), (op.name, secret)
                    with np.errstate(over="ignore"):
                        assert not np.isfinite(np.exp(x)).all()
