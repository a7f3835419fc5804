"""Inference tensors, side by side with PyTorch: what `inference_mode` makes is an inference
tensor (`is_inference()`), which autograd may not save and which may not change in place
outside inference mode (PyTorch's errors); `clone()` outside gives a normal tensor."""

from __future__ import annotations

import pytest

import minigrad


def _story(lib) -> list:
    said = []
    x = lib.ones(2, requires_grad=True)
    with lib.inference_mode():
        y = x * 2
        said += [lib.is_inference_mode_enabled(), y.is_inference(), lib.ones(2).is_inference(),
                 y.requires_grad]
    said += [lib.is_inference_mode_enabled(), x.is_inference(), y.clone().is_inference(),
             (lib.ones(2) + y).is_inference()]
    for attempt in (lambda: (y * x).sum().backward(), lambda: y.add_(1)):
        with pytest.raises(RuntimeError) as caught:
            attempt()
        said.append(str(caught.value))
    with lib.inference_mode(False):
        said += [lib.ones(1).is_inference(), lib.is_inference_mode_enabled()]
    with lib.no_grad():
        said.append(lib.ones(1).is_inference())

    @lib.inference_mode()
    def made_inside():
        return lib.ones(1).is_inference(), lib.is_inference_mode_enabled()

    said.append(made_inside())
    return said


def test_inference_tensors_follow_torch(torch_mod):
    assert _story(minigrad) == _story(torch_mod)
