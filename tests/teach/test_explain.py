"""trace(...).explain(): the narration in English and Chinese, snapshot-tested."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from player_traces import classic  # (loss = sum(x * y) * 3, as in the demo)

import minigrad
from minigrad.surface.printing import tensor_repr
from minigrad.teach.explain import fast_repr, width
from minigrad.teach.trace import Trace, TraceBackward, TraceLeaf, TraceNode, TraceStep

CLASSIC_EN = """\
Forward pass: 3 operations
  (at player_traces.py:16: return minigrad.trace(lambda: (x * y).sum() * 3))
  t1   = x * y        MulBackward0    shape (3,)  tensor([ 4., 10., 18.])
  t2   = t1.sum()     SumBackward0    shape ()    tensor(32.)
  out  = t2 * 3       MulBackward0    shape ()    tensor(96.)

Backward pass from out (seed gradient 1, since out is a scalar): 5 steps
  step 1  MulBackward0   out = t2 * 3
          at player_traces.py:16: return minigrad.trace(lambda: (x * y).sum() * 3)
          incoming  d out/d out = tensor(1.)
          rule      d(a*c)/da = c   (c = 3 is a constant: no gradient for it)
          to t2     1. * 3 = tensor(3.)
  step 2  SumBackward0   t2 = t1.sum()
          at player_traces.py:16: return minigrad.trace(lambda: (x * y).sum() * 3)
          incoming  d out/d t2 = tensor(3.)
          rule      d(sum a)/da_i = 1   (the gradient is copied to every element)
          to t1     tensor([3., 3., 3.])
  step 3  MulBackward0   t1 = x * y
          at player_traces.py:16: return minigrad.trace(lambda: (x * y).sum() * 3)
          incoming  d out/d t1 = tensor([3., 3., 3.])
          rule      d(a*b)/da = b ;  d(a*b)/db = a
          to x      [3., 3., 3.] * y = tensor([12., 15., 18.])
          to y      [3., 3., 3.] * x = tensor([3., 6., 9.])
  step 4  AccumulateGrad x.grad = tensor([12., 15., 18.])   (was None)
  step 5  AccumulateGrad y.grad = tensor([3., 6., 9.])   (was None)

Leaves: x.grad = tensor([12., 15., 18.]), y.grad = tensor([3., 6., 9.])
Summary: 3 operations, 5 backward steps, 2 leaves"""

CLASSIC_ZH = """\
前向传播：共 3 个运算
  （源代码 player_traces.py:16: return minigrad.trace(lambda: (x * y).sum() * 3)）
  t1   = x * y        MulBackward0    形状 (3,)  tensor([ 4., 10., 18.])
  t2   = t1.sum()     SumBackward0    形状 ()    tensor(32.)
  out  = t2 * 3       MulBackward0    形状 ()    tensor(96.)

反向传播：从 out 出发（out 是标量，初始梯度为 1），共 5 步
  第 1 步  MulBackward0   out = t2 * 3
           源代码 player_traces.py:16: return minigrad.trace(lambda: (x * y).sum() * 3)
           传入梯度  d out/d out = tensor(1.)
           求导法则  d(a*c)/da = c   （c = 3 是常数，不需要梯度）
           传给 t2   1. * 3 = tensor(3.)
  第 2 步  SumBackward0   t2 = t1.sum()
           源代码 player_traces.py:16: return minigrad.trace(lambda: (x * y).sum() * 3)
           传入梯度  d out/d t2 = tensor(3.)
           求导法则  d(sum a)/da_i = 1   （梯度原样复制给每个元素）
           传给 t1   tensor([3., 3., 3.])
  第 3 步  MulBackward0   t1 = x * y
           源代码 player_traces.py:16: return minigrad.trace(lambda: (x * y).sum() * 3)
           传入梯度  d out/d t1 = tensor([3., 3., 3.])
           求导法则  d(a*b)/da = b ;  d(a*b)/db = a
           传给 x    [3., 3., 3.] * y = tensor([12., 15., 18.])
           传给 y    [3., 3., 3.] * x = tensor([3., 6., 9.])
  第 4 步  AccumulateGrad x.grad = tensor([12., 15., 18.])   （原来为 None）
  第 5 步  AccumulateGrad y.grad = tensor([3., 6., 9.])   （原来为 None）

叶子节点：x.grad = tensor([12., 15., 18.])，y.grad = tensor([3., 6., 9.])
小结：3 个运算，5 个反向步骤，2 个叶子节点"""


def test_classic_english_snapshot():
    assert classic().explanation(timing=False) == CLASSIC_EN


def test_classic_chinese_snapshot():
    assert classic().explanation("zh", timing=False) == CLASSIC_ZH


def test_nodes_named_in_execution_order_and_numbers_shared_by_both_languages():
    t = classic()
    en, zh = t.explanation(timing=False), t.explanation("zh", timing=False)
    step_lines = [line for line in en.splitlines() if line.startswith("  step ")]
    names = [line.split()[2] for line in step_lines]
    assert names == ["MulBackward0", "SumBackward0", "MulBackward0", "AccumulateGrad",
                     "AccumulateGrad"]
    for number in ["tensor([12., 15., 18.])", "tensor([3., 6., 9.])", "tensor(96.)",
                   "[3., 3., 3.] * y", "1. * 3 = tensor(3.)", "d(a*b)/da = b"]:
        assert number in en and number in zh


def test_timing_is_only_on_the_last_line():
    t = classic()
    with_time = t.explanation().splitlines()
    without = t.explanation(timing=False).splitlines()
    assert with_time[:-1] == without[:-1]
    assert "backward took" in with_time[-1] and "ms" in with_time[-1]
    assert "反向传播用时" in t.explanation("zh").splitlines()[-1]


def test_explain_prints(capsys):
    classic().explain(timing=False)
    assert capsys.readouterr().out == CLASSIC_EN + "\n"


def test_unknown_language_is_refused():
    try:
        classic().explanation("fr")
    except ValueError as exc:
        assert "en" in str(exc) and "zh" in str(exc)
    else:
        raise AssertionError("expected ValueError")


def test_large_tensors_appear_as_shape_and_statistics():
    rng = np.random.default_rng(0)
    w = minigrad.tensor(rng.normal(size=(128, 256)).astype(np.float32), requires_grad=True,
                        name="w")
    b = minigrad.tensor(rng.normal(size=256).astype(np.float32), requires_grad=True, name="b")
    text = minigrad.trace(lambda: (w * 2 + b).tanh().mean()).explanation(timing=False)
    assert "shape (128, 256), mean " in text and "|max| " in text
    assert "tensor([[" not in text  # no big tensor printed element by element
    g = w.grad.array.astype(np.float64)
    assert f"w.grad = shape (128, 256), mean {g.mean():.4g}, |max| {np.abs(g).max():.4g}" in text
    zh = minigrad.trace(lambda: (w * 2).sum()).explanation("zh", timing=False)
    assert "形状 (128, 256)，均值" in zh


def test_broadcasting_is_said_where_it_was_summed_away():
    a = minigrad.tensor(np.ones((2, 3), np.float32), requires_grad=True, name="a")
    b = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True, name="b")
    t = minigrad.trace(lambda: (a * b).sum())
    text = t.explanation(timing=False)
    assert "(summed over dim 0 to match b's shape (3,))" in text
    assert "to b      grad * a = tensor([2., 2., 2.])" in text
    assert "（对第 0 维求和，以匹配 b 的形状 (3,)）" in t.explanation("zh", timing=False)


def test_hook_that_changed_a_gradient_shows_before_and_after():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True, name="x")

    def double(g):
        return g * 2

    def look(g):
        return None

    def run():
        h = x * 3
        h.register_hook(double)
        h.register_hook(look)
        return h.sum()

    text = minigrad.trace(run).explanation(timing=False)
    assert ("hook      tensor hook double changed the gradient: tensor([1., 1.]) -> "
            "tensor([2., 2.])") in text
    assert "tensor hook look ran (gradient unchanged)" in text
    assert "x.grad = tensor([6., 6.])" in text
    assert "张量钩子 double 改变了梯度" in minigrad.trace(run).explanation("zh")


def test_second_accumulation_shows_old_plus_new():
    x = minigrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    x.grad = minigrad.tensor([10.0, 10.0])
    text = minigrad.trace(lambda: (x * x).sum()).explanation(timing=False)
    assert "x.grad = tensor([10., 10.]) + tensor([2., 4.]) = tensor([12., 14.])" in text


def test_mean_power_relu_and_matrix_products_read_with_numbers():
    w = minigrad.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True, name="w")
    v = minigrad.tensor([1.0, 1.0], requires_grad=True, name="v")
    text = minigrad.trace(lambda: ((w @ v).relu() ** 2).mean()).explanation(timing=False)
    assert "t1   = w @ v" in text and "MvBackward0" in text
    assert "rule      d(mean a)/da_i = 1/n   (each element gets 1/n of it, n = 2)" in text
    assert "to t3     1. / 2 = tensor([0.5000, 0.5000])" in text
    assert "[0.5000, 0.5000] * 2 * t2 = tensor([0., 7.])" in text
    assert "(the gradient passes only where the input was positive)" in text
    assert "outer([0., 7.], v) = tensor([[0., 0.]," in text
    assert "w.T @ [0., 7.] = tensor([21., 28.])" in text


def test_tensor_form_uses_variable_names_and_says_no_value_when_unknown():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    b = minigrad.tensor([3.0, 4.0], requires_grad=True)
    loss = (a * b).sum() + 1
    text = minigrad.trace(loss).explanation(timing=False)
    assert "  t1   = a * b        MulBackward0    shape (2,)\n" in text
    assert "loss = t2 + c" in text  # Add keeps no constant: shown as c
    assert "(c is a constant: no gradient for it)" in text
    assert "Leaves: a.grad = tensor([3., 4.]), b.grad = tensor([1., 2.])" in text


def test_source_forms_of_common_ops():
    x = minigrad.tensor(np.arange(6, dtype=np.float32).reshape(2, 3), requires_grad=True,
                        name="x")

    def run():
        parts = [x.sum(dim=0, keepdim=True), x.mean(1), x.T, x[:, 1:], x.reshape(3, 2),
                 x.transpose(0, 1), x.unsqueeze(0), x.exp(), 1 - x, x ** 3, 2 ** x,
                 x.softmax(dim=1), x.clamp(min=0.5), minigrad.maximum(x, x * 2),
                 minigrad.cat([x, x], dim=1), x.permute(1, 0), x.expand(4, 2, 3), x.double(),
                 x[[0, 1]], x.max(dim=1).values, x.amax(dim=0)]
        return sum(p.sum() for p in parts)

    sources = {n.source for n in minigrad.trace(run).nodes}
    for expected in ["x.sum(dim=0, keepdim=True)", "x.mean(dim=1)", "x.permute(1, 0)",
                     "x[:, 1:]", "x.view(3, 2)", "x.transpose(0, 1)", "x.unsqueeze(0)",
                     "x.exp()", "1 - x", "x ** 3", "2 ** x", "x.softmax(dim=1)",
                     "x.clamp(min=0.5)", "cat([x, x], dim=1)", "x.expand(4, 2, 3)",
                     "x.to(float64)", "x[[0, 1]]", "x.max(dim=1)", "x.amax(dim=0)"]:
        assert expected in sources, (expected, sorted(sources))
    assert any(s.startswith("maximum(x, t") for s in sources)


def test_records_from_elsewhere_name_the_engine_and_unknown_ops_fall_back():
    nodes = [TraceNode("a", "AccumulateGrad", "p", shape=(2,)),
             TraceNode("b", "FancyBackward0", "", inputs=["a"], args=["p"], shape=(),
                       formula="d fancy/dp = 2p")]
    b = TraceBackward(["b"], [np.float32(1.0)], [
        TraceStep(1, "b", [np.asarray(1.0)], [np.asarray([2.0, 4.0])]),
        TraceStep(2, "a", [np.asarray([2.0, 4.0])], [])])
    t = Trace.from_records(nodes, [TraceLeaf("p", "a", (2,), grad=np.asarray([2.0, 4.0]))], [b],
                           engine="PyTorch")
    text = t.explanation(timing=False)
    assert text.startswith("Forward pass (recorded by PyTorch): 1 operation\n")
    assert "FancyBackward0(p)" in text
    assert "to p      tensor([2., 4.])" in text
    assert "p receives tensor([2., 4.]) (not accumulated)" in text
    assert t.explanation("zh").startswith("前向传播（由 PyTorch 记录）：共 1 个运算")


def test_a_trace_without_backward_says_so():
    x = minigrad.tensor([1.0], requires_grad=True, name="x")
    text = minigrad.trace(x * 2, backward=False).explanation()
    assert "No backward pass was run." in text


def test_ten_thousand_node_graph_is_explained_completely():
    x = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True, name="x")

    def chain():
        y = x
        for i in range(6667):
            y = (y * 1.0001).tanh() if i % 2 else y + x
        return y.sum()

    t = minigrad.trace(chain)
    assert len(t.nodes) == 10002  # 10,001 ops and x's AccumulateGrad
    text = t.explanation(timing=False)
    assert text.count("\n  step ") == len(t.steps) == 10002
    assert "TanhBackward0" in text and text.rstrip().endswith("10002 backward steps, 1 leaf")


@given(hnp.arrays(np.float64, hnp.array_shapes(min_dims=0, max_dims=1, max_side=20),
                  elements=st.floats(allow_nan=True, allow_infinity=True, width=32)))
def test_fast_formatting_equals_printing(values):
    for a in (values, values.astype(np.float32)):
        assert fast_repr(a) == tensor_repr(a, [])


def test_display_width_counts_chinese_as_two_columns():
    assert width("x * y") == 5
    assert width("传给 t2") == 7
    assert width("（原来为 None）") == 15


BROADCAST_HOOK_EN = """\
Forward pass: 2 operations
  t1   = a * b        MulBackward0    shape (2, 3)  tensor([[1., 2., 3.],
                                                            [1., 2., 3.]])
  out  = t1.mean()    MeanBackward0   shape ()      tensor(2.)

Backward pass from out (seed gradient 1, since out is a scalar): 4 steps
  step 1  MeanBackward0  out = t1.mean()
          incoming  d out/d out = tensor(1.)
          rule      d(mean a)/da_i = 1/n   (each element gets 1/n of it, n = 6)
          to t1     1. / 6 = tensor([[0.1667, 0.1667, 0.1667],
                                     [0.1667, 0.1667, 0.1667]])
  step 2  MulBackward0   t1 = a * b
          hook      tensor hook double changed the gradient:
                      before tensor([[0.1667, 0.1667, 0.1667],
                                     [0.1667, 0.1667, 0.1667]])
                      after  tensor([[0.3333, 0.3333, 0.3333],
                                     [0.3333, 0.3333, 0.3333]])
          incoming  d out/d t1 = tensor([[0.3333, 0.3333, 0.3333],
                                         [0.3333, 0.3333, 0.3333]])
          rule      d(a*b)/da = b ;  d(a*b)/db = a
          to a      grad * b = tensor([[0.3333, 0.6667, 1.0000],
                                       [0.3333, 0.6667, 1.0000]])
          to b      grad * a = tensor([0.6667, 0.6667, 0.6667])
                    (summed over dim 0 to match b's shape (3,))
  step 3  AccumulateGrad a.grad = tensor([[0.3333, 0.6667, 1.0000],
                                          [0.3333, 0.6667, 1.0000]])   (was None)
  step 4  AccumulateGrad b.grad = tensor([1., 1., 1.]) + tensor([0.6667, 0.6667, 0.6667]) \
= tensor([1.6667, 1.6667, 1.6667])

Leaves:
  a.grad = tensor([[0.3333, 0.6667, 1.0000],
                   [0.3333, 0.6667, 1.0000]])
  b.grad = tensor([1.6667, 1.6667, 1.6667])
Summary: 2 operations, 4 backward steps, 2 leaves"""


def broadcast_and_hook() -> minigrad.Trace:
    a = minigrad.tensor(np.ones((2, 3), np.float32), requires_grad=True, name="a")
    b = minigrad.tensor([1.0, 2.0, 3.0], requires_grad=True, name="b")
    b.grad = minigrad.tensor([1.0, 1.0, 1.0])

    def double(g):
        return g * 2

    def run():
        h = a * b
        h.register_hook(double)
        return h.mean()

    return minigrad.trace(run)


def test_broadcasting_hooks_and_matrices_snapshot():
    assert broadcast_and_hook().explanation(timing=False, lines=False) == BROADCAST_HOOK_EN
    zh = broadcast_and_hook().explanation("zh", timing=False)
    assert "钩子      张量钩子 double 改变了梯度：\n" in zh
    assert "改变前 tensor([[0.1667" in zh and "改变后 tensor([[0.3333" in zh


def test_source_lines_by_default_for_a_traced_callable_or_with_block():
    text = broadcast_and_hook().explanation(timing=False)
    assert "  (at test_explain.py:" in text and ": h = a * b)\n" in text
    assert ": return h.mean())\n" in text
    assert "（源代码 test_explain.py:" in broadcast_and_hook().explanation("zh")
    x = minigrad.tensor([1.0, 2.0], requires_grad=True, name="x")
    with minigrad.trace() as t:
        loss = (x * x).sum()  # the line the listing names
        loss.backward()
    assert "  (at test_explain.py:" in t.explanation(timing=False)
    assert ": loss = (x * x).sum()  # the line the listing names)" in t.explanation()
    assert "(at " not in t.explanation(lines=False)  # on request, without
    after_the_fact = minigrad.trace((x * x).sum())  # the forward ran before trace() looked
    expression = minigrad.trace("sum(x * x)", x=[1.0, 2.0])  # every op on trace()'s line
    for untold in (after_the_fact, expression):
        assert all(n.line is None for n in untold.nodes)
        assert " at " not in untold.explanation() and "(at " not in untold.explanation()


def test_remainder_and_floor_division_read_as_code_with_their_rules():
    x = minigrad.tensor([3.0, 5.5], requires_grad=True, name="x")
    y = minigrad.tensor([2.0, -2.0], requires_grad=True, name="y")
    t = minigrad.trace(lambda: (x % y + x % 1.5).sum())
    sources = [n.source for n in t.nodes if not n.is_leaf]
    assert sources[:2] == ["x % y", "x % 1.5"]
    text = t.explanation(timing=False)
    assert "to y      -[1., 1.] * floor(x / y) = tensor([-1.,  3.])" in text
    assert "to x      tensor([1., 1.])" in text
    with minigrad.trace() as steps:  # (no backward: PyTorch defines no derivative for these)
        x // y, x // 2, 7 // x, 7.5 % x
    assert [n.source for n in steps.nodes if not n.is_leaf] == [
        "x // y", "x // 2", "7 // x", "7.5 % x"]
    assert {n.name for n in steps.nodes if not n.is_leaf} == {"NotImplemented"}
