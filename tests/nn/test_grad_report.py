"""nn.utils.grad_report: the table of every parameter's gradient, and its warnings."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn
from minigrad.nn.grad_report import _width


def frozen_and_dead() -> nn.Sequential:
    """Layer 0 frozen; layer 2's ReLU dead (its bias pushes every input below zero)."""
    mg.manual_seed(0)
    model = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 8), nn.ReLU(),
                          nn.Linear(8, 1))
    model[0].requires_grad_(False)
    with mg.no_grad():
        model[2].bias.fill_(-100.0)
    nn.MSELoss()(model(mg.randn(16, 2)), mg.zeros(16, 1)).backward()
    return model


def test_flags_the_frozen_layer_and_the_dead_relu_layer(capsys):
    rows = nn.utils.grad_report(frozen_and_dead())
    flags = {r.name: r.warnings for r in rows}
    assert flags["0.weight"] == flags["0.bias"] == ("frozen",)
    assert flags["2.weight"] == flags["2.bias"] == ("vanishing",)
    assert flags["4.bias"] == ()
    dead = {r.name: r for r in rows}["2.weight"]
    assert dead.zero_fraction == 1.0 and dead.grad_norm == 0.0 and dead.shape == (8, 8)
    out = capsys.readouterr().out
    assert "0.weight: frozen (requires_grad=False)" in out
    assert "2.weight: vanishing: the gradient is all zeros; is a ReLU upstream dead" in out
    assert out.rstrip().endswith("6 parameters, 5 with warnings.")


def test_table_is_aligned_in_english_and_chinese(capsys):
    model = frozen_and_dead()
    for lang in ("en", "zh"):
        nn.utils.grad_report(model, lang=lang)
        table = capsys.readouterr().out.split("\n\n")[0].splitlines()
        assert len(table) == 7
        # every column starts at the same screen column (Chinese characters are two wide)
        header, first = table[0], table[1]
        assert _width(header[:header.index("requires_grad")]) == _width(
            first[:first.index("False")])
    nn.utils.grad_report(model, lang="zh")
    out = capsys.readouterr().out
    assert "参数名" in out and "梯度范数" in out
    assert "0.weight: 已冻结（requires_grad=False）" in out
    assert "2.weight: 梯度消失：梯度全是 0" in out
    assert "共 6 个参数，其中 5 个有警告。" in out


def test_missing_gradient_and_healthy_rows(capsys):
    class TwoHeads(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.used = nn.Linear(3, 1)
            self.unused = nn.Linear(3, 1)

        def forward(self, x):
            return self.used(x)

    model = TwoHeads()
    rows = nn.utils.grad_report(model, show=False)
    assert all(r.warnings == ("missing",) for r in rows)  # before backward
    assert capsys.readouterr().out == ""
    model(mg.randn(4, 3)).sum().backward()
    rows = nn.utils.grad_report(model)
    assert [r.warnings for r in rows] == [(), (), ("missing",), ("missing",)]
    out = capsys.readouterr().out
    assert "unused.weight: no gradient (.grad is None): was it used in the loss? did backward " \
           "run?" in out
    assert "None" in out.splitlines()[3]
    healthy = nn.utils.grad_report(dict(model.used.named_parameters()))
    assert [r.name for r in healthy] == ["weight", "bias"]
    assert "2 parameters, all gradients look healthy." in capsys.readouterr().out


def test_statistics_are_computed_from_the_gradient():
    p = nn.Parameter(mg.tensor([[3.0, 0.0], [0.0, -4.0]]))
    p.grad = mg.tensor([[3.0, 0.0], [0.0, -4.0]])
    (row,) = nn.utils.grad_report([p], show=False)
    assert row.name == "0" and row.requires_grad
    assert row.grad_norm == pytest.approx(5.0) and row.grad_mean == pytest.approx(-0.25)
    assert row.grad_max == 4.0 and row.zero_fraction == 0.5 and row.weight_norm == 5.0


def test_vanishing_and_exploding_relative_to_the_weight():
    p = nn.Parameter(mg.ones(4))
    p.grad = mg.full((4,), 1e-10)
    assert nn.utils.grad_report([p], show=False)[0].warnings == ("vanishing",)
    p.grad = mg.full((4,), 1e4)
    (row,) = nn.utils.grad_report([p], show=False)
    assert row.warnings == ("exploding",)
    assert "|grad| / |weight| = 1.0e+04 (> 1e+03)" in row.messages[0]
    p.grad = mg.tensor([1.0, float("inf"), 0.0, 0.0])
    assert nn.utils.grad_report([p], show=False)[0].warnings == ("exploding",)
    p.grad = mg.full((4,), 1e-3)
    assert nn.utils.grad_report([p], show=False, exploding=1e-4)[0].warnings == ("exploding",)
    zero_weight = nn.Parameter(mg.zeros(3))
    zero_weight.grad = mg.full((3,), 0.5)
    assert nn.utils.grad_report([zero_weight], show=False)[0].warnings == ()


def test_rejects_unknown_language():
    with pytest.raises(ValueError, match="lang must be one of"):
        nn.utils.grad_report(nn.Linear(1, 1), lang="fr")


def test_report_after_a_training_step_matches_param_grads():
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 2))
    nn.CrossEntropyLoss()(model(mg.randn(5, 3)), mg.tensor([0, 1, 1, 0, 1])).backward()
    for row, (name, p) in zip(nn.utils.grad_report(model, show=False),
                              model.named_parameters()):
        assert row.name == name
        assert row.grad_norm == pytest.approx(float(np.linalg.norm(p.grad.array)), rel=1e-6)
