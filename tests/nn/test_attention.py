"""scaled_dot_product_attention and nn.MultiheadAttention against PyTorch 2.13 in float64:
outputs, attention weights, every parameter's and input's gradient, masks, and messages."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
import minigrad.nn.functional as F
from minigrad import nn

torch = pytest.importorskip("torch")


def leaves(*shapes, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.normal(size=s) for s in shapes]
    return ([torch.tensor(a, requires_grad=True) for a in arrays],
            [mg.tensor(a, requires_grad=True) for a in arrays])


def assert_close(ours, theirs, rtol=1e-9):
    if theirs is None:
        assert ours is None
        return
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol,
                               atol=1e-12)


def backward_both(t_outs, m_outs, seed=1):
    rng = np.random.default_rng(seed)
    ws = [rng.normal(size=tuple(t.shape)) for t in t_outs]
    sum((t * torch.tensor(w)).sum() for t, w in zip(t_outs, ws)).backward()
    sum((m * mg.tensor(w)).sum() for m, w in zip(m_outs, ws)).backward()


MASKS = {
    "none": lambda lib: {},
    "causal": lambda lib: {"is_causal": True},
    "bool": lambda lib: {"attn_mask": lib.tensor(np.tril(np.ones((4, 6), bool), 2))},
    "float": lambda lib: {"attn_mask": lib.tensor(np.linspace(-1, 1, 24).reshape(4, 6))},
    "scale": lambda lib: {"scale": 0.3},
}


@pytest.mark.parametrize("mask", MASKS)
def test_scaled_dot_product_attention(mask):
    (tq, tk, tv), (mq, mk, mv) = leaves((2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 7))
    kv = (mq, mk, mv)
    if mask == "causal":  # causal: a square score matrix
        (tq, tk, tv), kv = leaves((2, 3, 4, 5), (2, 3, 4, 5), (2, 3, 4, 7))
    theirs = torch.nn.functional.scaled_dot_product_attention(tq, tk, tv, **MASKS[mask](torch))
    ours = F.scaled_dot_product_attention(*kv, **MASKS[mask](mg))
    assert_close(ours, theirs)
    assert ours.grad_fn.name() == theirs.grad_fn.name() == "UnsafeViewBackward0"
    backward_both([theirs], [ours])
    for a, b in zip(kv, (tq, tk, tv)):
        assert_close(a.grad, b.grad)


def pair(*args, **kwargs):
    torch.manual_seed(0)
    theirs = torch.nn.MultiheadAttention(*args, **kwargs).double()
    ours = nn.MultiheadAttention(*args, **kwargs).double()
    ours.load_state_dict({k: v.detach().numpy().copy() for k, v in theirs.state_dict().items()})
    return theirs, ours


CALLS = {
    "self_attention": (dict(), {}),
    "batch_first": (dict(batch_first=True), {}),
    "no_weights": (dict(), {"need_weights": False}),
    "per_head_weights": (dict(), {"average_attn_weights": False}),
    "bool_mask_and_padding": (dict(), {"attn_mask": "causal", "key_padding_mask": "pad"}),
    "float_mask": (dict(), {"attn_mask": "float"}),
    "no_bias": (dict(bias=False), {}),
}


def masks(lib, kwargs, length, batch):
    out = dict(kwargs)
    if kwargs.get("attn_mask") == "causal":
        out["attn_mask"] = lib.tensor(np.triu(np.ones((length, length), bool), 1))
    if kwargs.get("attn_mask") == "float":
        out["attn_mask"] = lib.tensor(np.linspace(-1, 1, length * length).reshape(length, length))
    if kwargs.get("key_padding_mask") == "pad":
        pad = np.zeros((batch, length), bool)
        pad[0, -2:] = True
        out["key_padding_mask"] = lib.tensor(pad)
    return out


@pytest.mark.parametrize("name", CALLS)
def test_multihead_attention_matches_pytorch(name):
    make, call = CALLS[name]
    theirs, ours = pair(8, 2, **make)
    shape = (3, 5, 8) if make.get("batch_first") else (5, 3, 8)
    (tx,), (mx,) = leaves(shape)
    t_out, t_w = theirs(tx, tx, tx, **masks(torch, call, 5, 3))
    m_out, m_w = ours(mx, mx, mx, **masks(mg, call, 5, 3))
    assert_close(m_out, t_out)
    assert_close(m_w, t_w)
    backward_both([t_out], [m_out])
    t_params = dict(theirs.named_parameters())
    assert [n for n, _ in ours.named_parameters()] == list(t_params)
    for n, p in ours.named_parameters():
        assert_close(p.grad, t_params[n].grad)
    assert_close(mx.grad, tx.grad)


def test_cross_attention_and_unbatched_input():
    theirs, ours = pair(8, 4)
    (tq, tk), (mq, mk) = leaves((4, 8), (6, 8))
    t_out, t_w = theirs(tq, tk, tk)
    m_out, m_w = ours(mq, mk, mk)
    assert tuple(m_out.shape) == (4, 8) and tuple(m_w.shape) == (4, 6)
    assert_close(m_out, t_out)
    assert_close(m_w, t_w)


def test_repr_parameters_and_initialisation():
    assert repr(nn.MultiheadAttention(8, 2)) == repr(torch.nn.MultiheadAttention(8, 2))
    m = nn.MultiheadAttention(8, 2)
    assert [(n, tuple(p.shape)) for n, p in m.named_parameters()] == [
        ("in_proj_weight", (24, 8)), ("in_proj_bias", (24,)), ("out_proj.weight", (8, 8)),
        ("out_proj.bias", (8,))]
    assert np.all(m.in_proj_bias.detach().numpy() == 0)
    bound = np.sqrt(6 / (24 + 8))  # xavier_uniform_ on (24, 8)
    assert np.abs(m.in_proj_weight.detach().numpy()).max() <= bound


@pytest.mark.parametrize("make, call", [
    (lambda lib: lib.nn.MultiheadAttention(8, 3), None),
    (lambda lib: lib.nn.MultiheadAttention(0, 2), None),
    (lambda lib: lib.nn.MultiheadAttention(8, 2),
     lambda lib, m, x: m(x, x, x, attn_mask=lib.zeros(4, 5))),
    (lambda lib: lib.nn.MultiheadAttention(8, 2),
     lambda lib, m, x: m(x, x, x, attn_mask=lib.zeros(2, 5, 5))),
    (lambda lib: lib.nn.MultiheadAttention(8, 2), lambda lib, m, x: m(x, x, x, is_causal=True)),
    (lambda lib: lib.nn.MultiheadAttention(8, 2), lambda lib, m, x: m(lib.randn(5, 3, 6), x, x)),
])
def test_misuse_raises_what_pytorch_raises(make, call):
    errors = []
    for lib in (torch, mg):
        try:
            module = make(lib)
            call(lib, module, lib.randn(5, 3, 8))
        except Exception as e:  # noqa: BLE001 - comparing what each library raises
            errors.append((type(e).__name__, str(e).replace("torch.", "minigrad.")))
    assert len(errors) == 2 and errors[0] == errors[1]


def test_sdpa_refuses_a_mask_with_is_causal_as_pytorch():
    errors = []
    for lib, fn in ((torch, torch.nn.functional.scaled_dot_product_attention),
                    (mg, F.scaled_dot_product_attention)):
        q = lib.randn(2, 3, 4)
        with pytest.raises(RuntimeError) as info:
            fn(q, q, q, attn_mask=lib.ones(3, 3, dtype=lib.bool), is_causal=True)
        errors.append(str(info.value))
    assert errors[0] == errors[1]
