"""`Trace.to_python()` of forward mode: each pass as numpy in forward order, the tangents bit
for bit.

Table-driven: every op of the op table that runs in forward mode, on drawn values in float64
and float32 with drawn tangents; the program's tangents must equal forward_ad's bit for bit,
each op whose rule has a numpy JVP text (`jvp=` in numpy_rules_*.py) computed, each other op's
tangent copied from the trace and said so in the program's first lines. The common ops (the
arithmetic, the elementwise functions, sums and means, products, views, softmaxes,
activations) must all have one. Then the program's shape: names, comments, inputs without a
tangent, several passes, forward and backward in one trace, an in-place change.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from program_checks import differences, run_program, tangent_differences

import minigrad
from minigrad.autograd import forward_ad
from minigrad.teach.numpy_rules_all import RULES
from minigrad.teach.program import COPIED
from minigrad.testing import strategies as mst
from minigrad.testing.op_spec import OpSpec
from minigrad.testing.op_table import NO_FORWARD_AD, OPS

FORWARD_OPS = [s for s in OPS if s.name not in NO_FORWARD_AD]
CASES = settings(max_examples=6, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
# the ops whose every step must be computed by the program, none copied
COMMON = {"add", "mul", "sub", "div", "add_scalar", "radd", "sub_scalar", "rsub", "mul_scalar",
          "rmul", "div_scalar", "rdiv", "neg", "pow_2", "pow_3", "pow_neg", "pow_frac",
          "pow_tensor", "rpow", "exp", "log", "sqrt", "abs", "tanh", "sigmoid", "relu", "sin",
          "cos", "tan", "reciprocal", "maximum", "minimum", "where", "clamp", "clamp_min",
          "sum", "sum_dim", "sum_keepdim", "sum_dims", "mean", "mean_dim", "mean_keepdim",
          "matmul_dot", "matmul_mm", "matmul_mv", "matmul_vm", "matmul_batched",
          "matmul_mat_batched", "matmul_vec_batched", "mm", "mv", "dot", "bmm", "t", "T",
          "transpose", "permute", "view", "reshape", "flatten", "unsqueeze", "squeeze",
          "squeeze_dim", "squeeze_dims", "expand", "index_int", "index_slice", "cat", "stack",
          "clone", "softmax", "log_softmax", "linear", "linear_nobias", "linear_nd", "gelu",
          "gelu_tanh", "leaky_relu", "elu", "silu", "softplus", "hardtanh", "mish", "erf",
          "log1p", "expm1", "atan", "sinh", "cosh", "mse_loss", "max", "min", "max_dim",
          "min_dim", "amax", "amin", "softmin", "norm", "norm_dim", "norm_p1", "norm_p3_dim",
          "norm_inf", "norm_fro_dims"}


def written(step) -> bool:
    """Has the step's op a numpy JVP text for its settings?"""
    rule = RULES.get(step.name)
    return rule is not None and rule.jvp is not None and (
        rule.covers is None or rule.covers(step.attrs))


def traced_jvp(case: mst.OpCase, dtype: type, seed: int) -> minigrad.Trace:
    """The op of `case` on dual inputs of `dtype` with tangents drawn from `seed`, traced."""
    rng = np.random.default_rng(seed)
    primals = [minigrad.tensor(t.array.astype(dtype)) for t in case.tensors]
    directions = [minigrad.tensor(rng.standard_normal(t.array.shape).astype(dtype))
                  for t in case.tensors]
    with minigrad.trace() as t, forward_ad.dual_level():
        case(*[forward_ad.make_dual(x, d) for x, d in zip(primals, directions)])
    return t


def announced(text: str) -> set[str]:
    """The op names the program's first lines say it copies."""
    return {m.group(1) for m in re.finditer(r"^#   (\w+)(?: \(.*?\))?: ", text, re.M)}


@pytest.mark.filterwarnings("ignore::RuntimeWarning", "ignore::UserWarning")
@pytest.mark.parametrize("spec", FORWARD_OPS, ids=[s.name for s in FORWARD_OPS])
def test_every_op_gives_its_tangents_bit_for_bit_or_says_it_copies(spec: OpSpec) -> None:
    @CASES
    @given(case=mst.op_cases(spec), dtype=st.sampled_from([np.float64, np.float32]),
           seed=st.integers(0, 2 ** 16))
    def check(case: mst.OpCase, dtype: type, seed: int) -> None:
        t = traced_jvp(case, dtype, seed)
        steps = [s for f in t.forwards for s in f.steps]
        assert steps, case
        text = t.to_python()
        problems = tangent_differences(t, run_program(text)["tangents"])
        assert not problems, (case, problems, text)
        missing = {s.name for s in steps if not written(s)}
        assert missing <= announced(text), (case, missing, text)
        copied = {s.name for s in steps if f"{COPIED}: the tangent of {s.name}" in text}
        assert copied <= missing, (case, copied - missing, text)
        if spec.name in COMMON:
            assert not missing, (case, f"{spec.name}: no JVP text for {missing}")

    check()


def lesson_example() -> minigrad.Trace:
    x = minigrad.tensor([2.0, 0.5, 1.5])
    direction = minigrad.tensor([1.0, 0.0, 0.0])
    with minigrad.trace() as t, forward_ad.dual_level():
        dual_x = forward_ad.make_dual(x, direction)
        y = dual_x * dual_x * dual_x.sin()
    del y
    return t


def test_the_lesson_example_reads_as_forward_mode_runs_it() -> None:
    t = lesson_example()
    text = t.to_python()
    assert not differences(t, text), text
    lines = [line.split("  #")[0].rstrip() for line in text.splitlines()]
    for expected in ["dual_x = np.array([2.0, 0.5, 1.5], dtype=np.float32)",
                     "dual_x_t = np.array([1.0, 0.0, 0.0], dtype=np.float32)",
                     "# step 1: MulBackward0   t1 = dual_x * dual_x",
                     "t1 = dual_x * dual_x", "t1_t = dual_x_t * dual_x + dual_x * dual_x_t",
                     "t2 = np.sin(dual_x)", "t2_t = dual_x_t * np.cos(dual_x)",
                     "y = t1 * t2", "y_t = t1_t * t2 + t1 * t2_t", "tangents = {'y': y_t}"]:
        assert expected in lines, (expected, text)
    assert "each value x has its tangent x_t\n# beside it (the narration's x')" in text
    assert "t1' = dual_x' * dual_x + dual_x * dual_x'" in text
    assert "forward: 0 operations" not in text and "grads =" not in text
    assert run_program(text)["tangents"]["y"].tolist() == pytest.approx([1.9726024, 0, 0])


def test_an_input_without_a_tangent_is_an_input_and_its_products_are_skipped() -> None:
    w = minigrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], name="w")
    b = minigrad.tensor([0.5, -0.5], name="b")
    x = minigrad.tensor([[1.0, -1.0, 2.0]])
    with minigrad.trace() as t, forward_ad.dual_level():
        dual_x = forward_ad.make_dual(x, minigrad.ones_like(x))
        minigrad.nn.functional.linear(dual_x, w.t(), b).tanh().sum()
    text = t.to_python()
    assert not differences(t, text), text
    assert "an input without a tangent (its tangent: zeros)" in text
    lines = [line.split("  #")[0].rstrip() for line in text.splitlines()]
    assert any(re.fullmatch(r"\w+_t = dual_x_t @ \w+", line) for line in lines), text


def f(x: minigrad.Tensor) -> minigrad.Tensor:
    return minigrad.stack([x[0] * x[1], x[1] * x[2].sin()])


def test_several_passes_each_give_their_tangents() -> None:
    x = minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64)
    with minigrad.trace() as t:
        columns = [minigrad.func.jvp(f, (x,), (minigrad.eye(3, dtype=minigrad.float64)[k],))[1]
                   for k in range(3)]
    text = t.to_python()
    assert len(t.forwards) == 3 and "# -- forward mode pass 3:" in text
    assert not differences(t, text), text
    got = list(run_program(text)["tangents"].values())
    assert [c.tolist() for c in got] == [c.tolist() for c in columns]


def test_jacfwd_gives_each_column() -> None:
    x = minigrad.tensor([1.0, 2.0, 3.0], dtype=minigrad.float64)
    with minigrad.trace() as t:
        jacobian = minigrad.func.jacfwd(f)(x)
    text = t.to_python()
    assert not differences(t, text), text
    columns = list(run_program(text)["tangents"].values())
    assert np.stack(columns, axis=-1).tolist() == jacobian.tolist()


def test_forward_and_backward_in_one_trace_give_both() -> None:
    x = minigrad.tensor([0.5, -1.0, 2.0], dtype=minigrad.float64, requires_grad=True, name="x")
    v = minigrad.tensor([1.0, 0.5, -0.5], dtype=minigrad.float64)

    with minigrad.trace() as t, forward_ad.dual_level():
        dual = forward_ad.make_dual(x, v)
        (dual.tanh() * dual).sum().backward()
    text = t.to_python()
    assert t.backwards and t.forwards
    assert text.startswith("# This trace's forward, backward and forward mode")
    assert not differences(t, text), text
    assert set(run_program(text)["grads"]) == {"x"}


def test_a_tensor_changed_in_place_is_copied_and_named() -> None:
    x = minigrad.tensor([1.0, 2.0, 3.0])
    with minigrad.trace() as t, forward_ad.dual_level():
        dual_x = forward_ad.make_dual(x, minigrad.ones_like(x))
        z = dual_x * 3
        z.mul_(dual_x)
        (z[1:] * 2).sum()
    text = t.to_python()
    assert "#   z: an in-place op changed it after the step that made it" in text
    assert f"# {COPIED}: z as changed in place" in text
    assert not [p for p in differences(t, text) if not p.startswith("copied from")], text


class Cube(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_forward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError

    @staticmethod
    def jvp(ctx, t):
        (x,) = ctx.saved_tensors
        return t * 3 * x ** 2


def test_an_op_without_numpy_text_is_said_so_and_its_tangent_is_the_traces() -> None:
    x = minigrad.tensor([1.0, 2.0, -1.5])
    with minigrad.trace() as t, forward_ad.dual_level():
        Cube.apply(forward_ad.make_dual(x, minigrad.ones_like(x))).sin()
    text = t.to_python()
    assert "#   CubeBackward: minigrad has no numpy text for it" in text
    copied = [line.split("=")[0].strip() for line in text.splitlines()
              if f"# {COPIED}:" in line]
    assert copied == ["t2", "t2_t"], text
    assert not tangent_differences(t, run_program(text)["tangents"])
