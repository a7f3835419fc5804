"""Devices as on a CPU-only PyTorch: the CPU works everywhere, CUDA fails in PyTorch's words."""

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("args", [("cpu",), ("cpu", 0), ("cuda:0",), ("cuda",), ("cuda", 1)])
def test_device_construction_repr_and_fields_match_torch(args):
    ours, theirs = minigrad.device(*args), torch.device(*args)
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
    assert (ours.type, ours.index) == (theirs.type, theirs.index)


def test_device_equality_is_torchs():
    assert minigrad.device("cpu") == minigrad.device("cpu")
    assert minigrad.device("cpu", 0) != minigrad.device("cpu")
    assert (minigrad.device("cpu") == "cpu") is (torch.device("cpu") == "cpu") is False
    assert {minigrad.device("cpu"): 1}[minigrad.device("cpu")] == 1


@pytest.mark.parametrize("bad", ["gpu", "cuda:x", "cpu:0:1", ""])
def test_bad_device_strings_raise_torchs_error(bad):
    with pytest.raises(RuntimeError) as theirs:
        torch.device(bad)
    with pytest.raises(RuntimeError) as ours:
        minigrad.device(bad)
    assert str(ours.value) == str(theirs.value)


def test_tensor_device_and_cpu_moves():
    x = minigrad.ones(2)
    assert x.device == minigrad.device("cpu") and repr(x.device) == "device(type='cpu')"
    assert x.cpu() is x and x.to("cpu") is x and x.to(minigrad.device("cpu")) is x
    assert x.get_device() == -1 and not x.is_pinned() and not x.is_cuda


def test_the_usual_device_idiom_picks_the_cpu():
    device = minigrad.device("cuda" if minigrad.cuda.is_available() else "cpu")
    x = minigrad.zeros(2, 3, device=device).to(device)
    assert x.device == device and minigrad.cuda.device_count() == 0
    assert minigrad.tensor([1.0], device="cpu").device.type == "cpu"


@pytest.mark.parametrize("make", [
    lambda m: m.ones(2).cuda(),
    lambda m: m.ones(2).to("cuda"),
    lambda m: m.ones(2).to(device="cuda"),
    lambda m: m.ones(2).to(m.device("cuda:0")),
    lambda m: m.ones(2, device="cuda"),
    lambda m: m.tensor([1.0], device="cuda"),
    lambda m: m.randn(2, device="cuda"),
])
def test_cuda_fails_as_on_cpu_only_torch_and_says_what_to_change(make):
    with pytest.raises(AssertionError) as theirs:
        make(torch)
    with pytest.raises(AssertionError) as ours:
        make(minigrad)
    first, hint = str(ours.value).split("\n")
    assert first == str(theirs.value) == "Torch not compiled with CUDA enabled"
    assert 'device = "cpu"' in hint and "torch.cuda.is_available()" in hint


def test_gpu_code_copied_from_a_tutorial_runs_or_explains():
    minigrad.cuda.manual_seed(0)
    minigrad.cuda.manual_seed_all(0)
    minigrad.backends.cudnn.deterministic = True
    minigrad.backends.cudnn.benchmark = False
    assert minigrad.backends.mps.is_available() is torch.backends.mps.is_available() is False
    with pytest.raises(RuntimeError, match="Cannot access accelerator device when none is "
                                           "available.\nminigrad computes on the CPU"):
        minigrad.ones(2).pin_memory()
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        minigrad.cuda.current_device()


def test_to_reads_dtype_device_tensor_and_copy_as_torch():
    x = minigrad.ones(2)
    assert x.to(minigrad.float64).dtype == minigrad.float64
    assert x.to("cpu", minigrad.float64).dtype == minigrad.float64
    assert x.to(minigrad.ones(1, dtype=minigrad.float64)).dtype == minigrad.float64
    assert x.to(device="cpu", dtype=minigrad.float64, non_blocking=True).dtype == minigrad.float64
    y = x.to(minigrad.float32, copy=True)
    assert y is not x and np.shares_memory(y.array, x.array) is False
    for m in (minigrad, torch):
        w = m.ones(2, requires_grad=True)
        assert w.to(m.float32, copy=True).grad_fn.name() == "ToCopyBackward0"
        assert w.to(m.float64).grad_fn.name() == "ToCopyBackward0"


def test_to_with_a_bad_combination_raises_torchs_type_error():
    with pytest.raises(TypeError) as theirs:
        torch.ones(2).to("cpu", "cpu")
    with pytest.raises(TypeError) as ours:
        minigrad.ones(2).to("cpu", "cpu")
    assert str(ours.value) == str(theirs.value)
