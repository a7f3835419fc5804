"""What PyTorch's checkpoint format names: storage types, dtypes, records, messages.

A `torch.save` file is a zip archive with one top folder (`archive/` for a buffer, the file's
name without its extension for a path). In it: `data.pkl` (a pickle of the object, where each
tensor is a call to `torch._utils._rebuild_tensor_v2` on a storage named by a persistent id
`('storage', torch.FloatStorage, '0', 'cpu', numel)`), `data/0`, `data/1`, ... (the raw bytes
of each storage), `byteorder`, `version` and two small records about the layout.
"""

from __future__ import annotations

import numpy as np

# torch's legacy storage class for each dtype minigrad has (torch/storage.py,
# _dtype_to_storage_type_map); a storage of numel elements is numel * itemsize bytes.
STORAGE_TYPES = {
    np.dtype(np.float32): "FloatStorage",
    np.dtype(np.float64): "DoubleStorage",
    np.dtype(np.float16): "HalfStorage",
    np.dtype(np.int64): "LongStorage",
    np.dtype(np.int32): "IntStorage",
    np.dtype(np.int16): "ShortStorage",
    np.dtype(np.int8): "CharStorage",
    np.dtype(np.uint8): "ByteStorage",
    np.dtype(np.bool_): "BoolStorage",
}
DTYPES = {name: dtype for dtype, name in STORAGE_TYPES.items()}
# torch's other storage classes: tensors of dtypes minigrad does not have (refused by name)
OTHER_STORAGES = {"BFloat16Storage": "bfloat16", "ComplexFloatStorage": "complex64",
                  "ComplexDoubleStorage": "complex128", "QInt8Storage": "qint8",
                  "QInt32Storage": "qint32", "QUInt8Storage": "quint8",
                  "QUInt4x2Storage": "quint4x2", "QUInt2x4Storage": "quint2x4",
                  "UntypedStorage": "uint16, uint32, uint64, float8 or complex32"}
# torch's dtype objects as pickled globals (`torch.float32`) and the numpy dtype for each
DTYPE_GLOBALS = {
    "float32": np.float32, "float": np.float32, "float64": np.float64, "double": np.float64,
    "float16": np.float16, "half": np.float16, "int64": np.int64, "long": np.int64,
    "int32": np.int32, "int": np.int32, "int16": np.int16, "short": np.int16,
    "int8": np.int8, "uint8": np.uint8, "bool": np.bool_,
}

REBUILD_TENSOR = ("torch._utils", "_rebuild_tensor_v2")
ORDERED_DICT = ("collections", "OrderedDict")

FILE_VERSION = b"3\n"  # what torch 2.x writes in `version`
FORMAT_VERSION = b"1"  # storages numbered in the order they are written
STORAGE_ALIGNMENT = 64  # each storage's bytes start at a multiple of this in the file

# the first pickle of a file torch.save wrote with _use_new_zipfile_serialization=False
LEGACY_MAGIC = b"\x80\x02\x8a\nl\xfc\x9cF\xf9 j\xa8P\x19."

UNSAFE_NOTE = (
    "minigrad.load with weights_only=True (the default) never runs code from a file: it reads "
    "tensors, state_dicts and plain Python data (dict, OrderedDict, list, tuple, set, str, "
    "bytes, numbers, None) and refuses anything else, as torch.load(f, weights_only=True) does.")
# PyTorch's preamble, word for word (and its bold): the one way past it is weights_only=False
TRUST = (
    "Weights only load failed. This file can still be loaded, to do so you have two options, "
    "\x1b[1mdo those steps only if you trust the source of the checkpoint\x1b[0m. \n"
    "\t(1) In PyTorch 2.6, we changed the default value of the `weights_only` argument in "
    "`torch.load` from `False` to `True`. Re-running `torch.load` with `weights_only` set to "
    "`False` will likely succeed, but it can result in arbitrary code execution. Do it only if "
    "you got the file from a trusted source.\n"
    "\t(2) Alternatively, to load with `weights_only=True` please check the recommended steps "
    "in the following error message.\n")


def weights_only_error(message: str) -> str:
    """The text of a refused pickle: PyTorch's ("Weights only load failed. ..."), then what
    minigrad's loader reads."""
    return f"{TRUST}\tWeightsUnpickler error: {message}\n\n{UNSAFE_NOTE}"


def archive_name(path: str | None) -> str:
    """The top folder torch.save uses: the file's name without its last extension."""
    if path is None:
        return "archive"
    base = path.replace("\\", "/").rsplit("/", 1)[-1]
    stem = base.rsplit(".", 1)[0] if "." in base else base
    return stem or "archive"
