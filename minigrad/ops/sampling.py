"""Random draws from a tensor of probabilities: bernoulli (0 or 1 in each place) and
multinomial (indices drawn by weight), as functions and Tensor methods; and `bernoulli_`'s
fill. Drawn from `generator=` or `minigrad.default_generator`; never recorded (a draw has
no gradient, as in PyTorch).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.ops.base import constant
from minigrad.surface import random
from minigrad.surface.dtypes import TORCH_NAMES

# the public functions: minigrad.bernoulli, ... (re-exported by ops/ and minigrad/)
__all__ = ["bernoulli", "multinomial"]



def bernoulli(input: Any, p: float | None = None, *, generator: Any = None) -> Any:
    """0 or 1 in each place, 1 with the probability `input` holds there (or `p` for all);
    `input`'s float dtype. Never recorded (a draw has no gradient)."""
    rng = random.numpy_rng(generator, "bernoulli")
    probs = input.array if p is None else np.full(input.array.shape, p)
    if input.array.dtype.kind != "f":
        raise NotImplementedError(f'"bernoulli_tensor_cpu_p_" not implemented for '
                                  f"'{TORCH_NAMES[input.array.dtype]}'")
    if np.any((probs < 0) | (probs > 1)) or np.any(np.isnan(probs)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    values = rng.random(input.array.shape) < probs
    return constant(values.astype(input.array.dtype))


def multinomial(input: Any, num_samples: int, replacement: bool = False, *,
                generator: Any = None) -> Any:
    """`num_samples` indices per row of `input`, drawn with probabilities proportional to the
    row's weights (each index at most once unless `replacement`); int64."""
    rng = random.numpy_rng(generator, "multinomial")
    w = input.array
    if w.dtype.kind != "f":
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{TORCH_NAMES[w.dtype]}")
    if w.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > w.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    if not np.isfinite(w).all() or (w < 0).any():
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    rows = np.atleast_2d(w).astype(np.float64)
    if (rows.sum(axis=1) <= 0).any():
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    if replacement:
        drawn = [rng.choice(row.size, num_samples, p=row / row.sum()) for row in rows]
    else:  # a weighted draw without replacement: the largest w / Exp(1) keys
        drawn = [np.argsort(-(row / rng.exponential(size=row.size)), kind="stable")
                 [:num_samples] for row in rows]
    out = np.asanyarray(drawn, dtype=np.int64)
    return constant(out if w.ndim == 2 else out[0])


def fill_bernoulli(input: Any, how: tuple) -> Any:
    """`x.bernoulli_(p)`'s new values: 0 or 1 with probability `p` (a number or a tensor)."""
    p, generator = how
    probs = p if hasattr(p, "array") else constant(np.full(input.array.shape, float(p)))
    drawn = bernoulli(probs.to(input.dtype) if input.array.dtype.kind == "f" else probs,
                      generator=generator)
    return constant(np.broadcast_to(drawn.array, input.array.shape).astype(input.array.dtype))
