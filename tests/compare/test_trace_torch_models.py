"""compare.trace_torch on the real models of issue 21: each traces, in both forms, and leaves
every .grad bit-identical to a plain backward of the same model."""

from __future__ import annotations

import copy

import pytest

import compare


def _lstm(torch):
    nn = torch.nn

    class LM(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.embed, self.lstm, self.head = nn.Embedding(20, 8), nn.LSTM(8, 8), nn.Linear(8, 20)

        def forward(self, tokens):
            return self.head(self.lstm(self.embed(tokens))[0])

    tokens = torch.randint(0, 20, (5, 2))
    return LM(), lambda m: torch.nn.functional.cross_entropy(
        m(tokens).flatten(0, 1), tokens.flatten())


def _custom_function(torch):
    class Cube(torch.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x ** 3

        @staticmethod
        def backward(ctx, grad):
            (x,) = ctx.saved_tensors
            return grad * 3 * x ** 2

    model, x = torch.nn.Linear(3, 3), torch.randn(4, 3)
    return model, lambda m: Cube.apply(m(x)).sum()


def _frozen_and_detached(torch):
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Linear(4, 2))
    model[0].requires_grad_(False)
    x = torch.randn(5, 3)

    def loss(m):
        h = m[0](x)
        return (m[1](h) + m[1](h.detach() * 2)).pow(2).mean()

    return model, loss


def _gradient_penalty(torch):
    model = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.Tanh(), torch.nn.Linear(4, 1))
    x = torch.randn(6, 3)

    def loss(m):
        xi = x.clone().requires_grad_(True)
        out = m(xi).sum()
        (g,) = torch.autograd.grad(out, xi, create_graph=True)
        return out + ((g.norm(dim=1) - 1) ** 2).mean()

    return model, loss


def _dropout(torch):
    model = torch.nn.Sequential(torch.nn.Linear(3, 8), torch.nn.Dropout(0.5),
                                torch.nn.Linear(8, 1))
    model.train()
    x = torch.randn(6, 3)
    return model, lambda m: m(x).pow(2).mean()


MODELS = {"lstm": _lstm, "custom Function": _custom_function,
          "frozen + detached": _frozen_and_detached, "gradient penalty": _gradient_penalty,
          "dropout (train)": _dropout}


@pytest.mark.parametrize("form", ["tensor", "callable"])
@pytest.mark.parametrize("name", list(MODELS))
def test_model_traces_and_grads_are_those_of_a_plain_backward(torch_mod, name, form):
    torch_mod.manual_seed(0)
    model, loss = MODELS[name](torch_mod)
    plain = copy.deepcopy(model)
    torch_mod.manual_seed(1)
    loss(plain).backward()
    torch_mod.manual_seed(1)  # the same dropout mask
    t = compare.trace_torch(loss(model) if form == "tensor" else lambda: loss(model),
                            params=model)
    for (pname, p), q in zip(model.named_parameters(), plain.parameters()):
        assert (p.grad is None) == (q.grad is None), pname
        if p.grad is not None:
            assert torch_mod.equal(p.grad, q.grad), pname
            assert (t.leaf(pname).grad == q.grad.numpy()).all(), pname
    assert t.explanation(timing=False) and t.explanation(lang="zh", timing=False)
    if form == "callable":
        assert t.modules and all(n.module in t.modules for n in t.nodes if n.module)
