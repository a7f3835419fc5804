"""Datasets, samplers and DataLoader: the d2l pattern, seeded shuffles, lengths, and PyTorch's
behaviour and messages on the same arguments."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import minigrad as mg
import minigrad.utils.data
from minigrad import nn
from minigrad.utils import data
from minigrad.utils.data import DataLoader


class Squares(data.Dataset):
    def __init__(self, n: int) -> None:
        self.n = n

    def __getitem__(self, i):
        return {"x": i, "y": float(i * i), "name": f"s{i}"}

    def __len__(self) -> int:
        return self.n


def stream(lib, n: int):
    class Count(lib.utils.data.IterableDataset):
        def __iter__(self):
            return iter(range(n))

        def __len__(self):
            return n

    return Count()


def test_the_d2l_concise_linear_regression_trains():
    import minigrad as torch  # the d2l chapter's code, as written for PyTorch
    from minigrad.utils import data

    torch.manual_seed(0)
    true_w, true_b = torch.tensor([2, -3.4]), 4.2
    features = torch.randn(1000, 2)
    labels = (features @ true_w + true_b).reshape((-1, 1)) + 0.01 * torch.randn(1000, 1)

    def load_array(data_arrays, batch_size, is_train=True):
        dataset = data.TensorDataset(*data_arrays)
        return data.DataLoader(dataset, batch_size, shuffle=is_train)

    data_iter = load_array((features, labels), 10)
    first = next(iter(data_iter))
    assert [t.shape for t in first] == [(10, 2), (10, 1)]
    net = nn.Sequential(nn.Linear(2, 1))
    loss, trainer = nn.MSELoss(), torch.optim.SGD(net.parameters(), lr=0.03)
    for _ in range(3):
        for X, y in data_iter:
            trainer.zero_grad()
            loss(net(X), y).backward()
            trainer.step()
    assert len(data_iter) == 100
    assert float(loss(net(features), labels)) < 1e-3
    np.testing.assert_allclose(net[0].weight.detach().numpy().ravel(), [2, -3.4], atol=0.01)


def epoch_order(loader) -> list[int]:
    return [int(i) for batch in loader for i in batch]


def test_a_seeded_shuffle_is_repeatable_and_reshuffles_every_epoch():
    loader = DataLoader(list(range(20)), batch_size=4, shuffle=True)
    mg.manual_seed(7)
    first, second = epoch_order(loader), epoch_order(loader)
    mg.manual_seed(7)
    assert epoch_order(loader) == first and epoch_order(loader) == second
    assert first != second and sorted(first) == sorted(second) == list(range(20))
    mg.manual_seed(8)
    assert epoch_order(loader) != first
    seeded = DataLoader(list(range(20)), batch_size=4, shuffle=True,
                        generator=np.random.default_rng(3))
    assert sorted(epoch_order(seeded)) == list(range(20))


def test_without_shuffle_the_order_is_the_datasets(torch_mod):
    ds = list(range(7))
    assert epoch_order(DataLoader(ds, batch_size=3)) == list(range(7))
    assert [b.tolist() for b in DataLoader(ds, batch_size=3)] == \
        [b.tolist() for b in torch_mod.utils.data.DataLoader(ds, batch_size=3)]


@pytest.mark.parametrize("n, batch_size, drop_last", [
    (10, 3, False), (10, 3, True), (9, 3, True), (2, 5, True), (2, 5, False), (0, 2, False)])
def test_lengths_and_batch_sizes_match_pytorch(torch_mod, n, batch_size, drop_last):
    mine = DataLoader(list(range(n)), batch_size=batch_size, drop_last=drop_last)
    theirs = torch_mod.utils.data.DataLoader(list(range(n)), batch_size=batch_size,
                                             drop_last=drop_last)
    assert len(mine) == len(theirs)
    assert [len(b) for b in mine] == [len(b) for b in theirs]
    it_mine = DataLoader(stream(mg, n), batch_size=batch_size, drop_last=drop_last)
    it_theirs = torch_mod.utils.data.DataLoader(stream(torch_mod, n), batch_size=batch_size,
                                                drop_last=drop_last)
    assert len(it_mine) == len(it_theirs)
    assert [b.tolist() for b in it_mine] == [b.tolist() for b in it_theirs]


def test_a_map_dataset_of_dicts_batches_as_pytorch(torch_mod):
    from test_collate import plain

    for kwargs in ({"batch_size": 3}, {"batch_size": None}, {"batch_size": 2, "drop_last": True}):
        mine = [plain(b) for b in DataLoader(Squares(5), **kwargs)]
        theirs = [plain(b) for b in torch_mod.utils.data.DataLoader(Squares(5), **kwargs)]
        assert mine == theirs, kwargs


def test_sampler_batch_sampler_and_collate_fn():
    picked = DataLoader(list(range(10)), batch_size=2, sampler=[9, 8, 7, 1])
    assert [b.tolist() for b in picked] == [[9, 8], [7, 1]]
    batches = DataLoader(list(range(10)), batch_sampler=[[0, 5], [2]])
    assert [b.tolist() for b in batches] == [[0, 5], [2]] and len(batches) == 2
    assert list(DataLoader("abcd", batch_size=2, collate_fn="".join)) == ["ab", "cd"]
    sampler = data.BatchSampler(data.SequentialSampler(range(10)), 3, drop_last=False)
    assert list(sampler) == [[0, 1, 2], [3, 4, 5], [6, 7, 8], [9]] and len(sampler) == 4


def test_num_workers_warns_once_and_gives_the_same_batches_pin_memory_is_ignored():
    calls = []
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loader = DataLoader(list(range(6)), batch_size=2, num_workers=2, pin_memory=True,
                            worker_init_fn=calls.append)
        batches = [b.tolist() for b in loader] + [b.tolist() for b in loader]
    assert [str(w.message) for w in caught] == [
        "minigrad's DataLoader loads in the main process: num_workers=2 runs no worker "
        "processes (the batches are the same, one after the other)"]
    assert batches == [[0, 1], [2, 3], [4, 5]] * 2 and calls == [0, 0]
    assert data.get_worker_info() is None


def test_tensor_dataset_subset_concat_and_chain():
    x, y = mg.arange(5), mg.arange(5) * 10
    ds = data.TensorDataset(x, y)
    assert len(ds) == 5 and [int(t) for t in ds[2]] == [2, 20]
    sub = data.Subset(ds, [4, 0])
    assert len(sub) == 2 and int(sub[0][1]) == 40
    both = data.ConcatDataset([list("ab"), list("cde")])
    assert len(both) == 5 and both[2] == "c" and both[-1] == "e"
    assert len(Squares(2) + Squares(3)) == 5
    chained = stream(mg, 2) + stream(mg, 3)
    assert list(chained) == [0, 1, 0, 1, 2] and len(chained) == 5


def test_a_loader_over_a_random_split_gives_the_subsets_samples():
    x = mg.arange(10.0).reshape(10, 1)
    train, val = data.random_split(data.TensorDataset(x, x * 2), [0.8, 0.2])
    batches = list(DataLoader(train, batch_size=3))
    assert [len(b[0]) for b in batches] == [3, 3, 2] and len(val) == 2
    got = [float(v) for features, _ in batches for v in features.reshape(-1)]
    assert got == [float(i) for i in train.indices]
    assert all((labels.numpy() == features.numpy() * 2).all() for features, labels in batches)


def test_random_split_by_lengths_and_fractions_as_pytorch(torch_mod):
    mg.manual_seed(0)
    parts = data.random_split(range(10), [3, 7])
    assert [len(p) for p in parts] == [3, 7]
    assert sorted(parts[0].indices + parts[1].indices) == list(range(10))
    for fractions in ([0.7, 0.3], [0.33, 0.33, 0.34], [0.5, 0.5]):
        mine = data.random_split(range(11), fractions)
        theirs = torch_mod.utils.data.random_split(range(11), fractions)
        assert [len(p) for p in mine] == [len(p) for p in theirs]
    a = data.random_split(range(10), [5, 5], generator=np.random.default_rng(1))
    b = data.random_split(range(10), [5, 5], generator=np.random.default_rng(1))
    assert a[0].indices == b[0].indices
    mg.manual_seed(4)
    first = data.random_split(range(10), [5, 5])[0].indices
    mg.manual_seed(4)
    assert data.random_split(range(10), [5, 5])[0].indices == first


def test_weighted_sampling_follows_the_weights():
    mg.manual_seed(0)
    draws = list(data.WeightedRandomSampler([0.0, 1.0, 3.0], 4000))
    assert len(draws) == 4000 and 0 not in draws
    assert abs(draws.count(2) / 4000 - 0.75) < 0.03
    once = list(data.WeightedRandomSampler(mg.tensor([5.0, 0.0, 1.0]), 3, replacement=False))
    assert sorted(once) == [0, 1, 2] and once[-1] == 1  # (a zero weight comes last)
    mg.manual_seed(1)
    first = list(data.WeightedRandomSampler([1.0, 2.0], 10))
    mg.manual_seed(1)
    assert list(data.WeightedRandomSampler([1.0, 2.0], 10)) == first


def misuse_cases(lib):
    d = lib.utils.data
    return {
        "batch_size=0": lambda: d.DataLoader(list(range(3)), batch_size=0),
        "batch_size=-1": lambda: d.DataLoader(list(range(3)), batch_size=-1),
        "iterable shuffle": lambda: d.DataLoader(stream(lib, 3), shuffle=True),
        "iterable sampler": lambda: d.DataLoader(stream(lib, 3), sampler=[0]),
        "iterable batch_size=0": lambda: d.DataLoader(stream(lib, 3), batch_size=0),
        "sampler and shuffle": lambda: d.DataLoader([1], sampler=[0], shuffle=True),
        "batch_sampler and batch_size": lambda: d.DataLoader([1], batch_size=2,
                                                             batch_sampler=[[0]]),
        "drop_last without batches": lambda: d.DataLoader([1], batch_size=None,
                                                          drop_last=True),
        "drop_last not bool": lambda: d.DataLoader([1], drop_last=1),
        "num_workers=-1": lambda: d.DataLoader([1], num_workers=-1),
        "timeout": lambda: d.DataLoader([1], timeout=-1),
        "prefetch_factor": lambda: d.DataLoader([1], prefetch_factor=2),
        "persistent_workers": lambda: d.DataLoader([1], persistent_workers=True),
        "set batch_size": lambda: setattr(d.DataLoader([1]), "batch_size", 2),
        "tensor size mismatch": lambda: d.TensorDataset(lib.ones(3), lib.ones(2)),
        "split sum": lambda: d.random_split(range(5), [2, 2]),
        "split fraction": lambda: d.random_split(range(5), [1.5, -0.5]),
        "concat nothing": lambda: d.ConcatDataset([]),
        "concat index": lambda: d.ConcatDataset([[1]])[-2],
        "concat iterable": lambda: d.ConcatDataset([stream(lib, 1)]),
        "replacement": lambda: d.RandomSampler([1], replacement=1),
        "num_samples": lambda: d.RandomSampler([1], num_samples=0),
        "no getitem": lambda: d.Dataset()[0],
        "weights 2-d": lambda: d.WeightedRandomSampler([[1.0]], 1),
        "weights num_samples": lambda: d.WeightedRandomSampler([1.0], 0),
        "weights replacement": lambda: d.WeightedRandomSampler([1.0], 1, replacement=None),
        "weights negative": lambda: list(d.WeightedRandomSampler([1.0, -1.0], 1)),
        "weights nan": lambda: list(d.WeightedRandomSampler([float("nan"), 1.0], 1)),
        "weights zero": lambda: list(d.WeightedRandomSampler([0.0, 0.0], 1)),
        "weights too many": lambda: list(d.WeightedRandomSampler([1.0, 1.0], 3, False)),
    }


@pytest.mark.parametrize("case", list(misuse_cases(mg)))
def test_misuse_gets_pytorchs_error(torch_mod, case):
    with pytest.raises(Exception) as theirs:
        misuse_cases(torch_mod)[case]()
    with pytest.raises(type(theirs.value)) as mine:
        misuse_cases(mg)[case]()
    assert str(mine.value) == str(theirs.value)


def test_both_import_spellings_work():
    assert minigrad.utils.data.DataLoader is DataLoader is data.DataLoader
