"""Integer and bool tensors get PyTorch's result dtypes, values and errors.

PyTorch's rule (`torch.result_type`): categories bool < integer < float; a Python number or a
0-d tensor does not raise a tensor's dtype within its category, and a Python float next to an
int/bool tensor gives the default dtype, float32; "floating" ops (true division, exp, log,
tanh, ...) compute int/bool inputs in float32. Each expression runs in both libraries on
tensors of each dtype and must give the same dtype and values, or the same error.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad

DTYPES = ["int64", "int32", "uint8", "bool", "float32", "float64", "float16"]

# `a` is a tensor of the dtype under test, `M` the library (minigrad or torch)
UNARY = [
    "a ** 2.0", "a ** 2", "a ** 0.5", "2.0 ** a", "2 ** a", "a ** True", "a.square()",
    "1.5 - a", "a - 1.5", "3 - a", "a - 3", "a - True", "True - a",
    "a + 1.5", "a + 2", "a + True", "1.5 + a", "a * 2.5", "a * 2", "2.5 * a", "a * True",
    "a / 2", "a / 2.0", "2 / a", "2.0 / a", "a / a",
    "a // 2", "a // 2.0", "a % 2", "a % 2.0", "7 // a", "7 % a", "7.5 % a", "7.5 // a",
    "a // a", "a % a", "a // -2", "a % -2", "-7 % a",
    "-a", "a.neg()", "a.exp()", "a.log()", "a.sqrt()", "a.tanh()", "a.sigmoid()", "a.sin()",
    "a.cos()", "a.reciprocal()", "a.sum()", "a.max()",
    "a.clamp(0.5)", "a.clamp(1)", "a.clamp(1, 2)", "a.clamp(max=1.5)", "a.clamp(True)",
    "M.where(a > 1, a, 1.5)", "M.where(a > 1, a, 1)", "M.where(a > 1, 1.5, a)",
    "M.maximum(a, a)", "a < 1.5", "a == 2", "a > True", "a - a", "a * a", "a + a",
    "M.sub(a, 2, alpha=2)", "M.add(a, 1.5, alpha=2)",
]
# `a` and `b` are tensors of the two dtypes under test
BINARY = [
    "a + b", "a - b", "b - a", "a * b", "a / b", "a ** b", "M.maximum(a, b)",
    "M.minimum(a, b)", "M.where(a > 0, a, b)", "a // b", "a % b", "a < b",
    "M.add(a, b, alpha=2)", "M.sub(a, b, alpha=2)",
]
# `b` is a 0-d tensor of the second dtype: it does not raise `a`'s dtype within a category
ZERO_DIM = ["a + b", "a * b", "a - b", "a / b", "b - a", "a ** b", "M.maximum(a, b)"]

# Differences left as they are (see the notes): the test says when they start to agree.
KNOWN = {
    ("bool", "a.abs()"): "PyTorch has no abs for bool; minigrad gives the bools",
    ("bool", "a.clamp(True)"): "PyTorch has no clamp for bool; minigrad clamps",
    ("uint8", "a // -2"): "a negative Python int with uint8: PyTorch wraps, numpy refuses",
    ("uint8", "a % -2"): "a negative Python int with uint8: PyTorch wraps, numpy refuses",
    ("uint8", "-7 % a"): "a negative Python int with uint8: PyTorch wraps, numpy refuses",
    ("bool", "bool", "M.add(a, b, alpha=2)"): "alpha with bools: PyTorch gives bool",
}


def values(lib, dtype: str, zero_dim: bool = False):
    if zero_dim:
        return lib.tensor(True if dtype == "bool" else 2, dtype=getattr(lib, dtype))
    data = [True, False, True] if dtype == "bool" else [1, 2, 3]
    return lib.tensor(data, dtype=getattr(lib, dtype))


def run(lib, expr: str, a, b=None):
    """('ok', dtype name, float64 values) or ('error', exception type name, message)."""
    try:
        out = eval(expr, {"M": lib, "a": a, "b": b})
    except Exception as exc:  # noqa: BLE001 - comparing what each library raises
        return "error", type(exc).__name__, str(exc)
    array = out.detach().numpy() if hasattr(out, "detach") and lib.__name__ == "torch" \
        else out.array
    return "ok", str(out.dtype).split(".")[-1], np.asarray(array, dtype=np.float64)


def assert_same(torch, expr: str, da: str, db: str | None = None, zero_dim: bool = False):
    a, ta = values(minigrad, da), values(torch, da)
    b = tb = None
    if db is not None:
        b, tb = values(minigrad, db, zero_dim), values(torch, db, zero_dim)
    before = [t.array.copy() for t in (a, b) if t is not None]
    theirs, ours = run(torch, expr, ta, tb), run(minigrad, expr, a, b)
    where = f"{expr} with a: {da}" + (f", b: {db}" if db else "")
    assert ours[:2] == theirs[:2], f"{where}: minigrad {ours[:2]}, PyTorch {theirs[:2]}"
    if ours[0] == "error":
        assert ours[2] == theirs[2], where
        for t, data in zip((a, b), before):
            np.testing.assert_array_equal(t.array, data, err_msg=f"{where} changed an input")
    else:
        tol = 1e-3 if "float16" in (da, db) else 1e-6
        np.testing.assert_allclose(ours[2], theirs[2], rtol=tol, equal_nan=True, err_msg=where)


@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("expr", UNARY)
def test_with_numbers_and_itself(expr, da, torch_mod):
    if (da, expr) in KNOWN:
        pytest.xfail(KNOWN[da, expr])
    assert_same(torch_mod, expr, da)


@pytest.mark.parametrize("db", DTYPES)
@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("expr", BINARY)
def test_two_tensors(expr, da, db, torch_mod):
    if (da, db, expr) in KNOWN:
        pytest.xfail(KNOWN[da, db, expr])
    assert_same(torch_mod, expr, da, db)


@pytest.mark.parametrize("db", DTYPES)
@pytest.mark.parametrize("da", DTYPES)
@pytest.mark.parametrize("expr", ZERO_DIM)
def test_with_a_zero_dim_tensor(expr, da, db, torch_mod):
    assert_same(torch_mod, expr, da, db, zero_dim=True)


IN_PLACE = ["a.sub_(True)", "a.sub_(b)", "b.sub_(a)", "i.add_(1.5)", "i.mul_(b)", "a.add_(i)",
            "i.div_(2)", "i.sub_(a)", "a.mul_(True)", "i.add_(2)", "b.add_(i)", "b.mul_(a)"]


@pytest.mark.parametrize("grad_mode", [False, True])
@pytest.mark.parametrize("expr", IN_PLACE)
def test_in_place_ops_give_pytorchs_errors_and_change_nothing_then(expr, grad_mode, torch_mod):
    if expr in KNOWN:
        pytest.xfail(KNOWN[expr])
    results = []
    for lib in (torch_mod, minigrad):
        env = {"a": lib.tensor([True, False, True]), "b": lib.tensor([1.0, 2.0, 3.0]),
               "i": lib.tensor([1, 2, 3])}
        before = {k: np.array(v.numpy() if lib is torch_mod else v.array) for k, v in env.items()}
        with lib.set_grad_enabled(grad_mode):
            result = _run_env(expr, env)
        results.append(result)
        if result[0] == "error":
            for k, v in env.items():
                now = v.numpy() if lib is torch_mod else v.array
                np.testing.assert_array_equal(now, before[k], err_msg=f"{expr} changed {k}")
    theirs, ours = results
    assert ours[:2] == theirs[:2] and (ours[0] == "ok" or ours[2] == theirs[2]), (ours, theirs)


def _run_env(expr: str, env: dict):
    try:
        out = eval(expr, dict(env))
    except Exception as exc:  # noqa: BLE001 - comparing what each library raises
        return "error", type(exc).__name__, str(exc)
    return "ok", str(out.dtype).split(".")[-1], None


FLOAT_EXPRS = [
    "a + 1.5", "1.5 + a", "a - 1.5", "1.5 - a", "a * 2.5", "a / 2", "2 / a", "a ** 2.0",
    "a ** 2", "2.0 ** a", "2 ** a", "a // 2", "a % 2", "a + a", "a / a", "a ** a", "-a",
    "a.exp()", "a.log()", "a.sqrt()", "a.tanh()", "a.sigmoid()", "a.sin()", "a.cos()",
    "a.reciprocal()", "a.abs()", "a.relu()", "a.clamp(0.5)", "M.where(a > 1, a, 1.5)",
    "M.maximum(a, a)", "a + 1", "a * True",
]


@pytest.mark.parametrize("grad", [False, True])
@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
@pytest.mark.parametrize("expr", FLOAT_EXPRS)
def test_float_tensors_keep_their_dtype(expr, dtype, grad):
    """No torch needed: a float tensor's dtype is the result's, with or without a graph."""
    a = minigrad.tensor([1.0, 2.0, 3.0], dtype=getattr(minigrad, dtype), requires_grad=grad)
    out = eval(expr, {"M": minigrad, "a": a})
    assert out.dtype == getattr(minigrad, dtype), expr
    if grad and dtype != "float16" and "//" not in expr:  # (// has no derivative)
        out.sum().backward()
        assert a.grad.dtype == a.dtype, expr


# `//` is a step: PyTorch records a `NotImplemented` node whose backward raises; so is
# `number % tensor`. A number is a setting of the node, not an input: no edge for it.
STEPS = ["x // 2", "x // y", "7 // x", "x // 2.5", "7.5 // x", "x % 1.5", "x % y", "7.5 % x",
         "2 % x"]


@pytest.mark.parametrize("expr", STEPS)
def test_steps_record_pytorchs_nodes_edges_and_backward_errors(expr, torch_mod):
    graphs, errors = [], []
    for lib in (torch_mod, minigrad):
        x = lib.tensor([3.0, -5.0, 7.5], requires_grad=True)
        y = lib.tensor([2.0, 3.0, -2.5], requires_grad=True)
        out = eval(expr, {"x": x, "y": y})
        fn = out.grad_fn
        graphs.append((type(fn).__name__, [None if n is None else type(n).__name__
                                           for n, _ in fn.next_functions],
                       out.detach().numpy().tolist() if lib is torch_mod else out.array.tolist()))
        try:
            out.sum().backward()
            errors.append(None)
        except RuntimeError as exc:
            errors.append(str(exc))
    assert graphs[1] == graphs[0]
    assert errors[1] == errors[0]


# Two float tensors of different dtypes: PyTorch computes in the wider one inside the op and
# records no cast node (numpy promotes two float arrays the same way).
MIXED_FLOATS = ["M.maximum(a, b)", "M.minimum(a, b)", "M.where(a > 2, a, b)", "a ** b",
                "a % b", "a + b", "a * b"]


@pytest.mark.parametrize("expr", MIXED_FLOATS)
def test_two_float_dtypes_record_pytorchs_graph(expr, torch_mod):
    seen = []
    for lib in (torch_mod, minigrad):
        a = lib.tensor(np.array([1.0, 5.0], dtype=np.float32), requires_grad=True)
        b = lib.tensor(np.array([3.0, 2.0], dtype=np.float64), requires_grad=True)
        out = eval(expr, {"M": lib, "a": a, "b": b})
        out.sum().backward()
        seen.append((str(out.dtype).split(".")[-1], type(out.grad_fn).__name__,
                     [type(n).__name__ for n, _ in out.grad_fn.next_functions],
                     str(a.grad.dtype).split(".")[-1], str(b.grad.dtype).split(".")[-1]))
    assert seen[1] == seen[0]
