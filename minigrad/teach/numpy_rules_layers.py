"""The numpy rules of products, softmaxes, losses, activations, convolution and max pooling
(`numpy_rules`), as minigrad computes them (ops/products.py, softmaxes.py, losses.py,
activations.py, convolution.py with windows.py, pooling.py)."""

from __future__ import annotations

import math

import numpy as np

from minigrad.teach.numpy_rules import ELEMENTWISE, LINEAR, Call, Rule, sigmoid_lines, total
from minigrad.teach.program_values import dtype_text, source

SQRT_2_PI, INV_SQRT_2PI = "math.sqrt(2.0 / math.pi)", "(1.0 / math.sqrt(2.0 * math.pi))"


def _mat2_grad(a: int, b: int):
    """products.py's `mat2_grad`: A^T @ grad, or (grad^T @ A)^T when B is laid out by
    columns (a Linear's `weight.t()`), so that the weight's gradient comes out contiguous."""
    def text(c: Call) -> str:
        if c.transposed[b]:
            return f"({c.g}.T @ {c.args[a]}).T"
        return f"{c.args[a]}.T @ {c.g}"
    return text


def _spread(c: Call) -> str:
    """losses.py's `_spread`: the incoming gradient, divided among the losses for 'mean' (one
    per element of the inputs broadcast together)."""
    if c.setting("reduction") != "mean":
        return c.g
    shapes = [s for s in c.in_shapes if s is not None]
    weight = c.setting("weight")
    if weight is not None and c.setting("target") is None:  # (a loss weighted per element)
        shapes.append(np.shape(weight))
    return f"{c.g} / {math.prod(np.broadcast_shapes(*shapes))}"


def _reduced(c: Call, values: str) -> str:
    """losses.py's `_reduce`."""
    how = c.setting("reduction")
    if how == "none":
        return values
    reduce = "mean" if how == "mean" else "sum"
    return f"np.asarray({values}.{reduce}(), dtype={c.text('{dtype0}')})"


def _shifted(c: Call) -> str:
    """The input less its largest value along dim (so that exp cannot overflow)."""
    x = c.args[0]
    return f"{x} - np.maximum.reduce({x}, {c.setting('dim')}, keepdims=True)"


def _along(c: Call, expr: str, shape: tuple | None = None) -> str:
    """`expr` summed along the softmax's dim, keeping it (as `summation.add_reduce`)."""
    shape = c.in_shapes[0] if shape is None else shape
    return total(expr, shape, c.dtype, c.setting("dim"), True)


def _product_tangent(form: str):
    """products.py's `bilinear`: op(ta, b) + op(a, tb), the term of an input without a
    tangent left out (minigrad skips it)."""
    def text(c: Call) -> str:
        a, b = c.args
        terms = [form.format(c.tangent(0), b) if c.moves(0) else "",
                 form.format(a, c.tangent(1)) if c.moves(1) else ""]
        return " + ".join(t for t in terms if t)
    return text


def _addmm_tangent(c: Call) -> str:
    """products.py's Addmm.jvp: tmat1 @ mat2 + mat1 @ tmat2 + tbias, without the terms of
    the inputs that have no tangent; the bias's tangent spread over the rows when only it
    moves."""
    _, mat1, mat2 = c.args
    if not c.moves(1) and not c.moves(2):
        return f"np.broadcast_to({c.tangent(0)}, {source(c.shape)}).copy()"
    terms = [f"{c.tangent(1)} @ {mat2}" if c.moves(1) else "",
             f"{mat1} @ {c.tangent(2)}" if c.moves(2) else "",
             c.tangent(0) if c.moves(0) else ""]
    return " + ".join(t for t in terms if t)


def _reduced_tangent(c: Call, values: str) -> str:
    """losses.py's `_reduced` of a tangent's `values`: their mean, sum, or themselves."""
    how = c.setting("reduction")
    if how == "none":
        return values
    shape = tuple(np.broadcast_shapes(*[s for s in c.in_shapes if s is not None]))
    summed = total(f"({values})", shape, c.tangent_dtype)
    if how == "sum":
        return f"np.asarray({summed})"
    return f"np.asarray({summed} / {math.prod(shape)}, {dtype_text(c.tangent_dtype)})"


def _mse_forward(c: Call) -> str:
    return f"{c.out}_d = {c.args[0]} - {c.args[1]}\n{_reduced(c, f'({c.out}_d * {c.out}_d)')}"


def _nll_forward(c: Call) -> str:
    x, out, dtype = c.args[0], c.out, c.text("{dtype0}")
    labels, weight, how = c.setting("target"), c.setting("weight"), c.setting("reduction")
    ignore = c.setting("ignore_index")
    n = len(labels) if getattr(labels, "ndim", 0) else 0
    plain = len(c.in_shapes[0]) == 2 and weight is None and n and (
        ignore is None or not (labels == ignore).any())
    target = c.text("{target}")
    if plain:  # losses.py's _nll_plain
        lines = [f"{out}_rows = np.arange({n})", f"{out}_losses = -{x}[{out}_rows, {target}]",
                 f"{out}_coef = np.zeros({source(c.in_shapes[0])}, {dtype})"]
        if how == "mean":
            lines += [f"{out}_coef[{out}_rows, {target}] = {dtype}(-1) / {dtype}({n})",
                      f"np.asarray(np.add.reduce({out}_losses, axis=None) / {dtype}({n}))"]
        else:
            lines.append(f"{out}_coef[{out}_rows, {target}] = -1")
            lines.append(f"np.asarray(np.add.reduce({out}_losses, axis=None))" if how == "sum"
                         else f"{out}_losses")
        return "\n".join(lines)
    return _nll_general(c)


def _nll_general(c: Call) -> str:
    """losses.py's _nll_general: any shape, class weights, an ignored label."""
    x, out, dtype = c.args[0], c.out, c.text("{dtype0}")
    single = len(c.in_shapes[0]) == 1
    ignore, how = c.setting("ignore_index"), c.setting("reduction")
    weight = c.text("{weight}") if c.setting("weight") is not None else \
        f"np.ones({c.in_shapes[0][0 if single else 1]}, {dtype})"
    target = c.text("{target}")
    lines = [f"{out}_xs = np.moveaxis({f'{x}[None]' if single else x}, 1, -1)",
             f"{out}_labels = np.asarray({target}){'[None]' if single else ''}",
             f"{out}_valid = " + (f"np.full({out}_labels.shape, True)" if ignore is None else
                                  f"{out}_labels != {ignore}"),
             f"{out}_safe = np.where({out}_valid, {out}_labels, 0)",
             f"{out}_w = ({weight}[{out}_safe] * {out}_valid).astype({dtype})",
             f"{out}_picked = np.take_along_axis({out}_xs, {out}_safe[..., None], -1)[..., 0]",
             f"{out}_losses = -{out}_w * {out}_picked",
             f"{out}_coef = np.zeros_like({out}_xs)",
             f"np.put_along_axis({out}_coef, {out}_safe[..., None], -{out}_w[..., None], -1)"]
    if how == "mean":
        lines += [f"{out}_total = {out}_w.sum()",
                  f"{out}_loss = np.asarray({out}_losses.sum() / {out}_total, {dtype})",
                  f"{out}_coef = {out}_coef / {out}_total"]
    elif how == "sum":
        lines.append(f"{out}_loss = np.asarray({out}_losses.sum(), {dtype})")
    else:
        lines.append(f"{out}_loss = {out}_losses{'[0]' if single else ''}")
    lines.append(f"{out}_coef = " + (f"{out}_coef[0]" if single else
                                     f"np.moveaxis({out}_coef, -1, 1)"))
    return "\n".join(lines + [f"{out}_loss"])


def _nll_backward(c: Call) -> str:
    g = c.g
    if c.setting("reduction") == "none" and len(c.in_shapes[0]) != 1:
        g = f"np.expand_dims({g}, 1)"
    return f"{g} * {c.out}_coef"


def _softplus(v: str) -> str:
    """losses.py's `_softplus`: log(1 + e^v) without overflow."""
    return f"(np.maximum({v}, 0) + np.log(np.exp(-np.abs({v})) + 1))"


def _bce_logits_forward(c: Call) -> str:
    x, t, out = c.args[0], c.args[1], c.out
    pw, weight = c.setting("pos_weight"), c.setting("weight")
    lines = [f"{out}_sp = np.log1p(np.exp(-np.abs({x}))) + np.maximum(-{x}, 0)"]
    if pw is None:
        lines.append(f"{out}_losses = (1 - {t}) * {x} + {out}_sp")
    else:
        lines.append(f"{out}_losses = (1 - {t}) * {x} + (1 + ({c.text('{pos_weight}')} - 1) * "
                     f"{t}) * {out}_sp")
    if weight is not None:
        lines.append(f"{out}_losses = {out}_losses * {c.text('{weight}')}")
    return "\n".join(lines + [_reduced(c, f"{out}_losses.astype({c.text('{dtype0}')}, "
                                          f"copy=False)")])


def _bce_logits_before(c: Call) -> str:
    g = _spread(c)
    if c.setting("weight") is not None:
        g = f"{g} * {c.text('{weight}')}"
    return f"{c.out}_g = {g}"


def _pw(c: Call) -> str:
    return "1" if c.setting("pos_weight") is None else c.text("{pos_weight}")


def _bce_logits_input(c: Call) -> str:
    x, t, out = c.args[0], c.args[1], c.out
    sig = sigmoid_lines(x, f"{out}_e", c.text("{dtype0}"))
    *lines, last = sig.split("\n")
    return "\n".join(lines + [f"{out}_s = {last}",
                              f"{out}_g * ({out}_s * ({_pw(c)} * {t} + 1 - {t}) - {_pw(c)} * {t})"])


def _bce_logits_target(c: Call) -> str:
    x = c.args[0]
    return f"{c.out}_g * ({_pw(c)} * {_softplus(f'-{x}')} - {_softplus(x)})"


def _gelu_forward(c: Call) -> str:
    x = c.args[0]
    if c.setting("approximate") == "tanh":
        return f"0.5 * {x} * (1 + np.tanh({SQRT_2_PI} * ({x} + 0.044715 * {x} ** 3)))"
    return f"0.5 * {x} * (1 + {_erf(f'{x} / math.sqrt(2.0)', c.text('{dtype0}'))})"


def _erf(v: str, dtype: str) -> str:
    """activations.py's `_erf`: math.erf on every element, in float64, back in `dtype`."""
    return (f"np.asarray(np.frompyfunc(math.erf, 1, 1)(np.asarray({v}, dtype=np.float64)), "
            f"dtype=np.float64).astype({dtype})")


def _gelu_backward(c: Call) -> str:
    a, g = c.args[0], c.g
    if c.setting("approximate") == "tanh":
        return (f"{c.out}_u = ({a} + {a} * {a} * {a} * 0.044715) * {SQRT_2_PI}\n"
                f"{c.out}_t = np.tanh({c.out}_u)\n"
                f"{c.out}_du = ({a} * {a} * (3 * 0.044715) + 1) * {SQRT_2_PI}\n"
                f"{g} * (({c.out}_t + 1) * 0.5 + {a} * (1 - {c.out}_t * {c.out}_t) * {c.out}_du"
                f" * 0.5)")
    cdf = f"0.5 * (1 + {_erf(f'{a} / math.sqrt(2.0)', c.text('{dtype0}'))})"
    return f"{g} * ({cdf} + {a} * np.exp(-0.5 * {a} * {a}) * {INV_SQRT_2PI})"


def _elu_forward(c: Call) -> str:
    x, alpha, scale, inner = c.args[0], *(source(c.setting(k, 1.0)) for k in (
        "alpha", "scale", "input_scale"))
    return (f"{c.out}_neg = {alpha} * np.expm1({inner} * np.minimum({x}, 0))\n"
            f"({scale} * np.where({x} > 0, {x}, {c.out}_neg)).astype({c.text('{dtype0}')}, "
            f"copy=False)")


def _elu_backward(c: Call) -> str:
    x, g, alpha, scale, inner = c.args[0], c.g, *(source(c.setting(k, 1.0)) for k in (
        "alpha", "scale", "input_scale"))
    slope = f"np.exp(np.clip({x}, None, 0) * {inner}) * ({alpha} * {inner})"
    return f"np.where({x} > 0, {g} * {scale}, {g} * ({slope}) * {scale})"


def _silu_forward(c: Call) -> str:
    x, e = c.args[0], f"{c.out}_e"
    return (f"{e} = np.exp(-np.abs({x}))\n"
            f"{c.out}_s = np.where({x} >= 0, 1 / (1 + {e}), {e} / (1 + {e}))\n"
            f"({x} * {c.out}_s).astype({c.text('{dtype0}')}, copy=False)")


def _silu_backward(c: Call) -> str:
    x, s = c.args[0], f"{c.out}_sig"
    *lines, last = sigmoid_lines(x, f"{c.out}_e", c.text("{dtype0}")).split("\n")
    return "\n".join(lines + [f"{s} = {last}", f"{c.g} * {s} * ({x} * (1 - {s}) + 1)"])


def _softplus_backward(c: Call) -> str:
    x, beta, s = c.args[0], source(c.setting("beta")), f"{c.out}_sig"
    *lines, last = sigmoid_lines(f"{c.out}_z", f"{c.out}_e", c.text("{dtype0}")).split("\n")
    return "\n".join([f"{c.out}_z = {x} * {beta}"] + lines + [
        f"{s} = {last}", f"np.where({x} * {beta} > {source(c.setting('threshold'))}, {c.g}, "
                         f"{c.g} * {s})"])


def _mish_backward(c: Call) -> str:
    x, t, s = c.args[0], f"{c.out}_t", f"{c.out}_sig"
    *lines, last = sigmoid_lines(x, f"{c.out}_e", c.text("{dtype0}")).split("\n")
    return "\n".join([f"{t} = np.tanh({_softplus(x)})"] + lines + [
        f"{s} = {last}", f"{c.g} * ({t} + {x} * {s} * (1 - {t} * {t}))"])


ACTIVATIONS: dict[str, Rule] = {
    "GeluBackward0": Rule(_gelu_forward, _gelu_backward, jvp=ELEMENTWISE),
    "LeakyReluBackward0": Rule("np.where({0} > 0, {0}, {0} * {negative_slope})"
                               ".astype({dtype0}, copy=False)",
                               "{g} * np.where({0} > 0, 1.0, {negative_slope}).astype({dtype0})",
                               jvp=ELEMENTWISE),
    "EluBackward0": Rule(_elu_forward, _elu_backward, jvp=ELEMENTWISE),
    "SiluBackward0": Rule(_silu_forward, _silu_backward, jvp=ELEMENTWISE),
    "SoftplusBackward0": Rule("{out}_z = {0} * {beta}\nnp.where({out}_z > {threshold}, {0}, "
                              "np.logaddexp(0, {out}_z) / {beta}).astype({dtype0}, copy=False)",
                              _softplus_backward, jvp=ELEMENTWISE),
    "HardtanhBackward0": Rule("np.clip({0}, {min_val}, {max_val}).astype({dtype0}, copy=False)",
                              "{g} * np.where(({0} > {min_val}) & ({0} < {max_val}), 1.0, 0.0)"
                              ".astype({dtype0})", jvp=ELEMENTWISE),
    "MishBackward0": Rule("({0} * np.tanh(np.logaddexp(0, {0}))).astype({dtype0}, copy=False)",
                          _mish_backward, jvp=ELEMENTWISE),
}

LAYERS: dict[str, Rule] = {
    # -- products (ops/products.py)
    "DotBackward0": Rule("np.dot({0}, {1})", "{g} * {1}", "{g} * {0}",
                         jvp=_product_tangent("np.dot({}, {})")),
    "MmBackward0": Rule("{0} @ {1}", "{g} @ {1}.T", _mat2_grad(0, 1),
                        jvp=_product_tangent("{} @ {}")),
    "MvBackward0": Rule("{0} @ {1}", "np.expand_dims({g}, 1) @ np.expand_dims({1}, 0)",
                        "{0}.T @ {g}", jvp=_product_tangent("{} @ {}")),
    "BmmBackward0": Rule("{0} @ {1}", "{g} @ {1}.swapaxes(1, 2)", "{0}.swapaxes(1, 2) @ {g}",
                         jvp=_product_tangent("{} @ {}")),
    "AddmmBackward0": Rule("{0} + {1} @ {2}", "{g}", "{g} @ {2}.T", _mat2_grad(1, 2),
                           jvp=_addmm_tangent),
    # -- softmaxes (ops/softmaxes.py): the largest value subtracted first
    "SoftmaxBackward0": Rule(
        lambda c: f"{c.out}_e = np.exp({_shifted(c)})\n{c.out}_e / {_along(c, f'{c.out}_e')}",
        lambda c: f"{c.out} * ({c.g} - {_along(c, f'({c.g} * {c.out})', c.shape)})",
        jvp=lambda c: f"{c.out} * ({c.tangent(0)} - "
                      f"{_along(c, f'({c.tangent(0)} * {c.out})', c.shape)})"),
    "LogSoftmaxBackward0": Rule(
        lambda c: f"{c.out}_shifted = {_shifted(c)}\n"
                  f"{c.out}_shifted - np.log({_along(c, f'np.exp({c.out}_shifted)')})",
        lambda c: f"{c.g} - np.exp({c.out}) * {_along(c, c.g, c.shape)}",
        jvp=lambda c: f"{c.tangent(0)} - "
                      f"{_along(c, f'({c.tangent(0)} * np.exp({c.out}))', c.shape)}"),
    # -- losses (ops/losses.py)
    "MseLossBackward0": Rule(_mse_forward, "{out}_dd", "-{out}_dd",
                             before=lambda c: f"{c.out}_dd = {_spread(c)} * 2 * "
                                              f"({c.args[0]} - {c.args[1]})",
                             jvp=lambda c: _reduced_tangent(
                                 c, f"({c.args[0]} - {c.args[1]}) * ({c.tangent(0)} - "
                                    f"{c.tangent(1)}) * 2")),
    "NllLossBackward0": Rule(_nll_forward, _nll_backward, jvp=LINEAR),
    "BinaryCrossEntropyWithLogitsBackward0": Rule(_bce_logits_forward, _bce_logits_input,
                                                  _bce_logits_target,
                                                  before=_bce_logits_before),
    **ACTIVATIONS,
}
