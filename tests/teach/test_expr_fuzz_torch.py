"""Issue 35: random expressions within the grammar of the safe expression language, evaluated by
minigrad's evaluator and by Python on PyTorch: the same result (dtype, shape, values) or the
same refusal (the error's class; minigrad wraps TypeError and ValueError in an ExpressionError
that names the piece, whose cause is compared).

The expressions use every function the language allows, its Tensor methods, operators,
comparisons, subscripts and keywords, over float32, float64 and int64 inputs of a few shapes
(shapes that do not fit, dims out of range and dtypes that do not mix are meant: their
refusals are compared too), and stay within the resource limits (small tensors). Derandomized:
every run checks the same EXPRESSIONS expressions; MINIGRAD_EXPR_RANDOM=1 explores.
"""

from __future__ import annotations

import os
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import minigrad
from minigrad.teach.expr import FUNCTIONS, ExpressionError, evaluate

EXPRESSIONS = int(os.environ.get("MINIGRAD_EXPR_EXAMPLES", "1000"))
COUNT = {"run": 0}

INPUTS = {  # name -> (values, dtype)
    "x": (np.array([[0.5, -1.25, 2.0], [1.5, 0.25, -0.75]]), "float32"),
    "y": (np.array([0.75, -0.5, 1.25]), "float32"),
    "m": (np.array([[1.0, 0.5, -2.0], [0.25, 3.0, 1.0], [-1.0, 0.5, 0.75]]), "float64"),
    "n": (np.array([[3, -2, 1], [0, 5, -4]]), "int64"),
    "s": (np.array(1.5), "float32"),
}

UNARY_FUNCTIONS = ["abs", "cos", "exp", "log", "neg", "reciprocal", "relu", "sigmoid", "sin",
                   "sqrt", "square", "tanh", "t", "flatten"]
UNARY_METHODS = UNARY_FUNCTIONS + ["sum", "mean", "amax", "amin", "clone", "contiguous",
                                   "float", "double", "negative", "squeeze", "max", "min"]
DIM_FUNCTIONS = ["sum", "mean", "amax", "amin", "softmax", "log_softmax", "squeeze",
                 "unsqueeze", "flatten"]
BINARY_FUNCTIONS = ["add", "sub", "mul", "div", "maximum", "minimum", "pow", "matmul", "mm",
                    "mv", "dot", "bmm"]
OPERATORS = ["+", "-", "*", "/", "//", "%", "**", "@"]
COMPARISONS = ["<", ">", "<=", ">=", "==", "!="]
NUMBERS = ["0", "1", "2", "3", "-1", "0.5", "2.5", "-1.5", "2**1", "2**-1"]
DIMS = ["0", "1", "-1", "-2", "2"]
SHAPES = ["-1", "2, 3", "3, 2", "(1, -1)", "-1, 1", "6", "2, -1", "(3, 3)"]
INDICES = ["0", "-1", "1:", "::2", "None", "...", "0, 1", ":, 0", "[0, 1]", "1, ...", "5"]


@st.composite
def _call(draw, children):
    kind = draw(st.integers(0, 11))
    a, b = draw(children), draw(children)
    if kind >= 6 and a in NUMBERS:  # (a literal number is no receiver: the grammar refuses
        a = f"({a} * x)"  # `(2).exp()` before anything runs)
    space = draw(st.sampled_from(["", "", "torch.", "minigrad."]))
    if kind == 0:
        return f"{space}{draw(st.sampled_from(UNARY_FUNCTIONS))}({a})"
    if kind == 1:
        keep = draw(st.sampled_from(["", ", keepdim=True"]))
        name = draw(st.sampled_from(DIM_FUNCTIONS))
        keep = keep if name in ("sum", "mean", "amax", "amin") else ""
        return f"{space}{name}({a}, dim={draw(st.sampled_from(DIMS))}{keep})"
    if kind == 2:
        return f"{space}{draw(st.sampled_from(BINARY_FUNCTIONS))}({a}, {b})"
    if kind == 3:
        return f"{space}where({a} > {b}, {a}, {b})"
    if kind == 4:
        low, high = draw(st.sampled_from(["-0.5", "0", "1"])), draw(st.sampled_from(["1", "2"]))
        return f"{space}clamp({a}, min={low}, max={high})"
    if kind == 5:
        which = draw(st.sampled_from(["cat", "stack"]))
        return f"{space}{which}([{a}, {b}], dim={draw(st.sampled_from(DIMS))})"
    if kind == 6:
        return f"({a}).{draw(st.sampled_from(UNARY_METHODS))}()"
    if kind == 7:
        how = draw(st.sampled_from(["reshape", "view"]))
        return f"({a}).{how}({draw(st.sampled_from(SHAPES))})"
    if kind == 8:
        d0, d1 = draw(st.sampled_from(DIMS)), draw(st.sampled_from(DIMS))
        return draw(st.sampled_from([f"{space}transpose({a}, {d0}, {d1})", f"({a}).T",
                                     f"({a}).permute({d0}, {d1})",
                                     f"({a}).max(dim={d0}).values",
                                     f"({a}).min(dim={d0}).indices",
                                     f"({a}).sum(dim=({d0}, {d1}))"]))
    if kind == 9:
        return f"({a})[{draw(st.sampled_from(INDICES))}]"
    if kind == 10:
        sizes = draw(st.sampled_from(["2, 3", "3, 3", "-1, 3", "2, 2, 3", "3"]))
        return draw(st.sampled_from([f"({a}).expand({sizes})", f"({a}).expand_as({b})",
                                     f"({a}).view_as({b})", f"({a}).sum_to_size({sizes})"]))
    return draw(st.sampled_from([f"({a}).narrow({draw(st.sampled_from(DIMS))}, 0, 1)",
                                 f"({a}).select(0, {draw(st.sampled_from(DIMS))})",
                                 f"({a}).{draw(st.sampled_from(['multiply', 'subtract']))}({b})",
                                 f"({a}).true_divide({b})"]))


def _extend(children):
    return st.one_of(
        st.tuples(children, st.sampled_from(OPERATORS), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"),
        st.tuples(children, st.sampled_from(COMPARISONS), children).map(
            lambda t: f"({t[0]} {t[1]} {t[2]})"),
        children.map(lambda a: f"-({a})"),
        _call(children),
    )


LEAVES = st.sampled_from([*INPUTS, *INPUTS, *NUMBERS])
SOURCES = st.recursive(LEAVES, _extend, max_leaves=6)


def _tensors(lib):
    return {name: lib.tensor(values.tolist(), dtype=getattr(lib, dtype))
            for name, (values, dtype) in INPUTS.items()}


def _torch_namespace(torch):
    names = {name: getattr(torch, name) for name in FUNCTIONS if hasattr(torch, name)}
    return {**names, "torch": torch, "minigrad": torch}  # (Python's builtins: torch uses them)


def outcome_of(run):
    """("ok", dtype, shape, values) or ("error", class name)."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            value = run()
        except ExpressionError as exc:
            cause = exc.__cause__
            return "error", type(cause).__name__ if cause is not None else "TypeError"
        except Exception as exc:  # noqa: BLE001 - compared with the other library's
            return "error", type(exc).__name__
    return ("ok", str(value.dtype).rsplit(".", 1)[-1], tuple(value.shape),
            np.asarray(value.detach().numpy(), dtype=np.float64))


def agree(ours, theirs) -> bool:
    if ours[0] != theirs[0] or ours[:3] != theirs[:3]:
        return False
    if ours[0] == "error":
        return True
    # (a float64 result may come from float32 values: their precision)
    rtol = 1e-2 if ours[1] == "float16" else 1e-4 if ours[1] == "float32" else 1e-6
    return bool(np.allclose(ours[3], theirs[3], rtol=rtol, atol=rtol, equal_nan=True))


def _torch_value(torch, source):
    value = eval(source, _torch_namespace(torch), _tensors(torch))  # noqa: S307 - the reference
    return value if isinstance(value, torch.Tensor) else torch.tensor(value)


@settings(max_examples=EXPRESSIONS, derandomize=not os.environ.get("MINIGRAD_EXPR_RANDOM"),
          deadline=None, database=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(source=SOURCES)
def _same_as_python_on_torch(torch, source):
    COUNT["run"] += 1
    ours = outcome_of(lambda: evaluate(source, _tensors(minigrad)))
    theirs = outcome_of(lambda: _torch_value(torch, source))
    assert agree(ours, theirs), f"{source}\n  minigrad: {ours}\n  PyTorch:  {theirs}"


def test_random_expressions_agree_with_python_on_torch(torch_mod):
    COUNT["run"] = 0
    _same_as_python_on_torch(torch_mod)
    assert COUNT["run"] >= EXPRESSIONS


@pytest.mark.parametrize("source", ["x.sum()", "(x @ y).exp()", "where(n > 0, x, y)",
                                    "stack([x, x], dim=-1)"])
def test_the_fuzzer_compares_results(source, torch_mod):
    """The comparison itself: a few fixed expressions give the same values in both."""
    ours = outcome_of(lambda: evaluate(source, _tensors(minigrad)))
    theirs = outcome_of(lambda: _torch_value(torch_mod, source))
    assert ours[0] == "ok" and agree(ours, theirs)
