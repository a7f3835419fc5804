"""Issue 35: printing a big tensor reads only the corners it shows, as PyTorch's does, and so
prints what PyTorch prints. Before, minigrad picked the number format from every element:
`print(ones(1).expand(10**5, 10**5))` tried to allocate 74.5 GiB, and a tensor whose middle
held a large number (or a NaN) printed in another format than PyTorch's.
"""

from __future__ import annotations

import tracemalloc

import pytest

import minigrad
from side_by_side import same

BIG = {
    "ones(1).expand(10**5, 10**5)": lambda t: t.ones(1).expand(10**5, 10**5),
    "arange(7.).expand(10**5, 7)": lambda t: t.arange(7.0).expand(10**5, 7),
    "a float64 0-d expanded to 10**4 x 10**4 x 10**4": lambda t: t.tensor(
        0.25, dtype=t.float64).expand(10**4, 10**4, 10**4),
    "an int64 column expanded to 10**5 x 10**5": lambda t: t.arange(10**5).reshape(
        -1, 1).expand(10**5, 10**5),
    "a bool expanded to 10**5 x 10**5": lambda t: (t.ones(1) > 0).expand(10**5, 10**5),
    "an expanded leaf that requires grad": lambda t: t.ones(
        1, requires_grad=True).expand(10**5, 10**5),
}


def printed(t, make):
    """What str() gives, and the most memory it took (numpy's allocations included)."""
    x = make(t)
    tracemalloc.start()
    try:
        text = str(x)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    return text, peak


@pytest.mark.parametrize("name", sorted(BIG))
def test_a_huge_expanded_tensor_prints_from_its_corners(name, torch_mod):
    text, peak = printed(minigrad, BIG[name])
    assert peak < 100_000, f"printing took {peak:,} bytes"
    assert text.replace("minigrad.", "torch.") == printed(torch_mod, BIG[name])[0]


MIDDLES = {  # what is not shown does not choose the format (PyTorch's get_summarized_data)
    "a 1e9 in the middle": lambda t: t.cat([t.ones(600), t.tensor([1e9]), t.ones(600)]),
    "a 0.5 in the middle of integers": lambda t: t.cat([t.ones(600), t.tensor([0.5]),
                                                        t.ones(600)]),
    "a 1e-5 in the middle": lambda t: t.cat([t.full((600,), 0.5), t.tensor([1e-5]),
                                             t.ones(600)]),
    "a suffix that would pass the line width starts a line": lambda t: t.full(
        (2, 10), 0.25, dtype=t.float64, requires_grad=True) * 1,
    "rows of 3-D whose middle is wide": lambda t: t.cat([t.ones(4, 4, 40), t.full(
        (4, 4, 1), 1e9), t.ones(4, 4, 40)], dim=2),
}


@pytest.mark.parametrize("name", sorted(MIDDLES))
def test_the_number_format_comes_from_the_corners_shown(name, torch_mod):
    ours, theirs = same(lambda t: str(MIDDLES[name](t)).replace("torch.", "minigrad."),
                        torch_mod)
    assert ours == theirs
