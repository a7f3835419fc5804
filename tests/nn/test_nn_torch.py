"""minigrad.nn and minigrad.optim against PyTorch: same weights in, same numbers out."""

from __future__ import annotations

import numpy as np
import pytest
from test_nn import graph_cases, tree

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn, optim


def copy_weights(torch_model, mg_model) -> None:
    """PyTorch's initial weights into the minigrad model, by parameter name, via numpy."""
    state = {k: v.detach().numpy().copy() for k, v in torch_model.state_dict().items()}
    mg_model.load_state_dict(state)


def mlp(lib, dtype):
    return lib.nn.Sequential(lib.nn.Linear(4, 8), lib.nn.Tanh(), lib.nn.Linear(8, 3)).to(dtype)


def assert_params_match(torch_model, mg_model, atol: float) -> None:
    torch_params = dict(torch_model.named_parameters())
    for name, p in mg_model.named_parameters():
        np.testing.assert_allclose(p.array, torch_params[name].detach().numpy(), rtol=0,
                                   atol=atol, err_msg=name)


def test_linear_mse_sgd_step_is_minus_lr_grad_and_equals_pytorch(torch_mod):
    torch = torch_mod
    torch.manual_seed(0)
    for dtype, mg_dtype, tol in ((torch.float32, mg.float32, 1e-7),
                                 (torch.float64, mg.float64, 1e-15)):
        t_lin = torch.nn.Linear(5, 2).to(dtype)
        m_lin = nn.Linear(5, 2, dtype=mg_dtype)
        copy_weights(t_lin, m_lin)
        x = np.random.default_rng(0).normal(size=(8, 5))
        y = np.random.default_rng(1).normal(size=(8, 2))
        for lib, model, make in ((torch, t_lin, lambda a, d=dtype: torch.tensor(a, dtype=d)),
                                 (mg, m_lin, lambda a, d=mg_dtype: mg.tensor(a, dtype=d))):
            opt = (torch.optim if lib is torch else optim).SGD(model.parameters(), lr=0.01)
            opt.zero_grad()
            (torch.nn if lib is torch else nn).MSELoss()(model(make(x)), make(y)).backward()
            if lib is mg:
                before = {n: p.array.copy() for n, p in model.named_parameters()}
            opt.step()
        for name, p in m_lin.named_parameters():
            np.testing.assert_array_equal(p.array, before[name] - 0.01 * p.grad.array)
            t_p = dict(t_lin.named_parameters())[name]
            np.testing.assert_allclose(p.grad.array, t_p.grad.numpy(), rtol=0, atol=tol * 10)
        assert_params_match(t_lin, m_lin, atol=tol)


OPTIMIZERS = {
    "sgd_momentum": ("SGD", dict(lr=0.1, momentum=0.9)),
    "sgd_nesterov_decay": ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True,
                                       weight_decay=0.01)),
    "sgd_dampening": ("SGD", dict(lr=0.05, momentum=0.5, dampening=0.3, maximize=False)),
    "adam": ("Adam", dict(lr=0.01)),
    "adam_amsgrad_decay": ("Adam", dict(lr=0.02, betas=(0.8, 0.95), eps=1e-6,
                                        weight_decay=0.1, amsgrad=True)),
    "adamw": ("AdamW", dict(lr=0.01, weight_decay=0.1)),
}


@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_ten_steps_match_pytorch(torch_mod, name):
    torch = torch_mod
    cls, kwargs = OPTIMIZERS[name]
    torch.manual_seed(1)
    t_model = mlp(torch, torch.float64)
    m_model = mlp(mg, mg.float64)
    copy_weights(t_model, m_model)
    rng = np.random.default_rng(2)
    x, labels = rng.normal(size=(16, 4)), rng.integers(0, 3, 16)
    t_opt = getattr(torch.optim, cls)(t_model.parameters(), **kwargs)
    m_opt = getattr(optim, cls)(m_model.parameters(), **kwargs)
    for _ in range(10):
        for lib, model, opt in ((torch, t_model, t_opt), (mg, m_model, m_opt)):
            opt.zero_grad()
            F_ = torch.nn.functional if lib is torch else F
            F_.cross_entropy(model(lib.tensor(x)), lib.tensor(labels)).backward()
            opt.step()
    assert_params_match(t_model, m_model, atol=1e-5)
    assert_params_match(t_model, m_model, atol=1e-12)  # in fact to rounding


@pytest.mark.parametrize("case", ["linear_2d", "linear_1d", "linear_3d", "linear_nobias", "mse",
                                  "cross_entropy", "nll", "bce", "bce_logits", "tanh",
                                  "dropout"])
def test_graph_shapes_match_pytorch(torch_mod, case):
    torch = torch_mod
    t_tree = tree(graph_cases(torch, torch.nn, torch.nn.functional,
                              lambda s: torch.randn(*s, requires_grad=True))[case]().grad_fn)
    m_tree = tree(graph_cases(mg, nn, F,
                              lambda s: mg.randn(*s, requires_grad=True))[case]().grad_fn)
    assert m_tree == t_tree


def _both(torch, fn_t, fn_m, arrays, grad_of, rtol=1e-9):
    """Run fn on torch and on minigrad tensors (float64); compare value and input grads."""
    t_in = [torch.tensor(a, requires_grad=i in grad_of) for i, a in enumerate(arrays)]
    m_in = [mg.tensor(a, requires_grad=i in grad_of) for i, a in enumerate(arrays)]
    t_out, m_out = fn_t(*t_in), fn_m(*m_in)
    np.testing.assert_allclose(m_out.array, t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    weights = np.random.default_rng(9).normal(size=m_out.shape)
    (t_out * torch.tensor(weights)).sum().backward()
    (m_out * mg.tensor(weights)).sum().backward()
    for i in grad_of:
        np.testing.assert_allclose(m_in[i].grad.array, t_in[i].grad.numpy(), rtol=rtol,
                                   atol=1e-12, err_msg=f"input {i}")


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_losses_and_their_gradients_match_pytorch(torch_mod, reduction):
    torch = torch_mod
    TF = torch.nn.functional
    r = np.random.default_rng(4)
    x, t = r.normal(size=(5, 3)), r.normal(size=(5, 3))
    _both(torch, lambda a, b: TF.mse_loss(a, b, reduction=reduction),
          lambda a, b: F.mse_loss(a, b, reduction=reduction), [x, t], (0, 1))
    labels = r.integers(0, 3, 5)
    labels[1] = -100
    w = r.uniform(0.5, 2, 3)
    _both(torch, lambda a: TF.cross_entropy(a, torch.tensor(labels), reduction=reduction),
          lambda a: F.cross_entropy(a, mg.tensor(labels), reduction=reduction), [x], (0,))
    _both(torch, lambda a: TF.cross_entropy(a, torch.tensor(labels), torch.tensor(w),
                                            reduction=reduction),
          lambda a: F.cross_entropy(a, mg.tensor(labels), mg.tensor(w), reduction=reduction),
          [x], (0,))
    x3, labels3 = r.normal(size=(2, 3, 4)), r.integers(0, 3, (2, 4))
    _both(torch, lambda a: TF.nll_loss(TF.log_softmax(a, 1), torch.tensor(labels3),
                                       reduction=reduction),
          lambda a: F.nll_loss(F.log_softmax(a, 1), mg.tensor(labels3), reduction=reduction),
          [x3], (0,))
    _both(torch, lambda a: TF.cross_entropy(a, torch.tensor(2), reduction=reduction),
          lambda a: F.cross_entropy(a, mg.tensor(2), reduction=reduction), [x[0]], (0,))
    p, y = r.uniform(0.01, 0.99, (5, 3)), r.uniform(size=(5, 3))
    bw = r.uniform(size=(3,))
    _both(torch, lambda a, b: TF.binary_cross_entropy(a, b, torch.tensor(bw),
                                                      reduction=reduction),
          lambda a, b: F.binary_cross_entropy(a, b, mg.tensor(bw), reduction=reduction),
          [p, y], (0, 1))
    pw = r.uniform(0.5, 3, (3,))
    _both(torch, lambda a, b: TF.binary_cross_entropy_with_logits(
              a, b, torch.tensor(bw), reduction=reduction, pos_weight=torch.tensor(pw)),
          lambda a, b: F.binary_cross_entropy_with_logits(
              a, b, mg.tensor(bw), reduction=reduction, pos_weight=mg.tensor(pw)),
          [x * 10, y], (0, 1))


def test_bce_clamps_log_like_pytorch(torch_mod):
    torch = torch_mod
    p, y = np.array([0.0, 1.0, 0.5]), np.array([1.0, 0.0, 1.0])
    # the gradient at 0 and 1 is (x - t) / 1e-12: equal up to rounding of huge numbers
    _both(torch, torch.nn.functional.binary_cross_entropy, F.binary_cross_entropy, [p, y],
          (0,), rtol=1e-7)


def test_linear_gradients_match_pytorch_for_every_rank(torch_mod):
    torch = torch_mod
    r = np.random.default_rng(6)
    w, b = r.normal(size=(2, 3)), r.normal(size=(2,))
    for shape in [(3,), (4, 3), (2, 4, 3)]:
        x = r.normal(size=shape)
        _both(torch, torch.nn.functional.linear, F.linear, [x, w, b], (0, 1, 2))
        _both(torch, torch.nn.functional.linear, F.linear, [x, w], (0, 1))


def test_repr_and_state_dict_keys_match_pytorch(torch_mod):
    torch = torch_mod

    def build(lib):
        n = lib.nn
        return n.Sequential(n.Linear(2, 16), n.ReLU(), n.Linear(16, 2, bias=False),
                            n.Sigmoid(), n.Dropout(0.1), n.Flatten(), n.LogSoftmax(dim=1),
                            n.Identity(), n.MSELoss(), n.BCELoss(), n.NLLLoss(),
                            n.BCEWithLogitsLoss(pos_weight=lib.ones(2)))

    t_model, m_model = build(torch), build(mg)
    assert repr(m_model) == repr(t_model)
    assert list(m_model.state_dict()) == list(t_model.state_dict())
    assert [n for n, _ in m_model.named_parameters()] == \
        [n for n, _ in t_model.named_parameters()]
    assert [n for n, _ in m_model.named_modules()] == [n for n, _ in t_model.named_modules()]


def test_default_initialisation_has_pytorchs_range(torch_mod):
    torch = torch_mod
    t_lin, m_lin = torch.nn.Linear(64, 32), nn.Linear(64, 32)
    for name, t_p in t_lin.named_parameters():
        m_p = getattr(m_lin, name)
        assert m_p.dtype == mg.float32 and tuple(m_p.shape) == tuple(t_p.shape)
        assert np.abs(m_p.array).max() <= 1 / 8 and np.abs(t_p.detach().numpy()).max() <= 1 / 8
        assert abs(m_p.array.std() - t_p.detach().numpy().std()) < 0.02


def test_clip_grad_norm_matches_pytorch(torch_mod):
    torch = torch_mod
    r = np.random.default_rng(8)
    grads = [r.normal(size=(3, 4)), r.normal(size=(4,))]
    for norm_type in (2.0, 1.0, float("inf")):
        t_ps = [torch.nn.Parameter(torch.zeros(g.shape, dtype=torch.float64)) for g in grads]
        m_ps = [nn.Parameter(mg.zeros(*g.shape, dtype=mg.float64)) for g in grads]
        for tp, mp, g in zip(t_ps, m_ps, grads):
            tp.grad, mp.grad = torch.tensor(g), mg.tensor(g)
        t_total = torch.nn.utils.clip_grad_norm_(t_ps, 1.5, norm_type=norm_type)
        m_total = nn.utils.clip_grad_norm_(m_ps, 1.5, norm_type=norm_type)
        assert m_total.item() == pytest.approx(t_total.item(), rel=1e-12)
        for tp, mp in zip(t_ps, m_ps):
            np.testing.assert_allclose(mp.grad.array, tp.grad.numpy(), rtol=1e-12)


def test_whole_model_gradients_match_pytorch(torch_mod):
    torch = torch_mod
    torch.manual_seed(3)
    t_model = torch.nn.Sequential(torch.nn.Linear(3, 5), torch.nn.ReLU(), torch.nn.Linear(5, 1),
                                  torch.nn.Sigmoid()).double()
    m_model = nn.Sequential(nn.Linear(3, 5), nn.ReLU(), nn.Linear(5, 1), nn.Sigmoid()).double()
    copy_weights(t_model, m_model)
    r = np.random.default_rng(3)
    x, y = r.normal(size=(7, 3)), r.integers(0, 2, (7, 1)).astype(float)
    torch.nn.BCELoss()(t_model(torch.tensor(x)), torch.tensor(y)).backward()
    nn.BCELoss()(m_model(mg.tensor(x)), mg.tensor(y)).backward()
    t_grads = {n: p.grad.numpy() for n, p in t_model.named_parameters()}
    for name, p in m_model.named_parameters():
        np.testing.assert_allclose(p.grad.array, t_grads[name], rtol=1e-10, atol=1e-14)


def test_linear_of_a_transposed_3d_input_records_what_pytorch_records(torch_mod):
    """A non-contiguous input cannot be viewed as rows: PyTorch's F.linear takes matmul then
    adds the bias (AddBackward0 over UnsafeViewBackward0), as minigrad does now."""
    torch = torch_mod
    a = np.random.default_rng(0).normal(size=(5, 3, 8))
    w, b = np.ones((4, 8)), np.arange(4.0)
    tx = torch.tensor(a, requires_grad=True)
    mx = mg.tensor(a, requires_grad=True)
    t_out = torch.nn.functional.linear(tx.transpose(0, 1), torch.tensor(w), torch.tensor(b))
    m_out = F.linear(mx.transpose(0, 1), mg.tensor(w), mg.tensor(b))
    np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    assert m_out.grad_fn.name() == t_out.grad_fn.name() == "AddBackward0"
    assert m_out.grad_fn.next_functions[0][0].name() == "UnsafeViewBackward0"
    t_out.sum().backward()
    m_out.sum().backward()
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("args", [([0, 2],), ([[0, 1], [2, 0]],), ([0, 1], 5)])
def test_one_hot_is_pytorch_s(torch_mod, args):
    data, *rest = args
    ours = F.one_hot(mg.tensor(data), *rest)
    theirs = torch_mod.nn.functional.one_hot(torch_mod.tensor(data), *rest)
    assert ours.tolist() == theirs.tolist() and str(ours.dtype) == "minigrad.int64"


@pytest.mark.parametrize("data, rest", [([0.0, 2.0], ()), ([-1, 2], ()), ([0, 5], (3,)),
                                        ([], ()), ([0, 1], (0,))])
def test_one_hot_refuses_what_pytorch_refuses(torch_mod, data, rest):
    errors = []
    for lib, fn in ((torch_mod, torch_mod.nn.functional.one_hot), (mg, F.one_hot)):
        t = lib.tensor(data, dtype=lib.int64) if data == [] else lib.tensor(data)
        with pytest.raises(RuntimeError) as info:
            fn(t, *rest)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
