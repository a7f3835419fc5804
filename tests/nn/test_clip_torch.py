"""clip_grad_norm_ and clip_grad_value_, side by side with PyTorch 2.13: the same returned
norms, the same gradients after each call, the same errors; a refused call (a non-finite norm
with error_if_nonfinite, an unknown norm type) changes no gradient."""

from __future__ import annotations

import warnings

import pytest

import minigrad

torch = pytest.importorskip("torch")


def _session(lib) -> list[str]:
    seen: list[str] = []

    def call(name, fn):
        try:
            seen.append(f"{name}: {fn()!r}")
        except Exception as exc:  # noqa: BLE001 (the error is what is compared)
            seen.append(f"{name}: {type(exc).__name__} {str(exc).splitlines()[0]}")
        seen.append(f"  grads {a.grad!r} {b.grad!r}")

    clip, clip_value = lib.nn.utils.clip_grad_norm_, lib.nn.utils.clip_grad_value_
    a, b = lib.ones(3, requires_grad=True), lib.ones(2, requires_grad=True)
    a.grad, b.grad = lib.full((3,), 2.0), lib.tensor([float("inf"), 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        call("non-finite, error", lambda: clip([a, b], 1.0, error_if_nonfinite=True))
        call("non-finite, scaled", lambda: clip([a, b], 1.0))
        a.grad, b.grad = lib.full((3,), 2.0), lib.tensor([3.0, 1.0])
        call("norm type 'x'", lambda: clip([a, b], 1.0, norm_type="x"))
        call("2-norm", lambda: clip([a, b], 2.0))
        call("max_norm as a string", lambda: clip([a, b], "1"))
        call("inf-norm", lambda: clip([a, b], 0.5, norm_type=float("inf")))
        call("0-norm", lambda: clip([a, b], 1.0, norm_type=0))
        call("1-norm, a single tensor", lambda: clip(a, 0.1, norm_type=1))
        call("values", lambda: clip_value([a, b], 0.01))
        call("negative clip value", lambda: clip_value([a, b], -1.0))
        call("no gradients", lambda: clip([lib.ones(2, requires_grad=True)], 1.0))
        call("no parameters", lambda: clip([], 1.0))
        c = lib.ones(2, dtype=lib.float64, requires_grad=True)
        c.grad = lib.ones(2, dtype=lib.float64) * 10
        call("float32 and float64", lambda: clip([a, c], 1.0))
    return [line.replace("torch", "minigrad") for line in seen]


def test_clipping_reads_as_in_pytorch() -> None:
    mine, theirs = _session(minigrad), _session(torch)
    assert mine == theirs
    assert any("RuntimeError The total norm of order 2.0" in line for line in mine)
