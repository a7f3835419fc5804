"""`minigrad.Generator` and `minigrad.random`: where random numbers come from.

A `Generator` holds one random stream. `minigrad.default_generator` feeds `randn`, `rand`,
dropout, `nn.init` and shuffling; `manual_seed(s)` reseeds it. A program that wants its own
stream makes one, as in PyTorch's tutorials:

    g = torch.Generator().manual_seed(42)
    train, test = random_split(dataset, [0.8, 0.2], generator=g)
    x = torch.randn(3, generator=g)

Inside, a Generator is numpy's (PCG64, `np.random.default_rng(seed)`), not PyTorch's Mersenne
twister: the same seed gives other numbers than PyTorch's, and `get_state()` is a 45-byte
ByteTensor where PyTorch's is 5056 bytes (tutorials/differences.md).
"""

from __future__ import annotations

import contextlib
import secrets
from collections.abc import Iterator
from typing import Any

import numpy as np

from minigrad.autograd import tensor as _tensor  # (Tensor, read at call time)
from minigrad.surface import devices

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "fork_rng"]

# PyTorch's default seed of a new Generator (`torch.Generator().initial_seed()`)
DEFAULT_SEED = 67280421310721
_STATE_BYTES = 45  # state (16) + increment (16) + has_uint32 (1) + uinteger (4) + seed (8)


class Generator:
    """A random stream on the CPU: `manual_seed`, `seed`, `initial_seed`, `get_state`,
    `set_state`, `clone_state`, `device`, as PyTorch's."""

    def __init__(self, device: Any = "cpu") -> None:
        d = devices.device(device) if not isinstance(device, devices.device) else device
        if d.type == "meta":
            raise RuntimeError("META device type not an accelerator.")
        self.device = devices.check_device(d)
        self._seed = DEFAULT_SEED
        self.rng = np.random.default_rng(DEFAULT_SEED)

    def manual_seed(self, seed: int) -> Generator:
        """Restart the stream from `seed` (an int; negatives count from 2**64, as in
        PyTorch); returns the generator, so `Generator().manual_seed(42)` is one line."""
        if not isinstance(seed, int):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        if not -2 ** 63 <= seed < 2 ** 64:
            raise ValueError("Overflow when unpacking long long")
        self._seed = int(seed) % 2 ** 64
        self.rng = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Reseed from the operating system's entropy; returns the new seed."""
        self.manual_seed(secrets.randbits(63))
        return self._seed

    def initial_seed(self) -> int:
        """The seed the stream started from."""
        return self._seed

    def get_state(self) -> Any:
        """The stream's state as a uint8 tensor, for `set_state` (minigrad's own layout)."""
        state = self.rng.bit_generator.state
        inner = state["state"]
        raw = (inner["state"].to_bytes(16, "little") + inner["inc"].to_bytes(16, "little")
               + bytes([state["has_uint32"]]) + state["uinteger"].to_bytes(4, "little")
               + self._seed.to_bytes(8, "little"))
        return _tensor.Tensor(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state: Any) -> Generator:
        """Go back to a state `get_state` returned (PyTorch's errors for anything else)."""
        array = getattr(new_state, "array", None)
        if not isinstance(new_state, _tensor.Tensor) or array.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if array.size != _STATE_BYTES:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_BYTES} but "
                               f"found the input RNG state size to be {array.size}")
        raw = array.tobytes()
        rng = np.random.default_rng()
        rng.bit_generator.state = {
            "bit_generator": "PCG64",
            "state": {"state": int.from_bytes(raw[:16], "little"),
                      "inc": int.from_bytes(raw[16:32], "little")},
            "has_uint32": raw[32], "uinteger": int.from_bytes(raw[33:37], "little")}
        self.rng, self._seed = rng, int.from_bytes(raw[37:], "little")
        return self

    def clone_state(self) -> Generator:
        """A new Generator at this one's state (they draw the same numbers from here on)."""
        return Generator(self.device).set_state(self.get_state())

    def get_offset(self) -> int:
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset: int) -> Generator:
        raise RuntimeError("CPU Generator does not use offset")

    def __reduce__(self) -> tuple:
        return _rebuild, (self.get_state().array.tobytes(),)

    def __deepcopy__(self, memo: dict) -> Generator:
        return self.clone_state()

    def __repr__(self) -> str:
        return f"<minigrad.Generator object at {id(self):#x}>"


def _rebuild(raw: bytes) -> Generator:
    return Generator().set_state(_tensor.Tensor(np.frombuffer(raw, dtype=np.uint8).copy()))


default_generator = Generator().manual_seed(0)
"""The stream the factories, dropout and init draw from when given no generator (minigrad
starts it at seed 0, so a program without `manual_seed` still repeats itself)."""


def numpy_rng(generator: Generator | None, op: str) -> np.random.Generator:
    """numpy's generator inside `generator` (the default one for None); PyTorch's TypeError
    for anything else."""
    if generator is None:
        return default_generator.rng
    if not isinstance(generator, Generator):
        raise TypeError(f"{op}(): argument 'generator' must be torch.Generator, not "
                        f"{type(generator).__name__}")
    return generator.rng


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (anything `int()` takes, as PyTorch); returns it."""
    return default_generator.manual_seed(int(seed))


def seed() -> int:
    """Seed the default generator from the operating system's entropy; returns the seed."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator started from."""
    return default_generator.initial_seed()


def get_rng_state() -> Any:
    """The default generator's state (a uint8 tensor)."""
    return default_generator.get_state()


def set_rng_state(new_state: Any) -> None:
    """Put the default generator back in a state `get_rng_state` returned."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices: Any = None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: Any = None) -> Iterator[None]:
    """Inside, draw freely: the default generator's state is restored on the way out."""
    if not enabled:
        yield
        return
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)
