"""`minigrad.utils`, as `torch.utils`: for now `data` (Dataset, DataLoader, ...)."""

from minigrad.utils import data
