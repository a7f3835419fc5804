"""Module plumbing side by side with PyTorch: registration and its errors, buffers (persistent
or not), state_dict keys and load_state_dict's messages, lookups by dotted path, walks, dtype
moves, containers (Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict) and reprs.
"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn


def _build(lib):
    """A nested model with every container, a buffer of each kind and a shared layer."""
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            shared = lib.nn.Linear(3, 3)
            self.blocks = lib.nn.ModuleList([lib.nn.Linear(3, 3) for _ in range(2)]
                                            + [lib.nn.Tanh()])
            self.heads = lib.nn.ModuleDict({"a": shared, "b": lib.nn.Sequential(
                shared, lib.nn.GELU())})
            self.scales = lib.nn.ParameterList([lib.nn.Parameter(lib.ones(3))])
            self.extra = lib.nn.ParameterDict({"gain": lib.nn.Parameter(lib.ones(1))})
            self.register_buffer("running", lib.zeros(3))
            self.register_buffer("scratch", lib.zeros(2), persistent=False)
            self.register_buffer("unset", None)

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return self.heads["b"](x) * self.scales[0] * self.extra["gain"] + self.running

    return Net()


def test_walks_state_dict_and_repr_match_pytorch(torch_mod):
    ours, theirs = _build(mg), _build(torch_mod)
    assert [n for n, _ in ours.named_modules()] == [n for n, _ in theirs.named_modules()]
    assert [n for n, _ in ours.named_modules(prefix="net", remove_duplicate=False)] == \
        [n for n, _ in theirs.named_modules(prefix="net", remove_duplicate=False)]
    assert [n for n, _ in ours.named_children()] == [n for n, _ in theirs.named_children()]
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert [n for n, _ in ours.named_buffers()] == [n for n, _ in theirs.named_buffers()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert "scratch" not in ours.state_dict()
    assert len(list(ours.modules())) == len(list(theirs.modules()))
    ours_text = repr(ours).replace("minigrad.FloatTensor", "torch.FloatTensor")
    assert ours_text.replace("minigrad.float32", "torch.float32") == repr(theirs)
    state = {k: v.detach().numpy() for k, v in theirs.state_dict().items()}
    assert repr(ours.load_state_dict(state)) == "<All keys matched successfully>"
    x = np.random.default_rng(0).normal(size=(2, 3)).astype(np.float32)
    np.testing.assert_allclose(ours(mg.tensor(x)).array,
                               theirs(torch_mod.tensor(x)).detach().numpy(), rtol=1e-5)


def test_registration_errors_in_pytorchs_words():
    m = nn.Linear(2, 3)
    m.foo = 3
    cases = [
        (lambda: m.register_buffer(1, None), TypeError, "buffer name should be a string. Got int"),
        (lambda: m.register_buffer("a.b", None), KeyError, 'buffer name can\'t contain "."'),
        (lambda: m.register_buffer("", None), KeyError, 'buffer name can\'t be empty string ""'),
        (lambda: m.register_buffer("weight", None), KeyError, "attribute 'weight' already exists"),
        (lambda: m.register_buffer("x", 3), TypeError,
         "cannot assign 'int' object to buffer 'x' (minigrad Tensor or None required)"),
        (lambda: m.register_parameter("foo", None), KeyError, "attribute 'foo' already exists"),
        (lambda: m.register_parameter("x", mg.ones(1)), TypeError,
         "(minigrad.nn.Parameter or None required)"),
        (lambda: m.add_module("a.b", None), KeyError, 'module name can\'t contain ".", got: a.b'),
        (lambda: m.add_module(3, None), TypeError, "module name should be a string. Got int"),
        (lambda: m.add_module("x", 3), TypeError, "int is not a Module subclass"),
        (lambda: m.get_submodule("nothing"), AttributeError, "Linear has no attribute `nothing`"),
        (lambda: m.get_submodule("weight"), AttributeError, "`weight` is not an nn.Module"),
        (lambda: m.get_parameter("foo"), AttributeError, "`foo` is not an nn.Parameter"),
        (lambda: m.get_buffer("weight"), AttributeError, "`weight` is not a buffer"),
        (lambda: m.load_state_dict([1]), TypeError,
         "Expected state_dict to be dict-like, got <class 'list'>."),
        (lambda: m.train("yes"), ValueError, "training mode is expected to be boolean"),
    ]
    for call, error, message in cases:
        with pytest.raises(error) as info:
            call()
        assert message in info.value.args[0]
    m.register_buffer("rm", mg.zeros(3))
    with pytest.raises(TypeError, match="cannot assign 'int' as buffer 'rm'"):
        m.rm = 3
    m.rm = mg.ones(3)
    assert m.rm.tolist() == [1.0, 1.0, 1.0] and "rm" in m.state_dict()


def test_load_state_dict_messages_and_nothing_half_loaded():
    m = nn.Linear(2, 3)
    m.register_buffer("rm", mg.zeros(3))
    before = {k: v.clone() for k, v in m.state_dict().items()}
    bad = {"weight": np.ones((3, 2)), "bias": np.ones(2), "extra": np.ones(1)}
    with pytest.raises(RuntimeError) as info:
        m.load_state_dict(bad)
    assert str(info.value) == (
        'Error(s) in loading state_dict for Linear:\n\tMissing key(s) in state_dict: "rm". '
        '\n\tUnexpected key(s) in state_dict: "extra". \n\tsize mismatch for bias: copying a '
        "param with shape minigrad.Size([2]) from checkpoint, the shape in current model is "
        "minigrad.Size([3]).")
    assert all(np.array_equal(v, m.state_dict()[k]) for k, v in before.items())
    result = m.load_state_dict({"weight": np.ones((3, 2))}, strict=False)
    assert result == (["bias", "rm"], [])
    assert repr(result) == "_IncompatibleKeys(missing_keys=['bias', 'rm'], unexpected_keys=[])"
    assert (m.weight.array == 1).all() and m.weight.grad_fn is None


def test_dtype_moves_take_buffers_and_return_the_module():
    m = _build(mg)
    assert m.double() is m
    assert {t.dtype for t in [*m.parameters(), *m.buffers()]} == {mg.float64}
    assert m.scratch.dtype == mg.float64  # non-persistent buffers move too
    m.half()
    assert m.running.dtype == mg.float16
    assert m.to(mg.float32) is m and m.float().running.dtype == mg.float32
    assert m.to("cpu") is m and m.cpu() is m
    with pytest.raises(TypeError, match="nn.Module.to only accepts floating point dtypes"):
        m.to(mg.int64)


def test_apply_train_eval_requires_grad_zero_grad():
    m = _build(mg)
    visited = []
    assert m.apply(lambda mod: visited.append(type(mod).__name__)) is m
    # (children first, self last; the shared Linear is reached through both parents, as in
    # PyTorch's apply)
    assert visited[-1] == "Net" and visited.count("Linear") == 4
    assert m.eval() is m and not any(mod.training for mod in m.modules())
    assert m.train() is m and all(mod.training for mod in m.modules())
    m.blocks.train(False)
    assert not m.blocks[0].training and m.heads.training
    m.requires_grad_(False)
    assert not any(p.requires_grad for p in m.parameters())
    m.requires_grad_()
    m(mg.ones(1, 3)).sum().backward()
    assert all(p.grad is not None for p in m.parameters())
    m.zero_grad()
    assert all(p.grad is None for p in m.parameters())
    assert m.get_submodule("heads.b.1").__class__ is nn.GELU
    assert m.get_parameter("blocks.0.bias") is m.blocks[0].bias
    assert m.get_buffer("running") is m.running


def test_sequential_and_modulelist_edit_like_pytorch(torch_mod):
    for lib in (nn, torch_mod.nn):
        s = lib.Sequential(lib.ReLU(), lib.Tanh(), lib.Sigmoid())
        assert isinstance(s[1:], lib.Sequential) and list(s[1:]._modules) == ["1", "2"]
        del s[0]
        s.insert(1, lib.ELU())
        s.append(lib.GELU())
        s[0] = lib.ReLU6()
        popped = s.pop(1)
        assert type(popped).__name__ == "ELU" and len(s) == 3
        assert list(s._modules) == ["0", "1", "2"]
        assert [type(m).__name__ for m in s + lib.Sequential(lib.Tanh())] == [
            "ReLU6", "Sigmoid", "GELU", "Tanh"]
        with pytest.raises(IndexError, match="^index 5 is out of range$"):
            s[5]
        ml = lib.ModuleList([lib.ReLU(), lib.Tanh()])
        ml.extend([lib.ELU()])
        ml.insert(0, lib.GELU())
        del ml[1]
        assert [type(m).__name__ for m in ml] == ["GELU", "Tanh", "ELU"]
        assert list(ml._modules) == ["0", "1", "2"]
        with pytest.raises(TypeError, match="ModuleList.extend should be called with an "
                                            "iterable, but got ReLU"):
            lib.ModuleList(lib.ReLU())
        md = lib.ModuleDict({"b": lib.ReLU(), "a": lib.Tanh()})
        assert list(md) == ["b", "a"] and "a" in md and len(md) == 2
        assert type(md.pop("b")).__name__ == "ReLU" and list(md.keys()) == ["a"]
        pl = lib.ParameterList([torch_mod.ones(2) if lib is torch_mod.nn else mg.ones(2)])
        assert type(pl[0]).__name__ == "Parameter" and pl[0].requires_grad
        assert [n for n, _ in pl.named_parameters()] == ["0"]


def test_shared_module_listed_once_and_its_parameters_once():
    shared = nn.Linear(2, 2)
    model = nn.Sequential(shared, nn.ReLU(), shared)
    assert [n for n, _ in model.named_modules()] == ["", "0", "1"]
    assert len(list(model.parameters())) == 2
    assert list(model.state_dict()) == ["0.weight", "0.bias", "2.weight", "2.bias"]
    memo: set = set()
    assert len(list(model.named_modules(memo))) == 3 and len(memo) == 3
