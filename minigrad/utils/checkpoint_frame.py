"""What a non-reentrant checkpoint keeps instead of the tensors its ops save (`Frame`): a
number per saved tensor at pack, and, at the first unpack, the block run again under hooks
that collect what it saves, so that number `i` comes back as the recomputed tensor `i`."""

from __future__ import annotations

from typing import Any

from minigrad.autograd import tensor as _tensor
from minigrad.autograd.grad_mode import enable_grad
from minigrad.autograd.graph import saved_tensors_hooks
from minigrad.ops.calls import calling
from minigrad.surface import random

DEBUG_TIP = (
    "\nTip: To see a more detailed error message, either pass `debug=True` to\n"
    "`torch.utils.checkpoint.checkpoint(...)` or wrap the code block\n"
    "with `with torch.utils.checkpoint.set_checkpoint_debug_enabled(True):` to\n"
    "enable checkpoint\u2011debug mode globally.\n")


def again(t: Any) -> Any:
    """An input of the block, for its run in backward: the same values, a leaf of its own
    (named after the input with a prime, for the explanation). A dual input keeps its
    tangents, as the input PyTorch's recomputation runs on: forward mode goes through."""
    copy = t.detach().requires_grad_(t.requires_grad)
    copy.name = f"{t.name}'" if t.name else None
    copy._tangents = dict(t._tangents) if t._tangents else None
    return copy


def block_name(function: Any) -> str:
    return getattr(function, "__name__", type(function).__name__)


class CheckpointError(RuntimeError):
    """What checkpoint raises when the recomputation does not match the forward."""


class Frame:
    """One checkpointed call: its inputs, the random state, and the recomputed tensors."""

    def __init__(self, function: Any, args: tuple, kwargs: dict, preserve: bool,
                 recompute_ctx: Any, determinism_check: str) -> None:
        self.function, self.args, self.kwargs = function, args, kwargs
        self.preserve, self.recompute_ctx = preserve, recompute_ctx
        self.check = determinism_check != "none"
        self.state = random.get_rng_state() if preserve else None
        self.metadata: list[tuple] = []  # (shape, dtype) of each tensor saved at forward
        self.recomputed: dict[int, Any] | None = None
        self.unpacked: set[int] = set()

    def pack(self, tensor: Any) -> int:
        """Keep the tensor's number (and its shape and dtype, to check the recomputation)."""
        self.metadata.append((tuple(tensor.array.shape), tensor.array.dtype))
        return len(self.metadata) - 1

    def unpack(self, index: int) -> Any:
        """Tensor `index`, from the recomputation (run now if this backward has not yet)."""
        if self.recomputed is None:
            self.recomputed = self._recompute()
            self.unpacked = set()
        value = self.recomputed[index]
        self.unpacked.add(index)
        if len(self.unpacked) == len(self.metadata):  # all read: a later backward redoes it
            self.recomputed = None
        return value

    def _recompute(self) -> dict[int, Any]:
        saved: list = []

        def keep(tensor: Any) -> Any:
            saved.append(tensor.detach() if tensor.requires_grad else tensor)
            return None

        args = tuple(again(a) if isinstance(a, _tensor.Tensor) else a for a in self.args)
        with random.fork_rng(enabled=self.preserve):
            if self.preserve:
                random.set_rng_state(self.state)
            with enable_grad(), saved_tensors_hooks(keep, lambda _: None), self.recompute_ctx, \
                    calling("recompute", block_name(self.function), args):
                self.function(*args, **self.kwargs)
        if self.check:
            self._check(saved)
        return dict(enumerate(saved))

    def _check(self, saved: list) -> None:
        if len(saved) != len(self.metadata):
            raise CheckpointError(
                "torch.utils.checkpoint: A different number of tensors was saved during the "
                "original forward and recomputation.\n"
                f"Number of tensors saved during forward: {len(self.metadata)}\n"
                f"Number of tensors saved during recomputation: {len(saved)}.\n{DEBUG_TIP}")
        wrong = {i: {"shape": (m[0], tuple(t.array.shape)), "dtype": (m[1], t.array.dtype)}
                 for i, (m, t) in enumerate(zip(self.metadata, saved))
                 if (m[0], m[1]) != (tuple(t.array.shape), t.array.dtype)}
        if wrong:
            raise CheckpointError(
                "torch.utils.checkpoint: Recomputed values for the following tensors have "
                f"different metadata than during the forward pass.\n{wrong}.\n{DEBUG_TIP}")
