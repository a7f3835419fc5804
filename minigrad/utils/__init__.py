"""`minigrad.utils`, as `torch.utils`: `data` (Dataset, DataLoader, ...) and `checkpoint`
(recompute a block in backward instead of keeping what it saved)."""

from minigrad.utils import checkpoint, data
