"""What nodes saved, under PyTorch's names; nodes called by hand; saved-tensor hooks."""

import numpy as np
import pytest

import minigrad

torch = pytest.importorskip("torch")


def both(build):
    """build(module) on minigrad and torch, from the same values."""
    out = []
    for m in (minigrad, torch):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = m.tensor([0.5, -1.0, 2.0], requires_grad=True)
        a = m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        b = m.tensor(np.arange(12.0).reshape(3, 4).tolist(), requires_grad=True)
        out.append((build(m, x, y, a, b), (x, y, a, b)))
    return out


def plain(value, inputs):
    """A saved value comparable across engines: an input's name, numbers, or a list."""
    if value is None or isinstance(value, int | float | bool | tuple):
        return value
    for name, t in zip("xyab", inputs):
        if value is t:
            return name
    return np.asarray(value.detach().numpy(), dtype=float).ravel().tolist()


CASES = {
    "mul": (lambda m, x, y, a, b: x * y, ["_saved_self", "_saved_other"]),
    "mul_number": (lambda m, x, y, a, b: x * 3, ["_saved_self", "_saved_other"]),
    "div": (lambda m, x, y, a, b: x / y, ["_saved_self", "_saved_other"]),
    "pow": (lambda m, x, y, a, b: x.pow(3), ["_saved_self", "_saved_exponent"]),
    "exp": (lambda m, x, y, a, b: x.exp(), ["_saved_result"]),
    "tanh": (lambda m, x, y, a, b: x.tanh(), ["_saved_result"]),
    "sigmoid": (lambda m, x, y, a, b: x.sigmoid(), ["_saved_result"]),
    "relu": (lambda m, x, y, a, b: y.relu(), ["_saved_result"]),
    "log": (lambda m, x, y, a, b: x.log(), ["_saved_self"]),
    "sum": (lambda m, x, y, a, b: a.sum(), ["_saved_self_sym_sizes"]),
    "sum_dim": (lambda m, x, y, a, b: a.sum(0),
                ["_saved_dim", "_saved_keepdim", "_saved_self_sym_sizes"]),
    "mean": (lambda m, x, y, a, b: a.mean(), ["_saved_self_sym_sizes", "_saved_self_sym_numel"]),
    "mean_dim": (lambda m, x, y, a, b: a.mean(1, keepdim=True), ["_saved_dim", "_saved_keepdim"]),
    "mm": (lambda m, x, y, a, b: a @ b, ["_saved_self", "_saved_mat2", "_saved_self_sym_sizes",
                                         "_saved_mat2_sym_sizes"]),
    "dot": (lambda m, x, y, a, b: x @ y, ["_saved_self", "_saved_tensor"]),
    "mv": (lambda m, x, y, a, b: a @ x, ["_saved_self", "_saved_vec"]),
    "softmax": (lambda m, x, y, a, b: m.softmax(a, 1), ["_saved_dim", "_saved_result"]),
    "add_alpha": (lambda m, x, y, a, b: m.add(x, y, alpha=2), ["_saved_alpha"]),
    "view": (lambda m, x, y, a, b: a.view(6), ["_saved_self_sym_sizes"]),
    "transpose": (lambda m, x, y, a, b: a.transpose(0, 1), ["_saved_dim0", "_saved_dim1"]),
    "clamp": (lambda m, x, y, a, b: x.clamp(-1, 2), ["_saved_self", "_saved_min", "_saved_max"]),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_saved_attributes_are_torchs(case):
    build, names = CASES[case]
    (ours, our_inputs), (theirs, their_inputs) = both(build)
    assert ours.grad_fn.name() == theirs.grad_fn.name()
    for name in names:
        got = plain(getattr(ours.grad_fn, name), our_inputs)
        want = plain(getattr(theirs.grad_fn, name), their_inputs)
        assert got == pytest.approx(want) if isinstance(want, list) else got == want, name


def test_unknown_saved_name_is_pytorchs_attribute_error_and_dir_names_what_exists():
    z = minigrad.ones(3, requires_grad=True).pow(3)
    with pytest.raises(AttributeError, match=r"^'PowBackward0' object has no attribute "
                                             r"'_saved_foo'$"):  # (PyTorch's words)
        z.grad_fn._saved_foo
    assert [a for a in dir(z.grad_fn) if a.startswith("_saved_")] == ["_saved_exponent",
                                                                       "_saved_self"]
    assert not hasattr(z.grad_fn, "foo")


def test_saved_tensors_are_freed_by_backward_numbers_stay():
    x = minigrad.ones(3, requires_grad=True)
    z = x.pow(3)
    z.sum().backward()
    assert z.grad_fn._saved_exponent == 3
    with pytest.raises(RuntimeError) as theirs:
        t = torch.ones(3, requires_grad=True).pow(3)
        t.sum().backward()
        t.grad_fn._saved_self
    with pytest.raises(RuntimeError) as ours:
        z.grad_fn._saved_self
    assert str(ours.value) == str(theirs.value).replace("torch.", "minigrad.")


def test_nodes_are_callable_as_in_torch():
    for m in (minigrad, torch):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        s = (x * 2).sum()
        assert s.grad_fn(m.tensor(1.0)).tolist() == [1.0, 1.0, 1.0]
        with pytest.raises(TypeError, match="expected 1 arguments, got 2 instead"):
            s.grad_fn(m.tensor(1.0), m.tensor(1.0))
        acc = (x * x).grad_fn.next_functions[0][0]
        assert acc.name() == "torch::autograd::AccumulateGrad"
        assert type(acc).__name__ == "AccumulateGrad"
        assert acc(m.ones(3)) == () and x.grad.tolist() == [1.0, 1.0, 1.0]
        assert isinstance(acc, m.autograd.graph.Node)
        assert isinstance(s.grad_fn, m.autograd.graph.Node)


def hooks_log(m, build):
    log = []

    def pack(t):
        log.append(("pack", tuple(t.shape)))
        return t

    def unpack(t):
        log.append(("unpack", tuple(t.shape)))
        return t

    a = m.ones(3, requires_grad=True)
    with m.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = build(a)
    log.append("forward done")
    y.sum().backward()
    return log, a.grad.tolist()


@pytest.mark.parametrize("build", [lambda a: a.exp() * a, lambda a: (a * 2).tanh(),
                                   lambda a: a * a])
def test_saved_tensors_hooks_pack_once_and_unpack_on_backward(build):
    (ours, our_grad), (theirs, their_grad) = hooks_log(minigrad, build), hooks_log(torch, build)
    assert ours == theirs and our_grad == pytest.approx(their_grad)


def test_saved_tensors_hooks_errors_are_torchs():
    for m in (minigrad, torch):
        a = m.ones(3, requires_grad=True)
        with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: 3):
            y = a * a
        with pytest.raises(TypeError, match="^Output of saved tensor unpack_hook expected to be "
                                            "a Tensor but got result of type int$"):
            y.sum().backward()
        b = a.detach().requires_grad_()
        with pytest.raises(RuntimeError, match="^A saved tensor pack hook is modifying its input"):
            with m.autograd.graph.saved_tensors_hooks(lambda t: t.mul_(2), lambda t: t):
                b * a
        with pytest.raises(RuntimeError, match="^no hooks here$"):
            with m.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
                with m.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                    pass


def test_save_on_cpu_gives_the_same_gradient():
    a = minigrad.tensor([1.0, 2.0], requires_grad=True)
    with minigrad.autograd.graph.save_on_cpu(pin_memory=False):
        y = (a * a).exp()
    y.sum().backward()
    assert a.grad.tolist() == pytest.approx((2 * np.array([1.0, 2.0]) *
                                             np.exp([1.0, 4.0])).tolist())
