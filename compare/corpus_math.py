"""Corpus cases for float math, reductions, statistics, cumulative ops and comparisons
(see corpus.py)."""

from __future__ import annotations

import math

import numpy as np

from compare.cases import Case, distinct, nonzero, normal, positive
from compare.cases import cases as _cases

X = {"x": normal(3)}
M = {"A": normal(2, 3)}
NZ = {"x": nonzero(3)}
P = {"p": positive(3)}
U = {"u": lambda rng: rng.uniform(-0.9, 0.9, 3)}  # inside (-1, 1): asin, atanh, erfinv
# away from the steps of floor, ceil, trunc, round (whole numbers and halves)
STEPS = {"x": lambda rng: rng.integers(-3, 3, 4) + rng.uniform(0.1, 0.4, 4)}

FLOAT_MATH = _cases("elementwise", X, [
    ("x.floor()", lambda x: x.floor() * x, STEPS),
    ("x.ceil()", lambda x: x.ceil() + x, STEPS),
    ("x.round()", lambda x: x.round() + x, STEPS),
    ("x.round(decimals=1)", lambda x: x.round(decimals=1) + x, STEPS),
    ("x.trunc()", lambda x: x.trunc() + x, STEPS),
    ("x.frac()", lambda x: x.frac(), STEPS),
    ("x.sign() * x", lambda x: x.sign() * x, NZ),
    ("torch.sgn(x) + x", lambda x, torch: torch.sgn(x) + x, NZ),
    ("x.erf()", lambda x: x.erf()),
    ("x.erfc()", lambda x: x.erfc()),
    ("u.erfinv()", lambda u: u.erfinv(), U),
    ("p.log1p()", lambda p: p.log1p(), P),
    ("x.expm1()", lambda x: x.expm1()),
    ("p.log2()", lambda p: p.log2(), P),
    ("p.log10()", lambda p: p.log10(), P),
    ("x.exp2()", lambda x: x.exp2()),
    ("p.rsqrt()", lambda p: p.rsqrt(), P),
    ("u.asin()", lambda u: u.asin(), U),
    ("u.acos()", lambda u: u.acos(), U),
    ("x.atan()", lambda x: x.atan()),
    ("x.sinh()", lambda x: x.sinh()),
    ("x.cosh()", lambda x: x.cosh()),
    ("x.asinh()", lambda x: x.asinh()),
    ("(p + 1).acosh()", lambda p: (p + 1).acosh(), P),
    ("u.atanh()", lambda u: u.atanh(), U),
    ("torch.atan2(x, y)", lambda x, y, torch: torch.atan2(x, y),
     {"x": nonzero(3), "y": nonzero(3)}),
    ("torch.hypot(x, y)", lambda x, y, torch: torch.hypot(x, y),
     {"x": nonzero(3), "y": nonzero(3)}),
    ("torch.lerp(x, y, 0.3)", lambda x, y, torch: torch.lerp(x, y, 0.3),
     {"x": normal(3), "y": normal(3)}),
    ("x.lerp(y, w) (tensor weight)", lambda x, y, w: x.lerp(y, w),
     {"x": normal(3), "y": normal(3), "w": normal(3)}),
    ("torch.xlogy(x, p)", lambda x, p, torch: torch.xlogy(x, p), {"x": normal(3),
                                                                   "p": positive(3)}),
    ("torch.xlogy(2.0, p)", lambda p, torch: torch.xlogy(2.0, p), P),
    ("x.xlogy(2.0)", lambda x: x.xlogy(2.0)),
    ("x.nan_to_num()", lambda x: x.nan_to_num()),
    ("x.div(y, rounding_mode='floor') + x", lambda x, y: x.div(y, rounding_mode="floor") + x,
     {"x": normal(3), "y": nonzero(3)}),
    ("torch.div(x, 2, rounding_mode='trunc') + x",
     lambda x, torch: torch.div(x, 2, rounding_mode="trunc") + x),
    ("x.clamp(min=y) (tensor bound)", lambda x, y: x.clamp(min=y),
     {"x": normal(3), "y": normal(3)}),
    ("x.clamp(lo, hi) (tensor bounds)", lambda x, lo, hi: x.clamp(lo, hi - 0.5 + lo.abs()),
     {"x": normal(4), "lo": normal(4), "hi": normal(4)}),
    ("A.clamp(max=c) (broadcast bound)", lambda A, c: A.clamp(max=c),
     {"A": normal(2, 3), "c": normal(2, 1)}),
])

STATISTICS = _cases("reductions", M, [
    ("x.prod()", lambda x: x.prod(), NZ),
    ("A.prod(dim=1)", lambda A: A.prod(dim=1)),
    ("A.prod(0, keepdim=True)", lambda A: A.prod(0, keepdim=True)),
    ("x.prod() with a zero", lambda x: x.prod(), {"x": lambda rng: np.array([0.0, 1.5, -2.0])}),
    ("A.var()", lambda A: A.var()),
    ("A.var(dim=1)", lambda A: A.var(dim=1)),
    ("A.var(0, unbiased=False)", lambda A: A.var(0, unbiased=False)),
    ("b.var(dim=(0, 2), correction=0, keepdim=True)",
     lambda b: b.var(dim=(0, 2), correction=0, keepdim=True), {"b": normal(4, 2, 3)}),
    ("A.std()", lambda A: A.std()),
    ("A.std(dim=0, keepdim=True)", lambda A: A.std(dim=0, keepdim=True)),
    ("torch.var_mean(A, 1)", lambda A, torch: _pair(torch.var_mean(A, 1))),
    ("torch.std_mean(A, dim=0)", lambda A, torch: _pair(torch.std_mean(A, dim=0))),
    ("A.logsumexp(dim=1)", lambda A: A.logsumexp(dim=1)),
    ("torch.logsumexp(A, (0, 1))", lambda A, torch: torch.logsumexp(A, (0, 1))),
    ("A.norm(p=1)", lambda A: A.norm(p=1)),
    ("A.norm(p=3, dim=1)", lambda A: A.norm(p=3, dim=1)),
    ("A.norm(p=inf)", lambda A: A.norm(p=math.inf), {"A": distinct(2, 3)}),
    ("A.norm(p=-inf, dim=0)", lambda A: A.norm(p=-math.inf, dim=0), {"A": distinct(2, 3)}),
    ("A.norm(p='fro')", lambda A: A.norm(p="fro")),
    ("torch.dist(x, y)", lambda x, y, torch: torch.dist(x, y), {"x": normal(3), "y": normal(3)}),
    ("x.dist(y, p=1)", lambda x, y: x.dist(y, p=1), {"x": normal(3), "y": normal(3)}),
    ("A.sum(axis=1)", lambda A: A.sum(axis=1)),
    ("A.mean(axis=0)", lambda A: A.mean(axis=0)),
    ("A.cumsum(dim=1)", lambda A: A.cumsum(dim=1)),
    ("torch.cumsum(A, 0)", lambda A, torch: torch.cumsum(A, 0)),
    ("A.cumprod(1)", lambda A: A.cumprod(1)),
    ("x.cumprod(0) with a zero", lambda x: x.cumprod(0),
     {"x": lambda rng: np.array([1.5, 0.0, 2.0])}),
    ("A.cummax(1).values", lambda A: A.cummax(1).values, {"A": distinct(2, 3)}),
    ("A.cummin(dim=0).values", lambda A: A.cummin(dim=0).values, {"A": distinct(2, 3)}),
    ("A.logcumsumexp(1)", lambda A: A.logcumsumexp(1)),
])


def _pair(pair: tuple) -> object:
    """Both outputs of var_mean/std_mean into one result (each gets its own gradient)."""
    first, second = pair
    return first * 2 + second


IN_PLACE = _cases("in-place and dtypes", X, [
    ("(x * 2).floor_() * x", lambda x: x.mul(2).floor_() * x, STEPS),
    ("(x * 1).round_(decimals=1) * x", lambda x: x.mul(1).round_(decimals=1) * x, STEPS),
    ("(x * 1).erf_()", lambda x: x.mul(1).erf_()),
    ("(x * 1).abs_()", lambda x: x.mul(1).abs_(), NZ),
    ("(p * 1).log1p_()", lambda p: p.mul(1).log1p_(), P),
    ("(x * 1).clamp_(min=y) (tensor bound)", lambda x, y: x.mul(1).clamp_(min=y),
     {"x": normal(3), "y": normal(3)}),
])

AB = {"A": normal(2, 3), "B": normal(3, 4)}
CONTRACTIONS = _cases("matmul", AB, [
    ("torch.einsum('ij,jk->ik', A, B)", lambda A, B, torch: torch.einsum("ij,jk->ik", A, B)),
    ("torch.einsum('bhqd,bhkd->bhqk', q, k) (attention scores)",
     lambda q, k, torch: torch.einsum("bhqd,bhkd->bhqk", q, k),
     {"q": normal(2, 2, 3, 4), "k": normal(2, 2, 5, 4)}),
    ("torch.einsum('ii', S) (trace)", lambda S, torch: torch.einsum("ii", S), {"S": normal(3, 3)}),
    ("torch.einsum('i,j->ij', x, y) (outer)", lambda x, y, torch: torch.einsum("i,j->ij", x, y),
     {"x": normal(3), "y": normal(2)}),
    ("torch.einsum('ij,jk,kl->il', A, B, C)",
     lambda A, B, C, torch: torch.einsum("ij,jk,kl->il", A, B, C),
     {"A": normal(2, 3), "B": normal(3, 4), "C": normal(4, 2)}),
    ("torch.tensordot(T, U, dims=2)", lambda T, U, torch: torch.tensordot(T, U, dims=2),
     {"T": normal(2, 3, 4), "U": normal(3, 4, 2)}),
    ("torch.matrix_exp(S)", lambda S, torch: torch.matrix_exp(S), {"S": normal(3, 3)}),
])

CHECKPOINTS = _cases("small nets", {"x": normal(2, 3), "w": normal(3, 3)}, [
    ("checkpoint(block, x, use_reentrant=True)", lambda x, w, torch: _checkpoint(
        torch, x, w, True)),
    ("checkpoint(block, x, use_reentrant=False)", lambda x, w, torch: _checkpoint(
        torch, x, w, False)),
])


def _checkpoint(torch, x, w, reentrant):
    import importlib

    cp = importlib.import_module(f"{torch.__name__}.utils.checkpoint")
    return cp.checkpoint(lambda a: (a @ w).tanh() * a.sum(), x, use_reentrant=reentrant)

MATH: list[Case] = [*FLOAT_MATH, *STATISTICS, *IN_PLACE, *CONTRACTIONS, *CHECKPOINTS]
