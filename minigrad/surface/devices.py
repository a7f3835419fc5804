"""`minigrad.device`: where a tensor lives. minigrad computes on the CPU with numpy, so a
tensor's device is `device(type='cpu')`, or `device(type='meta')` for a tensor that has a shape
and a dtype but no values (surface/meta.py); asking for another device fails the way a CPU-only
PyTorch build fails, with a line saying what to change.
"""

from __future__ import annotations

from typing import Any

DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
                "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                "privateuseone")

CPU_ONLY_HINT = ('minigrad computes on the CPU with numpy: use device = "cpu", or write '
                 'device = torch.device("cuda" if torch.cuda.is_available() else "cpu"), '
                 "which picks the CPU here.")
NO_CUDA = "Torch not compiled with CUDA enabled\n" + CPU_ONLY_HINT
NO_ACCELERATOR = "Cannot access accelerator device when none is available.\n" + CPU_ONLY_HINT
NO_PINNED = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
             "allocator is available on this system.\n" + CPU_ONLY_HINT)


class device:  # noqa: N801 - PyTorch's spelling
    """`device("cpu")`, `device("cuda:0")`, `device("cuda", 0)`: a device's type and index.

    Any of PyTorch's device types can be named (so `torch.device("cuda" if ... else "cpu")`
    runs); only the CPU can hold a tensor.
    """

    __slots__ = ("_type", "_index")

    def __init__(self, type: Any, index: Any = None) -> None:  # noqa: A002 - PyTorch's name
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): a device takes no index")
            self._type, self._index = type._type, type._index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError(NO_ACCELERATOR)
        if not isinstance(type, str):
            raise TypeError(
                "device() received an invalid combination of arguments - got "
                f"({_type_name(type)}), but expected one of:\n * (torch.device device)\n"
                " * (str type, int index = -1)\n")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            raise TypeError(f"device(): argument 'index' (position 2) must be int, not "
                            f"{_type_name(index)}")
        name, colon, number = type.partition(":")
        if colon and index is not None:
            raise RuntimeError("type (string) must not include an index because index was "
                               f"passed explicitly: {type}")
        if not type:
            raise RuntimeError("Device string must not be empty")
        if name not in DEVICE_TYPES:
            raise RuntimeError(f"Expected one of {', '.join(DEVICE_TYPES)} device type at start "
                               f"of device string: {type}")
        if colon:
            if not number.isdigit() or (len(number) > 1 and number[0] == "0"):
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(number)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self._type, self._index = name, index

    @property
    def type(self) -> str:  # noqa: A003
        return self._type

    @property
    def index(self) -> int | None:
        return self._index

    def __repr__(self) -> str:
        index = "" if self._index is None else f", index={self._index}"
        return f"device(type='{self._type}'{index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __eq__(self, other: object) -> bool:
        """As in PyTorch: equal to a device of the same type and index (never to a string)."""
        if not isinstance(other, device):
            return NotImplemented
        return (self._type, self._index) == (other._type, other._index)

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __reduce__(self) -> tuple:
        return device, (self._type, self._index)

    def __enter__(self) -> device:
        """`with torch.device("meta"):` the factories (and the modules built inside) make
        their tensors on this device when not told another, as PyTorch's."""
        _DEFAULTS.append(self)
        return self

    def __exit__(self, *exc: Any) -> None:
        _DEFAULTS.pop()


CPU = device("cpu")
META = device("meta")
_Device = device  # (the class, where a parameter named `device` hides it)
_DEFAULTS: list[device] = []  # the `with device(...)` blocks entered, innermost last
_SET: list[device] = [CPU]  # set_default_device's


def get_default_device() -> device:
    """The device factories use when given none: the innermost `with device(...)`, else what
    `set_default_device` set (the CPU at first)."""
    return _DEFAULTS[-1] if _DEFAULTS else _SET[0]


def set_default_device(device: Any) -> None:  # (PyTorch's keyword: it hides the class)
    """The device factories use when given none (None: the CPU again)."""
    _SET[0] = CPU if device is None else device if isinstance(device, _Device) else \
        _Device(device)


def default_if_none(where: Any) -> Any:
    """`device=` as a factory reads it: None means the default device (a `with` block's)."""
    if where is None and (_DEFAULTS or _SET[0] is not CPU):
        return get_default_device()
    return where


def _type_name(value: Any) -> str:
    return type(value).__name__


def check_device(where: Any) -> device:
    """`where` (a device, a string like "cuda:0", an int) as a device, if it is the CPU; any
    other device fails as on a CPU-only PyTorch (`AssertionError` for CUDA), saying what to
    change."""
    d = where if isinstance(where, device) else device(where)
    if d._type == "cpu":
        return d
    if d._type == "cuda":
        raise AssertionError(NO_CUDA)
    if d._type == "xpu":
        raise AssertionError("Torch not compiled with XPU enabled\n" + CPU_ONLY_HINT)
    raise RuntimeError(f"PyTorch is not linked with support for {d._type} devices\n"
                       + CPU_ONLY_HINT)


def wants_meta(where: Any) -> bool:
    """Whether `device=where` asks for the meta device (None and the CPU do not; any other
    device fails as check_device says)."""
    if where is None:
        return False
    d = where if isinstance(where, device) else device(where)
    if d._type == "meta":
        return True
    check_device(d)
    return False


def is_device(value: Any) -> bool:
    """Whether `.to(value)` reads `value` as a device: a device, a string or an int."""
    return isinstance(value, device | str) or (isinstance(value, int)
                                                and not isinstance(value, bool))
