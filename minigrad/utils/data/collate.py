"""Putting samples together into a batch: `default_collate` and `default_convert`, as PyTorch's.

`default_collate([s1, s2, ...])` looks at the first sample and recurses into its structure:
tensors are stacked along a new first dimension, numpy arrays and numbers become tensors (a
Python float float64, an int int64, as PyTorch does), strings stay a list, and a dict, a
namedtuple, a list or a tuple is collated field by field (a tuple becomes a list, as PyTorch's
does for backwards compatibility).
"""

from __future__ import annotations

import collections.abc
import copy
import re
from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad import ops
from minigrad.autograd.tensor import Tensor
from minigrad.surface import dtypes

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map"]

# numpy dtypes that are not numbers: bytes, unicode, objects (PyTorch's same pattern)
np_str_obj_array_pattern = re.compile(r"[SaUO]")

default_collate_err_msg_format = (
    "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
    "found {}")


def default_convert(data: Any) -> Any:
    """Numpy arrays and numpy numbers in `data` (however nested) become tensors; the rest is
    left as it is. (What a DataLoader with batch_size=None does to each sample.)"""
    if isinstance(data, Tensor):
        return data
    if type(data).__module__ == "numpy" and not isinstance(data, (np.str_, np.bytes_)):
        if isinstance(data, np.ndarray) and np_str_obj_array_pattern.search(data.dtype.str):
            return data
        return Tensor._make(np.array(data), None, 0)
    return _map_structure(default_convert, data, lambda key: data[key])


def collate(batch: list, *, collate_fn_map: dict | None = None) -> Any:
    """Collate `batch` by the type of its first element: the function `collate_fn_map` gives
    for that type (or a base of it), else recursing into dicts, namedtuples and sequences."""
    elem = batch[0]
    if collate_fn_map is not None:
        if type(elem) in collate_fn_map:
            return collate_fn_map[type(elem)](batch, collate_fn_map=collate_fn_map)
        for kind, fn in collate_fn_map.items():
            if isinstance(elem, kind):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Sequence) and not isinstance(elem, (str, bytes)) \
            and not hasattr(elem, "_fields"):
        size = len(elem)
        if not all(len(sample) == size for sample in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
    if isinstance(elem, (collections.abc.Mapping, collections.abc.Sequence)) \
            and not isinstance(elem, (str, bytes)):
        # a field's samples: a list for a dict's key, a tuple for a position (PyTorch's zip;
        # a batch of strings comes back as it is given)
        pack = list if isinstance(elem, collections.abc.Mapping) else tuple
        return _map_structure(lambda samples: collate(samples, collate_fn_map=collate_fn_map),
                              elem, lambda key: pack(sample[key] for sample in batch))
    raise TypeError(default_collate_err_msg_format.format(type(elem)))


def _map_structure(fn: Callable[[Any], Any], elem: Any, pick: Callable[[Any], Any]) -> Any:
    """`elem`'s structure (dict, namedtuple, list; a tuple becomes a list) with each field
    `key` replaced by `fn(pick(key))` (pick: the field's samples across the batch)."""
    if isinstance(elem, collections.abc.Mapping):
        fields = {key: fn(pick(key)) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(fields)
                return clone
            return type(elem)(fields)
        except TypeError:
            return fields
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # a namedtuple
        return type(elem)(*(fn(pick(i)) for i in range(len(elem))))
    if isinstance(elem, collections.abc.Sequence) and not isinstance(elem, (str, bytes)):
        fields = [fn(pick(i)) for i in range(len(elem))]
        if isinstance(elem, tuple):
            return fields  # (PyTorch's backwards compatibility: a tuple becomes a list)
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                clone[:] = fields
                return clone
            return type(elem)(fields)
        except TypeError:
            return fields
    return elem


def collate_tensor_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    return ops.stack(batch, 0)


def collate_numpy_array_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    if np_str_obj_array_pattern.search(batch[0].dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(batch[0].dtype))
    # (torch.as_tensor of each: a number among arrays is a 0-d tensor, which stack refuses)
    return collate([b if isinstance(b, Tensor) else Tensor._make(
        b if isinstance(b, np.ndarray) else dtypes.as_array(b), None, 0) for b in batch],
        collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    # (their dtypes promoted as PyTorch's torch.as_tensor does: float16 and int32 is float16)
    dtype = dtypes.result_type(*[b.array if isinstance(b, Tensor) else np.asarray(b)
                                 for b in batch])
    return Tensor._make(dtypes.as_array(batch, dtype), None, 0)


def collate_float_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    return Tensor._make(dtypes.as_array(batch, np.float64), None, 0)


def collate_int_fn(batch: list, *, collate_fn_map: dict | None = None) -> Tensor:
    return Tensor._make(dtypes.as_array(batch), None, 0)  # int64, or bool (as torch.tensor)


def collate_str_fn(batch: list, *, collate_fn_map: dict | None = None) -> list:
    return batch


default_collate_fn_map: dict[type | tuple[type, ...], Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def default_collate(batch: list) -> Any:
    """A batch of samples into tensors with a new first dimension, as PyTorch's (see the
    module's docstring); what a DataLoader uses unless given a `collate_fn`."""
    return collate(batch, collate_fn_map=default_collate_fn_map)
