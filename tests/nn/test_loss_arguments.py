"""Loss functions given arguments of the wrong size or dtype fail as PyTorch 2.13 fails: the
same exception with PyTorch's words first (minigrad may add a hint after them). They used to
leak numpy's broadcasting errors, or accept what PyTorch refuses (int32 labels, long targets
for binary_cross_entropy)."""

from __future__ import annotations

import warnings

import pytest

import minigrad

torch = pytest.importorskip("torch")

CASES = {
    "cross_entropy, labels of another length": lambda lib, F, x: F.cross_entropy(
        x, lib.zeros(5, dtype=lib.long)),
    "cross_entropy, float labels": lambda lib, F, x: F.cross_entropy(x, lib.zeros(4)),
    "cross_entropy, int32 labels": lambda lib, F, x: F.cross_entropy(
        x, lib.zeros(4, dtype=lib.int32)),
    "cross_entropy, uint8 labels": lambda lib, F, x: F.cross_entropy(
        x, lib.zeros(4, dtype=lib.uint8)),
    "cross_entropy, a label out of range": lambda lib, F, x: F.cross_entropy(
        x, lib.tensor([0, 1, 2, 3])),
    "cross_entropy, class weights of another length": lambda lib, F, x: F.cross_entropy(
        x, lib.zeros(4, dtype=lib.long), weight=lib.ones(2)),
    "nll_loss, float labels": lambda lib, F, x: F.nll_loss(x, lib.zeros(4)),
    "mse_loss, rows that do not broadcast": lambda lib, F, x: F.mse_loss(x, lib.zeros(5, 3)),
    "mse_loss, a target that broadcasts": lambda lib, F, x: F.mse_loss(x, lib.zeros(3)),
    "MSELoss, columns that do not broadcast": lambda lib, F, x: lib.nn.MSELoss()(
        x, lib.zeros(4)),
    "mse_loss, a float64 target": lambda lib, F, x: F.mse_loss(
        x, lib.zeros(4, 3, dtype=lib.float64)),
    "l1_loss, rows that do not broadcast": lambda lib, F, x: F.l1_loss(x, lib.zeros(2, 3)),
    "smooth_l1_loss, rows that do not broadcast": lambda lib, F, x: F.smooth_l1_loss(
        x, lib.zeros(2, 3)),
    "huber_loss, rows that do not broadcast": lambda lib, F, x: F.huber_loss(
        x, lib.zeros(2, 3)),
    "binary_cross_entropy, another size": lambda lib, F, x: F.binary_cross_entropy(
        x.sigmoid(), lib.zeros(4, 2)),
    "binary_cross_entropy, a long target": lambda lib, F, x: F.binary_cross_entropy(
        x.sigmoid(), lib.zeros(4, 3, dtype=lib.long)),
    "binary_cross_entropy, a float64 target": lambda lib, F, x: F.binary_cross_entropy(
        x.sigmoid(), lib.zeros(4, 3, dtype=lib.float64)),
    "binary_cross_entropy, not probabilities": lambda lib, F, x: F.binary_cross_entropy(
        x * 2, lib.zeros(4, 3)),
    "binary_cross_entropy_with_logits, another size": lambda lib, F, x:
        F.binary_cross_entropy_with_logits(x, lib.zeros(4, 2)),
    "binary_cross_entropy_with_logits, a long target": lambda lib, F, x:
        F.binary_cross_entropy_with_logits(x, lib.zeros(4, 3, dtype=lib.long)),
    "binary_cross_entropy_with_logits, a float64 target": lambda lib, F, x:
        F.binary_cross_entropy_with_logits(x, lib.zeros(4, 3, dtype=lib.float64)),
    "a reduction that does not exist": lambda lib, F, x: F.mse_loss(x, x, reduction="avg"),
    "cross_entropy, a numpy input": lambda lib, F, x: F.cross_entropy(
        x.detach().numpy(), lib.zeros(4, dtype=lib.long)),
    "cross_entropy, a list input": lambda lib, F, x: F.cross_entropy(
        x.tolist(), lib.zeros(4, dtype=lib.long)),
    "cross_entropy, a number input": lambda lib, F, x: F.cross_entropy(
        1.0, lib.zeros(4, dtype=lib.long)),
    "nll_loss, a numpy input": lambda lib, F, x: F.nll_loss(
        x.detach().numpy(), lib.zeros(4, dtype=lib.long)),
    "nll_loss, a list input": lambda lib, F, x: F.nll_loss(
        x.tolist(), lib.zeros(4, dtype=lib.long)),
}


def _run(lib, case):
    x = lib.ones(4, 3, requires_grad=True)
    with warnings.catch_warnings(record=True) as warned:
        warnings.simplefilter("always")
        try:
            CASES[case](lib, lib.nn.functional, x)
            outcome = ("ok", "")
        except Exception as exc:  # noqa: BLE001 (the error is what is compared)
            outcome = (type(exc).__name__, str(exc).replace("torch.", "minigrad."))
    words = [str(w.message).replace("torch.", "minigrad.") for w in warned
             if "Anomaly" not in str(w.message)]
    return outcome, words, x.grad


@pytest.mark.parametrize("case", CASES)
def test_a_loss_refuses_what_pytorch_refuses_in_its_words(case: str) -> None:
    (kind, words), warned, grad = _run(minigrad, case)
    (torch_kind, torch_words), torch_warned, _ = _run(torch, case)
    assert kind == torch_kind
    assert words.startswith(torch_words)  # (a hint may follow PyTorch's words)
    assert warned == torch_warned
    assert grad is None
