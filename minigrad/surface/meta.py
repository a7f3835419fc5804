"""The meta device: tensors that have a shape and a dtype but no values.

PyTorch's `device="meta"` builds a model, or runs a computation, to learn the shapes and dtypes
it makes without computing or storing a number. minigrad's meta tensor holds a `MetaArray`:
a numpy array of zeros (numpy's `zeros` asks the system for memory it does not touch) that
numpy itself carries through every operation. Each numpy function or ufunc that sees a
MetaArray runs on the zeros behind it and hands back MetaArrays, so every op of minigrad
(forward and backward) gives a meta tensor of the shape and dtype the CPU would give, and
writing into a MetaArray writes nothing. What would show a value is refused with PyTorch's
words (`item()`, `tolist()`, `numpy()`, `float(t)`, `bool(t)`, copying to the CPU), and so is
what needs the values to know its shape (`nonzero()`, `unique()`, a boolean mask).

Where minigrad differs: the results are computed on zeros, so they take the memory and time a
CPU run takes (PyTorch's meta tensors take none); see tutorials/differences.md.
"""

from __future__ import annotations

from typing import Any

import numpy as np

ITEM = "Tensor.item() cannot be called on meta tensors"
NO_DATA = "Cannot copy out of meta tensor; no data!"
NO_NUMPY = ("can't convert meta device type tensor to numpy. Use Tensor.cpu() to copy the tensor "
            "to host memory first.")
MODULE_TO = (NO_DATA + " Please use torch.nn.Module.to_empty() instead of torch.nn.Module.to() "
             "when moving module from meta to a different device.")
MIXED = "Tensor on device {} is not on the expected device {}!"
NO_SAVE = ("minigrad.save does not write meta tensors: they have no values (torch.save writes "
           "their shape and dtype alone). Save the state_dict of a model on the CPU.")
VALUES_NEEDED = ("{} on a meta tensor: its result depends on the values, and a meta tensor "
                 "has none")

in_use = False  # set by the first meta tensor: until then ops skip every check of this file
in_backward = 0  # how many backward formulas run (their own CPU constants meet meta tensors)


class MetaArray(np.ndarray):
    """The zeros behind a meta tensor, which numpy carries through its functions (see the
    module docstring). Reading a value out of it raises PyTorch's error."""

    def __array_ufunc__(self, ufunc: np.ufunc, method: str, *inputs: Any, **kw: Any) -> Any:
        out = kw.get("out", ())
        if method == "at":  # `np.add.at(a, index, b)`: a is written
            out = inputs[:1]
        if any(type(o) is MetaArray for o in out):
            return out[0] if len(out) == 1 else out  # (nothing to write into)
        with np.errstate(all="ignore"):  # (zeros divide by zero: nothing to warn about)
            return wrap(getattr(ufunc, method)(*plain(inputs), **kw))

    def __array_function__(self, func: Any, types: tuple, args: tuple, kw: dict) -> Any:
        name = func.__name__
        if name in _NEED_VALUES:
            raise NotImplementedError(VALUES_NEEDED.format(_NEED_VALUES[name]))
        if name == "repeat" and _is_meta(kw.get("repeats", args[1] if len(args) > 1 else None)):
            raise NotImplementedError(VALUES_NEEDED.format("repeat_interleave()"))
        if name in _WRITES and type(args[0]) is MetaArray:  # np.copyto(dst, src), np.put(a,
            return None  # ...): the first is written, and a meta array has nothing to write
        if type(kw.get("out")) is MetaArray:
            return kw["out"]
        with np.errstate(all="ignore"):
            return wrap(func(*plain(args), **plain(kw)))

    def __getitem__(self, key: Any) -> Any:
        return wrap(super().__getitem__(plain(key)))

    def __setitem__(self, key: Any, value: Any) -> None:
        """A meta tensor has no values to overwrite."""

    def tolist(self) -> Any:
        raise NotImplementedError(NO_DATA)

    def __deepcopy__(self, memo: dict) -> MetaArray:
        return like(self)


# numpy functions whose result's shape depends on the values (minigrad's op that calls each)
_NEED_VALUES = {"nonzero": "nonzero()", "argwhere": "nonzero()", "flatnonzero": "nonzero()",
                "unique": "unique()", "bincount": "bincount()", "compress": "masked_select()",
                "extract": "masked_select()", "array_equal": "equal()", "allclose": "allclose()",
                "histogram": "histogram()"}
_WRITES = {"copyto", "put", "place", "putmask", "fill_diagonal", "put_along_axis"}


def _is_meta(value: Any) -> bool:
    return type(value) is MetaArray


def refuse_values(what: str, *tensors: Any) -> None:
    """NotImplementedError if any of `tensors` is meta: `what` needs their values to know its
    result, or its shape (a boolean mask, tensor_split's cuts, `equal`)."""
    if in_use and not in_backward and any(type(getattr(t, "array", None)) is MetaArray
                                           for t in tensors):
        raise NotImplementedError(VALUES_NEEDED.format(what))


def plain(value: Any) -> Any:
    """`value` with each MetaArray in it seen as the plain array of zeros it is."""
    if type(value) is MetaArray:
        return value.view(np.ndarray)
    if type(value) in (tuple, list):
        return type(value)(plain(v) for v in value)
    if type(value) is dict:
        return {k: plain(v) for k, v in value.items()}
    return value


def wrap(value: Any) -> Any:
    """A numpy result as MetaArrays: arrays, numbers (a sum's) and each item of a tuple."""
    if isinstance(value, np.ndarray):
        return value.view(MetaArray)
    if isinstance(value, np.generic):
        return np.asarray(value).view(MetaArray)
    if isinstance(value, tuple):
        return tuple(wrap(v) for v in value)
    if isinstance(value, list):
        return [wrap(v) for v in value]
    return value


def empty(shape: tuple, dtype: Any) -> MetaArray:
    """A meta array of this shape and dtype (its zeros take no memory until written)."""
    global in_use
    in_use = True
    return np.zeros(shape, dtype).view(MetaArray)


def like(array: np.ndarray) -> MetaArray:
    """A meta array of `array`'s shape and dtype."""
    return empty(array.shape, array.dtype)


def is_meta(array: Any) -> bool:
    """Whether this tensor data is a meta tensor's."""
    return type(array) is MetaArray


def check_inputs(args: Any) -> bool:
    """Whether any tensor among an op's inputs is meta; if so, PyTorch's error for a CPU
    tensor of floats among them (0-d ones mix with any device, as in PyTorch; minigrad lets
    integer and boolean CPU tensors, an op's indices and masks, mix as well)."""
    tensors = [a for a in args if hasattr(a, "array") and hasattr(a, "grad_fn")]
    for a in args:
        if isinstance(a, list | tuple):
            tensors += [t for t in a if hasattr(t, "array") and hasattr(t, "grad_fn")]
    metas = [type(t.array) is MetaArray for t in tensors]
    if not any(metas):
        return False
    if in_backward:  # (the inputs are a backward formula's own: gradients and constants)
        return True
    for t, meta in zip(tensors, metas):
        if not meta and t.array.ndim and t.array.dtype.kind in "fc" and \
                not getattr(t, "_helper", False):  # (ops.base.constant's: an op's own)
            first = "meta" if metas[0] else "cpu"
            raise RuntimeError(MIXED.format("cpu" if first == "meta" else "meta", first))
    return True


def outputs(out: Any) -> Any:
    """An op's outputs when an input was meta: each array (or tensor's array) a MetaArray."""
    if isinstance(out, tuple):
        return tuple(outputs(o) for o in out)
    if isinstance(out, np.ndarray | np.generic):
        return wrap(out)
    if hasattr(out, "array") and type(out.array) is not MetaArray:
        out.array = wrap(out.array)
    return out
