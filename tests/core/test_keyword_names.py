"""Keyword names, side by side with PyTorch 2.13: every public function of `minigrad` and of
`minigrad.nn.functional`, and every Tensor method, that PyTorch also has, must take as a
keyword each name PyTorch's takes (`torch.matmul(input=a, other=b)`, `x.permute(dims=...)`,
`x.float(memory_format=...)`), so that a program written for PyTorch runs. minigrad may take
more (numpy's `axis=`, its own `name=`); those are not compared.

How PyTorch's names are found is in minigrad/testing/signatures.py (its signatures where it
has them, else its argument parser, asked). The differences left are KEPT, each with its
reason; a difference not there fails, and so does a KEPT entry that is no longer one.
"""

from __future__ import annotations

import inspect
import warnings

import pytest

import minigrad
import minigrad.nn.functional as F
from minigrad.testing.signatures import minigrad_names, torch_names

# name -> (the names minigrad does not take, why)
KEPT = {
    "torch.bmm": ({"out_dtype"}, "PyTorch 2.13's binding takes it but has no CPU kernel: "
                  "NotImplementedError (Could not run 'aten::bmm.dtype' ... 'CPU' backend)"),
    "torch.mm": ({"out_dtype"}, "as bmm: aten::mm.dtype has no CPU kernel in PyTorch 2.13"),
    "torch.trace": ({"input"}, "minigrad.trace is minigrad's recorder of a backward pass "
                    "(teach/trace.py), not the matrix trace: x.diagonal().sum() is that"),
    "Tensor.uniform_": ({"from"}, "`from` is a Python keyword, no program writes from=...; "
                        "PyTorch's own stubs (torch/_C/__init__.pyi) name it from_, as minigrad"),
    "Tensor.view": ({"dtype"}, "view(dtype) reinterprets the bytes as another dtype; minigrad "
                    "does not: x.to(dtype) converts the values"),
    "Tensor.to": ({"copy", "device", "dtype", "memory_format", "non_blocking", "tensor"},
                  "read from **kwargs as PyTorch's to(*args, **kwargs) reads them "
                  "(surface/dtypes.to_arguments); test_to_takes_its_keywords calls it"),
}


def _public(module, torch_module) -> list[str]:
    return sorted(n for n in dir(module) if not n.startswith("_") and hasattr(torch_module, n)
                  and callable(getattr(module, n)) and not isinstance(getattr(module, n), type)
                  and not inspect.ismodule(getattr(module, n)))


def _differences(torch) -> dict[str, set[str] | str]:
    found: dict[str, set[str] | str] = {}
    scopes = (("torch", minigrad, torch, False), ("F", F, torch.nn.functional, False),
              ("Tensor", minigrad.Tensor, torch.Tensor, True))
    for scope, module, torch_module, methods in scopes:
        for name in _public(module, torch_module):
            is_static = isinstance(inspect.getattr_static(module, name), staticmethod)
            mine = minigrad_names(getattr(module, name), methods and not is_static)
            bound = getattr(torch.ones(2, 2), name) if methods else None
            theirs = torch_names(torch, getattr(torch_module, name), name, bound,
                                 mine.names if mine else set())
            key = f"{scope}.{name}"
            if mine is None or theirs is None:
                found[key] = "the names could not be read"
                continue
            missing = {n for n in theirs.names - mine.names if not n.startswith("_")}
            if missing:
                found[key] = missing
    return found


def test_every_keyword_pytorch_takes_minigrad_takes(torch_mod):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        found = _differences(torch_mod)
    unexplained = {k: v for k, v in found.items() if k not in KEPT or KEPT[k][0] != v}
    stale = sorted(k for k in KEPT if k not in found)
    assert not unexplained, f"keywords PyTorch takes and minigrad does not: {unexplained}"
    assert not stale, f"KEPT entries that are no longer differences: {stale}"


def test_to_takes_its_keywords(torch_mod):
    for lib in (minigrad, torch_mod):
        x, other = lib.ones(2, 2), lib.ones(1, dtype=lib.float64)
        got = x.to(device="cpu", dtype=lib.float64, non_blocking=False, copy=True,
                   memory_format=lib.preserve_format)
        assert got.dtype == lib.float64 and got is not x
        assert x.to(tensor=other).dtype == lib.float64


@pytest.mark.parametrize("call", [
    "x.permute(dims=(1, 0))", "x.reshape(shape=(4,))", "lib.reshape(x, shape=(4,))",
    "x.view(size=(4,))", "x.expand(size=(3, 2, 2))", "x.repeat(repeats=(2, 1))",
    "lib.flip(x, dims=(0,))", "x.sum_to_size(size=(1, 2))", "x.swapaxes(axis0=0, axis1=1)",
    "x.split(split_size=1)", "lib.tensor_split(x, sections=2)", "lib.matmul(input=x, other=x)",
    "lib.dot(x[0], tensor=x[1])", "lib.max(x, other=x * 2)", "x.softmax(0, dtype=lib.float64)",
    "x.float(memory_format=lib.contiguous_format)", "x.clone(memory_format=lib.preserve_format)",
    "x.numpy(force=True).tolist()", "x.clone().copy_(other=x * 3, non_blocking=True)",
    "x.clone().div_(3, rounding_mode='floor')", "lib.zeros(size=(2,), layout=lib.strided)",
    "x.new_ones(size=(2,), layout=lib.strided)", "lib.nn.functional.one_hot(input=x.long())",
    "lib.nn.functional.mse_loss(x, x * 2, weight=x + 1)", "lib.sort(x[0], out=(o, i))",
])
def test_the_new_keywords_give_what_torch_gives(call, torch_mod):
    seen = []
    for lib in (minigrad, torch_mod):
        x = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=False)
        env = {"lib": lib, "x": x, "o": lib.empty(2), "i": lib.empty(2, dtype=lib.int64)}
        got = eval(call, env)
        seen.append([g.tolist() for g in got] if isinstance(got, tuple) else
                    got.tolist() if hasattr(got, "tolist") else got)
    assert seen[0] == seen[1]


def test_legacy_loss_arguments_warn_as_torch(torch_mod):
    said = []
    for lib in (minigrad, torch_mod):
        x = lib.tensor([0.25, 0.5])
        with pytest.warns(UserWarning) as caught:
            got = lib.nn.functional.binary_cross_entropy(x, lib.ones(2), size_average=False)
        said.append((str(caught[0].message), round(got.item(), 5)))
    assert said[0] == said[1]


@pytest.mark.parametrize("call", ["x.permute(None)", "x.flip(2.0)", "x.reshape('ab')"])
def test_a_shape_of_the_wrong_type_is_refused_as_torch_refuses_it(call, torch_mod):
    said = []
    for lib in (torch_mod, minigrad):
        with pytest.raises(TypeError) as caught:
            eval(call, {"lib": lib, "x": lib.ones(2)})
        said.append(str(caught.value))
    assert said[1] == said[0]


def test_view_as_another_dtype_says_what_to_use_instead():
    with pytest.raises(TypeError, match=r"view\(\): argument 'size' \(position 1\) must be tuple "
                       r"of ints, not dtype \(x.view\(dtype\), which reads the same bytes"):
        minigrad.ones(2).view(minigrad.int32)
