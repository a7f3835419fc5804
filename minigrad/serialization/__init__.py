"""`minigrad.save` and `minigrad.load`, in PyTorch's own file format.

A file minigrad saves loads in PyTorch with `torch.load(f, weights_only=True)`, and a file
PyTorch saves (tensors, state_dicts, checkpoint dicts) loads in minigrad. Loading is always
safe: the pickle inside is read by minigrad's own small unpickler (unpickler.py), which runs no
code from the file, and every size the file claims is checked against what it holds.
"""

from __future__ import annotations

import io
import os
import pickle
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from minigrad.serialization import objects
from minigrad.serialization.allowed import SAFE_GLOBALS
from minigrad.serialization.archive import ArchiveReader, open_for, write_archive
from minigrad.serialization.formats import FILE_VERSION, archive_name
from minigrad.serialization.pickler import Pickler
from minigrad.serialization.rebuild import storage_loader
from minigrad.serialization.unpickler import Unpickler
from minigrad.surface import dtypes

__all__ = ["save", "load"]

CUDA_ON_CPU = (
    "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() is False. "
    "If you are running on a CPU-only machine, please use torch.load with "
    "map_location=torch.device('cpu') to map your storages to the CPU.")


def save(obj: Any, f: Any, pickle_module: Any = None, pickle_protocol: int = 2,
         _use_new_zipfile_serialization: bool = True,
         _disable_byteorder_record: bool = False) -> None:
    """Save `obj` to `f`, a path or a binary file object, as `torch.save` does.

    Tensors, state_dicts and plain data are written as PyTorch writes them (a file that
    `torch.load(f, weights_only=True)` reads; a view is saved with its whole storage). Any
    other object (a whole Module, an object of your own class) is pickled as PyTorch pickles
    it, into a file that only `load(f, weights_only=False)` reads back (objects.py). A numpy
    array is saved as a tensor. Nothing is written when the object cannot be saved.
    `pickle_module`/`pickle_protocol` other than pickle and 2, and the legacy format, are
    refused; the byteorder record is always written.
    """
    if pickle_module not in (None, pickle) or pickle_protocol != 2 or \
            not _use_new_zipfile_serialization:
        raise ValueError("minigrad.save writes PyTorch's zip format with Python's pickle, "
                         "protocol 2, only")
    if isinstance(f, (str, os.PathLike)):
        folder = os.path.dirname(os.path.abspath(os.fspath(f)))
        if not os.path.isdir(folder):
            raise RuntimeError(f"Parent directory {folder} does not exist.")
    try:
        data, storages = Pickler().dump(obj)  # (first: a refused object leaves no file)
    except TypeError:
        data, storages = objects.dump(obj)
    records = [("data.pkl", data), ("byteorder", b"little")]
    records += [(f"data/{key}", array.astype(array.dtype.newbyteorder("<")).tobytes())
                for key, array in storages.items()]
    records.append(("version", FILE_VERSION))
    is_path = isinstance(f, (str, os.PathLike))
    buffer = io.BytesIO()
    write_archive(buffer, archive_name(os.fspath(f) if is_path else None), records)
    stream, opened = open_for(f, "wb")
    try:
        stream.write(buffer.getvalue())
    finally:
        if opened:
            stream.close()


def load(f: Any, map_location: Any = None, pickle_module: Any = None, *,
         weights_only: bool | None = None, mmap: bool | None = None,
         **pickle_load_args: Any) -> Any:
    """Load what `torch.save` or `minigrad.save` wrote to `f` (a path or a binary file object).

    Always as PyTorch's `weights_only=True`: tensors, state_dicts and plain Python data, never
    code (a file naming any other global is refused with "Weights only load failed ...").
    Tensors come back on the CPU (`map_location` may say 'cpu', a dict or a function); tensors
    that shared a storage in the file share memory again.

    `weights_only=False` loads any object minigrad saved (a whole model): it runs the class
    lookups and constructors the file names, so do it only for files you trust (PyTorch's
    rule too); a PyTorch whole-model file is refused (it names PyTorch's classes).

    Differences on purpose: with weights_only, a saved nn.Parameter comes back
    as a leaf Tensor with its requires_grad; `mmap` is accepted and ignored (the records are
    read into memory); dict keys and set elements must be str, bytes, int, bool or None (a
    file could make keys of other types collide, and loading take quadratic time); the legacy
    (pre-1.6) format, compressed records and bare pickles are refused with a message.
    """
    if pickle_module is not None and weights_only is not False:
        raise RuntimeError("Can not safely load weights when explicit pickle_module is specified")
    if pickle_load_args and weights_only is not False:
        warnings.warn("pickle_load_args only works if `weights_only=False`.", stacklevel=2)
    restore = _restorer(map_location)
    stream, opened = open_for(f, "rb")
    try:
        archive = ArchiveReader(stream)
        loader = storage_loader(archive, restore)
        if weights_only is False:
            return objects.ObjectUnpickler(archive.read("data.pkl"), loader).load()
        return Unpickler(archive.read("data.pkl"), SAFE_GLOBALS, loader).load()
    finally:
        if opened:
            stream.close()


def _restorer(map_location: Any) -> Callable[[np.ndarray, str], np.ndarray]:
    """`restore(storage, location)`: where a storage goes, said by `map_location`."""
    if map_location is not None and not isinstance(map_location, dict) \
            and not callable(map_location):
        if str(map_location).startswith("cuda"):  # what a CPU-only PyTorch says
            raise RuntimeError(CUDA_ON_CPU)
        dtypes.check_device(str(map_location))  # 'cpu', torch.device('cpu')
        return lambda storage, where: storage

    def restore(storage: np.ndarray, where: str) -> np.ndarray:
        if callable(map_location):
            moved = map_location(storage, where)
            if moved is not None:
                if moved is not storage:
                    raise TypeError("map_location must return the storage it is given or None "
                                    "(minigrad keeps every tensor on the CPU)")
                return storage
        elif isinstance(map_location, dict):
            where = str(map_location.get(where, where))
        if where.startswith("cuda"):
            raise RuntimeError(CUDA_ON_CPU)
        dtypes.check_device(where)
        return storage

    return restore
