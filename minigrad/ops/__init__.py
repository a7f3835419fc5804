"""Every op as a function with PyTorch's signature: `minigrad.mul(a, b)`, `minigrad.sum(x, 1)`.

The Tensor methods and operators call these. Each function lives beside its op class (the
`Function` that records the node and holds the derivative): arithmetic (+ - * /), powers
(**), floor_mod (// %), unary (exp, tanh, relu, ...), selection (maximum, where, clamp),
reduce (sum, mean), extremes (max, amax, argmax, ...), products (mm, matmul, linear), views
(view, reshape, t, ...), index (x[key], cat, ...), softmaxes, losses, and in_place (add_,
zero_, a[key] = v).
This module only re-exports them: each module's `__all__` (its public functions, which
`minigrad` re-exports too), then what Tensor's methods call besides. (No module is named
like a function it holds: `minigrad.ops.matmul` is the function.)
"""

from minigrad.ops import (
    arithmetic,
    contractions,
    cumulative,
    elementwise,
    extremes,
    gathering,
    index,
    linalg,
    logical,
    powers,
    products,
    reduce,
    sampling,
    selection,
    shaping,
    softmaxes,
    sorting,
    stacking,
    statistics,
    unary,
    views,
    weight_norms,
)
from minigrad.ops.arithmetic import *  # noqa: F403

# what Tensor's methods and operators call besides (not re-exported by minigrad)
from minigrad.ops.arithmetic import divide, multiply, negative, rsub, subtract, true_divide
from minigrad.ops.base import as_operand, cast, constant
from minigrad.ops.contractions import *  # noqa: F403
from minigrad.ops.cumulative import *  # noqa: F403
from minigrad.ops.elementwise import *  # noqa: F403
from minigrad.ops.extremes import *  # noqa: F403
from minigrad.ops.floor_mod import floor_divide, remainder
from minigrad.ops.gathering import *  # noqa: F403
from minigrad.ops.in_place import (
    LEAF_INPLACE,
    NO_GRAD_VIEW_INPLACE,
    clamp_to,
    copy,
    fill,
    fill_random,
    inplace,
    setitem_,
    zero,
)
from minigrad.ops.index import *  # noqa: F403
from minigrad.ops.index import concatenate, getitem
from minigrad.ops.linalg import *  # noqa: F403
from minigrad.ops.logical import *  # noqa: F403
from minigrad.ops.logical import compare
from minigrad.ops.powers import *  # noqa: F403
from minigrad.ops.products import *  # noqa: F403
from minigrad.ops.products import linear
from minigrad.ops.reduce import *  # noqa: F403
from minigrad.ops.reduce import sum_to_size
from minigrad.ops.sampling import *  # noqa: F403
from minigrad.ops.sampling import fill_bernoulli
from minigrad.ops.selection import *  # noqa: F403
from minigrad.ops.shaping import *  # noqa: F403
from minigrad.ops.softmaxes import *  # noqa: F403
from minigrad.ops.sorting import *  # noqa: F403
from minigrad.ops.stacking import *  # noqa: F403
from minigrad.ops.statistics import *  # noqa: F403
from minigrad.ops.unary import *  # noqa: F403
from minigrad.ops.views import *  # noqa: F403
from minigrad.ops.views import (
    T_property,
    contiguous,
    expand_as,
    reshape_as,
    squeeze_dims,
    swapaxes,
    unsafe_view,
    view,
    view_as,
)
from minigrad.ops.weight_norms import *  # noqa: F403
from minigrad.ops.weight_norms import _weight_norm  # noqa: F401

__all__ = [*arithmetic.__all__, *powers.__all__, *index.__all__, *products.__all__,
           *reduce.__all__, *extremes.__all__, *selection.__all__, *softmaxes.__all__,
           *unary.__all__, *views.__all__, *elementwise.__all__, *statistics.__all__,
           *cumulative.__all__, *logical.__all__, *shaping.__all__, *gathering.__all__,
           *sorting.__all__, *stacking.__all__, *sampling.__all__, *contractions.__all__,
           *linalg.__all__, *weight_norms.__all__]

# the layers' ops (their functions are in nn.functional): imported so that every op is defined
from minigrad.ops import (  # noqa: E402,F401
    bags,
    convolution,
    embedding,
    normalization,
    packing,
    pooling,
    unfolding,
)
