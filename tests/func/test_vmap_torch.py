"""`minigrad.func.vmap` against `torch.func.vmap`: in_dims and out_dims (ints, None, nested
tuples, dicts), nested vmaps, vmap of grad and of jacrev, modules, broadcasting against
unbatched tensors, matmul's 1-d cases, reductions and reshapes, randomness, and the errors,
compared on values, shapes, `requires_grad` and messages (tests/func/parity.py)."""

from __future__ import annotations

import functools
from typing import Any

import pytest

from tests.func.parity import check


def t(T: Any, values: Any, requires_grad: bool = False) -> Any:
    return T.tensor(values, dtype=T.float64, requires_grad=requires_grad)


def r(T: Any, *shape: int) -> Any:
    """Fixed values of a shape (the same on both engines)."""
    n = 1
    for s in shape:
        n *= s
    return (T.arange(n, dtype=T.float64).reshape(shape) * 0.37 - 1.1).sin()


def per_sample_grads(T: Any) -> Any:
    model = T.nn.Linear(3, 1).double()
    with T.no_grad():
        model.weight.copy_(t(T, [[0.3, -0.2, 0.5]]))
        model.bias.fill_(0.1)
    params = {k: v.detach() for k, v in model.named_parameters()}

    def loss(p: Any, x: Any, y: Any) -> Any:
        out = T.func.functional_call(model, p, (x.unsqueeze(0),))
        return ((out - y) ** 2).mean()
    return T.func.vmap(T.func.grad(loss), in_dims=(None, 0, 0))(params, r(T, 4, 3), r(T, 4, 1))


def ensemble(T: Any) -> Any:
    T.manual_seed(0)
    models = [T.nn.Linear(3, 2).double() for _ in range(3)]
    with T.no_grad():
        for i, m in enumerate(models):
            m.weight.copy_(r(T, 2, 3) * (i + 1))
            m.bias.fill_(i * 0.5)
    params, buffers = T.func.stack_module_state(models)

    def run(p: Any, b: Any, x: Any) -> Any:
        return T.func.functional_call(models[0], (p, b), (x,))
    return T.func.vmap(run, in_dims=(0, 0, None))(params, buffers, r(T, 4, 3))


def grad_through_vmap(T: Any) -> Any:
    x = r(T, 4, 3).requires_grad_()
    y = T.func.vmap(lambda row: (row.exp() * t(T, [1.0, 2.0, 3.0])).sum())(x)
    y.sum().backward()
    return y, x.grad


def same_randomness(T: Any) -> Any:
    out = T.func.vmap(lambda x: T.rand(3) * 0 + x, randomness="same")(r(T, 2, 3))
    return out.shape


def different_randomness(T: Any) -> Any:
    out = T.func.vmap(lambda x: T.rand(3) + x * 0, randomness="different")(r(T, 2, 3))
    return out.shape, bool((out[0] != out[1]).any())


CASES = {
    # in_dims, out_dims
    "elementwise": lambda T: T.func.vmap(lambda x: x.sin() * 2 + 1)(r(T, 4, 3)),
    "in_dims=1": lambda T: T.func.vmap(lambda x: x.exp(), in_dims=1)(r(T, 4, 3)),
    "in_dims=-1": lambda T: T.func.vmap(lambda x: x.sum(), in_dims=-1)(r(T, 4, 3)),
    "in_dims=(0, None)": lambda T: T.func.vmap(lambda x, w: x @ w, in_dims=(0, None))(
        r(T, 4, 3), r(T, 3, 2)),
    "in_dims=(None, 1)": lambda T: T.func.vmap(lambda w, x: w @ x, in_dims=(None, 1))(
        r(T, 2, 3), r(T, 3, 5)),
    "in_dims nested tuple": lambda T: T.func.vmap(lambda x, yz: x * yz[0] - yz[1],
                                                  in_dims=(0, (1, None)))(
        r(T, 4, 3), (r(T, 3, 4), r(T, 3))),
    "in_dims for a dict": lambda T: T.func.vmap(lambda d: d["a"] * d["b"],
                                                in_dims=({"a": 0, "b": None},))(
        {"a": r(T, 4, 3), "b": r(T, 3)}),
    "in_dims for a list": lambda T: T.func.vmap(lambda xs: xs[0] + xs[1])([r(T, 2, 3),
                                                                         r(T, 2, 3)]),
    "out_dims=1": lambda T: T.func.vmap(lambda x: x * 2, out_dims=1)(r(T, 4, 3)),
    "out_dims=-1": lambda T: T.func.vmap(lambda x: x * 2, out_dims=-1)(r(T, 4, 3)),
    "out_dims per output": lambda T: T.func.vmap(lambda x: (x * 2, x.sum()),
                                                 out_dims=(1, 0))(r(T, 4, 3)),
    "out_dims None for a number": lambda T: T.func.vmap(lambda x: (x, 3.0),
                                                        out_dims=(0, None))(r(T, 2, 3)),
    "out_dims None for an unbatched tensor": lambda T: T.func.vmap(
        lambda x: (x * 2, t(T, 5.0)), out_dims=(0, None))(r(T, 2, 3)),
    "an output that ignores the batch": lambda T: T.func.vmap(lambda x: t(T, [1.0, 2.0]))(
        r(T, 3, 2)),
    "kwargs are not batched": lambda T: T.func.vmap(lambda x, s=1.0: x * s)(r(T, 2, 3),
                                                                            s=3.0),
    "an empty batch": lambda T: T.func.vmap(lambda x: x * 2)(r(T, 0, 3)),
    "an empty batch, per sample": lambda T: T.func.vmap(lambda x: T.exp(x).sum(0))(
        r(T, 0, 3, 2)),
    # batching rules: broadcasting, matmul's shapes, reductions, shapes
    "broadcast against a bigger tensor": lambda T: T.func.vmap(lambda x: x * r(T, 4, 3))(
        r(T, 2, 3)),
    "broadcast a scalar sample": lambda T: T.func.vmap(lambda x: x + r(T, 3))(r(T, 5)),
    "two batched of different ranks": lambda T: T.func.vmap(lambda x, y: x - y)(
        r(T, 2, 4, 3), r(T, 2, 3)),
    "reflected operators": lambda T: T.func.vmap(lambda x: 2 - x + 3 / (x ** 2 + 1))(
        r(T, 2, 3)),
    "comparisons": lambda T: T.func.vmap(lambda x: (x > 0).double() * x)(r(T, 2, 3)),
    "vector @ matrix": lambda T: T.func.vmap(lambda x: x @ r(T, 3, 2))(r(T, 4, 3)),
    "matrix @ vector": lambda T: T.func.vmap(lambda x: r(T, 2, 3) @ x)(r(T, 4, 3)),
    "vector @ vector": lambda T: T.func.vmap(lambda x, y: x @ y)(r(T, 4, 3), r(T, 4, 3)),
    "matrix @ batched vector": lambda T: T.func.vmap(lambda m, v: m @ v)(r(T, 4, 2, 3),
                                                                        r(T, 4, 3)),
    "vector @ 3-d tensor": lambda T: T.func.vmap(lambda x: x @ r(T, 5, 3, 2))(r(T, 4, 3)),
    "matmul method": lambda T: T.func.vmap(lambda x: x.matmul(r(T, 3, 3)).mm(r(T, 3, 1)))(
        r(T, 2, 2, 3)),
    "sum over dims": lambda T: T.func.vmap(lambda x: x.sum((0, -1), keepdim=True))(
        r(T, 2, 3, 4, 5)),
    "mean": lambda T: T.func.vmap(lambda x: x.mean(-1) - x.mean())(r(T, 2, 3, 4)),
    "softmax": lambda T: T.func.vmap(lambda x: x.softmax(-1) + x.log_softmax(0))(
        r(T, 2, 3, 4)),
    "reshape, view, flatten": lambda T: T.func.vmap(
        lambda x: x.reshape(2, -1).view(6).flatten() + x.flatten())(r(T, 3, 3, 2)),
    "unsqueeze, squeeze, expand": lambda T: T.func.vmap(
        lambda x: x.unsqueeze(0).expand(4, 3).squeeze() + x.unsqueeze(-1).squeeze(-1))(
        r(T, 2, 3)),
    "transpose, t, permute, T": lambda T: T.func.vmap(
        lambda x: x.transpose(0, 1).t() + x.permute(1, 0).T)(r(T, 2, 3, 4)),
    "indexing with slices": lambda T: T.func.vmap(lambda x: x[1:, None, ::2][..., 0])(
        r(T, 2, 3, 4)),
    "select and movedim": lambda T: T.func.vmap(lambda x: x.select(1, 0) + x.movedim(0, 1)[0])(
        r(T, 2, 3, 3)),
    "module functions fall back": lambda T: T.func.vmap(
        lambda x: T.nn.functional.relu(T.exp(x) - 1.5).sum())(r(T, 3, 4)),
    "a model": lambda T: (lambda m: T.func.vmap(m)(r(T, 5, 3)).shape)(
        T.nn.Linear(3, 2).double()),
    "indexing with a tensor falls back": lambda T: T.func.vmap(
        lambda x: x[T.tensor([2, 0])])(r(T, 2, 3)),
    # nesting and composition
    "nested vmap": lambda T: T.func.vmap(T.func.vmap(lambda x: x.sin() * x))(r(T, 2, 3, 4)),
    "nested vmap, inner in_dims=1": lambda T: T.func.vmap(
        T.func.vmap(lambda x, y: x @ y, in_dims=(None, 1)), in_dims=(0, None))(
        r(T, 2, 3), r(T, 3, 4)),
    "nested vmap of matmul": lambda T: T.func.vmap(T.func.vmap(lambda a, b: a @ b))(
        r(T, 2, 3, 4, 5), r(T, 2, 3, 5)),
    "vmap of grad": lambda T: T.func.vmap(T.func.grad(lambda x: (x ** 3).sum()))(r(T, 4, 3)),
    "per-sample gradients": per_sample_grads,
    "vmap of jacrev": lambda T: T.func.vmap(T.func.jacrev(lambda x: x.sin() * x.sum()))(
        r(T, 2, 3)),
    "jacrev of vmap": lambda T: T.func.jacrev(T.func.vmap(lambda x: x.exp().sum()))(
        r(T, 2, 3)),
    "grad through vmap": grad_through_vmap,
    "model ensembling": ensemble,
    "an input that requires grad": lambda T: T.func.vmap(lambda x: x ** 2)(
        r(T, 2, 3).requires_grad_()),
    "randomness same": same_randomness,
    "randomness different": different_randomness,
    "vmap of a partial": lambda T: T.func.vmap(functools.partial(lambda x, y: x * y, y=2.0))(
        r(T, 2, 3)),
    # errors
    "random numbers in error mode": lambda T: T.func.vmap(lambda x: T.rand(3) * x)(r(T, 2, 3)),
    "random numbers in error mode, per sample": lambda T: T.func.vmap(
        lambda x: T.exp(x) * T.rand(3))(r(T, 2, 3)),
    "unknown randomness": lambda T: T.func.vmap(lambda x: x, randomness="sometimes"),
    "chunk_size=0": lambda T: T.func.vmap(lambda x: x, chunk_size=0),
    "out_dims out of range": lambda T: T.func.vmap(lambda x: x.sum(), out_dims=5)(r(T, 2, 3)),
    "out_dims out of range, per sample": lambda T: T.func.vmap(
        lambda x: T.exp(x), out_dims=3)(r(T, 2, 3)),
    "out_dims a string": lambda T: T.func.vmap(lambda x: x, out_dims="a")(r(T, 2, 3)),
    "out_dims of another structure": lambda T: T.func.vmap(lambda x: x, out_dims=(0, 0))(
        r(T, 2, 3)),
    "out_dims None for a batched output": lambda T: T.func.vmap(
        lambda x: x * 2, out_dims=None)(r(T, 2, 3)),
    "an output that is a number": lambda T: T.func.vmap(lambda x: 3.0)(r(T, 2, 3)),
    "in_dims out of range": lambda T: T.func.vmap(lambda x: x, in_dims=2)(r(T, 2, 3)),
    "in_dims a list": lambda T: T.func.vmap(lambda x: x, in_dims=[0])(r(T, 2, 3)),
    "in_dims a float": lambda T: T.func.vmap(lambda x: x, in_dims=(1.5,))(r(T, 2, 3)),
    "in_dims of another structure": lambda T: T.func.vmap(lambda x, y: x, in_dims=(0,))(
        r(T, 2, 3), r(T, 2, 3)),
    "in_dim for a number": lambda T: T.func.vmap(lambda x, y: x, in_dims=(0, 0))(
        r(T, 2, 3), 3.0),
    "batch sizes differ": lambda T: T.func.vmap(lambda x, y: x)(r(T, 2, 3), r(T, 3)),
    "nothing batched": lambda T: T.func.vmap(lambda x, y: x, in_dims=(None, None))(
        r(T, 2, 3), r(T, 2, 3)),
    "no inputs": lambda T: T.func.vmap(lambda: 1)(),
    "the name of a partial": lambda T: T.func.vmap(functools.partial(lambda x, y: x, y=1),
                                                   in_dims=5)(r(T, 2, 3)),
    "the name of a module": lambda T: T.func.vmap(T.nn.Tanh(), in_dims=5)(r(T, 2, 3)),
    "an op's error, per sample": lambda T: T.func.vmap(lambda x: x.sum(3))(r(T, 2, 3)),
}


@pytest.mark.parametrize("name", CASES)
def test_vmap_matches_pytorch(name: str, torch_mod: Any) -> None:
    check(CASES[name], torch_mod)


def escaped_use(T: Any, use: Any) -> Any:
    """f keeps its batched argument in a list; using it after vmap returned."""
    kept = []
    T.func.vmap(lambda x: kept.append(x) or x.sin())(r(T, 2, 3))
    return use(kept[0])


ESCAPES = {
    "arithmetic": lambda x: x + 1,
    "a rule's op": lambda x: x.sum(),
    "an op taking it as an argument": lambda x: x.new_ones(3) * 0 + x,
    "grad_fn": lambda x: x.grad_fn,
}
# PyTorch's message goes on: "..., or there is an internal functorch error in
# `gen_vmap_plumbing` Please file an issue if it looks like the latter" (minigrad has no such
# internals: its message stops before that).
ESCAPED = "Either your tensor may have escaped from inside a function being vmapped"


@pytest.mark.parametrize("name", ESCAPES)
def test_a_batched_tensor_used_after_its_vmap_is_refused_as_in_pytorch(name, torch_mod):
    for lib in (minigrad_module(), torch_mod):
        if name == "grad_fn" and lib is torch_mod:
            continue  # (torch reads a BatchedTensor's grad_fn without complaint: None)
        with pytest.raises(RuntimeError, match=ESCAPED):
            escaped_use(lib, ESCAPES[name])


def minigrad_module() -> Any:
    import minigrad
    return minigrad
