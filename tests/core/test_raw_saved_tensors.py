"""`grad_fn._raw_saved_<name>.register_hooks(pack, unpack)` (the saved-tensors-hooks tutorial's
last section) and the order a product packs and unpacks its factors, side by side with
PyTorch: both print the same lines."""

from __future__ import annotations

import pytest

import minigrad


def _hooked_backward(lib) -> list[str]:
    said = []
    x = lib.tensor([1.0, 2.0], requires_grad=True)
    w = x.pow(2)
    raw = w.grad_fn._raw_saved_self
    raw.register_hooks(lambda t: said.append(f"pack {t}") or t * 10,
                       lambda t: said.append(f"unpack {t}") or t / 10)
    for hooks in ((lambda t: t, lambda t: t), (1, 2)):
        try:
            raw.register_hooks(*hooks)
        except (RuntimeError, TypeError) as error:
            said.append(f"{type(error).__name__} {str(error).splitlines()[0]}")
    said.append(repr(w.grad_fn._saved_self))
    w.sum().backward()
    said.append(repr(x.grad))
    e = x.exp()
    e.grad_fn._raw_saved_result.register_hooks(lambda t: said.append("pack result") or t,
                                               lambda t: said.append("unpack result") or t)
    e.sum().backward()
    m = x * 3
    try:
        m.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)
    except RuntimeError as error:
        said.append(str(error))
    return [s.replace("minigrad", "torch") for s in said]


def test_raw_saved_tensor_hooks_as_torch(torch_mod):
    assert _hooked_backward(minigrad) == _hooked_backward(torch_mod)


def _product_order(lib) -> list[str]:
    said = []
    a = lib.ones(2, requires_grad=True)
    b = lib.ones(2, requires_grad=True) * 2
    with lib.autograd.graph.saved_tensors_hooks(
            lambda t: said.append(f"pack {t.round(decimals=3).tolist()}") or t,
            lambda t: said.append(f"unpack {t.round(decimals=3).tolist()}") or t):
        y = (a * b).exp() * a
    y.sum().backward()
    return said


def test_a_product_packs_its_second_factor_first_as_torch(torch_mod):
    assert _product_order(minigrad) == _product_order(torch_mod)


def test_a_name_the_node_does_not_save_is_an_attribute_error():
    with pytest.raises(AttributeError, match="_raw_saved_nothing"):
        minigrad.ones(1, requires_grad=True).exp().grad_fn._raw_saved_nothing
