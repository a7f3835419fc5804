"""compare/: against_torch, the report, planted differences it must catch, modules(), the CLI."""

from __future__ import annotations

import subprocess
import sys
import types

import numpy as np
import pytest

import minigrad as mg
from compare import against_torch, assert_matches_torch, constant, modules
from compare.__main__ import main as cli
from compare.__main__ import parse_inputs
from compare.graph import GNode, Graph, first_divergence, graph_of, side_by_side
from compare.graph_compare import KNOWN_DIFFERENCES, compare_graphs
from compare.torch_bridge import TORCH_HINT, import_torch

X = [0.5, -1.5, 2.0]
Y = [1.0, 2.0, -3.0]


# ------------------------------------------------------------------ against_torch
def test_lambda_runs_on_both_engines_and_matches(torch_mod):
    report = against_torch(lambda x, y: (x * y).sum() * 3, x=X, y=Y)
    assert report.ok
    assert [g.what for g in report.grads] == ["grad x", "grad y"]
    assert report.forward.minigrad_value == pytest.approx(3 * np.dot(X, Y))
    assert report.graph.equal and report.graph.minigrad.names() == [
        "MulBackward0", "SumBackward0", "MulBackward0", "AccumulateGrad", "AccumulateGrad"]
    text = str(report)
    assert "max abs err" in text and "graph shape: equal (5 nodes)" in text
    assert text.endswith("result: OK")
    assert report.title == "lambda x, y: (x * y).sum() * 3"


def test_string_form_uses_the_safe_parser_on_both_engines(torch_mod):
    report = assert_matches_torch("sum(x*y)*3", x=X, y=Y)
    assert report.title == "sum(x*y)*3" and report.graph.equal
    from minigrad.teach.expr import ExpressionError

    with pytest.raises(ExpressionError, match="__class__"):
        against_torch("x.__class__", x=X)


def test_namespace_parameters_receive_each_engines_module(torch_mod):
    seen = []

    def fn(x, torch, F):
        seen.append((torch.__name__, F.__name__))
        return F.softmax(torch.exp(x), dim=0)

    assert against_torch(fn, x=X, gradient="random").ok
    assert seen == [("minigrad", "minigrad.nn.functional"),
                    ("torch", "torch.nn.functional")]


def test_positional_callables_and_integer_and_constant_inputs(torch_mod):
    report = against_torch(lambda a, t: ((a - t) ** 2).mean(), x=X, t=constant(Y))
    assert report.ok and [g.what for g in report.grads] == ["grad x"]  # t needs no grad
    labels = np.array([0, 2])
    report = against_torch(lambda z, lab, F: F.cross_entropy(z, lab),
                           z=np.arange(6.0).reshape(2, 3), lab=labels)
    assert report.ok and [g.what for g in report.grads] == ["grad z"]


def test_non_scalar_output_backward_is_sum_unless_a_gradient_is_given(torch_mod):
    report = against_torch(lambda x: x * 2, x=X)
    assert report.ok and report.grads[0].minigrad_value == 2.0  # d(sum(2x))/dx
    g = np.array([1.0, -2.0, 0.5])
    report = against_torch(lambda x: x * 2, x=X, gradient=g)
    assert report.ok
    assert report.grads[0].minigrad_value == pytest.approx(2 * g[report.grads[0].worst])
    assert against_torch(lambda x: x.t(), x=np.eye(2) + 1, gradient="random").ok
    with pytest.raises(ValueError, match="random"):
        against_torch(lambda x: x, x=X, gradient="ones")


# ------------------------------------------------------------------ planted differences
class BadSquare(mg.Function):
    """x**2 with a wrong derivative (3x instead of 2x)."""

    formula = r"d(x^2)/dx = 3x (wrong on purpose)"

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.array ** 2

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * 3 * x


def _torch_square(torch):
    class BadSquare(torch.autograd.Function):  # same name, correct derivative
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 2

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 2 * x

    return BadSquare


def test_catches_a_wrong_gradient_and_names_the_input_and_element(torch_mod):
    report = against_torch(lambda x: BadSquare.apply(x).sum(),
                           torch_fn=lambda x: _torch_square(torch_mod).apply(x).sum(), x=X)
    assert not report.ok
    assert report.forward.ok and report.graph.equal  # same values, same graph...
    (grad,) = report.grads  # ...but the gradient is off by half
    assert not grad.ok and grad.worst == (2,)
    assert (grad.minigrad_value, grad.torch_value) == (6.0, 4.0)
    assert report.graph.minigrad.names()[1] == "BadSquareBackward"
    with pytest.raises(AssertionError) as info:
        assert_matches_torch(lambda x: BadSquare.apply(x).sum(),
                             torch_fn=lambda x: _torch_square(torch_mod).apply(x).sum(), x=X)
    message = str(info.value)
    assert "grad x" in message and "MISMATCH" in message and "(2,)" in message


def test_catches_a_different_graph_shape_and_names_the_divergent_node(torch_mod):
    report = against_torch(lambda x: x * x, torch_fn=lambda x: x ** 2, x=X)
    assert report.grads[0].ok and report.forward.ok  # same numbers...
    assert not report.ok and not report.graph.ok  # ...different graphs
    div = report.graph.divergence
    assert (div.left.name, div.right.name, div.line) == ("MulBackward0", "PowBackward0", 0)
    text = str(report)
    assert "graph shape: DIFFERENT" in text
    assert "minigrad has MulBackward0, torch has PowBackward0" in text
    assert "! MulBackward0" in text and "| PowBackward0" in text
    assert "(same node as line 2)" in text  # x*x: one AccumulateGrad reached twice


def test_divergence_below_the_root_and_in_sharing(torch_mod):
    report = against_torch(lambda x: (x * x).sum(), torch_fn=lambda x: (x ** 2).sum(), x=X)
    div = report.graph.divergence
    assert div.path == ("SumBackward0",) and div.right.name == "PowBackward0"
    assert "under SumBackward0" in div.describe()

    def shared(x):
        e = x.exp()
        return e * e

    report = against_torch(shared, torch_fn=lambda x: x.exp() * x.exp(), x=X)
    assert report.grads[0].ok and not report.graph.ok
    assert report.graph.divergence.left.same_as == 1  # minigrad reuses one ExpBackward0


def test_an_error_on_one_engine_is_a_mismatch_on_both_an_error(torch_mod):
    report = against_torch(lambda x, torch: torch.special.erf(x), x=X)
    assert not report.ok and "minigrad raised AttributeError" in report.forward.note
    with pytest.raises(RuntimeError):
        against_torch(lambda A, B: A @ B, A=np.ones((2, 3)), B=np.ones((2, 3)))


def test_known_differences_are_reported_by_design_with_the_reason(torch_mod):
    names = [d.name for d in KNOWN_DIFFERENCES]
    assert names == ["batched matmul", "vector·matrix"]
    report = against_torch(lambda v, b: v @ b, v=np.ones(3), b=np.ones((5, 3, 4)))
    assert report.ok and not report.graph.equal
    assert report.graph.by_design.name == "batched matmul"
    assert "differs by design (batched matmul)" in str(report) and "why:" in str(report)
    # a difference outside the matmul is still a failure in the same graph
    report = against_torch(lambda v, b: (v @ b) * (v @ b),
                           torch_fn=lambda v, b: (v @ b) ** 2, v=np.ones(3), b=np.ones((5, 3, 4)))
    assert not report.graph.ok and report.graph.by_design is None


# ------------------------------------------------------------------ graphs without torch
def _g(*nodes: GNode) -> Graph:
    return Graph(tuple(nodes))


def test_graph_normal_form_and_diff_on_minigrad_graphs():
    x = mg.tensor([1.0, 2.0], requires_grad=True)
    y = mg.tensor([3.0, 4.0], requires_grad=True)
    a = graph_of(x * y + x, {id(x): "x", id(y): "y"})
    assert a.lines() == ["AddBackward0", "  MulBackward0", "    AccumulateGrad x (2,)",
                         "    AccumulateGrad y (2,)",
                         "  AccumulateGrad x (2,)  (same node as line 3)"]
    b = graph_of(y * x + x, {id(x): "x", id(y): "y"})
    div = first_divergence(a, b)
    assert div.line == 2 and (div.left.label, div.right.label) == ("x", "y")
    assert first_divergence(a, a) is None
    assert "!     AccumulateGrad x (2,)" in side_by_side(a, b)
    assert graph_of(mg.tensor([1.0])).nodes == ()
    assert graph_of(x, {id(x): "x"}).lines() == ["AccumulateGrad x (2,)"]


def test_design_difference_needs_the_difference_to_stay_inside_the_product():
    leaf_a = GNode("AccumulateGrad", (), (3,), "v")
    leaf_b = GNode("AccumulateGrad", (), (3, 4), "B")
    vm = _g(GNode("SqueezeBackward4", ((1, 0),)), GNode("MmBackward0", ((2, 0), (4, 0))),
            GNode("UnsqueezeBackward0", ((3, 0),)), leaf_a, leaf_b)
    other = _g(GNode("ViewBackward0", ((1, 0),)), GNode("MvBackward0", ((2, 0), (3, 0))),
               leaf_b, leaf_a)
    comparison = compare_graphs(vm, other)
    assert not comparison.equal and comparison.by_design.name == "vector·matrix"
    different_leaf = _g(GNode("ViewBackward0", ((1, 0),)), GNode("MvBackward0", ((2, 0), (3, 0))),
                        leaf_b, GNode("AccumulateGrad", (), (3,), "w"))
    assert compare_graphs(vm, different_leaf).by_design is None


# ------------------------------------------------------------------ modules
def _twins(torch, classifier: bool):
    import minigrad.nn as mnn

    if classifier:
        return mnn.Linear(4, 3), torch.nn.Linear(4, 3)
    return (mnn.Sequential(mnn.Linear(3, 8), mnn.Tanh(), mnn.Linear(8, 2)),
            torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Tanh(), torch.nn.Linear(8, 2)))


def test_modules_agree_on_an_mlp(torch_mod):
    mg.manual_seed(0)
    mine, theirs = _twins(torch_mod, classifier=False)
    x = np.random.default_rng(1).standard_normal((5, 3))
    report = modules(mine, theirs, x, loss=lambda out: (out ** 2).mean())
    assert report.ok, str(report)
    assert [g.what for g in report.grads] == [
        "grad 0.weight", "grad 0.bias", "grad 2.weight", "grad 2.bias"]
    assert report.graph.equal
    assert np.array_equal(mine[0].weight.array, theirs[0].weight.detach().numpy())


def test_modules_agree_on_a_linear_cross_entropy_classifier(torch_mod):
    import minigrad.nn as mnn

    mine, theirs = _twins(torch_mod, classifier=True)
    rng = np.random.default_rng(2)
    x, labels = rng.standard_normal((6, 4)), rng.integers(0, 3, 6)
    for loss in ("cross_entropy", (mnn.CrossEntropyLoss(), torch_mod.nn.CrossEntropyLoss()),
                 lambda out, target, F: F.cross_entropy(out, target)):
        report = modules(mine, theirs, x, loss=loss, target=labels, weights="torch")
        assert report.ok, str(report)
        assert report.graph.minigrad.names()[:2] == ["NllLossBackward0", "LogSoftmaxBackward0"]


def test_modules_catches_a_wrong_parameter_gradient_and_mismatched_names(torch_mod):
    import minigrad.nn as mnn

    class Squares(mnn.Module):
        def __init__(self):
            super().__init__()
            self.weight = mnn.Parameter(mg.ones(3))

        def forward(self, x):
            return BadSquare.apply(self.weight) * x

    class TorchSquares(torch_mod.nn.Module):
        def __init__(self):
            super().__init__()
            self.weight = torch_mod.nn.Parameter(torch_mod.ones(3))

        def forward(self, x):
            return _torch_square(torch_mod).apply(self.weight) * x

    report = modules(Squares(), TorchSquares(), np.ones(3))
    assert not report.ok and report.failures()[0].startswith("grad weight")
    with pytest.raises(ValueError, match="only in minigrad"):
        modules(mnn.Linear(3, 2), torch_mod.nn.Sequential(torch_mod.nn.Linear(3, 2)), np.ones(3))


# ------------------------------------------------------------------ torch stays out
def test_missing_torch_gives_the_install_command(monkeypatch):
    monkeypatch.setitem(sys.modules, "torch", None)
    with pytest.raises(ModuleNotFoundError, match="pip install torch==2.13.0"):
        import_torch()
    assert TORCH_HINT == "pip install torch==2.13.0"


def test_importing_compare_or_minigrad_does_not_import_torch():
    code = ("import sys, minigrad, compare, compare.graph, compare.report, compare.corpus, "
            "compare.against, compare.models, compare.source; "
            "assert 'torch' not in sys.modules, 'torch imported'")
    subprocess.run([sys.executable, "-c", code], check=True)


# ------------------------------------------------------------------ command line
def test_cli_runs_an_expression(capsys, torch_mod):
    assert cli(["sum(x*y)*3", "x=[1,2,3]", "y=[4,5,6]"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("sum(x*y)*3") and "result: OK" in out and "grad y" in out
    assert cli(["x * y", "x=[1,2,3]"]) == 2  # y is not an input
    assert "not one of the inputs" in capsys.readouterr().err
    assert cli(["v @ B (vm)"]) == 0  # a corpus expression by name
    assert "result: OK" in capsys.readouterr().out


def test_cli_input_values():
    values = parse_inputs(["x=[1,2,3]", "A=randn(2,3)", "lab=labels(4,5)", "t=const(ones(2))",
                           "k=long([0, 2])", "s=2.5"])
    assert values["x"].dtype == np.float64 and values["A"].shape == (2, 3)
    assert values["lab"].shape == (4,) and values["lab"].dtype.kind == "i"
    assert isinstance(values["t"], constant) and values["k"].tolist() == [0, 2]
    with pytest.raises(ValueError, match="NAME=VALUE"):
        parse_inputs(["[1,2]"])
    with pytest.raises(ValueError, match="use a number"):
        parse_inputs(["x=__import__('os')"])


def test_cli_corpus_prints_a_line_each_and_the_total(capsys, torch_mod):
    assert cli(["corpus", "-k", "matmul"]) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert out[-1].startswith("3/3 expressions: gradients match, graph shape matches")
    assert all(line.startswith("ok ") for line in out[:3])


def test_cli_bench_slot_hands_over_to_compare_bench(monkeypatch):
    calls = []
    fake = types.ModuleType("compare.bench")
    fake.main = lambda argv: calls.append(argv) or 0
    monkeypatch.setitem(sys.modules, "compare.bench", fake)
    import compare

    monkeypatch.setattr(compare, "bench", fake, raising=False)
    assert cli(["bench", "--quick"]) == 0
    assert calls == [["--quick"]]
