"""`Trace.to_python()`: the backward as a numpy program that gives every `.grad` bit for bit.

Table-driven: every op of the op table that expressions use (`in_expressions`), on drawn
shapes and values in float64 and float32, with a drawn seed gradient; random expressions over
them; then the program's own shape (names, comments, broadcasting, paths meeting, seeds, leaves
that had a .grad, several passes), and what it says when it cannot compute something. The
lesson traces are checked in test_program_lessons.py.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from program_checks import differences, run_program

import minigrad
from minigrad.teach.numpy_rules_all import RULES
from minigrad.teach.program import COPIED
from minigrad.testing import strategies as mst
from minigrad.testing.op_spec import OpSpec
from minigrad.testing.op_table import OPS

# the op table's expressions, and the other ops that have numpy rules by now
MORE = ("erfc", "log1p", "expm1", "log2", "log10", "exp2", "rsqrt", "asin", "acos", "sinh",
        "cosh", "acosh", "atanh")
EXPRESSION_OPS = [spec for spec in OPS if spec.in_expressions or spec.name in MORE]
CASES = settings(max_examples=12, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def traced(case: mst.OpCase, dtype: type, seed: int) -> minigrad.Trace:
    """The op of `case` on leaves of `dtype`, traced with a seed gradient drawn from `seed`."""
    leaves = [minigrad.tensor(t.array.astype(dtype), requires_grad=True, name=name)
              for t, name in zip(case.tensors, mst.NAMES)]

    def run() -> minigrad.Tensor:
        out = case(*leaves)
        return out[0] if isinstance(out, tuple) else out

    probe = run()
    rng = np.random.default_rng(seed)
    gradient = minigrad.tensor(rng.standard_normal(probe.shape).astype(probe.array.dtype))
    return minigrad.trace(run, gradient=gradient)


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("spec", EXPRESSION_OPS, ids=[s.name for s in EXPRESSION_OPS])
def test_every_expression_op_gives_the_gradients_bit_for_bit(spec: OpSpec) -> None:
    @CASES
    @given(case=mst.op_cases(spec), dtype=st.sampled_from([np.float64, np.float32]),
           seed=st.integers(0, 2 ** 16))
    def check(case: mst.OpCase, dtype: type, seed: int) -> None:
        t = traced(case, dtype, seed)
        assert not differences(t), (case, t.to_python(), differences(t))

    check()


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data())
def test_random_expressions_give_the_gradients_bit_for_bit(data: st.DataObject) -> None:
    expr = data.draw(mst.expressions(max_depth=3))
    xs = data.draw(mst.expression_inputs(expr))
    t = minigrad.trace(lambda: expr(*xs).sum())  # (one number: backward needs no seed)
    assert not differences(t), (expr.source, t.to_python(), differences(t))


def classic() -> minigrad.Trace:
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True, name="x")
    y = minigrad.tensor([4.0, 5.0, 6.0], requires_grad=True, name="y")
    loss = (x * y).sum() * 3
    return minigrad.trace(loss)


def test_the_readme_example_reads_as_the_engine_runs_it() -> None:
    t = classic()
    text = t.to_python()
    assert not differences(t, text)
    lines = [line.split("#")[0].rstrip() for line in text.splitlines()]
    for expected in ["x = np.array([1.0, 2.0, 3.0], dtype=np.float32)",
                     "t1 = x * y", "t2 = np.asarray(t1.sum())", "loss = np.asarray(t2 * 3)",
                     "g_loss = np.ones((), dtype=np.float32)", "g_t2 = np.asarray(g_loss * 3)",
                     "g_t1 = np.broadcast_to(g_t2, (3,))", "g_x = g_t1 * y", "g_y = g_t1 * x",
                     "x_grad = g_x", "y_grad = g_y"]:
        assert expected in lines, (expected, text)
    assert "# step 3: MulBackward0   t1 = x * y   (backward reads the saved x, y)" in text
    assert run_program(text)["grads"].keys() == {"x", "y"}


class Cube(minigrad.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 3

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x ** 2


def test_an_op_without_numpy_text_is_said_so_and_its_values_are_the_traces() -> None:
    x = minigrad.tensor([1.0, 2.0, -1.5], requires_grad=True, name="x")
    t = minigrad.trace(lambda: Cube.apply(x).sum())
    text = t.to_python()
    assert "CubeBackward" not in RULES
    assert ("# Not computed here (lines marked COPIED hold the trace's values):\n"
            "#   CubeBackward: minigrad has no numpy text for it") in text
    copied = [line for line in text.splitlines() if line.rstrip().endswith(COPIED)
              or f"# {COPIED}: CubeBackward" in line]
    assert [line.split("=")[0].strip() for line in copied] == ["t1", "g_x"], text
    assert differences(t, text) == [f"copied from the trace: {line.strip()}" for line in copied]


def test_a_hook_that_changed_a_gradient_is_copied_and_named() -> None:
    x = minigrad.tensor([1.0, 2.0], requires_grad=True, name="x")

    def double(g):
        return g * 2

    def run():
        y = x * x
        y.register_hook(double)
        return y.sum()

    t = minigrad.trace(run)
    text = t.to_python()
    assert "#   hook double: your Python hook changed a gradient" in text
    assert "# COPIED: what hook double returned" in text
    assert run_program(text)["grads"]["x"].tolist() == t.leaf("x").grad.tolist() == [4.0, 8.0]


def test_a_cast_keeps_each_dtype_as_minigrad_did() -> None:
    x = minigrad.tensor([0.1, 0.2, 0.3], requires_grad=True, name="x")
    t = minigrad.trace(lambda: (x.to(minigrad.float64) * 0.1).sum())
    text = t.to_python()
    assert "t1 = x.astype(np.float64)" in text and "g_x = g_t1.astype(np.float32)" in text
    assert not differences(t, text)


# -- checkpointing: the block run again, and (reentrant) the backward through it ---------------
def checkpointed(reentrant: bool) -> tuple[minigrad.Trace, str]:
    """A small MLP whose middle (tanh, Linear, tanh) is checkpointed; its trace and program."""
    from minigrad import nn
    from minigrad.utils.checkpoint import checkpoint

    minigrad.manual_seed(0)
    mlp = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 4), nn.Tanh(), nn.Linear(4, 2))
    x = minigrad.randn(5, 3, name="x")
    t = minigrad.trace(lambda: mlp[4](checkpoint(mlp[1:4], mlp[0](x),
                                                 use_reentrant=reentrant)).sum(), params=mlp)
    return t, t.to_python()


def step_lines(text: str, head: str) -> list[str]:
    """The lines of the program from the one starting with `head` to the next outer step."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(head))
    end = next((i for i in range(start + 1, len(lines)) if re.match(r"# step \d+:", lines[i])
                or lines[i].startswith("# --")), len(lines))
    return lines[start:end]


def test_a_reentrant_checkpoints_step_runs_the_block_and_its_backward_again() -> None:
    t, text = checkpointed(reentrant=True)
    assert not differences(t, text), (text, differences(t, text))
    assert {"2.weight", "2.bias"} <= set(run_program(text)["grads"])
    step = next(s for s in t.steps if t.node(s.node).name == "CheckpointFunctionBackward")
    lines = [line.split("#")[0].rstrip() or line for line in
             step_lines(text, f"# step {step.index}: CheckpointFunctionBackward")]
    again = [t.node(i).label for i in step.recomputed]  # t7 = tanh(t6') ... t10
    copy = t.node(t.node(step.recomputed[0]).inputs[0]).label
    assert f"{copy} = t2" in lines, text  # the block's input, as the checkpoint saved it
    assert f"{again[0]} = np.tanh({copy})" in lines, text
    inner = [line for line in lines if line.startswith(f"# step {step.index}.")]
    assert [line.split()[3] for line in inner] == [
        "TanhBackward0", "AddmmBackward0", "AccumulateGrad", "TBackward0", "AccumulateGrad",
        "TanhBackward0", "AccumulateGrad"], text
    assert f"g_{again[-1]} = g_t3" in lines, text  # the inner pass's seed: what the step got
    assert f"g_t2 = {copy}_grad" in lines, text  # what it returns: the input copy's .grad
    # the forward runs the block too (under no_grad): the same numpy on t2 itself
    forward = text.split("# -- backward")[0].splitlines()
    assert f"{again[0]} = np.tanh(t2)" in [line.split("#")[0].rstrip() for line in forward]
    assert COPIED not in text


def test_a_non_reentrant_checkpoint_reads_what_the_block_run_again_saved() -> None:
    t, text = checkpointed(reentrant=False)
    assert not differences(t, text), (text, differences(t, text))
    step = next(s for s in t.steps if s.recomputed)
    again = [t.node(i).label for i in step.recomputed]  # t10 = tanh(t9') ... t13
    head = f"# step {step.index}: TanhBackward0"
    lines = [line.split("#")[0].rstrip() for line in step_lines(text, head)]
    assert f"{again[0]} = np.tanh(t9)" in lines and "t9 = t2" in lines, text
    # the step reads the tanh output the block's run again gave, not the forward's
    assert f"g_t5 = g_t6 * (1 - {again[-1]} * {again[-1]})" in lines, text
    forward = text.split("# -- backward")[0]
    assert f"{again[0]} =" not in forward  # (the run again is in backward only)
    assert COPIED not in text
