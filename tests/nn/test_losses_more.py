"""The losses beyond mse/nll/bce and cross_entropy's options, against PyTorch: values,
gradients, node names, module reprs and signatures, warnings and errors in PyTorch's words.
(Their gradients, second derivatives and graphs are checked by the op table and the corpus.)
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn

RNG = np.random.default_rng(0)
X, T = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))
P = RNG.dirichlet(np.ones(3), 4)
LABELS = np.array([0, 2, 1, 2])
W = np.array([1.0, 2.0, 3.0])
X4, L4 = RNG.normal(size=(2, 3, 4, 5)), RNG.integers(0, 3, (2, 4, 5))
P4 = RNG.dirichlet(np.ones(3), (2, 4, 5)).transpose(0, 3, 1, 2).copy()

CASES = [  # (function, arrays, keyword arguments)
    ("l1_loss", (X, T), {}), ("l1_loss", (X, T), {"weight": np.abs(T)}),
    ("smooth_l1_loss", (X, T), {"beta": 0.5}), ("smooth_l1_loss", (X, T), {"beta": 0.0}),
    ("huber_loss", (X, T), {"delta": 0.7}), ("huber_loss", (X, T), {"weight": np.abs(T)}),
    ("kl_div", (np.log(P), P), {}), ("kl_div", (np.log(P), np.log(P) + 0.1),
                                     {"log_target": True}),
    ("cross_entropy", (X, LABELS), {"label_smoothing": 0.2}),
    ("cross_entropy", (X, LABELS), {"label_smoothing": 0.2, "weight": W, "ignore_index": 2}),
    ("cross_entropy", (X, P), {}), ("cross_entropy", (X, P), {"weight": W,
                                                               "label_smoothing": 0.3}),
    ("cross_entropy", (X4, L4), {"label_smoothing": 0.1, "weight": W}),
    ("cross_entropy", (X4, P4), {}), ("cross_entropy", (X[0], np.array(1)),
                                      {"label_smoothing": 0.3}),
    ("cross_entropy", (X[:, :, None], LABELS[:, None]), {"ignore_index": 0}),
    ("nll_loss", (X4, L4), {"weight": W, "ignore_index": 1}),
]


def _both(torch, name, arrays, kwargs, reduction):
    ours = [mg.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    theirs = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    kw_ours = {k: mg.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
    kw_theirs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v
                 for k, v in kwargs.items()}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = getattr(F, name)(*ours, reduction=reduction, **kw_ours)
        b = getattr(torch.nn.functional, name)(*theirs, reduction=reduction, **kw_theirs)
    return ours, theirs, a, b


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("name, arrays, kwargs", CASES)
def test_values_gradients_and_nodes_match_pytorch(name, arrays, kwargs, reduction, torch_mod):
    ours, theirs, a, b = _both(torch_mod, name, arrays, kwargs, reduction)
    g = RNG.normal(size=a.shape)
    a.backward(mg.tensor(g))
    b.backward(torch_mod.tensor(g))
    assert a.grad_fn.name() == b.grad_fn.name()
    np.testing.assert_allclose(a.array, b.detach().numpy(), rtol=1e-10, atol=1e-12)
    for x, y in zip(ours, theirs):
        if y.grad is not None:
            np.testing.assert_allclose(x.grad.array, y.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_kl_div_batchmean_and_its_warning_for_mean(torch_mod):
    _, _, a, b = _both(torch_mod, "kl_div", (np.log(P), P), {}, "batchmean")
    np.testing.assert_allclose(a.array, b.detach().numpy(), rtol=1e-12)
    with pytest.warns(UserWarning, match="^reduction: 'mean' divides the total loss by both the "
                                         "batch size and the support size.'batchmean'"):
        F.kl_div(mg.tensor(np.log(P)), mg.tensor(P))
    with pytest.raises(RuntimeError, match="^kl_div: Integral inputs not supported.$"):
        F.kl_div(mg.tensor(X), mg.tensor([[1, 0, 0]] * 4), reduction="sum")
    for lib in (mg, torch_mod):  # a target 0 that requires grad: loss 0 there, gradient nan
        t = lib.tensor([0.0, 0.5, 0.5], requires_grad=True)
        fn = F.kl_div if lib is mg else torch_mod.nn.functional.kl_div
        loss = fn(lib.tensor([-1.0, -1.0, -1.0]), t, reduction="none")
        loss.sum().backward()
        half = 0.5 * np.log(0.5) + 0.5
        np.testing.assert_allclose(loss.detach().numpy(), [0, half, half], rtol=1e-6)
        np.testing.assert_allclose(t.grad.numpy(), [np.nan, np.log(0.5) + 2, np.log(0.5) + 2],
                                   rtol=1e-6)


def test_modules_have_pytorchs_signature_repr_and_options(torch_mod):
    torch = torch_mod
    for text in ["L1Loss()", "SmoothL1Loss(beta=0.5)", "HuberLoss(delta=2.0)",
                 "KLDivLoss(reduction='batchmean', log_target=True)",
                 "CrossEntropyLoss(label_smoothing=0.1, ignore_index=1)", "NLLLoss()",
                 "MSELoss(reduction='sum')", "BCELoss()", "BCEWithLogitsLoss()"]:
        ours, theirs = eval("nn." + text, {"nn": nn}), eval("nn." + text, {"nn": torch.nn})
        assert repr(ours) == repr(theirs)
        for attr in ("reduction", "beta", "delta", "log_target", "label_smoothing",
                     "ignore_index"):
            assert getattr(ours, attr, None) == getattr(theirs, attr, None), (text, attr)
    loss = nn.CrossEntropyLoss(mg.tensor(W), label_smoothing=0.2)
    expected = torch.nn.CrossEntropyLoss(torch.tensor(W), label_smoothing=0.2)
    np.testing.assert_allclose(loss(mg.tensor(X), mg.tensor(LABELS)).array,
                               expected(torch.tensor(X), torch.tensor(LABELS)).numpy())
    assert list(loss.state_dict()) == list(expected.state_dict()) == ["weight"]


def test_legacy_size_average_and_reduce_as_pytorch_reads_them(torch_mod):
    with pytest.warns(UserWarning, match=r"^size_average and reduce args will be deprecated, "
                                         r"please use reduction='sum' instead.$"):
        loss = nn.L1Loss(size_average=False)
    assert loss.reduction == "sum"
    with pytest.warns(UserWarning, match="reduction='none'"):
        assert F.nll_loss(mg.tensor(X), mg.tensor(LABELS), reduce=False).shape == (4,)


def test_target_checks_in_pytorch_words():
    x = mg.tensor(X)
    with pytest.raises(RuntimeError, match="^label_smoothing must be between 0.0 and 1.0. Got: "
                                           "1.5$"):
        F.cross_entropy(x, mg.tensor(LABELS), label_smoothing=1.5)
    with pytest.raises(RuntimeError, match="^ignore_index is not supported for floating point "
                                           "target$"):
        F.cross_entropy(x, mg.tensor(P), ignore_index=1)
    with pytest.raises(RuntimeError, match=r"^cross_entropy: weight tensor should be defined "
                                           r"either for all 3 classes or no classes but got "
                                           r"weight tensor of shape: \[2\]$"):
        F.cross_entropy(x, mg.tensor(P), weight=mg.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match=r"^weight tensor should be defined either for all 3 "
                                           r"classes or no classes but got weight tensor of "
                                           r"shape: \[2\]$"):
        F.cross_entropy(x, mg.tensor(LABELS), weight=mg.tensor([1.0, 2.0]))
    with pytest.raises(RuntimeError, match="^expected target dtype to be Long or Byte, but got "
                                           "Float"):
        F.cross_entropy(x, mg.tensor(LABELS, dtype=mg.float32))
    with pytest.raises(RuntimeError, match="^smooth_l1_loss does not support negative values "
                                           "for beta.$"):
        F.smooth_l1_loss(x, mg.tensor(T), beta=-1)
    with pytest.raises(RuntimeError, match="^huber_loss does not support non-positive values "
                                           "for delta.$"):
        F.huber_loss(x, mg.tensor(T), delta=0)
    with pytest.raises(ValueError, match="^Weights and input must have the same size.$"):
        F.l1_loss(x, mg.tensor(T), weight=mg.ones(3))
    for fn in (F.l1_loss, F.smooth_l1_loss, F.huber_loss):
        with pytest.warns(UserWarning, match=r"Using a target size \(minigrad.Size\(\[1, 3\]\)\)"
                                             " that is different to the input size"):
            assert fn(x, mg.tensor(T[:1]), reduction="none").shape == (4, 3)
    with pytest.raises(ValueError, match="^batchmean is not a valid value for reduction$"):
        F.l1_loss(x, mg.tensor(T), reduction="batchmean")


@pytest.mark.parametrize("x_shape, t_shape", [
    ((4, 3), (4, 4)), ((3,), (1,)), ((3,), ()), ((3,), (2,)), ((2, 3, 4, 5), (2, 4)),
    ((2, 3, 4, 5), (2, 4, 6)), ((4, 3), ()), ((4, 3), (3,)), ((2, 3, 4, 5, 6), (2, 4)),
    ((2, 3, 4), (2,)), ((2, 3, 4), (3, 4)), ((), ()), ((), (1,)), ((3, 4), (1, 2, 3)),
])
def test_label_shapes_are_checked_in_pytorchs_words(x_shape, t_shape, torch_mod):
    """nll_loss and cross_entropy: the same error (type and words) for labels that do not
    fit the input, or the same loss where PyTorch accepts them."""
    x = RNG.normal(size=x_shape)
    labels = np.zeros(t_shape, dtype=np.int64)
    for loss in ("nll_loss", "cross_entropy"):
        outcome = []
        for lib, fn in ((mg, getattr(F, loss)), (torch_mod, getattr(torch_mod.nn.functional,
                                                                     loss))):
            try:
                outcome.append(fn(lib.tensor(x), lib.tensor(labels)).item())
            except (RuntimeError, ValueError, IndexError) as error:  # (the types are compared)
                outcome.append((type(error).__name__, str(error)))
        if isinstance(outcome[1], float):
            np.testing.assert_allclose(outcome[0], outcome[1], rtol=1e-12)
        else:
            assert outcome[0] == outcome[1]
