"""Small tensors as the narration writes them: `fast_repr`, PyTorch's printed form of a small
float array without numpy's per-call cost (explain.py and the player format thousands)."""

from __future__ import annotations

import math

import numpy as np

from minigrad.surface.printing import format_values, tensor_repr


def fast_repr(a: np.ndarray, inline: bool = False) -> str:
    """`tensor([ 4., 10., 18.])` exactly as `printing.tensor_repr` writes it, but in plain
    Python for small 0-d and 1-d float arrays (numpy's per-call cost dominates on those, and
    a large graph's explanation formats thousands). `inline=True`: the bracketed values on
    one line (`[3., 3., 3.]`). Other arrays go to `printing`.
    """
    if a.dtype.kind != "f" or a.ndim > 1 or a.size == 0:
        body = format_values(a)
        return body if inline else tensor_repr(a, [])
    values = a.tolist()
    items = values if isinstance(values, list) else [values]
    # speed: map and filter over C functions, no Python frame per value. With the phrases
    # that take no values said once (explain.py `say`): trace and explanation of a chain,
    # 725,545 -> 670,556 instructions per node (-7.6%, scripts/callgrind_counts.py explain)
    finite = list(filter(math.isfinite, items))
    nonzero = list(map(abs, filter(None, finite)))
    if not nonzero:
        fmt = "{:.0f}."
    else:
        lo, hi = min(nonzero), max(nonzero)
        if all(map(float.is_integer, finite)):
            fmt = "{:.4e}" if hi / lo > 1000.0 or hi > 1.0e8 else "{:.0f}."
        else:
            fmt = "{:.4e}" if hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4 else "{:.4f}"
    if len(finite) == len(items):
        raw = list(map(fmt.format, items))
    else:
        raw = [fmt.format(v) if math.isfinite(v) else
               ("nan" if math.isnan(v) else "inf" if v > 0 else "-inf") for v in items]
    if a.ndim == 0:
        return raw[0] if inline else f"tensor({raw[0]})"
    if len(nonzero) == len(items):  # (every value finite and nonzero sets the width)
        cell = max(map(len, raw))
    else:
        cell = max((len(r) for r, v in zip(raw, items) if v and math.isfinite(v)), default=1)
    raw = [r.rjust(cell) for r in raw]  # (as printing: nonzero finite values set the width)
    if inline:
        return "[" + ", ".join(raw) + "]"
    per_line = max(1, (80 - 7) // (cell + 2))
    rows = [", ".join(raw[i:i + per_line]) for i in range(0, len(raw), per_line)]
    return "tensor([" + ",\n        ".join(rows) + "])"
