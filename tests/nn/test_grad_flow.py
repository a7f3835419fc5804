"""grad_report on PyTorch models and Traces, the trend across layers, and the gradient flow
as a picture (the data drawn is checked, not the pixels)."""

from __future__ import annotations

import sys

import numpy as np
import pytest

import compare
import minigrad as mg
from minigrad import nn
from minigrad.nn.grad_flow import flow_data
from minigrad.nn.grad_report import GradFlow


def _sigmoid_torch(torch):
    from compare.torch_models import sigmoid_mlp

    torch.manual_seed(0)
    model = sigmoid_mlp(depth=10)
    x, y = torch.randn(32, 4), torch.randn(32, 1)
    torch.nn.functional.mse_loss(model(x), y).backward()
    return model


def test_grad_report_reads_a_torch_model(torch_mod, capsys):
    torch = torch_mod
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    model[0].bias.requires_grad_(False)
    rows = nn.utils.grad_report(model, show=False)
    assert [r.warnings for r in rows] == [("missing",), ("frozen",), ("missing",), ("missing",)]
    torch.nn.functional.cross_entropy(model(torch.randn(5, 3)), torch.tensor([0, 1, 1, 0, 1])
                                      ).backward()
    rows = nn.utils.grad_report(model)
    assert [r.name for r in rows] == ["0.weight", "0.bias", "2.weight", "2.bias"]
    for row, p in zip(rows, model.parameters()):
        assert row.shape == tuple(p.shape)
        if p.grad is not None:
            assert row.grad_norm == pytest.approx(float(p.grad.double().norm()), rel=1e-12)
            assert row.weight_norm == pytest.approx(float(p.detach().double().norm()), rel=1e-12)
    assert "0.bias: frozen (requires_grad=False)" in capsys.readouterr().out
    bf16 = torch.nn.Linear(2, 2).to(torch.bfloat16)
    bf16(torch.ones(1, 2, dtype=torch.bfloat16)).sum().backward()
    assert nn.utils.grad_report(bf16, show=False)[1].grad_norm == pytest.approx(2 ** 0.5)


def test_minigrad_imports_no_torch_for_it():
    code = ("import sys, minigrad.nn.grad_report, minigrad.nn.grad_flow; "
            "print('torch' in sys.modules, 'matplotlib' in sys.modules)")
    import subprocess

    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.split() == ["False", "False"]


def test_a_deep_sigmoid_net_is_flagged_by_its_trend(torch_mod, capsys):
    model = _sigmoid_torch(torch_mod)
    report = nn.utils.grad_report(model)
    out = capsys.readouterr().out
    flagged = [r.name for r in report if "vanishing" in r.warnings]
    assert 0 < len(flagged) < len(report)  # row by row, only the first few layers
    trend = report.trend
    assert trend.kind == "vanishing" and (trend.first, trend.last) == ("0.weight", "20.weight")
    assert trend.layers == 11 and trend.total > 1e8
    line = [x for x in out.splitlines() if x.startswith("vanishing gradients:")][0]
    assert "from the last layer (20.weight: " in line and "to the first (0.weight: " in line
    assert "the early layers barely learn" in line
    zh = str(nn.utils.grad_report(model, lang="zh", show=False))
    assert "梯度消失：|梯度| / |权重| 从最后一层（20.weight" in zh


def test_healthy_and_short_nets_have_no_trend(torch_mod):
    torch = torch_mod
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 16), torch.nn.ReLU(), torch.nn.Linear(16, 16),
                                torch.nn.ReLU(), torch.nn.Linear(16, 1))
    model(torch.randn(32, 4)).pow(2).mean().backward()
    report = nn.utils.grad_report(model, show=False)
    assert report.trend is None and "all gradients look healthy" in str(report)


def test_plot_draws_the_flow_of_a_torch_model(torch_mod):
    from matplotlib.figure import Figure

    model = _sigmoid_torch(torch_mod)
    report = nn.utils.grad_report(model, show=False)
    fig = report.plot()
    assert isinstance(fig, Figure)
    (ax,) = fig.axes
    ratio_line, norm_line = ax.lines
    weights = [(n, p) for n, p in model.named_parameters() if not n.endswith("bias")]
    expected = [float(p.grad.double().norm() / p.detach().double().norm()) for _, p in weights]
    np.testing.assert_allclose(ratio_line.get_ydata(), expected, rtol=1e-12)
    np.testing.assert_allclose(norm_line.get_ydata(),
                               [float(p.grad.double().norm()) for _, p in weights], rtol=1e-12)
    assert [t.get_text() for t in ax.get_xticklabels()] == [n for n, _ in weights]
    assert ax.get_yscale() == "log" and ax.get_title() == "gradient flow: vanishing"


def test_plot_of_a_minigrad_model_and_of_a_trace():
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    x = mg.randn(8, 3)
    t = mg.trace(lambda: model(x).pow(2).mean(), params=model)
    from_model = flow_data(nn.utils.grad_report(model, show=False))
    from_trace = flow_data(nn.utils.grad_report(t, show=False))
    assert from_model.layers == from_trace.layers == ["0.weight", "2.weight"]
    np.testing.assert_allclose(from_model.ratios, from_trace.ratios, rtol=1e-6)
    ax = nn.utils.grad_report(t, show=False).plot().axes[0]
    np.testing.assert_allclose(ax.lines[1].get_ydata(), from_model.grad_norms, rtol=1e-6)


def test_plot_into_a_given_axes_and_a_zero_gradient_is_a_gap(torch_mod):
    from matplotlib.figure import Figure

    torch = torch_mod
    layer = torch.nn.Linear(2, 2)
    layer.weight.grad = torch.zeros(2, 2)
    ax = Figure().add_subplot()
    fig = nn.utils.grad_report(layer, show=False).plot(ax=ax)
    assert fig is ax.figure and np.isnan(ax.lines[0].get_ydata()).all()


def test_grad_flow_over_training_steps(torch_mod):
    torch = torch_mod
    model = _sigmoid_torch(torch)
    flow = GradFlow(model)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.5)
    x, y = torch.randn(32, 4), torch.randn(32, 1)
    for _ in range(3):
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        flow()
        optimizer.step()
    assert flow.steps == [1, 2, 3] and len(flow.reports) == 3
    ax = flow.plot().axes[0]
    assert len(ax.lines) == 6
    assert [line.get_label() for line in ax.lines[::2]] == [
        "|grad| / |weight| step 1", "|grad| / |weight| step 2", "|grad| / |weight| step 3"]
    last = flow_data(flow.reports[-1])
    np.testing.assert_allclose(ax.lines[4].get_ydata(), last.ratios)
    # drawn light to dark: the last step is opaque
    assert ax.lines[0].get_color()[3] < ax.lines[4].get_color()[3] == 1.0


def test_plot_without_matplotlib_says_how_to_install_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "matplotlib", None)
    monkeypatch.setitem(sys.modules, "matplotlib.figure", None)
    p = nn.Parameter(mg.ones(2, 2))
    p.grad = mg.ones(2, 2)
    with pytest.raises(ModuleNotFoundError, match=r"needs matplotlib: pip install matplotlib"):
        nn.utils.grad_report([("w", p)], show=False).plot()


def test_a_torch_trace_reports_its_parameters(torch_mod):
    torch = torch_mod
    torch.manual_seed(0)
    model = torch.nn.Linear(3, 2)
    x = torch.randn(4, 3, requires_grad=True)
    t = compare.trace_torch(model(x).sum(), params=model)
    rows = nn.utils.grad_report(t, show=False)
    assert [r.name for r in rows] == ["weight", "bias"]  # the parameters, not the input x
    assert rows[0].grad_norm == pytest.approx(float(model.weight.grad.double().norm()))
