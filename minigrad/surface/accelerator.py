"""`minigrad.accelerator`, as on a CPU-only PyTorch: no accelerator is available, so the
tutorials' first line,

    device = torch.accelerator.current_accelerator().type \\
        if torch.accelerator.is_available() else "cpu"

picks "cpu". What needs an accelerator fails in PyTorch's words, with a line saying what to
change.
"""

from __future__ import annotations

import warnings
from typing import Any

from minigrad.surface.devices import CPU_ONLY_HINT, NO_ACCELERATOR, device


def is_available() -> bool:
    """False: minigrad computes on the CPU (which PyTorch does not count as an accelerator)."""
    return False


def current_accelerator(check_available: bool = False) -> device | None:
    """None: there is no accelerator (with or without `check_available`)."""
    return None


def device_count() -> int:
    return 0


def _none_available(*args: Any, **kwargs: Any) -> Any:
    raise RuntimeError(NO_ACCELERATOR)


def current_device_index() -> int:
    """PyTorch's error: there is no accelerator device to have an index."""
    raise RuntimeError(NO_ACCELERATOR)


def current_device_idx() -> int:
    """The old name of `current_device_index`, with PyTorch's FutureWarning."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def set_device_index(device: Any, /) -> None:
    """Fails in PyTorch's words: there is no accelerator device to make current."""
    if isinstance(device, int):
        raise RuntimeError(NO_ACCELERATOR)
    if device is None:
        raise ValueError(f"Expected a torch.device with a specified index or an integer, but "
                         f"got:{device}")
    raise RuntimeError("Accelerator expected\n" + CPU_ONLY_HINT)


def set_device_idx(device: Any, /) -> None:
    """The old name of `set_device_index`, with PyTorch's FutureWarning."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


class device_index:  # noqa: N801 - PyTorch's spelling
    """`with accelerator.device_index(None):` does nothing; an index fails (there is none)."""

    def __init__(self, device: int | None, /) -> None:
        self.idx = device

    def __enter__(self) -> None:
        if self.idx is not None:
            set_device_index(self.idx)

    def __exit__(self, *exc: Any) -> None:
        return None


synchronize = current_stream = empty_cache = empty_host_cache = _none_available
memory_allocated = max_memory_allocated = memory_reserved = max_memory_reserved = _none_available
get_memory_info = memory_stats = reset_peak_memory_stats = _none_available
reset_accumulated_memory_stats = get_device_capability = _none_available


def set_stream(stream: Any) -> None:
    """Accepted and ignored, as PyTorch does without an accelerator."""
