"""The numpy rules of arithmetic, the elementwise functions and the reductions
(`numpy_rules`): minigrad's numpy for each op, operation for operation (ops/arithmetic.py,
unary.py, elementwise.py, selection.py, activations.py, reduce.py, norms.py)."""

from __future__ import annotations

import math

from minigrad.teach.numpy_rules import (
    ELEMENTWISE,
    LINEAR,
    Call,
    Rule,
    even_tangent,
    restored,
    sigmoid_lines,
    total,
)
from minigrad.teach.program_values import float_text, source


def _scaled(op: str) -> Rule:
    """`a + b` and `a - b`, or `a + alpha * b` when add/sub was given an alpha."""
    def forward(c: Call) -> str:
        return c.text(f"{{0}} {op} {{alpha}} * {{1}}" if "alpha" in c.attrs
                      else f"{{0}} {op} {{1}}")

    def other(c: Call) -> str:
        if "alpha" not in c.attrs:
            return c.g if op == "+" else f"-{c.g}"
        alpha = c.setting("alpha")
        return f"{c.g} * {source(alpha if op == '+' else -alpha)}"

    def tangent(c: Call) -> str:  # (arithmetic.py: ta + tb, ta + tb * alpha)
        scaled = f" * {source(c.setting('alpha'))}" if "alpha" in c.attrs else ""
        return f"{c.tangent(0)} {op} {c.tangent(1)}{scaled}"
    return Rule(forward, "{g}", other, jvp=tangent)


def _pow_backward(c: Call) -> str:
    p = c.setting("p")
    if p == 0:
        return f"{c.g} * 0"
    return f"{c.g} * {source(p)} * {c.args[0]} ** {source(p - 1)}"


def _pow_tangent(c: Call) -> str:
    p = c.setting("p")
    if p == 0:
        return f"{c.tangent(0)} * 0"
    return f"{c.tangent(0)} * {source(p)} * {c.args[0]} ** {source(p - 1)}"


# (powers.py's PowTensor.jvp: b's term is 0 where a == 0 and b >= 0, as in backward)
_POW_TENSOR_TANGENT = ("{out}_tb = {t1} * {out} * np.log({0})\n"
                       "{out}_tb = np.where(({0} == 0) & ({1} >= 0), 0.0, {out}_tb)\n"
                       "{t0} * {1} * {0} ** ({1} - 1) + {out}_tb")


def _power_forward(c: Call) -> str:
    return c.text("np.asarray({base}, dtype={dtype0}) ** {0}")


def _reduced(c: Call) -> str:
    """`sum_array`/`mean_array`'s sum of input 0 over the node's dims (all for none)."""
    dims = c.setting("dims")
    return total(c.args[0], c.in_shapes[0], c.in_dtypes[0], dims if c.in_shapes[0] else None,
                 bool(c.setting("keepdim")))


def _count(c: Call) -> int:
    """How many elements a mean's backward divides by (reduce.py: Mean, MeanDim)."""
    dims, shape = c.setting("dims"), c.in_shapes[0]
    if dims is None:
        return max(math.prod(shape), 1)
    return math.prod(shape[d] for d in dims) if shape else 1


def _mean_forward(c: Call) -> str:
    dims, shape = c.setting("dims"), c.in_shapes[0]
    n = math.prod(shape) if dims is None or not shape else math.prod(shape[d] for d in dims)
    return f"np.asarray({_reduced(c)} / {n}, {c.text('{dtype0}')})"


def _clamp_backward(c: Call) -> str:
    parts = [f"({c.args[0]} >= {source(c.setting('lo'))})" if c.setting("lo") is not None
             else "", f"({c.args[0]} <= {source(c.setting('hi'))})"
             if c.setting("hi") is not None else ""]
    inside = " & ".join(p for p in parts if p)
    return f"np.where({inside}, {c.g}, 0.0)"


def _clamp_tangent(c: Call) -> str:
    """selection.py's Clamp.jvp: the tangent inside [lo, hi], 0 outside."""
    parts = [f"({c.args[0]} {op} {source(c.setting(k))})" for k, op in (("lo", ">="), ("hi", "<="))
             if c.setting(k) is not None]
    inside = " & ".join(["True"] + parts)
    return f"np.where(np.broadcast_to({inside}, {source(c.in_shapes[0])}), {c.tangent(0)}, 0.0)"


def _pointwise(forward: str, derivative: str) -> Rule:
    """elementwise.py's `_Pointwise`: numpy's function, then `grad * derivative` (and its
    JVP, `tangent * derivative`)."""
    return Rule(f"np.asarray({forward}).astype({{dtype0}}, copy=False)",
                f"{{g}} * ({derivative})", jvp=ELEMENTWISE)


def _picked_tangent(c: Call) -> str:
    """max/min along a dim in forward mode: the tangent at the index picked (`{out}_mask`,
    made by the forward)."""
    if not c.in_shapes[0]:
        return f"{c.tangent(0)}.copy()"
    return total(f"({c.tangent(0)} * {c.out}_mask)", c.in_shapes[0], c.tangent_dtypes[0],
                 c.setting("dim"), bool(c.setting("keepdim")))


def _shared_tangent(c: Call) -> str:
    """amax/amin in forward mode: the tangent of the extremes, shared (`{out}_share`)."""
    picked, dims = f"({c.tangent(0)} * {c.out}_share)", c.setting("dims")
    if not dims:
        return picked
    return total(picked, c.in_shapes[0], c.tangent_dtypes[0], dims, bool(c.setting("keepdim")))


def _even_backward(c: Call) -> str:
    """max/min of all: the elements equal to it share the gradient evenly."""
    out = c.out
    return (f"{out}_hits = {c.args[0]} == {out}\n"
            f"{c.g} * ({out}_hits / {out}_hits.sum()).astype({c.text('{dtype0}')})")


def _select_forward(fn: str) -> str | None:
    def forward(c: Call) -> str:
        x, out, dim = c.args[0], c.out, c.setting("dim")
        dtype = c.text("{dtype0}")
        if not c.in_shapes[0]:
            return (f"{out}_mask = np.ones((), {dtype})\n"
                    f"({x}.copy(), np.zeros((), np.int64))")
        values, idx = f"np.take_along_axis({x}, {out}_idx, axis={dim})", f"{out}_idx"
        if not c.setting("keepdim"):
            values, idx = f"{values}.squeeze({dim})", f"{idx}.squeeze({dim})"
        return (f"{out}_idx = np.{fn}({x}, axis={dim}, keepdims=True)\n"
                f"{out}_mask = np.zeros({source(c.in_shapes[0])}, dtype={dtype})\n"
                f"np.put_along_axis({out}_mask, {out}_idx, 1, axis={dim})\n"
                f"({values}, {idx}.astype(np.int64))")
    return forward


def _extreme_forward(fn: str):
    def forward(c: Call) -> str:
        x, out, dims = c.args[0], c.out, source(c.setting("dims"))
        result = f"{out}_full" if c.setting("keepdim") else \
            f"np.squeeze({out}_full, axis={dims})"
        return (f"{out}_full = np.{fn}({x}, axis={dims}, keepdims=True)\n"
                f"{out}_hits = {x} == {out}_full\n"
                f"{out}_share = ({out}_hits / {out}_hits.sum(axis={dims}, keepdims=True))"
                f".astype({c.text('{dtype0}')})\n{result}")
    return forward


def _norm_forward(c: Call) -> str:
    x, out, p = c.args[0], c.out, c.setting("p")
    dims, keep, shape, dtype = c.setting("dims"), bool(c.setting("keepdim")), c.in_shapes[0], \
        c.in_dtypes[0]
    if p == 2:
        value = f"np.sqrt({total(f'({out}_abs * {out}_abs)', shape, dtype, dims, keep)})"
    elif p == 1:
        value = total(f"{out}_abs", shape, dtype, dims, keep)
    elif p in (math.inf, -math.inf):
        value = f"np.{'max' if p > 0 else 'min'}({out}_abs, axis={source(dims)}, " \
                f"keepdims={keep})"
    elif p == 0:
        value = f"np.sum({out}_abs != 0, axis={source(dims)}, keepdims={keep})" \
                f".astype({c.text('{dtype0}')})"
    else:
        value = f"{total(f'({out}_abs ** {float_text(p)})', shape, dtype, dims, keep)} " \
                f"** {float_text(1 / p)}"
    return f"{out}_abs = np.abs({x})\nnp.asarray({value}, dtype={c.text('{dtype0}')})"


def _norm_backward(c: Call) -> str:
    x, p = c.args[0], c.setting("p")
    g, out = restored(c, c.g), restored(c, c.out)
    if p == 0:
        return f"np.zeros_like({x})"
    if p == 1:
        return f"{g} * np.sign({x})"
    if p in (math.inf, -math.inf):
        dims = source(c.setting("dims"))
        return (f"{c.out}_hits = np.abs({x}) == {out}\n{g} * (np.sign({x}) * {c.out}_hits / "
                f"np.sum({c.out}_hits, axis={dims}, keepdims=True)).astype({c.text('{dtype0}')})")
    zero = f"np.broadcast_to({out} == 0, {source(c.in_shapes[0])})"
    if p == 2:
        return f"np.where({zero}, 0.0, {x} * ({g} / {out}))"
    return (f"np.where({zero} | ({x} == 0), 0.0, {x} * np.abs({x}) ** {float_text(p - 2)} * "
            f"({g} / {out} ** {float_text(p - 1)}))")


def _norm_tangent(c: Call) -> str:
    """norms.py's Norm.jvp: the tangent times the norm's slope (its backward of ones), summed
    over the dims."""
    ones = Call(c.args, c.out, [f"np.ones_like({c.out})"], c.attrs, c.shape, c.dtype,
                c.in_shapes, c.in_dtypes, c.names, c.transposed)
    *lines, slope = _norm_backward(ones).split("\n")
    dims = c.setting("dims")
    summed = total(f"({c.tangent(0)} * {c.out}_slope)", c.in_shapes[0], c.tangent_dtypes[0],
                   dims or None, bool(c.setting("keepdim")) and bool(dims))
    return "\n".join([*lines, f"{c.out}_slope = {slope}", summed])


def _sigmoid_forward(c: Call) -> str:
    return sigmoid_lines(c.args[0], f"{c.out}_e", c.text("{dtype0}"))


MATH: dict[str, Rule] = {
    # -- arithmetic (ops/arithmetic.py): numbers stay Python numbers, as minigrad keeps them
    "AddBackward0": _scaled("+"),
    "SubBackward0": _scaled("-"),
    "RsubBackward1": Rule("{c} - {0}", "-{g}", jvp="-{t0}"),
    "MulBackward0": Rule("{0} * {1}", "{g} * {1}", "{g} * {0}",
                         jvp="{t0} * {1} + {0} * {t1}"),
    "DivBackward0": Rule("{0} / {1}", "{g} / {1}", "-{g} * {0} / ({1} * {1})",
                         jvp="({t0} - {out} * {t1}) / {1}"),
    "NegBackward0": Rule("-{0}", "-{g}", jvp="-{t0}"),
    "PowBackward0": Rule("{0} ** {p}", _pow_backward, jvp=_pow_tangent),
    "PowBackward1": Rule("{0} ** {1}", "{g} * {1} * {0} ** np.asarray({1} - 1)",
                         "{out}_gb = {g} * {0} ** {1} * np.log({0})\n"
                         "np.where(({0} == 0) & ({1} >= 0), 0.0, {out}_gb)",
                         jvp=_POW_TENSOR_TANGENT),
    "PowBackward2": Rule(_power_forward,
                         lambda c: f"{c.g} * {c.out} * float(np.log({source(c.setting('base'))}))",
                         jvp="{t0} * {out} * float(np.log({base}))"),
    # -- one-input functions (ops/unary.py, elementwise.py)
    "ReciprocalBackward0": Rule("1.0 / {0}", "-{g} * {out} * {out}",
                                jvp="-{t0} * {out} * {out}"),
    "ExpBackward0": Rule("np.exp({0})", "{g} * {out}", jvp="{t0} * {out}"),
    "LogBackward0": Rule("np.log({0})", "{g} / {0}", jvp="{t0} / {0}"),
    "SqrtBackward0": Rule("np.sqrt({0})", "{g} / (2 * {out})", jvp="{t0} / (2 * {out})"),
    "AbsBackward0": Rule("np.abs({0})", "{g} * np.sign({0})", jvp="{t0} * np.sign({0})"),
    "TanhBackward0": Rule("np.tanh({0})", "{g} * (1 - {out} * {out})",
                          jvp="{t0} * (1 - {out} * {out})"),
    "SigmoidBackward0": Rule(_sigmoid_forward, "{g} * {out} * (1 - {out})",
                             jvp="{t0} * {out} * (1 - {out})"),
    "ReluBackward0": Rule("np.maximum({0}, {dtype0}(0))", "np.where({out} > 0, {g}, 0.0)",
                          jvp="np.where({out} > 0, {t0}, 0.0)"),
    # (what tanh's and sigmoid's backward run, as one op each: forward mode through backward)
    "TanhBackwardBackward0": Rule("{0} * (1 - {1} * {1})", "{g} * (1 - {1} * {1})",
                                  "{g} * {0} * {1} * -2",
                                  jvp="{t0} * (1 - {1} * {1}) + {t1} * {0} * {1} * -2"),
    "SigmoidBackwardBackward0": Rule("{0} * {1} * (1 - {1})", "{g} * {1} * (1 - {1})",
                                     "{g} * {0} * (1 - 2 * {1})",
                                     jvp="{t0} * {1} * (1 - {1}) + {t1} * {0} * (1 - 2 * {1})"),
    "SinBackward0": Rule("np.sin({0})", "{g} * np.cos({0})", jvp="{t0} * np.cos({0})"),
    "CosBackward0": Rule("np.cos({0})", "-{g} * np.sin({0})", jvp="-{t0} * np.sin({0})"),
    "TanBackward0": Rule("np.tan({0})", "{g} * ({out} * {out} + 1)",
                         jvp="{t0} * ({out} * {out} + 1)"),
    "ErfBackward0": _pointwise("np.vectorize(math.erf, otypes=[np.float64])({0})",
                               "np.exp(-({0} * {0})) * (2 / math.sqrt(math.pi))"),
    "AtanBackward0": _pointwise("np.arctan({0})", "1 / ({0} * {0} + 1)"),
    "AsinhBackward0": _pointwise("np.arcsinh({0})", "1 / np.sqrt({0} * {0} + 1)"),
    "ErfcBackward0": _pointwise("np.vectorize(math.erfc, otypes=[np.float64])({0})",
                                "np.exp(-({0} * {0})) * (-2 / math.sqrt(math.pi))"),
    "Log1PBackward0": _pointwise("np.log1p({0})", "1 / ({0} + 1)"),
    "Expm1Backward0": _pointwise("np.expm1({0})", "{out} + 1"),
    "Log2Backward0": _pointwise("np.log2({0})", "1 / ({0} * math.log(2))"),
    "Log10Backward0": _pointwise("np.log10({0})", "1 / ({0} * math.log(10))"),
    "Exp2Backward0": _pointwise("np.exp2({0})", "{out} * math.log(2)"),
    "RsqrtBackward0": _pointwise("1 / np.sqrt({0})", "{out} * {out} * {out} * -0.5"),
    "AsinBackward0": _pointwise("np.arcsin({0})", "1 / np.sqrt(1 - {0} * {0})"),
    "AcosBackward0": _pointwise("np.arccos({0})", "-1 / np.sqrt(1 - {0} * {0})"),
    "SinhBackward0": _pointwise("np.sinh({0})", "np.cosh({0})"),
    "CoshBackward0": _pointwise("np.cosh({0})", "np.sinh({0})"),
    "AcoshBackward0": _pointwise("np.arccosh({0})", "1 / np.sqrt({0} * {0} - 1)"),
    "AtanhBackward0": _pointwise("np.arctanh({0})", "1 / (1 - {0} * {0})"),
    "ToCopyBackward0": Rule("{0}.astype({dtype})", "{g}.astype({dtype0})", jvp=LINEAR),
    # -- selection (ops/selection.py): the gradient goes where the value came from
    "MaximumBackward0": Rule("np.maximum({0}, {1})", "{g} * {out}_to_a",
                             "{g} * (1 - {out}_to_a)",
                             before="{out}_to_a = np.where({0} == {1}, 0.5, ({0} > {1})"
                                    ".astype(np.float64)).astype({dtype0})",
                             jvp="{out}_to_a = np.where({0} == {1}, 0.5, ({0} > {1})"
                                 ".astype(np.float64)).astype({dtype0})\n"
                                 "{t0} * {out}_to_a + {t1} * (1 - {out}_to_a)"),
    "MinimumBackward0": Rule("np.minimum({0}, {1})", "{g} * {out}_to_a",
                             "{g} * (1 - {out}_to_a)",
                             before="{out}_to_a = np.where({0} == {1}, 0.5, ({0} < {1})"
                                    ".astype(np.float64)).astype({dtype0})",
                             jvp="{out}_to_a = np.where({0} == {1}, 0.5, ({0} < {1})"
                                 ".astype(np.float64)).astype({dtype0})\n"
                                 "{t0} * {out}_to_a + {t1} * (1 - {out}_to_a)"),
    "WhereBackward0": Rule("np.where({condition}, {0}, {1})", "np.where({condition}, {g}, 0.0)",
                           "np.where({condition}, 0.0, {g})",
                           jvp="np.where({condition}, {t0}, {t1})"),
    "ClampBackward1": Rule("np.clip({0}, {lo}, {hi})", _clamp_backward, jvp=_clamp_tangent),
    # -- reductions (ops/reduce.py, norms.py)
    "SumBackward0": Rule(_reduced, "np.broadcast_to({g}, {shape0})", jvp=LINEAR),
    "SumBackward1": Rule(_reduced, lambda c: f"np.broadcast_to({restored(c, c.g)}, "
                                             f"{source(c.in_shapes[0])})", jvp=LINEAR),
    "MeanBackward0": Rule(_mean_forward, lambda c: f"np.broadcast_to({c.g} / {_count(c)}, "
                                                   f"{source(c.in_shapes[0])})", jvp=LINEAR),
    "MeanBackward1": Rule(_mean_forward, lambda c: f"np.broadcast_to({restored(c, c.g)} / "
                                                   f"{_count(c)}, {source(c.in_shapes[0])})",
                          jvp=LINEAR),
    "MaxBackward1": Rule("np.asarray(np.max({0}))", _even_backward, jvp=even_tangent),
    "MinBackward1": Rule("np.asarray(np.min({0}))", _even_backward, jvp=even_tangent),
    "MaxBackward0": Rule(_select_forward("argmax"), lambda c: f"{restored(c, c.g)} * "
                                                              f"{c.out}_mask", many=True,
                         jvp=_picked_tangent),
    "MinBackward0": Rule(_select_forward("argmin"), lambda c: f"{restored(c, c.g)} * "
                                                              f"{c.out}_mask", many=True,
                         jvp=_picked_tangent),
    "AmaxBackward0": Rule(_extreme_forward("max"),
                          lambda c: f"{restored(c, c.g)} * {c.out}_share",
                          jvp=_shared_tangent),
    "AminBackward0": Rule(_extreme_forward("min"),
                          lambda c: f"{restored(c, c.g)} * {c.out}_share",
                          jvp=_shared_tangent),
    "LinalgVectorNormBackward0": Rule(_norm_forward, _norm_backward, jvp=_norm_tangent),
}
