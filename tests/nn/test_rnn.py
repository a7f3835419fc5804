"""nn.RNN, nn.LSTM, nn.GRU and their cells against PyTorch 2.13, in float64 with the same
weights (copied by state_dict): outputs, final states, every parameter's and the input's
gradient, parameter names, reprs and misuse messages."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn

torch = pytest.importorskip("torch")

LAYERS = {
    "rnn": ("RNN", dict()),
    "rnn_relu_2_layers": ("RNN", dict(num_layers=2, nonlinearity="relu")),
    "rnn_bidirectional_batch_first": ("RNN", dict(bidirectional=True, batch_first=True)),
    "lstm": ("LSTM", dict()),
    "lstm_2_layers_bidirectional": ("LSTM", dict(num_layers=2, bidirectional=True)),
    "lstm_batch_first_no_bias": ("LSTM", dict(batch_first=True, bias=False)),
    "lstm_projection": ("LSTM", dict(proj_size=2, num_layers=2)),
    "gru": ("GRU", dict()),
    "gru_2_layers_bidirectional_batch_first": ("GRU", dict(num_layers=2, bidirectional=True,
                                                           batch_first=True)),
}


def pair(cls: str, *args, **kwargs):
    torch.manual_seed(0)
    theirs = getattr(torch.nn, cls)(*args, **kwargs).double()
    ours = getattr(nn, cls)(*args, **kwargs).double()
    state = {k: v.detach().numpy().copy() for k, v in theirs.state_dict().items()}
    ours.load_state_dict(state)
    return theirs, ours


def flat(out):
    return list(out) if isinstance(out, tuple) else [out]


def outputs(out):
    """(output, h_n) or (output, (h_n, c_n)) as a flat list."""
    first, rest = out
    return [first, *flat(rest)]


def assert_same(ours, theirs, rtol=1e-10):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=1e-12)


def check(theirs, ours, t_inputs, m_inputs, unpack=outputs):
    t_out, m_out = unpack(theirs(*t_inputs)), unpack(ours(*m_inputs))
    assert len(t_out) == len(m_out)
    for a, b in zip(m_out, t_out):
        assert tuple(a.shape) == tuple(b.shape)
        assert_same(a, b)
    rng = np.random.default_rng(1)
    weights = [rng.normal(size=tuple(b.shape)) for b in t_out]
    sum(((b * torch.tensor(w)).sum() for b, w in zip(t_out, weights))).backward()
    sum(((a * mg.tensor(w)).sum() for a, w in zip(m_out, weights))).backward()
    t_params = dict(theirs.named_parameters())
    assert [n for n, _ in ours.named_parameters()] == list(t_params)
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), t_params[name].grad.numpy(), rtol=1e-8,
                                   atol=1e-12, err_msg=name)
    for a, b in zip(m_inputs, t_inputs):
        for x, y in zip(flat(a), flat(b)):
            np.testing.assert_allclose(x.grad.numpy(), y.grad.numpy(), rtol=1e-8, atol=1e-12)


def leaf_pair(*shape, seed=0):
    a = np.random.default_rng(seed).normal(size=shape)
    return torch.tensor(a, requires_grad=True), mg.tensor(a, requires_grad=True)


@pytest.mark.parametrize("name", LAYERS)
def test_layer_matches_pytorch(name):
    cls, kwargs = LAYERS[name]
    theirs, ours = pair(cls, 3, 4, **kwargs)
    shape = (2, 5, 3) if kwargs.get("batch_first") else (5, 2, 3)
    tx, mx = leaf_pair(*shape)
    check(theirs, ours, (tx,), (mx,))


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_given_initial_state_and_unbatched_input(cls):
    theirs, ours = pair(cls, 3, 4, num_layers=2)
    tx, mx = leaf_pair(6, 3)
    th, mh = leaf_pair(2, 4, seed=1)
    if cls == "LSTM":
        tc, mc = leaf_pair(2, 4, seed=2)
        check(theirs, ours, (tx, (th, tc)), (mx, (mh, mc)))
    else:
        check(theirs, ours, (tx, th), (mx, mh))


@pytest.mark.parametrize("cls", ["RNNCell", "LSTMCell", "GRUCell"])
def test_cells_match_pytorch(cls):
    theirs, ours = pair(cls, 3, 4)
    tx, mx = leaf_pair(2, 3)
    th, mh = leaf_pair(2, 4, seed=1)
    state_t, state_m = ((th, leaf_pair(2, 4, seed=2)[0]), (mh, leaf_pair(2, 4, seed=2)[1])) \
        if cls == "LSTMCell" else (th, mh)
    check(theirs, ours, (tx, state_t), (mx, state_m), unpack=flat)
    theirs.zero_grad()
    ours.zero_grad()
    tx, mx = leaf_pair(3)  # unbatched, no state
    check(theirs, ours, (tx,), (mx,), unpack=flat)


def test_a_hand_written_loop_over_a_cell_is_the_layer():
    theirs, ours = pair("LSTM", 3, 4)
    cell = nn.LSTMCell(3, 4).double()
    cell.load_state_dict({k[:-3]: v for k, v in ours.state_dict().items()})
    x = mg.tensor(np.random.default_rng(0).normal(size=(5, 2, 3)))
    h = c = mg.zeros(2, 4, dtype=mg.float64)
    for t in range(5):
        h, c = cell(x[t], (h, c))
    out, (h_n, c_n) = ours(x)
    np.testing.assert_allclose(h.detach().numpy(), h_n[0].detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(c.detach().numpy(), c_n[0].detach().numpy(), rtol=1e-12)


def test_reprs_parameter_names_and_initial_range():
    for args, kwargs in [((3, 4), {}), ((3, 4, 2), dict(proj_size=2, bidirectional=True)),
                         ((3, 4, 2), dict(dropout=0.5, batch_first=True, bias=False))]:
        assert repr(nn.LSTM(*args, **kwargs)) == repr(torch.nn.LSTM(*args, **kwargs))
        assert [n for n, _ in nn.LSTM(*args, **kwargs).named_parameters()] == \
            [n for n, _ in torch.nn.LSTM(*args, **kwargs).named_parameters()]
    assert repr(nn.RNN(3, 4, 2, "relu")) == repr(torch.nn.RNN(3, 4, 2, "relu")) == \
        "RNN(3, 4, num_layers=2)"
    assert nn.RNN(3, 4, 2, "relu").nonlinearity == "relu"
    for cell in ("RNNCell", "LSTMCell", "GRUCell"):
        assert repr(getattr(nn, cell)(3, 4, bias=False)) == \
            repr(getattr(torch.nn, cell)(3, 4, bias=False))
    assert repr(nn.RNNCell(3, 4, nonlinearity="relu")) == "RNNCell(3, 4, nonlinearity=relu)"
    mg.manual_seed(0)
    weights = np.concatenate([p.detach().numpy().ravel() for p in nn.GRU(3, 16).parameters()])
    assert np.abs(weights).max() <= 0.25 and weights.std() > 0.1


def test_training_step_with_dropout_between_layers_only_in_train_mode():
    mg.manual_seed(0)
    layer = nn.GRU(3, 4, num_layers=2, dropout=0.5)
    x = mg.randn(5, 2, 3)
    layer.eval()
    assert np.array_equal(layer(x)[0].detach().numpy(), layer(x)[0].detach().numpy())
    layer.train()
    outs = {tuple(np.round(layer(x)[0].detach().numpy().ravel(), 6)) for _ in range(4)}
    assert len(outs) > 1


def misuse(make, call):
    errors = []
    for lib in (torch, mg):
        module = make(lib)
        try:
            call(lib, module)
        except Exception as e:  # noqa: BLE001 - comparing what each library raises
            errors.append((type(e).__name__, str(e)))
        else:
            errors.append(None)
    return errors


@pytest.mark.parametrize("make, call", [
    (lambda lib: lib.nn.LSTM(3, 4), lambda lib, m: m(lib.randn(5, 2, 4))),
    (lambda lib: lib.nn.LSTM(3, 4), lambda lib, m: m(lib.randn(2, 3, 3, 3))),
    (lambda lib: lib.nn.LSTM(3, 4),
     lambda lib, m: m(lib.randn(5, 2, 3), (lib.randn(1, 3, 4), lib.randn(1, 2, 4)))),
    (lambda lib: lib.nn.LSTM(3, 4),
     lambda lib, m: m(lib.randn(5, 2, 3), (lib.randn(1, 2, 4), lib.randn(1, 2, 5)))),
    (lambda lib: lib.nn.GRU(3, 4), lambda lib, m: m(lib.randn(5, 2, 3), lib.randn(2, 2, 4))),
    (lambda lib: lib.nn.RNNCell(3, 4), lambda lib, m: m(lib.randn(2, 5))),
    (lambda lib: lib.nn.RNNCell(3, 4), lambda lib, m: m(lib.randn(2, 3), lib.randn(2, 5))),
    (lambda lib: lib.nn.RNNCell(3, 4), lambda lib, m: m(lib.randn(2, 3), lib.randn(3, 4))),
    (lambda lib: lib.nn.RNNCell(3, 4), lambda lib, m: m(lib.randn(2, 2, 3))),
    (lambda lib: lib.nn.RNNCell(3, 4, nonlinearity="sigmoid"),
     lambda lib, m: m(lib.randn(2, 3))),
    (lambda lib: lib.nn.LSTMCell(3, 4),
     lambda lib, m: m(lib.randn(2, 3), (lib.randn(2, 4), lib.randn(2, 5)))),
])
def test_misuse_raises_what_pytorch_raises(make, call):
    theirs, ours = misuse(make, call)
    assert theirs is not None and ours == theirs


@pytest.mark.parametrize("kwargs", [dict(nonlinearity="sigmoid"), dict(dropout=1.5),
                                    dict(hidden_size=0), dict(num_layers=0),
                                    dict(proj_size=2)])
def test_constructor_checks_are_pytorch_s(kwargs):
    args = {"input_size": 3, "hidden_size": 4, **kwargs}
    errors = []
    for lib in (torch, mg):
        with pytest.raises(Exception) as info:
            lib.nn.RNN(**args)
        errors.append((type(info.value).__name__, str(info.value)))
    assert errors[0] == errors[1]


@pytest.mark.parametrize("cls", ["RNN", "LSTM", "GRU"])
def test_gradcheck_and_gradgradcheck_through_time(cls):
    from minigrad.testing import gradcheck, gradgradcheck

    mg.manual_seed(0)
    layer = getattr(nn, cls)(2, 3, num_layers=2, bidirectional=True).double()
    x = mg.randn(3, 1, 2, dtype=mg.float64, requires_grad=True)

    def run(x):
        return layer(x)[0]

    assert gradcheck(run, (x,))
    assert gradgradcheck(run, (x,))
