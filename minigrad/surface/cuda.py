"""`minigrad.cuda`, as on a CPU-only PyTorch: no GPU is available, seeding it does nothing,
and what needs a GPU fails in PyTorch's words (with a line saying what to change)."""

from __future__ import annotations

from typing import Any

from minigrad.surface.devices import NO_CUDA


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Seeds nothing (there is no GPU), silently, as a CPU-only PyTorch does."""


def manual_seed_all(seed: int) -> None:
    """Seeds nothing (there is no GPU), silently, as a CPU-only PyTorch does."""


def empty_cache() -> None:
    """Frees nothing (there is no GPU cache), silently, as a CPU-only PyTorch does."""


def memory_allocated(device: Any = None) -> int:
    return 0


def _no_cuda(*args: Any, **kwargs: Any) -> Any:
    raise AssertionError(NO_CUDA)


current_device = get_device_name = get_device_properties = synchronize = set_device = _no_cuda
