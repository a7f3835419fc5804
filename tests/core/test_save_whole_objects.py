"""PyTorch's "save and load the model" on minigrad: `save(model, path)` writes the whole model;
`load(path)` refuses it with PyTorch's words (weights_only is True by default) and
`load(path, weights_only=False)` gives it back, working, with Parameters that are Parameters.
And a view is saved with its whole storage, as PyTorch saves it."""

from __future__ import annotations

import pickle
import zipfile

import numpy as np
import pytest

import minigrad


def _model(lib):
    lib.manual_seed(0)
    return lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.ReLU(), lib.nn.Linear(4, 2))


def test_the_tutorials_whole_model_round_trip(tmp_path, torch_mod):
    for lib in (minigrad, torch_mod):
        model = _model(lib)
        path = tmp_path / f"{lib.__name__}.pth"
        lib.save(model, path)
        with pytest.raises(pickle.UnpicklingError) as refused:
            lib.load(path)
        assert str(refused.value).startswith(
            "Weights only load failed. This file can still be loaded, to do so you have two "
            "options, \x1b[1mdo those steps only if you trust the source of the checkpoint"
            "\x1b[0m. \n\t(1) In PyTorch 2.6, we changed the default value")
        assert "Unsupported global: GLOBAL " in str(refused.value)
        again = lib.load(path, weights_only=False)
        assert repr(again) == repr(model)
        assert type(again[0].weight).__name__ == "Parameter" and again[0].weight.requires_grad
        x = lib.ones(1, 3)
        assert lib.equal(again(x), model(x))
        again(x).sum().backward()
        assert again[0].weight.grad is not None


def test_whole_model_files_do_not_cross_between_the_engines(tmp_path, torch_mod):
    torch_mod.save(torch_mod.nn.Linear(2, 2), tmp_path / "t.pth")
    with pytest.raises(pickle.UnpicklingError, match="torch.nn.modules.linear.Linear, a "
                       "PyTorch class"):
        minigrad.load(tmp_path / "t.pth", weights_only=False)
    minigrad.save(minigrad.nn.Linear(2, 2), tmp_path / "m.pth")
    with pytest.raises(pickle.UnpicklingError):
        torch_mod.load(tmp_path / "m.pth")  # (its weights-only loader refuses minigrad's class)


def test_a_state_dict_still_goes_both_ways_after_a_whole_model(tmp_path, torch_mod):
    model = _model(minigrad)
    minigrad.save(model.state_dict(), tmp_path / "w.pth")
    theirs = _model(torch_mod)
    theirs.load_state_dict(torch_mod.load(tmp_path / "w.pth"))
    np.testing.assert_allclose(theirs[0].weight.detach().numpy(),
                               model[0].weight.detach().numpy())


def test_a_view_is_saved_with_its_whole_storage(tmp_path, torch_mod):
    sizes = []
    for lib in (minigrad, torch_mod):
        x = lib.arange(10.0)
        lib.save({"a": x[2:5], "b": x.view(2, 5).t()}, tmp_path / "v.pt")
        with zipfile.ZipFile(tmp_path / "v.pt") as z:
            sizes.append(sorted(len(z.read(n)) for n in z.namelist() if "/data/" in n))
        for loader in (minigrad, torch_mod):
            got = loader.load(tmp_path / "v.pt")
            assert got["a"].tolist() == [2.0, 3.0, 4.0]
            assert got["b"].tolist() == x.view(2, 5).t().tolist()
    assert sizes[0] == sizes[1] == [40]  # one storage of ten float32s, as PyTorch writes


def test_a_flipped_or_cast_view_is_saved_as_a_copy(tmp_path):
    x = minigrad.arange(6.0)
    minigrad.save([x.flip(0), x.view(2, 3)[:, ::2]], tmp_path / "c.pt")
    flipped, strided = minigrad.load(tmp_path / "c.pt")
    assert flipped.tolist() == [5.0, 4.0, 3.0, 2.0, 1.0, 0.0]
    assert strided.tolist() == [[0.0, 2.0], [3.0, 5.0]]
