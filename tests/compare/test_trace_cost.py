"""`python -m compare trace-cost`: what it measures and prints (its figures are not checked:
speed is read from this command, never asserted in a test)."""

from __future__ import annotations

import re

from compare import trace_cost


def test_cost_times_every_form_and_gives_ratios_to_the_plain_backward(torch_mod):
    model = torch_mod.nn.Linear(3, 2)
    x = torch_mod.randn(4, 3)
    found = trace_cost.cost(model, lambda m: m(x).sum(), runs=2, warmup=1)
    assert set(found) == {"plain", "callable", "tensor", "+ read",
                          "callable cost", "tensor cost", "+ read cost"}
    assert all(v > 0 for v in found.values())
    assert found["tensor cost"] == found["tensor"] / found["plain"]
    assert model.weight.grad is not None  # (the last form ran a real backward)


def test_the_lstm_cell_drawing_is_timed_flat_and_by_module(torch_mod, dot_bin, capsys):
    assert trace_cost.main(["--only", "lstm-cell", "--runs", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("load average ")
    assert re.fullmatch(r"lstm-cell +369 nodes +render +[\d.]+ s \(light labels\) +"
                        r"render\(depth=1\) +[\d.]+ s", out[1]), out[1]


def test_the_transformer_line(torch_mod, capsys):
    assert trace_cost.main(["--only", "transformer", "--runs", "1"]) == 0
    line = capsys.readouterr().out.splitlines()[1]
    assert re.fullmatch(r"transformer +plain +[\d.]+ ms +callable +[\d.]+ ms \([\d.]+x\) +"
                        r"tensor +[\d.]+ ms \([\d.]+x\) +\+ read +[\d.]+ ms \([\d.]+x\)", line)
