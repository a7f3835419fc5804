"""The activation modules and functions against PyTorch: reprs, values and gradients of the
modules, in-place behaviour, warnings and errors in PyTorch's words. (The ops' gradients,
second derivatives and node names are checked by the op table: tests/ops/test_ops_table.py.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn

# (constructor arguments, as text that both libraries' nn evaluate)
MODULES = [
    "GELU()", "GELU('tanh')", "GELU(approximate='tanh')", "LeakyReLU()",
    "LeakyReLU(0.2, True)", "ELU()", "ELU(0.5, inplace=True)", "SELU()", "SELU(True)",
    "SiLU()", "SiLU(inplace=True)", "Softplus()", "Softplus(2, 10)", "Softplus(beta=0.5)",
    "Hardtanh()", "Hardtanh(-2, 2, True)", "Hardtanh(-0.5, 0.25)", "ReLU6()", "ReLU6(True)",
    "Mish()", "Softmin(dim=1)", "Softmin(1)", "Softmax(1)", "LogSoftmax(dim=1)", "ReLU()",
    "ReLU(inplace=True)", "Identity()", "Sigmoid()", "Tanh()",
]


def _build(lib_nn, text):
    return eval(text, {}, vars(lib_nn))  # (the test's own constructor text)


@pytest.mark.parametrize("text", MODULES)
def test_module_repr_values_and_gradients_match_pytorch(text, torch_mod):
    torch = torch_mod
    x = np.random.default_rng(3).normal(size=(4, 5)) * 3
    g = np.random.default_rng(4).normal(size=(4, 5))
    ours, theirs = _build(nn, text), _build(torch.nn, text)
    assert repr(ours) == repr(theirs)
    a = mg.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    ya, yb = ours(a * 1), theirs(b * 1)  # (on a non-leaf, so that inplace=True may write)
    ya.backward(mg.tensor(g))
    yb.backward(torch.tensor(g))
    np.testing.assert_allclose(ya.array, yb.detach().numpy(), rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(a.grad.array, b.grad.numpy(), rtol=1e-12, atol=1e-14)
    assert (ya.grad_fn is None) == (yb.grad_fn is None)
    if ya.grad_fn is not None:
        assert ya.grad_fn.name() == yb.grad_fn.name()


@pytest.mark.parametrize("name", ["gelu", "leaky_relu", "elu", "selu", "silu", "softplus",
                                  "hardtanh", "relu6", "mish"])
def test_float32_stays_float32_and_matches_pytorch(name, torch_mod):
    x = np.linspace(-25, 25, 41, dtype=np.float32)
    ours = getattr(F, name)(mg.tensor(x))
    theirs = getattr(torch_mod.nn.functional, name)(torch_mod.tensor(x))
    assert ours.dtype == mg.float32
    np.testing.assert_allclose(ours.array, theirs.numpy(), rtol=1e-6, atol=1e-6)


def test_inplace_writes_into_the_input_and_takes_over_the_node():
    for call, node in [(lambda z: F.leaky_relu(z, 0.1, inplace=True), "LeakyReluBackward1"),
                       (lambda z: F.elu(z, inplace=True), "EluBackward1"),
                       (lambda z: F.relu(z, inplace=True), "ReluBackward0"),
                       (lambda z: F.hardtanh(z, inplace=True), "HardtanhBackward0"),
                       (lambda z: nn.SiLU(inplace=True)(z), "SiluBackward0")]:
        x = mg.tensor([-2.0, 0.5, 3.0], requires_grad=True)
        z = x * 1
        out = call(z)
        assert out is z and z.grad_fn.name() == node and z._version == 1
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            call(x)
        assert x.grad_fn is None and x._version == 0
    x = mg.tensor([-2.0, 0.5])
    assert F.leaky_relu(x, 0.5, inplace=True) is x and x.tolist() == [-1.0, 0.5]


def test_softmax_family_warns_like_pytorch_without_dim(torch_mod):
    x = mg.tensor([[1.0, 2.0], [3.0, 4.0]])
    for module, name in [(nn.Softmax(), "softmax"), (nn.LogSoftmax(), "log_softmax"),
                         (nn.Softmin(), "softmin")]:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = module(x)
        assert [str(w.message) for w in caught] == [
            f"Implicit dimension choice for {name} has been deprecated. Change the call to "
            "include dim=X as an argument."]
        theirs = getattr(torch_mod.nn, type(module).__name__)(dim=1)(torch_mod.tensor(x.array))
        np.testing.assert_allclose(out.array, theirs.numpy(), rtol=1e-6)


def test_errors_in_pytorch_words():
    x = mg.tensor([1.0, -1.0])
    with pytest.raises(RuntimeError, match="^approximate argument must be either none or tanh"):
        F.gelu(x, approximate="exact")
    with pytest.raises(RuntimeError, match="^approximate argument must be either none or tanh"):
        nn.GELU("exact")(x)
    with pytest.raises(AssertionError, match=r"^max_val \(1\) must be greater than min_val \(2"):
        nn.Hardtanh(2, 1)
    with pytest.raises(ValueError, match="^min_val cannot be greater than max_val$"):
        F.hardtanh(x, 2.0, 1.0)
    for name, kernel in [("gelu", "GeluKernelImpl"), ("leaky_relu", "leaky_relu_cpu"),
                         ("elu", "elu_cpu"), ("silu", "silu_cpu"), ("softplus", "softplus_cpu"),
                         ("mish", "mish_cpu")]:
        with pytest.raises(NotImplementedError, match=f'^"{kernel}" not implemented for '
                                                      "'Long'$"):
            getattr(F, name)(mg.tensor([1, 2]))
    assert F.relu6(mg.tensor([-1, 7, 3])).tolist() == [0, 6, 3]


def test_softplus_is_linear_past_the_threshold_and_never_overflows():
    x = mg.tensor([-1000.0, 0.0, 5.0, 1000.0], dtype=mg.float64, requires_grad=True)
    y = F.softplus(x, beta=2.0, threshold=4.0)
    y.sum().backward()
    np.testing.assert_allclose(y.array, [0.0, np.log(2) / 2, 5.0, 1000.0])
    np.testing.assert_allclose(x.grad.array, [0.0, 0.5, 1.0, 1.0])
    x = mg.tensor([-1000.0, 1000.0], dtype=mg.float64, requires_grad=True)
    F.elu(x).sum().backward()
    assert np.isfinite(x.grad.array).all()


def test_gelu_second_and_third_derivatives_match_pytorch(torch_mod):
    torch = torch_mod
    x = np.linspace(-3, 3, 7)
    a = mg.tensor(x, requires_grad=True)
    b = torch.tensor(x, requires_grad=True)
    for approximate in ("none", "tanh"):
        ga, gb = F.gelu(a, approximate=approximate), torch.nn.functional.gelu(
            b, approximate=approximate)
        for _ in range(3):
            (ga,) = mg.autograd.grad(ga.sum(), a, create_graph=True)
            (gb,) = torch.autograd.grad(gb.sum(), b, create_graph=True)
            np.testing.assert_allclose(ga.array, gb.detach().numpy(), rtol=1e-10, atol=1e-12)
