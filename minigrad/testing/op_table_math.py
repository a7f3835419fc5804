"""Op-table entries for float math, reductions, statistics, cumulative ops, comparisons
(see op_table.py; `unary`/`binary` are in op_spec.py)."""

from __future__ import annotations

import math

import minigrad
from minigrad.testing.domains import (
    ABOVE_ONE,
    AWAY_FROM_ZERO,
    DISTINCT,
    NONZERO,
    OFF_HALVES,
    OFF_WHOLE,
    POSITIVE,
    REAL,
    UNIT_OPEN,
    all_apart,
    apart,
    distinct_magnitudes,
    off_steps,
    off_tenths,
    spread,
)
from minigrad.testing.op_spec import OpSpec
from minigrad.testing.op_spec import binary as _binary
from minigrad.testing.op_spec import unary as _unary


def _method(name: str, node: str, domain=REAL, **kw) -> OpSpec:
    """`x.name()`, one input."""
    kw.setdefault("in_expressions", False)
    return _unary(name, lambda x: getattr(x, name)(), node, "{0}." + name + "()",
                  domains=(domain,), **kw)


def _along(name: str, call: str, fn, node: str, domain=REAL, **kw) -> OpSpec:
    """`x.call(dim=...)`: a reduction or cumulative op along a drawn dim."""
    return _unary(name, fn, node, "{0}." + call, shapes="nonscalar", params=("dim",),
                  domains=(domain,), in_expressions=False, **kw)


STEPS = [
    _method("floor", "FloorBackward0", OFF_WHOLE),
    _method("ceil", "CeilBackward0", OFF_WHOLE),
    _method("trunc", "TruncBackward0", OFF_WHOLE),
    _method("frac", "FracBackward0", OFF_WHOLE),
    _method("round", "RoundBackward0", OFF_HALVES),
    _unary("round_decimals", lambda x: x.round(decimals=1), "RoundBackward1",
           "{0}.round(decimals=1)", valid=off_tenths, in_expressions=False),
    _method("sign", "SignBackward0", AWAY_FROM_ZERO),
    _method("sgn", "SgnBackward0", AWAY_FROM_ZERO),
    _method("nan_to_num", "NanToNumBackward0"),
]

SMOOTH = [
    _method("erf", "ErfBackward0", in_expressions=True),
    _method("erfc", "ErfcBackward0"),
    _method("erfinv", "ErfinvBackward0", UNIT_OPEN),
    _method("log1p", "Log1PBackward0", POSITIVE),
    _method("expm1", "Expm1Backward0"),
    _method("log2", "Log2Backward0", POSITIVE),
    _method("log10", "Log10Backward0", POSITIVE),
    _method("exp2", "Exp2Backward0", positive_output=True),
    _method("rsqrt", "RsqrtBackward0", POSITIVE, positive_output=True),
    _method("asin", "AsinBackward0", UNIT_OPEN),
    _method("acos", "AcosBackward0", UNIT_OPEN),
    _method("atan", "AtanBackward0", in_expressions=True),
    _method("sinh", "SinhBackward0"),
    _method("cosh", "CoshBackward0", positive_output=True),
    _method("asinh", "AsinhBackward0", in_expressions=True),
    _method("acosh", "AcoshBackward0", ABOVE_ONE),
    _method("atanh", "AtanhBackward0", UNIT_OPEN),
    _binary("atan2", lambda x, y: x.atan2(y), "Atan2Backward0", "{0}.atan2({1})",
            domains=(NONZERO, NONZERO), in_expressions=False),
    _binary("hypot", lambda x, y: x.hypot(y), "HypotBackward0", "{0}.hypot({1})",
            domains=(NONZERO, NONZERO), positive_output=True, in_expressions=False),
    _binary("lerp", lambda x, y: x.lerp(y, 0.3), "LerpBackward0", "{0}.lerp({1}, 0.3)",
            in_expressions=False),
    OpSpec("lerp_tensor", lambda x, y, w: x.lerp(y, w), "LerpBackward1", "{0}.lerp({1}, {2})",
           arity=3, shapes="same", in_expressions=False),
    _binary("xlogy", lambda x, y: x.xlogy(y), "XlogyBackward0", "{0}.xlogy({1})",
            domains=(REAL, POSITIVE), in_expressions=False),
    _unary("xlogy_number", lambda x: minigrad.xlogy(2.0, x), "XlogyBackward1",
           "minigrad.xlogy(2.0, {0})", domains=(POSITIVE,), in_expressions=False,
           torch_fn=lambda torch, x: torch.xlogy(2.0, x)),
    _unary("xlogy_of_number", lambda x: x.xlogy(2.0), "XlogyBackward2", "{0}.xlogy(2.0)",
           in_expressions=False),
    _binary("div_floor", lambda x, y: x.div(y, rounding_mode="floor"), "DivBackward2",
            "{0}.div({1}, rounding_mode='floor')", domains=(REAL, NONZERO), valid=off_steps,
            in_expressions=False),
    _binary("div_trunc", lambda x, y: x.div(y, rounding_mode="trunc"), "DivBackward2",
            "{0}.div({1}, rounding_mode='trunc')", domains=(REAL, NONZERO), valid=off_steps,
            in_expressions=False),
    _binary("clamp_tensor_min", lambda x, y: x.clamp(min=y), "ClampBackward0",
            "{0}.clamp(min={1})", valid=apart, in_expressions=False),
    OpSpec("clamp_tensors", lambda x, lo, hi: x.clamp(lo, hi), "ClampBackward0",
           "{0}.clamp({1}, {2})", arity=3, shapes="same", valid=all_apart,
           in_expressions=False),
]

STATISTICS = [
    _unary("prod", lambda x: x.prod(), "ProdBackward0", "{0}.prod()", domains=(NONZERO,),
           in_expressions=False),
    _along("prod_dim", "prod(dim={dim})", lambda x, dim: x.prod(dim=dim), "ProdBackward1",
           NONZERO),
    _unary("var", lambda x: x.var(), "VarBackward0", "{0}.var()", valid=spread,
           in_expressions=False),
    _along("var_dim", "var(dim={dim})", lambda x, dim: x.var(dim=dim), "VarBackward0",
           valid=spread),
    _unary("var_dims", lambda x, dimset: x.var(dim=dimset, correction=0, keepdim=True),
           "VarBackward0", "{0}.var(dim={dimset}, correction=0, keepdim=True)",
           shapes="nonscalar", params=("dimset",), valid=spread, in_expressions=False),
    _along("std_dim", "std(dim={dim}, unbiased=False)",
           lambda x, dim: x.std(dim=dim, unbiased=False), "StdBackward0", valid=spread),
    _unary("std", lambda x: x.std(), "StdBackward0", "{0}.std()", valid=spread,
           in_expressions=False),
    _along("var_mean", "var_mean(dim={dim})[0]", lambda x, dim: minigrad.var_mean(x, dim)[0],
           "VarMeanBackward0", valid=spread,
           torch_fn=lambda torch, x, dim: torch.var_mean(x, dim)[0]),
    _along("var_mean_mean", "var_mean(dim={dim})[1]",
           lambda x, dim: minigrad.var_mean(x, dim)[1], "VarMeanBackward0", valid=spread,
           torch_fn=lambda torch, x, dim: torch.var_mean(x, dim)[1]),
    _along("std_mean", "std_mean(dim={dim})[0]", lambda x, dim: minigrad.std_mean(x, dim)[0],
           "StdMeanBackward0", valid=spread,
           torch_fn=lambda torch, x, dim: torch.std_mean(x, dim)[0]),
    _along("logsumexp", "logsumexp(dim={dim})", lambda x, dim: x.logsumexp(dim=dim),
           "LogsumexpBackward0"),
    _unary("logsumexp_dims", lambda x, dimset: x.logsumexp(dim=dimset, keepdim=True),
           "LogsumexpBackward0", "{0}.logsumexp(dim={dimset}, keepdim=True)",
           shapes="nonscalar", params=("dimset",), in_expressions=False),
    _unary("norm_p1", lambda x: x.norm(p=1), "LinalgVectorNormBackward0", "{0}.norm(p=1)",
           domains=(AWAY_FROM_ZERO,), in_expressions=False),
    _along("norm_p3_dim", "norm(p=3, dim={dim})", lambda x, dim: x.norm(p=3, dim=dim),
           "LinalgVectorNormBackward0", NONZERO),
    _unary("norm_inf", lambda x: x.norm(p=math.inf), "LinalgVectorNormBackward0",
           "{0}.norm(p=math.inf)", valid=distinct_magnitudes, in_expressions=False),
    _unary("norm_fro_dims", lambda x, dimset: x.norm(p="fro", dim=dimset[:2]),
           "LinalgVectorNormBackward0", "{0}.norm(p='fro', dim={dimset}[:2])",
           shapes="nonscalar", params=("dimset",), domains=(NONZERO,), in_expressions=False),
    _binary("dist", lambda x, y: x.dist(y), "DistBackward0", "{0}.dist({1})", valid=all_apart,
            in_expressions=False),
    _binary("dist_p1", lambda x, y: x.dist(y, p=1), "DistBackward0", "{0}.dist({1}, p=1)",
            valid=all_apart, in_expressions=False),
    _unary("sum_axis", lambda x, dim: x.sum(axis=dim), "SumBackward1", "{0}.sum(axis={dim})",
           shapes="nonscalar", params=("dim",), in_expressions=False),
]

CUMULATIVE = [
    _along("cumsum", "cumsum(dim={dim})", lambda x, dim: x.cumsum(dim=dim), "CumsumBackward0"),
    _along("cumprod", "cumprod(dim={dim})", lambda x, dim: x.cumprod(dim=dim),
           "CumprodBackward0", NONZERO),
    _along("cummax", "cummax(dim={dim}).values", lambda x, dim: x.cummax(dim=dim).values,
           "CummaxBackward0", DISTINCT),
    _along("cummin", "cummin(dim={dim}).values", lambda x, dim: x.cummin(dim=dim).values,
           "CumminBackward0", DISTINCT),
    _along("logcumsumexp", "logcumsumexp(dim={dim})", lambda x, dim: x.logcumsumexp(dim=dim),
           "LogcumsumexpBackward0"),
]

MATH: list[OpSpec] = STEPS + SMOOTH + STATISTICS + CUMULATIVE
