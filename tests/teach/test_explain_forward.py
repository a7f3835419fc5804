"""`trace(...).explain()` of forward-mode work and of function transforms, en and zh: the
tangent flowing forward op by op with the numbers, the rule without the terms of inputs that
carry no tangent, and how many passes a transform ran and why."""

from __future__ import annotations

import re

import minigrad
import minigrad.autograd.forward_ad as fwAD
from minigrad.autograd.functional import hessian, jacobian
from minigrad.func import grad, jacfwd, jacrev, vmap
from minigrad.teach.explain_forward import _drop_terms


def dual_trace() -> minigrad.Trace:
    x = minigrad.tensor([1.0, 2.0, 3.0])
    y = minigrad.tensor([4.0, 5.0, 6.0])
    with minigrad.trace() as t, fwAD.dual_level():
        dx = fwAD.make_dual(x, minigrad.tensor([1.0, 0.0, 0.0]))
        out = (dx * y).sum() * 3
        assert fwAD.unpack_dual(out).tangent.item() == 12.0
    return t


EN = """\
Forward mode: 3 operations on dual numbers, each value x carrying its tangent x'
  Tangents in: dx = tensor([1., 2., 3.]), dx' = tensor([1., 0., 0.])
  step 1  MulBackward0   t1 = dx * y
          value    tensor([ 4., 10., 18.])
          rule     t1' = dx' * y   (y carries no tangent: y' = 0)
          tangent  [1., 0., 0.] * y = tensor([4., 0., 0.])
  step 2  SumBackward0   t2 = t1.sum()
          value    tensor(32.)
          rule     t2' = t1'.sum()
          tangent  [4., 0., 0.].sum() = tensor(4.)
  step 3  MulBackward0   out = t2 * 3
          value    tensor(96.)
          rule     out' = t2' * 3
          tangent  4. * 3 = tensor(12.)
  Tangent out: out' = tensor(12.)  (out's derivative along the tangents in, from one pass)

Summary: 3 operations in 1 forward-mode pass"""

ZH = """\
前向模式：在对偶数上做 3 个运算，每个值 x 都带着它的切向量 x'
  输入的切向量：dx = tensor([1., 2., 3.])，dx' = tensor([1., 0., 0.])
  第 1 步  MulBackward0   t1 = dx * y
           值      tensor([ 4., 10., 18.])
           法则    t1' = dx' * y   （y 不带切向量：y' = 0）
           切向量  [1., 0., 0.] * y = tensor([4., 0., 0.])
  第 2 步  SumBackward0   t2 = t1.sum()
           值      tensor(32.)
           法则    t2' = t1'.sum()
           切向量  [4., 0., 0.].sum() = tensor(4.)
  第 3 步  MulBackward0   out = t2 * 3
           值      tensor(96.)
           法则    out' = t2' * 3
           切向量  4. * 3 = tensor(12.)
  输出的切向量：out' = tensor(12.)（一次前向传播得到 out 沿输入切向量方向的导数）

小结：1 次前向模式传播，共 3 个运算"""


def test_the_tangent_flows_forward_op_by_op_in_english() -> None:
    assert dual_trace().explanation() == EN


def test_the_tangent_flows_forward_op_by_op_in_chinese() -> None:
    assert dual_trace().explanation(lang="zh") == ZH


def test_a_rule_keeps_the_terms_of_inputs_that_carry_a_tangent() -> None:
    assert _drop_terms("{t0} * {1} + {0} * {t1}", {1}) == "{t0} * {1}"
    assert _drop_terms("{t0} * {1} + {0} * {t1}", {0}) == "{0} * {t1}"
    assert _drop_terms("{t0} - {t1}", {0}) == "- {t1}"
    assert _drop_terms("({t0} - {out} * {t1}) / {1}", {1}) == "({t0} - {out} * 0) / {1}"
    assert _drop_terms("{t0} + {t1}", {0, 1}) == "0"


def test_forward_over_reverse_shows_both_passes() -> None:
    x = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with minigrad.trace() as t, fwAD.dual_level():
        dx = fwAD.make_dual(x, minigrad.tensor([1.0, 0.0]))
        (g,) = minigrad.autograd.grad((dx ** 3).sum(), dx, create_graph=True)
        assert fwAD.unpack_dual(g).tangent.tolist() == [6.0, 0.0]  # H v: the Hessian's column
    text = t.explanation(timing=False)
    assert text.startswith("Forward pass: ")
    assert "Forward mode: 5 operations" in text and "Backward pass from out" in text
    assert "rule     t1' = dx' * 3 * dx**2" in text
    # (the gradient's tangent is made during the backward pass: H v, a column of the Hessian)
    assert re.search(r"Tangent out: t\d+' = tensor\(\[6\., 0\.\]\)", text), text


def transforms_of(fn) -> str:
    with minigrad.trace() as t:
        fn()
    return t.explanation().split("Function transforms: ")[1]


def test_a_reverse_mode_jacobian_counts_one_backward_pass_per_output_element() -> None:
    x = minigrad.tensor([1.0, 2.0, 3.0])
    text = transforms_of(lambda: jacobian(lambda x: x.sin()[:2] * 2, x))
    assert text.splitlines()[1] == ("  autograd.functional.jacobian (reverse-mode): 2 backward "
                                    "passes: one backward pass per output element (2)")


def test_a_forward_mode_jacobian_counts_one_pass_per_input_element() -> None:
    x = minigrad.tensor([1.0, 2.0, 3.0])
    text = transforms_of(lambda: jacobian(lambda x: x.sin().sum(), x, vectorize=True,
                                          strategy="forward-mode"))
    assert text.splitlines()[1] == (
        "  autograd.functional.jacobian (forward-mode): 3 forward-mode passes: one "
        "forward-mode pass per input element (3)")
    assert text.splitlines()[2].endswith("one column of the Jacobian (x 3)")


def test_jacrev_and_jacfwd_say_how_vmap_ran_their_passes() -> None:
    x = minigrad.tensor([1.0, 2.0, 3.0])
    rev = transforms_of(lambda: jacrev(lambda x: x.sin()[:2])(x)).splitlines()
    assert rev[1].startswith("  func.jacrev: 2 backward passes: ")
    assert rev[3] == ("    func.vmap: 2 backward passes: f ran 2 times, once per sample: vjp_fn "
                      "runs one backward pass per sample (minigrad has no batched backward pass)")
    fwd = transforms_of(lambda: jacfwd(lambda x: x.sin()[:2])(x)).splitlines()
    assert fwd[1].startswith("  func.jacfwd: 3 forward-mode passes: ")
    assert fwd[3] == "      func.jvp: 1 forward-mode pass: one forward-mode pass (x 3)"


def test_a_hessian_counts_its_passes_and_a_vmap_says_why_it_ran_per_sample() -> None:
    x = minigrad.tensor([1.0, 2.0, 3.0])
    text = transforms_of(lambda: hessian(lambda x: (x ** 3).sum(), x))
    assert text.splitlines()[1] == ("  autograd.functional.hessian: 4 backward passes: the "
                                    "Jacobian of the gradient")
    batch = minigrad.ones(4, 3)
    assert "f ran once on the whole batch of 4 (batching rules)" in transforms_of(
        lambda: vmap(lambda r: r.sin() * 2)(batch))
    model = minigrad.nn.Linear(3, 2)
    assert "f ran 4 times, once per sample: no batching rule for linear" in transforms_of(
        lambda: vmap(model)(batch))
    per_sample = transforms_of(lambda: vmap(grad(lambda r: (r ** 2).sum()))(batch))
    assert per_sample.splitlines()[2] == (
        "    func.grad: 1 backward pass: one backward pass from the scalar output (x 4)")


def test_transforms_are_narrated_in_chinese() -> None:
    x = minigrad.tensor([1.0, 2.0, 3.0])
    with minigrad.trace() as t:
        jacobian(lambda x: x.sin()[:2] * 2, x)
    assert "  autograd.functional.jacobian (reverse-mode)：2 次反向传播：每个输出元素一次反向传播" \
           "（共 2 个）" in t.explanation(lang="zh")
