"""A data pipeline beyond TensorDataset: a Dataset subclass returning dicts, random_split,
Subset, a custom collate_fn, drop_last, and default collation of tuples and numbers."""
import minigrad as torch
from minigrad.utils.data import DataLoader, Dataset, Subset, random_split


class Squares(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {'x': torch.tensor([float(i)]), 'y': i * i, 'name': f'item{i}'}


ds = Squares(10)
print(len(ds), ds[3])
loader = DataLoader(ds, batch_size=4)
batch = next(iter(loader))
print(sorted(batch.keys()), batch['x'].shape, batch['y'], batch['name'])
print([len(b['y']) for b in loader], len(loader))
print([len(b['y']) for b in DataLoader(ds, batch_size=4, drop_last=True)])
torch.manual_seed(0)
train, test = random_split(ds, [7, 3])
print(len(train), len(test), type(train).__name__, sorted(train.indices + test.indices) == list(range(10)))
sub = Subset(ds, [1, 3, 5])
print([item['y'] for item in sub])
pairs = DataLoader([(1, 2.0), (3, 4.0), (5, 6.0)], batch_size=2)
for a, b in pairs:
    print(a, b, a.dtype, b.dtype)
lists = DataLoader(ds, batch_size=3, collate_fn=lambda items: [item['y'] for item in items])
print(list(lists))
torch.manual_seed(0)
first = [b['y'].tolist() for b in DataLoader(ds, batch_size=5, shuffle=True)]
torch.manual_seed(0)
again = [b['y'].tolist() for b in DataLoader(ds, batch_size=5, shuffle=True)]
print(first == again, sorted(sum(first, [])) == [i * i for i in range(10)])
