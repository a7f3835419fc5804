"""DataLoader: a dataset's samples in batches, as PyTorch's, in minigrad's one process.

Each pass asks the batch sampler for a list of indices (sequential, or shuffled with
minigrad's seeded generator), fetches those samples and collates them (`default_collate`,
unless given a `collate_fn`). `num_workers` > 0 is accepted, with a warning, and loads in the
main process (`worker_init_fn(0)` runs at the start of each pass); `pin_memory` is accepted
and ignored: there is only the CPU.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from minigrad.utils.data.collate import default_collate, default_convert
from minigrad.utils.data.dataset import Dataset, IterableDataset
from minigrad.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info"]

FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
          "persistent_workers")


def get_worker_info() -> None:
    """None: minigrad's DataLoader always loads in the main process (PyTorch's answer there)."""
    return None


class DataLoader:
    """Iterate over `dataset` in batches of `batch_size` (None: one sample at a time, not
    collated), shuffled on every pass if `shuffle`, the last short batch dropped if
    `drop_last`; or in the batches of indices that `batch_sampler` gives."""

    def __init__(self, dataset: Dataset, batch_size: int | None = 1,
                 shuffle: bool | None = None, sampler: Sampler | Iterable | None = None,
                 batch_sampler: Sampler | Iterable | None = None, num_workers: int = 0,
                 collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0,
                 worker_init_fn: Callable | None = None, multiprocessing_context: Any = None,
                 generator: Any = None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "",
                 in_order: bool = True) -> None:
        _check_worker_options(num_workers, timeout, prefetch_factor, persistent_workers,
                              multiprocessing_context)
        iterable = isinstance(dataset, IterableDataset)
        sampler, batch_sampler, batch_size, drop_last = _samplers(
            dataset, iterable, batch_size, shuffle, sampler, batch_sampler, drop_last, generator)
        if num_workers > 0:
            warnings.warn(f"minigrad's DataLoader loads in the main process: num_workers="
                          f"{num_workers} runs no worker processes (the batches are the "
                          "same, one after the other)", UserWarning, stacklevel=2)
        self.__dict__.update(
            dataset=dataset, batch_size=batch_size, drop_last=drop_last, sampler=sampler,
            batch_sampler=batch_sampler, generator=generator, num_workers=num_workers,
            pin_memory=pin_memory, pin_memory_device=pin_memory_device, timeout=timeout,
            worker_init_fn=worker_init_fn, multiprocessing_context=multiprocessing_context,
            prefetch_factor=2 if num_workers > 0 and prefetch_factor is None else prefetch_factor,
            persistent_workers=persistent_workers,
            in_order=in_order, _iterable=iterable,
            collate_fn=collate_fn or (default_collate if batch_size is not None
                                      or batch_sampler is not None else default_convert))

    def __setattr__(self, name: str, value: Any) -> None:
        if name in FROZEN:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        object.__setattr__(self, name, value)

    def __iter__(self) -> Iterator:
        if self.num_workers > 0 and self.worker_init_fn is not None:
            self.worker_init_fn(0)
        if self._iterable:
            return self._iter_stream()
        return self._iter_map()

    def _iter_map(self) -> Iterator:
        if self.batch_sampler is None:  # batch_size=None: sample by sample, not collated
            for index in self.sampler:
                yield self.collate_fn(self.dataset[index])
            return
        fetch_many = getattr(self.dataset, "__getitems__", None)
        for indices in self.batch_sampler:
            samples = fetch_many(indices) if callable(fetch_many) else \
                [self.dataset[i] for i in indices]
            yield self.collate_fn(samples)

    def _iter_stream(self) -> Iterator:
        samples = iter(self.dataset)
        if self.batch_size is None:
            yield from map(self.collate_fn, samples)
            return
        while batch := list(itertools.islice(samples, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield self.collate_fn(batch)

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is None:
                return n
            return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)


def _samplers(dataset: Dataset, iterable: bool, batch_size: int | None, shuffle: bool | None,
              sampler: Any, batch_sampler: Any, drop_last: bool, generator: Any) -> tuple:
    """(sampler, batch_sampler, batch_size, drop_last) as PyTorch settles them, with its
    checks: the defaults are a Sequential or Random sampler in a BatchSampler."""
    if iterable:
        _check_iterable_options(shuffle, sampler, batch_sampler)
    else:
        shuffle = bool(shuffle)
    if sampler is not None and shuffle:
        raise ValueError("sampler option is mutually exclusive with shuffle")
    if batch_sampler is not None:
        if batch_size != 1 or shuffle or sampler is not None or drop_last:
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                             "shuffle, sampler, and drop_last")
        return sampler, batch_sampler, None, False
    if batch_size is None and drop_last:
        raise ValueError("batch_size=None option disables auto-batching and is mutually "
                         "exclusive with drop_last")
    if iterable:  # (no sampler: the stream's order; batch_size and drop_last checked alike)
        if batch_size is not None:
            BatchSampler([], batch_size, drop_last)
        return None, None, batch_size, drop_last
    if sampler is None:
        sampler = RandomSampler(dataset, generator=generator) if shuffle \
            else SequentialSampler(dataset)
    if batch_size is not None:
        batch_sampler = BatchSampler(sampler, batch_size, drop_last)
    return sampler, batch_sampler, batch_size, drop_last


def _check_worker_options(num_workers: int, timeout: float, prefetch_factor: int | None,
                          persistent_workers: bool, multiprocessing_context: Any) -> None:
    if num_workers < 0:
        raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                         "disable multiprocessing.")
    if timeout < 0:
        raise ValueError("timeout option should be non-negative")
    if num_workers == 0 and prefetch_factor is not None:
        raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                         "let num_workers > 0 to enable multiprocessing, otherwise set "
                         "prefetch_factor to None.")
    if prefetch_factor is not None and prefetch_factor < 0:
        raise ValueError("prefetch_factor option should be non-negative")
    if persistent_workers and num_workers == 0:
        raise ValueError("persistent_workers option needs num_workers > 0")
    if multiprocessing_context is not None and num_workers == 0:
        raise ValueError("multiprocessing_context can only be used with multi-process "
                         "loading (num_workers > 0), but got num_workers=0")


def _check_iterable_options(shuffle: Any, sampler: Any, batch_sampler: Any) -> None:
    if shuffle not in {False, None}:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle "
                         f"option, but got shuffle={shuffle}")
    if sampler is not None:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler "
                         f"option, but got sampler={sampler}")
    if batch_sampler is not None:
        raise ValueError(f"DataLoader with IterableDataset: expected unspecified "
                         f"batch_sampler option, but got batch_sampler={batch_sampler}")
