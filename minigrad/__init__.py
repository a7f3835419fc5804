"""minigrad: a small, readable reverse-mode autograd engine on numpy that shows what
`loss.backward()` does. It mirrors PyTorch's API: `import minigrad as torch` runs the usual
autograd examples unchanged.

Nothing runs on import; every public name is re-exported here (the op functions from each
`minigrad/ops` module's `__all__`).
"""

from minigrad import autograd, events, nn, optim
from minigrad.dtypes import (
    bool,
    double,
    float,
    float16,
    float32,
    float64,
    half,
    int,
    int8,
    int16,
    int32,
    int64,
    long,
    short,
    uint8,
)
from minigrad.factories import (
    arange,
    as_tensor,
    empty,
    eye,
    from_numpy,
    full,
    full_like,
    linspace,
    manual_seed,
    ones,
    ones_like,
    rand,
    rand_like,
    randint,
    randn,
    randn_like,
    seed,
    tensor,
    zeros,
    zeros_like,
)
from minigrad.function import Function
from minigrad.grad_mode import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from minigrad.ops import *  # noqa: F403 (every op module's __all__)
from minigrad.serialization import load, save
from minigrad.teach import viz
from minigrad.teach.trace import Trace, trace
from minigrad.tensor import Size, Tensor

__version__ = "0.1.0"
