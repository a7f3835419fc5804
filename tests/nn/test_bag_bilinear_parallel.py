"""nn.EmbeddingBag, nn.Bilinear and nn.DataParallel side by side with PyTorch: printed forms,
parameters, values and gradients (with PyTorch's graph), errors in PyTorch's words; a
DataParallel on a CPU-only PyTorch runs its module as it is. (Finite differences and
gradgradcheck: the op table's embedding_bag_* and bilinear* entries.)"""

from __future__ import annotations

import numpy as np
import pytest

import minigrad
from compare import against_torch


@pytest.mark.parametrize("make", [
    "nn.EmbeddingBag(10, 3)", "nn.EmbeddingBag(5, 2, mode='sum', padding_idx=0)",
    "nn.EmbeddingBag(5, 2, max_norm=1.0, norm_type=1, scale_grad_by_freq=True)",
    "nn.EmbeddingBag(5, 2, padding_idx=-1).padding_idx", "nn.Bilinear(2, 3, 4)",
    "nn.Bilinear(2, 3, 4, bias=False)", "nn.DataParallel(nn.Linear(2, 2))",
    "[n for n, _ in nn.DataParallel(nn.Linear(2, 2)).named_parameters()]",
    "list(nn.DataParallel(nn.Linear(2, 2), device_ids=[0]).state_dict())",
    "nn.DataParallel(nn.Linear(2, 2)).device_ids",
    "[(n, tuple(p.shape)) for n, p in nn.Bilinear(2, 3, 4).named_parameters()]",
])
def test_printed_forms_and_parameters_are_torchs(make, torch_mod):
    assert repr(eval(make, {"nn": minigrad.nn})) == repr(eval(make, {"nn": torch_mod.nn}))


BAGS = [
    ([1, 2, 4, 5, 4, 3, 2, 9], [0, 4], {"mode": "mean"}),
    ([1, 2, 4, 5, 4, 3, 2, 9], [0, 4], {"mode": "sum"}),
    ([1, 2, 4, 5, 4, 3, 2, 9], [0, 4], {"mode": "max"}),
    ([1, 2, 4, 5, 4, 3, 2, 9], [0, 3, 3, 8], {"include_last_offset": True}),
    ([1, 2, 0, 5, 0, 3], [0, 2, 4], {"padding_idx": 0}),
    ([1, 2, 0, 5, 0, 3], [0, 2, 2], {"mode": "max", "padding_idx": 0}),
    ([[1, 2], [3, 4], [4, 4]], None, {"mode": "mean"}),
]


@pytest.mark.parametrize("indices, offsets, options", BAGS)
def test_embedding_bag_values_gradients_and_graph_are_torchs(indices, offsets, options,
                                                             torch_mod):
    def bags(W, torch):
        off = None if offsets is None else torch.tensor(offsets)
        return torch.nn.functional.embedding_bag(torch.tensor(indices), W, off, **options)

    report = against_torch(bags, gradient="random",
                           W=np.random.default_rng(0).standard_normal((10, 3)))
    assert report.ok and report.graph.equal, str(report)


def test_per_sample_weights_get_their_gradient(torch_mod):
    def bags(W, p, torch):
        return torch.nn.functional.embedding_bag(torch.tensor([1, 2, 4, 5, 4]), W,
                                                 torch.tensor([0, 2]), mode="sum",
                                                 per_sample_weights=p)

    rng = np.random.default_rng(1)
    report = against_torch(bags, gradient="random", W=rng.standard_normal((10, 3)),
                           p=rng.standard_normal(5))
    assert report.ok and report.graph.equal, str(report)


@pytest.mark.parametrize("shapes", [((5, 2), (5, 3)), ((2, 3, 2), (2, 3, 3)), ((2,), (3,))])
def test_bilinear_values_gradients_and_graph_are_torchs(shapes, torch_mod):
    rng = np.random.default_rng(2)
    report = against_torch(lambda a, b, W, c, torch: torch.nn.functional.bilinear(a, b, W, c),
                           gradient="random", a=rng.standard_normal(shapes[0]),
                           b=rng.standard_normal(shapes[1]), W=rng.standard_normal((4, 2, 3)),
                           c=rng.standard_normal(4))
    assert report.ok and report.graph.equal, str(report)


@pytest.mark.parametrize("call", [
    "nn.EmbeddingBag(10, 3)(lib.tensor([1, 2]))",
    "nn.EmbeddingBag(10, 3)(lib.ones(2, 2, 2, dtype=lib.long))",
    "nn.EmbeddingBag(10, 3, mode='x')(lib.tensor([1, 2]), lib.tensor([0]))",
    "nn.EmbeddingBag(10, 3)(lib.tensor([1, 2]), lib.tensor([[0]]))",
    "nn.EmbeddingBag(10, 3)(lib.tensor([[1, 2]]), lib.tensor([0]))",
    "nn.EmbeddingBag(10, 3)(lib.tensor([1, 2]), lib.tensor([0]), lib.ones(2))",
    "nn.EmbeddingBag(10, 3, mode='sum')(lib.tensor([1, 2]), lib.tensor([0]), lib.ones(3))",
    "nn.EmbeddingBag(10, 3)(lib.tensor([1, 20]), lib.tensor([0]))",
    "nn.EmbeddingBag(10, 3, padding_idx=11)",
    "nn.Bilinear(2, 3, 4)(lib.ones(5, 2), lib.ones(4, 3))",
    "nn.Bilinear(2, 3, 4)(lib.ones(5, 3), lib.ones(5, 3))",
    "nn.Bilinear(2, 3, 4)(lib.ones(5, 2), lib.ones(5, 2))",
    "nn.Bilinear(2, 3, 4)(lib.ones(5, 2), lib.ones(5, 1, 3))",
    "nn.Bilinear(0, 3, 4)",
])
def test_misuse_raises_torchs_error(call, torch_mod):
    caught = []
    for lib in (torch_mod, minigrad):
        with pytest.raises(Exception) as error:
            eval(call, {"nn": lib.nn, "lib": lib})
        caught.append((type(error.value), str(error.value).replace("torch.", "minigrad.")))
    assert caught[1] == caught[0]


def test_data_parallel_runs_its_module_and_trains(torch_mod):
    for lib in (minigrad, torch_mod):
        lib.manual_seed(0)
        inner = lib.nn.Linear(2, 1)
        model = lib.nn.DataParallel(inner)
        x = lib.ones(3, 2)
        assert lib.equal(model(x), inner(x)) and model.module is inner
        model(x).sum().backward()
        assert inner.weight.grad.tolist() == [[3.0, 3.0]]
