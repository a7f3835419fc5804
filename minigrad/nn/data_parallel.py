"""`nn.DataParallel`, as on a CPU-only PyTorch: with no GPU to spread the batch over, it runs
the wrapped module as it is (`device_ids` is empty), and its parameters and state_dict keys
carry the `module.` prefix, so code written for several GPUs runs unchanged."""

from __future__ import annotations

from typing import Any

from minigrad.nn.module import Module

__all__ = ["DataParallel"]


class DataParallel(Module):
    """Wraps `module`; `forward` is `module(*inputs, **kwargs)` here (there is no accelerator).
    `device_ids`, `output_device` and `dim` are accepted and, as PyTorch does without a GPU,
    not kept."""

    def __init__(self, module: Module, device_ids: Any = None, output_device: Any = None,
                 dim: int = 0) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list = []

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)
