"""Reductions, scans, sorts and softmaxes of empty tensors, side by side with PyTorch 2.13:
the same result (printed) or the same error in the same words. They used to leak numpy's
messages ("zero-size array to reduction operation maximum", "cannot reshape array")."""

from __future__ import annotations

import warnings

import pytest

import minigrad

torch = pytest.importorskip("torch")

OPS = {
    "sum": lambda e: e.sum(), "sum(0)": lambda e: e.sum(0), "mean": lambda e: e.mean(),
    "mean(0)": lambda e: e.mean(0), "mean(1)": lambda e: e.mean(1), "prod": lambda e: e.prod(),
    "prod(0)": lambda e: e.prod(0), "var": lambda e: e.var(), "var(0)": lambda e: e.var(0),
    "std(1)": lambda e: e.std(1), "median": lambda e: e.median(),
    "median(0)": lambda e: e.median(0), "median(1)": lambda e: e.median(1),
    "mode(0)": lambda e: e.mode(0), "mode(1)": lambda e: e.mode(1),
    "kthvalue(1, 0)": lambda e: e.kthvalue(1, 0), "kthvalue(1, 1)": lambda e: e.kthvalue(1, 1),
    "logsumexp(0)": lambda e: e.logsumexp(0), "logsumexp(1)": lambda e: e.logsumexp(1),
    "norm": lambda e: e.norm(), "norm(dim=0)": lambda e: e.norm(dim=0),
    "cumsum(0)": lambda e: e.cumsum(0), "cumprod(1)": lambda e: e.cumprod(1),
    "cummax(0)": lambda e: e.cummax(0), "sort(0)": lambda e: e.sort(0),
    "topk(1, dim=1)": lambda e: e.topk(1, dim=1), "topk(1, dim=0)": lambda e: e.topk(1, dim=0),
    "max(1)": lambda e: e.max(1), "max(0)": lambda e: e.max(0), "min": lambda e: e.min(),
    "argmax(1)": lambda e: e.argmax(1), "amax(1)": lambda e: e.amax(1),
    "all": lambda e: e.all(), "any(0)": lambda e: e.any(0),
    "softmax(0)": lambda e: e.softmax(0), "log_softmax(1)": lambda e: e.log_softmax(1),
    "mse_loss": lambda e: _lib(e).nn.functional.mse_loss(e, e),
    "e.t() @ e": lambda e: e.t() @ e,
}


def _lib(t):
    return torch if isinstance(t, torch.Tensor) else minigrad


def _outcome(lib, shape, name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return repr(OPS[name](lib.ones(*shape))).replace("torch", "minigrad")
        except Exception as exc:  # noqa: BLE001 (the error is what is compared)
            return f"{type(exc).__name__}: {exc}"


@pytest.mark.parametrize("shape", [(0, 3), (3, 0)])
@pytest.mark.parametrize("name", OPS)
def test_an_empty_tensor_reduces_as_in_pytorch(name: str, shape: tuple) -> None:
    assert _outcome(minigrad, shape, name) == _outcome(torch, shape, name)
