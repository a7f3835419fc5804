"""Anomaly mode: a backward step producing NaN names its node and the forward line."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad
from minigrad.autograd import detect_anomaly, is_anomaly_enabled, set_detect_anomaly


def planted_zero_over_zero():
    b = minigrad.tensor([0.0, 1.0], requires_grad=True)
    with np.errstate(all="ignore"):
        d = (b / b).sum()  # PLANTED: 0/0
    return b, d


def planted_log_zero_times_zero():
    x = minigrad.tensor([0.0, 1.0], requires_grad=True)
    with np.errstate(all="ignore"):
        z = (x.log() * 0).sum()  # PLANTED: log(0) then multiply
    return x, z


def run(make, capsys):
    with pytest.warns(UserWarning) as record, detect_anomaly(), np.errstate(all="ignore"):
        leaf, out = make()
        with pytest.raises(RuntimeError) as error:
            out.backward()
    err = capsys.readouterr().err
    return leaf, str(error.value), err, [str(w.message) for w in record]


def test_zero_over_zero_names_div_and_its_nan_output(capsys):
    leaf, message, err, warned = run(planted_zero_over_zero, capsys)
    # output 0 holds inf (1/0) and output 1 nan (-0/0): like PyTorch, the NaN is reported
    assert message == "Function 'DivBackward0' returned nan values in its 1th output."
    assert "Error detected in DivBackward0. Traceback of forward call" in err
    assert "d = (b / b).sum()  # PLANTED: 0/0" in err
    assert any("Anomaly Detection has been enabled" in w for w in warned)
    assert any("d = (b / b).sum()" in w for w in warned)
    assert leaf.grad is None  # nothing half-accumulated


def test_log_zero_then_multiply_names_log(capsys):
    leaf, message, err, _ = run(planted_log_zero_times_zero, capsys)
    assert message == "Function 'LogBackward0' returned nan values in its 0th output."
    assert "Error detected in LogBackward0" in err
    assert "z = (x.log() * 0).sum()  # PLANTED: log(0) then multiply" in err
    assert leaf.grad is None


def test_infinity_is_not_an_anomaly_as_in_pytorch(torch_mod):
    """PyTorch's anomaly mode checks for NaN only: 1/0 = inf in a gradient passes, and so it
    does in minigrad (it used to raise on inf as well)."""
    grads = []
    for lib in (torch_mod, minigrad):
        x = lib.tensor([0.0, 1.0], requires_grad=True)
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            with lib.autograd.detect_anomaly():
                x.log().sum().backward()  # d log(x)/dx at 0: inf
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1] == [float("inf"), 1.0]


def test_same_node_and_output_as_pytorch(torch_mod, capsys):
    torch = torch_mod
    for make, expr in [(planted_zero_over_zero, lambda t: (t / t).sum()),
                       (planted_log_zero_times_zero, lambda t: (t.log() * 0).sum())]:
        _, message, _, _ = run(make, capsys)
        t = torch.tensor([0.0, 1.0], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with torch.autograd.detect_anomaly(), pytest.raises(RuntimeError) as theirs:
                expr(t).backward()
        assert message == str(theirs.value)


def test_set_detect_anomaly_as_call_and_context(capsys):
    assert not is_anomaly_enabled()
    set_detect_anomaly(True)
    try:
        assert is_anomaly_enabled()
        b, d = planted_zero_over_zero()
        with warnings.catch_warnings(), pytest.raises(RuntimeError, match="DivBackward0"):
            warnings.simplefilter("ignore")
            d.backward()
    finally:
        set_detect_anomaly(False)
    assert not is_anomaly_enabled()
    with set_detect_anomaly(True):
        assert is_anomaly_enabled()
    assert not is_anomaly_enabled()


def test_without_anomaly_mode_nan_flows_silently():
    b, d = planted_zero_over_zero()
    with np.errstate(all="ignore"):
        d.backward()
    assert np.isnan(b.grad.array[0])


def test_node_created_outside_anomaly_mode_says_it_has_no_trace(capsys):
    b, d = planted_zero_over_zero()  # created before anomaly mode is on
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with detect_anomaly(), np.errstate(all="ignore"), pytest.raises(RuntimeError,
                                                                        match="DivBackward0"):
            d.backward()
    assert "no forward trace" in capsys.readouterr().err


def _anomaly_switches(lib):
    """The (enabled, check_nan) pairs seen through every way of setting them."""
    seen = [(lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled())]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with lib.autograd.detect_anomaly(check_nan=False):
            seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
            x = lib.tensor([0.0], requires_grad=True)
            (x.sqrt() * 0).sum().backward()  # 0 * inf is NaN: passes without the check
            seen.append(x.grad.isnan().tolist())
        seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        lib.autograd.set_detect_anomaly(True, check_nan=False)
        seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        with lib.autograd.set_detect_anomaly(False):
            seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
        lib.autograd.set_detect_anomaly(False)
        seen.append((lib.is_anomaly_enabled(), lib.is_anomaly_check_nan_enabled()))
    return seen


def test_check_nan_false_lets_nan_pass_and_every_switch_reads_as_in_pytorch():
    torch = pytest.importorskip("torch")
    with np.errstate(all="ignore"):
        mine = _anomaly_switches(minigrad)
    assert mine == _anomaly_switches(torch)
    assert mine[2] == [True]  # the NaN gradient went through, as in PyTorch
