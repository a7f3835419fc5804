"""nn.utils.parametrize, nn.utils.parametrizations (weight_norm, spectral_norm) and the older
hook-based nn.utils.weight_norm / spectral_norm, side by side with PyTorch: the module's
printed form, class, parameter and buffer names, state_dict keys, values and gradients of
training steps, caching, removal, and errors in PyTorch's words."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, X):
            return X.triu() + X.triu(1).transpose(-1, -2)

        def right_inverse(self, A):
            return A.triu()

    return Symmetric()


def _linear(lib, n_in=3, n_out=3):
    lib.manual_seed(0)
    layer = lib.nn.Linear(n_in, n_out).double()
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(np.sin(np.arange(n_in * n_out) + 1.0).reshape(n_out,
                                                                                    n_in)))
        layer.bias.fill_(0.1)
    return layer


def _train(lib, layer, steps=3):
    opt = lib.optim.SGD(layer.parameters(), lr=0.1)
    x = lib.tensor(np.linspace(-1, 1, 2 * layer.in_features).reshape(2, -1))
    losses = []
    for _ in range(steps):
        opt.zero_grad()
        loss = (layer(x).tanh() ** 2).sum()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def _facts(lib, layer):
    return (repr(layer), type(layer).__name__, [n for n, _ in layer.named_parameters()],
            [n for n, _ in layer.named_buffers()], list(layer.state_dict()))


@pytest.mark.parametrize("how", ["symmetric", "weight_norm", "weight_norm_dim_none",
                                 "spectral_norm", "two_parametrizations"])
def test_parametrized_layers_print_name_and_train_as_torchs(how, torch_mod):
    results = []
    for lib in (minigrad, torch_mod):
        layer, P = _linear(lib), lib.nn.utils.parametrize
        if how == "symmetric":
            P.register_parametrization(layer, "weight", _symmetric(lib))
        elif how.startswith("weight_norm"):
            lib.nn.utils.parametrizations.weight_norm(layer, dim=None if "none" in how else 0)
        elif how == "spectral_norm":
            layer = lib.nn.utils.parametrizations.spectral_norm(layer).eval()
            norm = layer.parametrizations.weight[0]
            with lib.no_grad():
                norm._u.copy_(lib.tensor([0.6, 0.0, 0.8]))
                norm._v.copy_(lib.tensor([0.0, 0.6, 0.8]))
        else:
            P.register_parametrization(layer, "weight", _symmetric(lib))
            P.register_parametrization(layer, "weight", lib.nn.Tanh())
        weight = layer.weight.detach().numpy().copy()
        results.append((_facts(lib, layer), weight, _train(lib, layer),
                        layer.weight.detach().numpy(), P.is_parametrized(layer),
                        P.is_parametrized(layer, "bias"),
                        P.type_before_parametrizations(layer).__name__))
    ours, theirs = results
    assert ours[0][0] == theirs[0][0].replace("torch.", "minigrad.")
    assert ours[0][1:] == theirs[0][1:] and ours[4:] == theirs[4:]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-10)
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-10)


@pytest.mark.parametrize("leave", [True, False])
def test_removing_gives_the_class_and_the_same_parameter_object_back(leave, torch_mod):
    results = []
    for lib in (minigrad, torch_mod):
        layer, P = _linear(lib), lib.nn.utils.parametrize
        P.register_parametrization(layer, "weight", _symmetric(lib))
        original = layer.parametrizations.weight.original
        P.remove_parametrizations(layer, "weight", leave_parametrized=leave)
        assert layer.weight is original
        results.append((_facts(lib, layer), layer.weight.detach().numpy()))
        with pytest.raises(ValueError, match="does not have a parametrization on weight"):
            P.remove_parametrizations(layer, "weight")
    assert results[0][0][1:] == results[1][0][1:]
    np.testing.assert_allclose(results[0][1], results[1][1])


def test_assigning_goes_through_right_inverse_and_cached_computes_once(torch_mod):
    for lib in (minigrad, torch_mod):
        layer, P = _linear(lib), lib.nn.utils.parametrize
        P.register_parametrization(layer, "weight", _symmetric(lib))
        layer.weight = lib.eye(3, dtype=lib.float64) * 2
        assert lib.equal(layer.parametrizations.weight.original, lib.eye(3,
                                                                         dtype=lib.float64) * 2)
        assert layer.weight is not layer.weight
        with P.cached():
            assert layer.weight is layer.weight
        assert layer.weight is not layer.weight


@pytest.mark.parametrize("call, error", [
    ("P.register_parametrization(layer, 'nothing', lib.nn.Identity())", ValueError),
    ("P.register_parametrization(layer, 'weight', Shrink())", ValueError),
    ("P.register_parametrization(layer, 'weight', Retype())", ValueError),
    ("lib.nn.utils.parametrizations.spectral_norm(layer, n_power_iterations=0)", ValueError),
    ("lib.nn.utils.parametrizations.spectral_norm(layer, dim=3)", IndexError),
    ("lib.nn.utils.parametrizations.spectral_norm(layer, 'nothing')", ValueError),
])
def test_misuse_raises_torchs_error_and_changes_nothing(call, error, torch_mod):
    messages = []
    for lib in (torch_mod, minigrad):
        class Shrink(lib.nn.Module):
            def forward(self, x):
                return x[:2]

        class Retype(lib.nn.Module):
            def forward(self, x):
                return x.float()

        layer, P = _linear(lib), lib.nn.utils.parametrize
        with pytest.raises(error) as caught:
            eval(call, {"P": P, "layer": layer, "lib": lib, "Shrink": Shrink, "Retype": Retype})
        messages.append(str(caught.value).replace("torch.", "minigrad."))
        assert type(layer).__name__ == "Linear" and "weight" in dict(layer.named_parameters())
    assert messages[1] == messages[0]


def test_the_older_hook_based_weight_norm_and_spectral_norm_are_torchs(torch_mod):
    results = []
    for lib in (minigrad, torch_mod):
        with pytest.warns(FutureWarning, match="`torch.nn.utils.weight_norm` is deprecated in "
                          "favor of `torch.nn.utils.parametrizations.weight_norm`."):
            layer = lib.nn.utils.weight_norm(_linear(lib))
        names = [n for n, _ in layer.named_parameters()]
        losses = _train(lib, layer)
        lib.nn.utils.remove_weight_norm(layer)
        spectral = lib.nn.utils.spectral_norm(_linear(lib)).eval()
        with lib.no_grad():
            spectral.weight_u.copy_(lib.tensor([0.6, 0.0, 0.8]))
            spectral.weight_v.copy_(lib.tensor([0.0, 0.6, 0.8]))
        spectral_facts = ([n for n, _ in spectral.named_parameters()],
                          [n for n, _ in spectral.named_buffers()], _train(lib, spectral))
        lib.nn.utils.remove_spectral_norm(spectral)
        results.append((names, losses, [n for n, _ in layer.named_parameters()],
                        layer.weight.detach().numpy(), spectral_facts[:2], spectral_facts[2],
                        [n for n, _ in spectral.named_parameters()]))
        with pytest.raises(RuntimeError, match="Cannot register two spectral_norm hooks"):
            lib.nn.utils.spectral_norm(lib.nn.utils.spectral_norm(_linear(lib)))
    ours, theirs = results
    assert ours[0] == theirs[0] and ours[2] == theirs[2] and ours[4] == theirs[4]
    assert ours[6] == theirs[6]
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10)
    np.testing.assert_allclose(ours[3], theirs[3], rtol=1e-10)
    np.testing.assert_allclose(ours[5], theirs[5], rtol=1e-10)


def test_spectral_norm_brings_the_largest_singular_value_to_one():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        layer = minigrad.nn.utils.parametrizations.spectral_norm(minigrad.nn.Linear(4, 3))
    for _ in range(30):  # (training mode: a power-iteration step per forward)
        weight = layer.weight
    sigma = np.linalg.svd(weight.detach().numpy(), compute_uv=False)[0]
    assert abs(sigma - 1) < 1e-4
