"""Issue 35: an optimizer step, clip_grad_norm_ and clip_grad_value_ change everything or
nothing. They raise PyTorch's error for a parameter (or gradient) they cannot write, but
before touching any other one, where PyTorch has already updated the parameters before it
(tutorials/differences.md, "A refused call changes nothing"); a listener (a trace) that raises
when told of a change stops the whole step too. Before, the first parameter kept its update,
Adam had advanced its state, and the gradients were left half-clipped.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from minigrad.autograd import events
from side_by_side import outcome

OPTIMIZERS = {
    "SGD": lambda lib, ps: lib.optim.SGD(ps, lr=0.1),
    "SGD momentum": lambda lib, ps: lib.optim.SGD(ps, lr=0.1, momentum=0.9),
    "Adam": lambda lib, ps: lib.optim.Adam(ps, lr=0.1),
    "AdamW": lambda lib, ps: lib.optim.AdamW(ps, lr=0.1),
    "RMSprop": lambda lib, ps: lib.optim.RMSprop(ps, lr=0.1, momentum=0.5),
    "Adagrad": lambda lib, ps: lib.optim.Adagrad(ps, lr=0.1),
}


def state_of(params, optimizer=None):
    """Every parameter, gradient and optimizer state entry, as plain numbers."""
    seen = [(p.detach().numpy().tolist(), None if p.grad is None else p.grad.numpy().tolist(),
             p._version) for p in params]
    if optimizer is not None:
        seen.append([{k: np.asarray(v).tolist() if not isinstance(v, minigrad.Tensor) else
                      v.numpy().tolist() for k, v in optimizer.state[p].items()}
                     for p in params])
    return seen


def _params(lib):
    """Three parameters; the last one's memory cannot be written (an expanded tensor)."""
    ps = [lib.nn.Parameter(lib.tensor([1.0, 2.0, 3.0])),
          lib.nn.Parameter(lib.tensor([-1.0, 0.5, 2.0])),
          lib.nn.Parameter(lib.ones(1).expand(3))]
    for p in ps:
        p.grad = lib.tensor([0.5, -1.0, 2.0])
    return ps


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_a_step_that_cannot_write_a_parameter_changes_nothing(name, torch_mod):
    """Two good steps first (so there is state), then a step that meets the expanded one."""
    ps = _params(minigrad)
    optimizer = OPTIMIZERS[name](minigrad, ps[:2])
    optimizer.step()
    optimizer.step()
    optimizer.add_param_group({"params": [ps[2]]})
    before = state_of(ps, optimizer)
    ours = outcome(optimizer.step)
    assert state_of(ps, optimizer) == before

    tps = _params(torch_mod)
    theirs = outcome(OPTIMIZERS[name](torch_mod, tps).step)
    assert ours == theirs and ours[0] == "RuntimeError"


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_a_listener_that_raises_stops_the_whole_step(name):
    """A trace (any events listener) is told of every change before the first is made."""
    ps = _params(minigrad)[:2]
    optimizer = OPTIMIZERS[name](minigrad, ps)
    optimizer.step()
    before = state_of(ps, optimizer)
    told = []

    def listener(event):
        if isinstance(event, events.InPlaceChange):
            told.append(event)
            if len(told) == 2:
                raise KeyError("the listener failed")
    with events.listen(listener), pytest.raises(KeyError):
        optimizer.step()
    assert state_of(ps, optimizer) == before


def test_a_read_only_array_is_refused_before_any_parameter_changes():
    """A parameter on memory numpy may not write (a read-only array)."""
    frozen = np.array([1.0, 2.0], dtype=np.float32)
    frozen.flags.writeable = False
    ps = [minigrad.nn.Parameter(minigrad.tensor([1.0, 2.0])),
          minigrad.nn.Parameter(minigrad.from_numpy(frozen))]
    for p in ps:
        p.grad = minigrad.ones(2)
    optimizer = minigrad.optim.Adam(ps)
    before = state_of(ps, optimizer)
    with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
        optimizer.step()
    assert state_of(ps, optimizer) == before


CLIPS = {
    "clip_grad_norm_": lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, 1.0),
    "clip_grad_norm_(inf)": lambda lib, ps: lib.nn.utils.clip_grad_norm_(ps, 1.0, "inf"),
    "clip_grad_value_": lambda lib, ps: lib.nn.utils.clip_grad_value_(ps, 0.5),
}


def _grads(lib):
    ps = [lib.nn.Parameter(lib.ones(3)) for _ in range(3)]
    ps[0].grad = lib.tensor([10.0, -4.0, 2.0])
    ps[1].grad = lib.tensor([3.0, 0.25, -7.0])
    ps[2].grad = lib.tensor([2.0]).expand(3)  # cannot be written in place
    return ps


@pytest.mark.parametrize("name", sorted(CLIPS))
def test_clipping_that_cannot_write_a_gradient_clips_none(name, torch_mod):
    ps = _grads(minigrad)
    before = state_of(ps)
    ours = outcome(lambda: CLIPS[name](minigrad, ps))
    assert state_of(ps) == before
    theirs = outcome(lambda: CLIPS[name](torch_mod, _grads(torch_mod)))
    assert ours == theirs and ours[0] == "RuntimeError"


@pytest.mark.parametrize("name", sorted(CLIPS))
def test_clipping_stopped_by_a_listener_clips_none(name):
    ps = _grads(minigrad)[:2]
    before = state_of(ps)

    def listener(event):
        if isinstance(event, events.InPlaceChange) and event.tensor is ps[1].grad:
            raise KeyError("the listener failed")
    with events.listen(listener), pytest.raises(KeyError):
        CLIPS[name](minigrad, ps)
    assert state_of(ps) == before
