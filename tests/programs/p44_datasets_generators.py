"""The Datasets & DataLoaders tutorial with today's reproducibility habits: a map-style
Dataset, random_split by fractions with its own torch.Generator, DataLoaders whose shuffling
and workers' seeds come from a generator, samplers, and the same draws again from the same
seed (which values are drawn is the generator's business: only the facts are printed)."""
import minigrad as torch
from minigrad.utils.data import (
    DataLoader,
    Dataset,
    RandomSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
    random_split,
)


class Squares(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n, dtype=torch.float32)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, idx):
        return self.x[idx], self.x[idx] ** 2


data = Squares(20)
print(len(data), data[3])
g = torch.Generator().manual_seed(42)
print(g.initial_seed(), type(g).__name__, g.device)
train, val, test = random_split(data, [0.6, 0.2, 0.2], generator=g)
print(len(train), len(val), len(test), type(train).__name__)
seen = sorted(train.indices + val.indices + test.indices)
print("every item once:", seen == list(range(20)))
again = random_split(data, [0.6, 0.2, 0.2], generator=torch.Generator().manual_seed(42))
print("same split from the same seed:", again[0].indices == train.indices)


def order(seed):
    loader = DataLoader(train, batch_size=4, shuffle=True,
                        generator=torch.Generator().manual_seed(seed))
    return [int(i) for x, _ in loader for i in x]


print("shuffles repeat:", order(7) == order(7), "cover the set:",
      sorted(order(7)) == sorted(int(data[i][0]) for i in train.indices))
batch_x, batch_y = next(iter(DataLoader(train, batch_size=5)))
print(batch_x.shape, batch_y.dtype, len(DataLoader(train, batch_size=5, drop_last=True)))

state = torch.Generator().manual_seed(3)
saved = state.get_state()
first = torch.randn(4, generator=state)
state.set_state(saved)
print("set_state replays:", torch.equal(first, torch.randn(4, generator=state)))
print(saved.dtype, saved.dim())

sampler = RandomSampler(range(6), generator=torch.Generator().manual_seed(0))
print(sorted(sampler), len(sampler))
subset = SubsetRandomSampler([1, 3, 5], generator=torch.Generator().manual_seed(0))
print(sorted(subset))
weighted = list(WeightedRandomSampler([0.0, 1.0, 0.0], 5,
                                      generator=torch.Generator().manual_seed(0)))
print(weighted)
torch.manual_seed(11)
a = torch.rand(3)
torch.manual_seed(11)
print("manual_seed replays:", torch.equal(a, torch.rand(3)), torch.initial_seed())
with torch.random.fork_rng():
    torch.rand(5)
print("fork_rng leaves the stream:", torch.equal(torch.rand(2), (torch.manual_seed(11),
                                                                 torch.rand(5)[3:])[1]))
