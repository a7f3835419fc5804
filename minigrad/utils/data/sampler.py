"""Samplers: which indices of a dataset a DataLoader visits, and in what order (PyTorch's).

The random ones draw from their `generator=` (a `minigrad.Generator`, as PyTorch's
`torch.Generator().manual_seed(42)`), or from `minigrad.default_generator` when given none, so
a seeded run shuffles the same way every time. A minigrad Generator is numpy's inside: the
draws differ from PyTorch's.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any, Generic, TypeVar

import numpy as np

from minigrad.surface import random

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]

T_co = TypeVar("T_co", covariant=True)


def numpy_generator(generator: Any) -> np.random.Generator:
    """The numpy generator to draw from: inside `generator` (a minigrad.Generator, or numpy's
    own), or the default one's (seeded by manual_seed)."""
    if isinstance(generator, np.random.Generator):
        return generator
    return random.numpy_rng(generator, "randperm")


class Sampler(Generic[T_co]):
    """Base class of samplers: an `__iter__` over indices (and usually a `__len__`)."""

    def __init__(self, data_source: Sized | None = None) -> None:
        pass

    def __iter__(self) -> Iterator[T_co]:
        raise NotImplementedError


class SequentialSampler(Sampler[int]):
    """0, 1, ..., len(data_source) - 1, always in that order."""

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler[int]):
    """A new random order of the indices on every pass (or, with `replacement=True`,
    `num_samples` indices drawn independently)."""

    def __init__(self, data_source: Sized, replacement: bool = False,
                 num_samples: int | None = None, generator: Any = None) -> None:
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got "
                            f"replacement={self.replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n, rng = len(self.data_source), numpy_generator(self.generator)
        if self.replacement:
            return iter(rng.integers(0, n, self.num_samples).tolist())
        orders = (rng.permutation(n).tolist() for _ in range(-(-self.num_samples // n)))
        return itertools.islice(itertools.chain.from_iterable(orders), self.num_samples)

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler[int]):
    """The given indices, in a new random order on every pass."""

    def __init__(self, indices: Sequence[int], generator: Any = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        order = numpy_generator(self.generator).permutation(len(self.indices))
        return (self.indices[i] for i in order.tolist())

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler[int]):
    """`num_samples` indices drawn with probabilities proportional to `weights` (without
    replacement: each index at most once, as torch.multinomial draws them)."""

    def __init__(self, weights: Sequence[float], num_samples: int, replacement: bool = True,
                 generator: Any = None) -> None:
        _check_positive_int("num_samples", num_samples)
        _check_bool("replacement", replacement)
        self.weights = np.asarray(getattr(weights, "array", weights), dtype=np.float64)
        if self.weights.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape "
                             f"{tuple(self.weights.shape)}")
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self) -> Iterator[int]:
        w, rng = self.weights, numpy_generator(self.generator)
        if not self.replacement and self.num_samples > len(w):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                               "replacement")
        if not np.isfinite(w).all() or (w < 0).any():
            if not self.replacement or self.num_samples == 1:  # (PyTorch's two kernels)
                raise RuntimeError("probability tensor contains either `inf`, `nan` or element "
                                   "< 0")
            first = w[~(np.isfinite(w) & (w >= 0))][0]  # (PyTorch words the first one it meets)
            raise RuntimeError("invalid multinomial distribution (encountering probability entry "
                               + ("< 0)" if not first >= 0 else "= infinity or NaN)"))
        if w.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if self.replacement:
            return iter(rng.choice(len(w), self.num_samples, p=w / w.sum()).tolist())
        # a weighted draw without replacement: the indices of the largest w / Exp(1) keys
        keys = w / rng.exponential(size=len(w))
        return iter(np.argsort(-keys, kind="stable")[:self.num_samples].tolist())

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler[list[int]]):
    """Lists of `batch_size` indices from `sampler`; the last one shorter unless `drop_last`."""

    def __init__(self, sampler: Sampler[int] | Iterable[int], batch_size: int,
                 drop_last: bool) -> None:
        _check_positive_int("batch_size", batch_size)
        _check_bool("drop_last", drop_last)
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        indices = iter(self.sampler)
        while batch := list(itertools.islice(indices, self.batch_size)):
            if self.drop_last and len(batch) < self.batch_size:
                return
            yield batch

    def __len__(self) -> int:
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size


def _check_positive_int(name: str, value: Any) -> None:
    if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
        raise ValueError(f"{name} should be a positive integer value, but got {name}={value}")


def _check_bool(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ValueError(f"{name} should be a boolean value, but got {name}={value}")
