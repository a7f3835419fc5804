"""minigrad: a small, readable reverse-mode autograd engine on numpy that shows what
`loss.backward()` does. It mirrors PyTorch's API: `import minigrad as torch` runs the usual
autograd examples unchanged.

Nothing runs on import; every public name is re-exported here (the op functions from each
`minigrad/ops` module's `__all__`). The submodules a PyTorch program reaches through the
package (`minigrad.testing`, `minigrad.utils`, ...) are imported when first used.
"""

import importlib
from typing import Any

from minigrad import autograd, nn, optim
from minigrad.autograd import events, is_anomaly_check_nan_enabled, is_anomaly_enabled
from minigrad.autograd.function import Function
from minigrad.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)
from minigrad.autograd.tensor import Tensor
from minigrad.ops import *  # noqa: F403 (every op module's __all__)
from minigrad.ops.weight_norms import _weight_norm  # noqa: F401 (torch._weight_norm)
from minigrad.serialization import load, save
from minigrad.surface import accelerator, backends, cuda, random, return_types
from minigrad.surface.devices import device, get_default_device, set_default_device
from minigrad.surface.dtypes import (
    bool,
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    dtype,
    float,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    set_default_dtype,
    short,
    uint8,
)
from minigrad.surface.factories import (
    arange,
    as_tensor,
    empty,
    empty_like,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    logspace,
    ones,
    ones_like,
    tensor,
    zeros,
    zeros_like,
)
from minigrad.surface.layouts import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    memory_format,
    preserve_format,
    strided,
)
from minigrad.surface.legacy_tensors import (
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)

# the functions that take `out=` as PyTorch's do (surface/out_functions.py): the same ops,
# wrapped once; Tensor's methods and operators call the ops themselves
from minigrad.surface.out_functions import WRAPPED as _WITH_OUT  # noqa: E402
from minigrad.surface.random import (
    Generator,
    default_generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from minigrad.surface.random_factories import (
    normal,
    rand,
    rand_like,
    randint,
    randint_like,
    randn,
    randn_like,
    randperm,
)
from minigrad.surface.size import Size
from minigrad.surface.type_info import finfo, iinfo, is_floating_point, is_tensor, numel
from minigrad.teach import viz
from minigrad.teach.trace import Trace, trace

globals().update(_WITH_OUT)

__version__ = "0.1.0"

# Submodules imported on first use (`minigrad.testing` brings hypothesis in, for one).
_LAZY = ("testing", "utils", "func")


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return importlib.import_module(f"minigrad.{name}")
    if name == "vmap":  # (PyTorch's torch.vmap is torch.func.vmap)
        return importlib.import_module("minigrad.func").vmap
    raise AttributeError(f"module 'minigrad' has no attribute '{name}'")
