"""Helpers for tests that compare results bit for bit (so -0.0 vs +0.0 and NaN/inf count)."""

from __future__ import annotations

import numpy as np

FLOATS = [np.float16, np.float32, np.float64]
BITS = {1: np.uint8, 2: np.uint16, 4: np.uint32, 8: np.uint64}


def same_bits(a: np.ndarray, b: np.ndarray) -> bool:
    """Equal dtype, shape and bits: tells -0.0 from +0.0 and one NaN from another."""
    a, b = np.asarray(a), np.asarray(b)
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind not in "fiub":
        return np.array_equal(a, b)
    bits = BITS[a.dtype.itemsize]
    return np.array_equal(np.ascontiguousarray(a).view(bits), np.ascontiguousarray(b).view(bits))


def awkward(dtype, shape=(4, 3), seed=0) -> np.ndarray:
    """Random values with -0.0, +-inf and NaN sprinkled in."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(dtype)
    flat = x.reshape(-1)
    flat[:4] = [-0.0, np.inf, -np.inf, np.nan]
    rng.shuffle(flat)
    return x
