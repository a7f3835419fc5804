"""nn.TransformerEncoderLayer and nn.TransformerEncoder against PyTorch 2.13 in float64 with
the same weights: outputs and every gradient, in train mode without dropout and in eval mode
(where PyTorch takes its fused fast path and minigrad the ordinary one), reprs, and a small
model that learns."""

from __future__ import annotations

import numpy as np
import pytest

import minigrad as mg
from minigrad import nn

torch = pytest.importorskip("torch")


def pair(make):
    torch.manual_seed(0)
    theirs = make(torch).double()
    ours = make(mg).double()
    ours.load_state_dict({k: v.detach().numpy().copy() for k, v in theirs.state_dict().items()})
    return theirs, ours


LAYERS = {
    "post_norm": lambda lib: lib.nn.TransformerEncoderLayer(8, 2, dim_feedforward=16,
                                                            dropout=0.0),
    "norm_first_gelu_batch_first": lambda lib: lib.nn.TransformerEncoderLayer(
        8, 2, dim_feedforward=16, dropout=0.0, activation="gelu", norm_first=True,
        batch_first=True),
    "encoder_of_two_with_norm": lambda lib: lib.nn.TransformerEncoder(
        lib.nn.TransformerEncoderLayer(8, 4, dim_feedforward=12, dropout=0.0), 2,
        norm=lib.nn.LayerNorm(8), enable_nested_tensor=False),
}


@pytest.mark.parametrize("name", LAYERS)
@pytest.mark.parametrize("mode", ["train", "eval"])
def test_matches_pytorch(name, mode):
    theirs, ours = pair(LAYERS[name])
    getattr(theirs, mode)()
    getattr(ours, mode)()
    shape = (3, 5, 8) if "batch_first" in name else (5, 3, 8)  # 5 positions, batch of 3
    x = np.random.default_rng(0).normal(size=shape)
    mask = np.triu(np.full((5, 5), -np.inf), 1)
    pad = np.zeros((3, 5), bool)
    pad[1, -1] = True
    tx, mx = torch.tensor(x, requires_grad=True), mg.tensor(x, requires_grad=True)
    kw_t = {"mask" if "encoder" in name else "src_mask": torch.tensor(mask),
            "src_key_padding_mask": torch.tensor(pad)}
    kw_m = {"mask" if "encoder" in name else "src_mask": mg.tensor(mask),
            "src_key_padding_mask": mg.tensor(pad)}
    t_out, m_out = theirs(tx, **kw_t), ours(mx, **kw_m)
    np.testing.assert_allclose(m_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-9,
                               atol=1e-12)
    w = np.random.default_rng(1).normal(size=t_out.shape)
    (t_out * torch.tensor(w)).sum().backward()
    (m_out * mg.tensor(w)).sum().backward()
    t_params = dict(theirs.named_parameters())
    assert [n for n, _ in ours.named_parameters()] == list(t_params)
    for n, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), t_params[n].grad.numpy(), rtol=1e-8,
                                   atol=1e-11, err_msg=n)
    np.testing.assert_allclose(mx.grad.numpy(), tx.grad.numpy(), rtol=1e-8, atol=1e-11)


def test_repr_is_pytorch_s():
    make = LAYERS["post_norm"]
    assert repr(make(mg)) == repr(make(torch))
    assert repr(LAYERS["encoder_of_two_with_norm"](mg)) == \
        repr(LAYERS["encoder_of_two_with_norm"](torch))


def test_the_copies_in_an_encoder_are_independent():
    layer = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16)
    enc = nn.TransformerEncoder(layer, 3)
    p = [m.linear1.weight for m in enc.layers]
    assert len({id(t) for t in p}) == 3 and all(np.array_equal(t.detach().numpy(),
                                                               p[0].detach().numpy()) for t in p)


def test_a_tiny_transformer_learns_to_copy_its_first_token():
    """Token and position embeddings, one encoder layer, mean over positions: it learns which
    token came first (which only attention with positions can tell)."""
    mg.manual_seed(0)
    embed, position = nn.Embedding(5, 16), nn.Embedding(4, 16)
    enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(16, 2, 32, dropout=0.0,
                                                           batch_first=True), 1,
                                enable_nested_tensor=False)
    head = nn.Linear(16, 5)
    params = [*embed.parameters(), *position.parameters(), *enc.parameters(),
              *head.parameters()]
    opt = mg.optim.Adam(params, lr=0.01)
    tokens = mg.randint(0, 5, (64, 4))
    for _ in range(100):
        logits = head(enc(embed(tokens) + position(mg.arange(4))).mean(1))
        loss = nn.functional.cross_entropy(logits, tokens[:, 0])
        opt.zero_grad()
        loss.backward()
        opt.step()
    accuracy = (logits.argmax(1) == tokens[:, 0]).float().mean().item()
    assert accuracy > 0.9, accuracy
