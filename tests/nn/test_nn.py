"""minigrad.nn on its own: Module bookkeeping, layers, losses, graphs and gradients."""

from __future__ import annotations

import copy
import math
from collections import OrderedDict

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn, optim


def tree(fn) -> str:
    """A grad_fn as the facts file writes it: Name[(child, input_nr), ...]."""
    if fn is None:
        return "None"
    name = type(fn).__name__
    if name == "AccumulateGrad":
        return f"AccumulateGrad(variable.shape={tuple(fn.variable.shape)})"
    return f"{name}[" + ", ".join(f"({tree(n)}, {nr})" for n, nr in fn.next_functions) + "]"


def numeric_grad(f, array: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of the scalar f() with respect to every entry of `array`."""
    grad = np.zeros_like(array)
    for i in np.ndindex(array.shape):
        old = array[i]
        array[i] = old + eps
        up = f()
        array[i] = old - eps
        down = f()
        array[i] = old
        grad[i] = (up - down) / (2 * eps)
    return grad


def check_grads(fn, *arrays: np.ndarray, seed: int = 0) -> None:
    """backward of sum(fn(*tensors) * r) against central differences, for every input."""
    tensors = [mg.tensor(a, dtype=mg.float64, requires_grad=True) for a in arrays]
    out = fn(*tensors)
    weights = np.random.default_rng(seed).normal(size=out.shape)
    (out * mg.tensor(weights)).sum().backward()
    for i, t in enumerate(tensors):
        work = [a.astype(np.float64).copy() for a in arrays]

        def value(work: list = work) -> float:
            with mg.no_grad():
                res = fn(*[mg.tensor(a) for a in work])
            return float((res.array * weights).sum())

        expected = numeric_grad(value, work[i])
        np.testing.assert_allclose(t.grad.array, expected, rtol=1e-5, atol=1e-7,
                                   err_msg=f"input {i}")


class Net(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(2, 3)
        self.act = nn.ReLU()
        self.fc2 = nn.Linear(3, 1)

    def forward(self, x):
        return self.fc2(self.act(self.fc1(x)))


# -- Module bookkeeping ------------------------------------------------------------------------
def test_named_parameters_use_dotted_names():
    assert [n for n, _ in Net().named_parameters()] == [
        "fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    seq = nn.Sequential(nn.Linear(2, 4), nn.Tanh(), nn.Linear(4, 1))
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias", "2.weight",
                                                      "2.bias"]
    outer = nn.Sequential(OrderedDict(body=Net(), head=nn.Linear(1, 1, bias=False)))
    assert [n for n, _ in outer.named_parameters()] == [
        "body.fc1.weight", "body.fc1.bias", "body.fc2.weight", "body.fc2.bias", "head.weight"]
    assert all(isinstance(p, nn.Parameter) for p in outer.parameters())


def test_children_modules_and_named_modules():
    net = Net()
    assert [type(m).__name__ for m in net.children()] == ["Linear", "ReLU", "Linear"]
    assert [n for n, _ in net.named_modules()] == ["", "fc1", "act", "fc2"]
    assert list(net.modules())[0] is net


def test_shared_parameters_are_listed_once():
    shared = nn.Linear(2, 2)
    seq = nn.Sequential(shared, shared)
    assert [n for n, _ in seq.named_parameters()] == ["0.weight", "0.bias"]
    assert len(list(seq.modules())) == 2


def test_plain_tensors_and_lists_are_not_registered_but_modulelist_is():
    class M(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.t = mg.zeros(2, requires_grad=True)
            self.plain = [nn.Linear(1, 1)]
            self.layers = nn.ModuleList([nn.Linear(1, 1), nn.Linear(1, 1)])

    assert [n for n, _ in M().named_parameters()] == [
        "layers.0.weight", "layers.0.bias", "layers.1.weight", "layers.1.bias"]


def test_parameter_is_a_tensor_that_requires_grad():
    p = nn.Parameter(mg.tensor([1.0, 2.0]))
    assert isinstance(p, mg.Tensor) and p.requires_grad and p.is_leaf
    assert repr(p) == "Parameter containing:\ntensor([1., 2.], requires_grad=True)"
    assert not nn.Parameter(mg.zeros(1), requires_grad=False).requires_grad
    assert type(p * 2) is mg.Tensor


def test_assignment_errors_and_missing_forward():
    class Early(nn.Module):
        def __init__(self) -> None:
            self.w = nn.Parameter(mg.ones(1))

    with pytest.raises(AttributeError, match=r"before Module.__init__\(\) call"):
        Early()

    class NoForward(nn.Module):
        pass

    with pytest.raises(NotImplementedError, match=r'Module \[NoForward\] is missing the '
                                                  r'required "forward" function'):
        NoForward()(1)
    net = Net()
    with pytest.raises(TypeError, match="cannot assign 'Tensor' as parameter 'weight'"):
        net.fc1.weight = mg.zeros(3, 2)
    with pytest.raises(AttributeError, match="'Net' object has no attribute 'fc3'"):
        net.fc3


def test_repr_matches_pytorch_layout():
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2), nn.Softmax(dim=1),
                          nn.Dropout(), nn.Flatten(), nn.Identity())
    assert repr(model) == (
        "Sequential(\n"
        "  (0): Linear(in_features=2, out_features=16, bias=True)\n"
        "  (1): ReLU()\n"
        "  (2): Linear(in_features=16, out_features=2, bias=True)\n"
        "  (3): Softmax(dim=1)\n"
        "  (4): Dropout(p=0.5, inplace=False)\n"
        "  (5): Flatten(start_dim=1, end_dim=-1)\n"
        "  (6): Identity()\n"
        ")")
    assert repr(Net()) == ("Net(\n  (fc1): Linear(in_features=2, out_features=3, bias=True)\n"
                           "  (act): ReLU()\n"
                           "  (fc2): Linear(in_features=3, out_features=1, bias=True)\n)")


def test_zero_grad_set_to_none_and_in_place():
    net = Net()
    net(mg.randn(4, 2)).sum().backward()
    net.zero_grad(set_to_none=False)
    assert all(p.grad is not None and not p.grad.array.any() for p in net.parameters())
    net.zero_grad()
    assert all(p.grad is None for p in net.parameters())


def test_train_eval_and_dropout():
    model = nn.Sequential(nn.Linear(4, 4), nn.Dropout(0.5))
    assert model.training and model[1].training
    assert model.eval() is model and not model[1].training
    x = mg.randn(8, 4)
    assert nn.Dropout(0.5).eval()(x) is x
    mg.manual_seed(3)
    y = nn.Dropout(0.25)(mg.ones(1000, dtype=mg.float64))
    kept = y.array[y.array != 0]
    assert np.allclose(kept, 1 / 0.75) and 0.65 < kept.size / 1000 < 0.85
    assert not nn.Dropout(1.0)(mg.ones(5)).array.any()
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but "
                                         "got 1.5"):
        F.dropout(x, 1.5)


def test_state_dict_round_trip(torch_mod):
    a, b = Net(), Net()
    state = a.state_dict()
    assert list(state) == ["fc1.weight", "fc1.bias", "fc2.weight", "fc2.bias"]
    assert all(isinstance(v, mg.Tensor) and not v.requires_grad for v in state.values())
    assert repr(b.load_state_dict(state)) == "<All keys matched successfully>"
    x = mg.randn(5, 2)
    assert np.array_equal(a(x).array, b(x).array)
    # as in PyTorch, the tensors share memory with the parameters: training a afterwards
    # changes the state taken before (copy.deepcopy keeps one)
    kept = copy.deepcopy(a.state_dict())
    with mg.no_grad():
        a.fc1.weight.add_(1.0)
    assert np.array_equal(state["fc1.weight"].array, a.fc1.weight.array)
    assert np.array_equal(kept["fc1.weight"].array, b.fc1.weight.array)
    assert a.state_dict(keep_vars=True)["fc1.weight"] is a.fc1.weight
    t = torch_mod.nn.Linear(2, 3)
    s = t.state_dict()
    with torch_mod.no_grad():
        t.weight.add_(1.0)
    assert torch_mod.equal(s["weight"], t.weight) and not s["weight"].requires_grad


def test_load_state_dict_errors_in_pytorch_words():
    net = Net()
    bad = {"fc1.weight": np.zeros((3, 3)), "extra": np.zeros(1)}
    with pytest.raises(RuntimeError) as err:
        net.load_state_dict(bad)
    assert str(err.value) == (
        'Error(s) in loading state_dict for Net:\n'
        '\tMissing key(s) in state_dict: "fc1.bias", "fc2.weight", "fc2.bias". \n'
        '\tUnexpected key(s) in state_dict: "extra". \n'
        '\tsize mismatch for fc1.weight: copying a param with shape minigrad.Size([3, 3]) from '
        'checkpoint, the shape in current model is minigrad.Size([3, 2]).')
    partial = {"fc2.bias": np.array([7.0])}
    result = net.load_state_dict(partial, strict=False)
    assert result.missing_keys == ["fc1.weight", "fc1.bias", "fc2.weight"]
    assert result.unexpected_keys == []
    assert net.fc2.bias.item() == 7.0 and net.fc2.bias.dtype == mg.float32


def test_device_and_dtype_moves():
    net = Net()
    assert net.to("cpu") is net and net.cpu() is net
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        net.cuda()
    with pytest.raises(AssertionError, match="minigrad computes on the CPU"):
        net.to("cuda:0")
    assert net.double() is net and all(p.dtype == mg.float64 for p in net.parameters())
    net.to(mg.float32)
    assert all(p.dtype == mg.float32 for p in net.parameters())


def test_forward_hook_sees_activations():
    net = Net()
    seen = []
    handle = net.act.register_forward_hook(lambda m, inp, out: seen.append(out.shape))
    net(mg.randn(4, 2))
    handle.remove()
    net(mg.randn(4, 2))
    assert seen == [mg.Size([4, 3])]


def test_call_passes_keyword_arguments_to_forward():
    class Scale(nn.Module):
        def forward(self, x, factor=2.0):
            return x * factor

    x = mg.tensor([1.0, 2.0])
    assert Scale()(x).tolist() == [2.0, 4.0]
    assert Scale()(x, factor=3.0).tolist() == [3.0, 6.0]
    assert Scale()(x=x, factor=0.5).tolist() == [0.5, 1.0]


# -- Linear ------------------------------------------------------------------------------------
def test_linear_init_is_pytorchs_uniform_and_seeded():
    mg.manual_seed(0)
    a = nn.Linear(100, 50)
    bound = 1 / math.sqrt(100)
    for p in (a.weight, a.bias):
        assert np.abs(p.array).max() <= bound and np.abs(p.array).max() > 0.9 * bound
        assert p.dtype == mg.float32
    mg.manual_seed(0)
    assert np.array_equal(nn.Linear(100, 50).weight.array, a.weight.array)
    assert nn.Linear(3, 2, dtype=mg.float64).weight.dtype == mg.float64


def test_linear_computes_x_wt_plus_b_for_any_rank():
    layer = nn.Linear(3, 2).double()
    w, b = layer.weight.array, layer.bias.array
    for shape in [(3,), (4, 3), (5, 4, 3)]:
        x = np.random.default_rng(0).normal(size=shape)
        np.testing.assert_allclose(layer(mg.tensor(x)).array, x @ w.T + b)
    no_bias = nn.Linear(3, 2, bias=False).double()
    assert no_bias.bias is None and [n for n, _ in no_bias.named_parameters()] == ["weight"]
    assert repr(no_bias) == "Linear(in_features=3, out_features=2, bias=False)"


def test_linear_errors_in_pytorch_words():
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied "
                                           r"\(4x5 and 3x2\)"):
        nn.Linear(3, 2)(mg.randn(4, 5))
    with pytest.raises(RuntimeError, match="mat1 and mat2 must have the same dtype, but got "
                                           "Double and Float"):
        nn.Linear(3, 2)(mg.tensor(np.zeros((4, 3))))


GRAPHS = {  # from the facts file (torch 2.13)
    "linear_2d": "AddmmBackward0[(AccumulateGrad(variable.shape=(4,)), 0), (AccumulateGrad("
                 "variable.shape=(2, 3)), 0), (TBackward0[(AccumulateGrad(variable.shape=(4, 3)"
                 "), 0)], 0)]",
    "linear_1d": "ViewBackward0[(AddmmBackward0[(AccumulateGrad(variable.shape=(4,)), 0), (View"
                 "Backward0[(AccumulateGrad(variable.shape=(3,)), 0)], 0), (TBackward0[(Accumul"
                 "ateGrad(variable.shape=(4, 3)), 0)], 0)], 0)]",
    "linear_3d": "ViewBackward0[(AddmmBackward0[(AccumulateGrad(variable.shape=(4,)), 0), (View"
                 "Backward0[(AccumulateGrad(variable.shape=(5, 2, 3)), 0)], 0), (TBackward0[(Ac"
                 "cumulateGrad(variable.shape=(4, 3)), 0)], 0)], 0)]",
    "linear_nobias": "MmBackward0[(AccumulateGrad(variable.shape=(2, 3)), 0), (TBackward0[(Accu"
                     "mulateGrad(variable.shape=(4, 3)), 0)], 0)]",
    "mse": "MseLossBackward0[(AccumulateGrad(variable.shape=(2, 3)), 0), (None, 0)]",
    "cross_entropy": "NllLossBackward0[(LogSoftmaxBackward0[(AccumulateGrad(variable.shape=(4, "
                     "5)), 0)], 0)]",
    "nll": "NllLossBackward0[(LogSoftmaxBackward0[(AccumulateGrad(variable.shape=(4, 5)), 0)], "
           "0)]",
    "bce": "BinaryCrossEntropyBackward0[(SigmoidBackward0[(AccumulateGrad(variable.shape=(3,)),"
           " 0)], 0), (None, 0)]",
    "bce_logits": "BinaryCrossEntropyWithLogitsBackward0[(AccumulateGrad(variable.shape=(3,)), "
                  "0), (None, 0)]",
    "tanh": "TanhBackward0[(AccumulateGrad(variable.shape=(3,)), 0)]",
    "dropout": "MulBackward0[(AccumulateGrad(variable.shape=(3,)), 0), (None, 0)]",
}


def graph_cases(lib, nn_mod, F_mod, make):
    """The facts file's expressions, for minigrad or torch (`make(shape)`: a leaf)."""
    lin = nn_mod.Linear(3, 4)
    lin_nb = nn_mod.Linear(3, 4, bias=False)
    labels = lib.tensor([0, 3, 1, 4])
    return {
        "linear_2d": lambda: lin(make((2, 3))),
        "linear_1d": lambda: lin(make((3,))),
        "linear_3d": lambda: lin(make((5, 2, 3))),
        "linear_nobias": lambda: lin_nb(make((2, 3))),
        "mse": lambda: F_mod.mse_loss(make((2, 3)), lib.zeros(2, 3)),
        "cross_entropy": lambda: F_mod.cross_entropy(make((4, 5)), labels),
        "nll": lambda: F_mod.nll_loss(F_mod.log_softmax(make((4, 5)), dim=1), labels),
        "bce": lambda: F_mod.binary_cross_entropy(lib.sigmoid(make((3,))), lib.ones(3) / 2),
        "bce_logits": lambda: F_mod.binary_cross_entropy_with_logits(make((3,)), lib.ones(3)),
        "tanh": lambda: nn_mod.Tanh()(make((3,))),
        "dropout": lambda: F_mod.dropout(make((3,)), 0.5, True),
    }


@pytest.mark.parametrize("case", sorted(GRAPHS))
def test_graph_shapes_match_the_facts_file(case):
    fn = graph_cases(mg, nn, F, lambda s: mg.randn(*s, requires_grad=True))[case]
    assert tree(fn().grad_fn) == GRAPHS[case]


# -- losses --------------------------------------------------------------------------------
def test_loss_values_and_reductions():
    rng = np.random.default_rng(1)
    x, t = rng.normal(size=(4, 3)), rng.normal(size=(4, 3))
    for reduction, fold in (("mean", np.mean), ("sum", np.sum), ("none", lambda a: a)):
        got = nn.MSELoss(reduction=reduction)(mg.tensor(x), mg.tensor(t)).array
        np.testing.assert_allclose(got, fold((x - t) ** 2))
    logits, labels = rng.normal(size=(4, 3)), np.array([0, 2, 1, 2])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    picked = -logp[np.arange(4), labels]
    np.testing.assert_allclose(F.cross_entropy(mg.tensor(logits), labels).array, picked.mean())
    np.testing.assert_allclose(
        nn.CrossEntropyLoss(reduction="none")(mg.tensor(logits), mg.tensor(labels)).array, picked)
    w = np.array([1.0, 2.0, 0.5])
    np.testing.assert_allclose(F.nll_loss(mg.tensor(logp), labels, mg.tensor(w)).array,
                               (picked * w[labels]).sum() / w[labels].sum())
    p, y = 1 / (1 + np.exp(-x)), (t > 0).astype(float)
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    np.testing.assert_allclose(nn.BCELoss()(mg.tensor(p), mg.tensor(y)).array, bce.mean())
    np.testing.assert_allclose(nn.BCEWithLogitsLoss(reduction="sum")(
        mg.tensor(x), mg.tensor(y)).array, bce.sum())


def test_loss_errors_in_pytorch_words():
    x = mg.randn(3, 4)
    with pytest.raises(ValueError, match="avg is not a valid value for reduction"):
        nn.MSELoss(reduction="avg")(x, x)  # (checked when called, as in PyTorch)
    with pytest.raises(RuntimeError, match="expected target dtype to be Long or Byte, but got "
                                           "Float "):
        F.nll_loss(x, mg.tensor([0.0, 1.0, 2.0]))
    with pytest.raises(ValueError, match=r"Expected input batch_size \(3\) to match target "
                                         r"batch_size \(2\)."):
        F.cross_entropy(x, mg.tensor([0, 1]))
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        F.cross_entropy(x, mg.tensor([0, 1, 7]))
    with pytest.raises(RuntimeError, match="all elements of input should be between 0 and 1"):
        F.binary_cross_entropy(mg.tensor([1.5]), mg.tensor([1.0]))
    with pytest.raises(ValueError, match="is deprecated. Please ensure they have the same size"):
        F.binary_cross_entropy(mg.rand(3, 1), mg.rand(3))
    with pytest.warns(UserWarning, match="This will likely lead to incorrect results due to "
                                         "broadcasting"):
        F.mse_loss(mg.randn(3, 1), mg.randn(3))


def test_ignore_index_and_class_probabilities():
    logits = mg.tensor(np.random.default_rng(2).normal(size=(3, 4)), requires_grad=True)
    loss = F.cross_entropy(logits, mg.tensor([1, -100, 3]))
    full = F.cross_entropy(logits, mg.tensor([1, 3, 3]), reduction="none")
    np.testing.assert_allclose(loss.array, (full.array[0] + full.array[2]) / 2)
    loss.backward()
    assert not logits.grad.array[1].any()
    probs = np.eye(4)[[1, 0, 3]]
    np.testing.assert_allclose(F.cross_entropy(logits, mg.tensor(probs)).array,
                               F.cross_entropy(logits, mg.tensor([1, 0, 3])).array)


# -- gradients against finite differences (float64) ------------------------------------------
def _rng(seed=0):
    return np.random.default_rng(seed)


def test_addmm_gradients_by_finite_differences():
    r = _rng()
    check_grads(lambda x, w, b: F.linear(x, w, b), r.normal(size=(4, 3)), r.normal(size=(2, 3)),
                r.normal(size=(2,)))
    check_grads(lambda x, w, b: F.linear(x, w, b), r.normal(size=(2, 4, 3)),
                r.normal(size=(2, 3)), r.normal(size=(2,)))
    check_grads(lambda x, w: F.linear(x, w), r.normal(size=(3,)), r.normal(size=(2, 3)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_loss_gradients_by_finite_differences(reduction):
    r = _rng(5)
    x, t = r.normal(size=(4, 3)), r.normal(size=(4, 3))
    check_grads(lambda a, b: F.mse_loss(a, b, reduction=reduction), x, t)
    with pytest.warns(UserWarning, match="different to the input size"):
        check_grads(lambda a, b: F.mse_loss(a, b, reduction=reduction), x, t[:1])  # broadcast
    labels = mg.tensor([0, 2, 1, 2])
    w = mg.tensor([0.5, 2.0, 1.5], dtype=mg.float64)
    check_grads(lambda a: F.cross_entropy(a, labels, reduction=reduction), x)
    check_grads(lambda a: F.nll_loss(a, labels, w, reduction=reduction, ignore_index=1), x)
    check_grads(lambda a: F.nll_loss(a, mg.tensor(2), reduction=reduction), x[0])
    x3, labels3 = r.normal(size=(2, 3, 5)), mg.tensor(r.integers(0, 3, (2, 5)))
    check_grads(lambda a: F.cross_entropy(a, labels3, reduction=reduction), x3)
    p, y = r.uniform(0.05, 0.95, size=(4, 3)), r.uniform(size=(4, 3))
    check_grads(lambda a, b: F.binary_cross_entropy(a, b, reduction=reduction), p, y)
    w3, w43 = mg.tensor(r.uniform(size=3)), mg.tensor(r.uniform(size=(4, 3)))
    check_grads(lambda a, b: F.binary_cross_entropy(a, b, w3, reduction=reduction), p, y)
    pw = mg.tensor(r.uniform(0.5, 2, size=3))
    check_grads(lambda a, b: F.binary_cross_entropy_with_logits(
        a, b, w43, reduction=reduction, pos_weight=pw), x, y)
    check_grads(lambda a, b: F.binary_cross_entropy_with_logits(a, b, reduction=reduction), x, y)


def test_second_order_through_losses():
    """Backward formulas are Tensor ops, so create_graph=True can differentiate them."""
    x = mg.tensor([0.3, -1.2, 2.0], dtype=mg.float64, requires_grad=True)
    t = mg.tensor([1.0, 0.0, 1.0], dtype=mg.float64)
    (g,) = mg.autograd.grad(F.binary_cross_entropy_with_logits(x, t, reduction="sum"), x,
                            create_graph=True)
    g.sum().backward()
    s = 1 / (1 + np.exp(-x.array))
    np.testing.assert_allclose(x.grad.array, s * (1 - s))


def test_freed_graph_after_backward():
    x = mg.randn(3, 4, requires_grad=True)
    loss = F.cross_entropy(x, mg.tensor([0, 1, 2]))
    loss.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second "
                                           "time"):
        loss.backward()


# -- training ----------------------------------------------------------------------------------
def xor_blobs(n: int = 200, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    centres = np.array([[1, 1], [-1, -1], [1, -1], [-1, 1]], dtype=np.float64)
    which = rng.integers(0, 4, n)
    x = centres[which] + rng.normal(scale=0.3, size=(n, 2))
    return x.astype(np.float32), (which >= 2).astype(np.int64)


def test_mlp_learns_xor_blobs():
    mg.manual_seed(0)
    x, y = xor_blobs()
    model = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 2))
    opt = optim.Adam(model.parameters(), lr=0.05)
    loss_fn = nn.CrossEntropyLoss()
    inputs, labels = mg.tensor(x), mg.tensor(y)
    for _ in range(150):
        opt.zero_grad()
        loss = loss_fn(model(inputs), labels)
        loss.backward()
        opt.step()
    with mg.no_grad():
        accuracy = (model(inputs).argmax(1).array == y).mean()
    assert accuracy >= 0.95, f"train accuracy {accuracy:.2%} after 150 steps, loss {loss.item()}"


def test_init_functions_and_module_apply():
    def reinit(m):
        if isinstance(m, nn.Linear):
            nn.init.xavier_uniform_(m.weight, gain=nn.init.calculate_gain("tanh"))
            nn.init.zeros_(m.bias)

    model = nn.Sequential(nn.Linear(30, 20), nn.Tanh(), nn.Linear(20, 10)).apply(reinit)
    bound = 5 / 3 * math.sqrt(6 / 50)
    assert np.abs(model[0].weight.array).max() <= bound
    assert not model[0].bias.array.any() and not model[2].bias.array.any()
    assert model[0].weight.is_leaf and model[0].weight.requires_grad
    w = nn.Parameter(mg.zeros(400, 100))
    nn.init.kaiming_normal_(w, nonlinearity="relu")
    assert abs(w.array.std() - math.sqrt(2 / 100)) < 0.01
    nn.init.constant_(w, 0.5)
    assert (w.array == 0.5).all()
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed"):
        nn.init.xavier_uniform_(nn.Parameter(mg.zeros(3)))
