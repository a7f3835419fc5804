"""`OpSpec`, one entry of the op table: how to call an op in minigrad and in PyTorch, which
inputs it accepts, which node PyTorch puts at the root and how to print a call as source.

Vocabulary (interpreted by `strategies.py`, which draws shapes, params and values from it):

- `shapes`, a rule on the input shapes (`SHAPE_RULES`): "any", "nonscalar" (ndim >= 1),
  "matrix" (2-D), "ndim2" (ndim >= 2), "has_one" (a dim of size 1), "broadcast" (inputs
  broadcast together), "into" (input 1 broadcasts to input 0's shape, as in `x.add_(y)`),
  "same" (equal shapes), "cat" (equal but along one dim), "dot",
  "mm", "mv", "vm", "bmm", "batched" (N-D @ 1-D or 2-D or N-D, batch dims broadcast),
  "mat_batched"/"vec_batched" (2-D/1-D @ N-D), "linear", "linear_nobias", "linear_nd"
  (`F.linear` inputs: x, weight, bias).
- `params`, keyword arguments drawn from the input shapes: "dim" (a dim of input 0),
  "dims" (a permutation of its dims), "dimset" (a tuple of distinct dims), "dim0"/"dim1"
  (two different dims), "newdim" (a position for a new dim), "onedim" (a dim of size 1),
  "shape" (same number of elements), "size" (a shape input 0 expands to), "index" (an int
  into dim 0), "span" (a slice of dim 0), "indices" (a list of ints into dim 0, repeats
  allowed), "mask" (a boolean list of input 0's shape), "cond" (a boolean list of the
  broadcast shape), "catdim" (the dim along which cat's inputs differ), "reduction" (of a
  loss), "labels" (class labels for the rows of a (N, C) input).
- `domains`, one `Domain` per input: where the op is differentiable and well conditioned.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from minigrad.testing.domains import REAL, TOL, Domain


@dataclass(frozen=True)
class OpSpec:
    """One op: how to call it, on which inputs, what PyTorch calls its node, how to print it.

    `fn(*tensors, **params)` runs it in minigrad. `torch_fn(torch, *tensors, **params)` runs
    it in PyTorch; None means `fn` works on torch tensors as written (method calls and
    operators). `source` is a `str.format` template: `{0}`, `{1}` are the inputs' source
    text, `{dim}` etc. the params'.
    """

    name: str
    fn: Callable[..., Any]
    node: str
    source: str
    arity: int = 1
    torch_fn: Callable[..., Any] | None = None
    shapes: str = "any"
    params: tuple[str, ...] = ()
    domains: tuple[Domain, ...] = ()
    valid: Callable[..., bool] | None = None
    positive_output: bool = False  # its values are > 0 (log of it needs no guard)
    in_expressions: bool = True  # strategies.expressions may use it

    def domain(self, i: int) -> Domain:
        return self.domains[i] if i < len(self.domains) else REAL

    def call_torch(self, torch: Any, *tensors: Any, **params: Any) -> Any:
        """Run the op in PyTorch (`torch` is the imported module)."""
        if self.torch_fn is None:
            return self.fn(*tensors, **params)
        return self.torch_fn(torch, *tensors, **params)

    def accepts(self, shapes: tuple[tuple[int, ...], ...]) -> bool:
        """Whether the op takes inputs of these shapes (some param choice exists)."""
        return len(shapes) == self.arity and SHAPE_RULES[self.shapes](*shapes)

    def in_domain(self, *values: Any, tol: float = TOL, **params: Any) -> bool:
        """Whether input values (numpy arrays) are where the op is smooth."""
        if not all(self.domain(i).contains(v, tol) for i, v in enumerate(values)):
            return False
        return self.valid is None or self.valid(*values, tol=tol, **params)

    def render(self, *sources: str, **params: Any) -> str:
        """Python source of this op applied to inputs whose source text is `sources`."""
        return self.source.format(*sources, **{k: render(v) for k, v in params.items()})


def unary(name: str, fn: Callable, node: str, source: str, **kw: Any) -> OpSpec:
    """A one-input entry: `unary("exp", lambda x: x.exp(), "ExpBackward0", "{0}.exp()")`."""
    return OpSpec(name, fn, node, source, **kw)


def binary(name: str, fn: Callable, node: str, source: str, **kw: Any) -> OpSpec:
    """A two-input entry; its inputs' shapes broadcast unless `shapes=` says otherwise."""
    kw.setdefault("shapes", "broadcast")
    return OpSpec(name, fn, node, source, arity=2, **kw)


def render(value: Any) -> str:
    """A param as Python source: slices as `1:3`, everything else as repr."""
    if isinstance(value, slice):
        text = f"{'' if value.start is None else value.start}:"
        text += "" if value.stop is None else str(value.stop)
        return text + ("" if value.step in (None, 1) else f":{value.step}")
    return repr(value)


# -- shape rules -----------------------------------------------------------------------------
def _broadcasts(*shapes: tuple) -> bool:
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        return False
    return True


def _cat_ok(a: tuple, b: tuple) -> bool:
    return len(a) == len(b) >= 1 and sum(x != y for x, y in zip(a, b)) <= 1


def _batched_ok(a: tuple, b: tuple) -> bool:
    if len(a) < 3 or len(b) < 1:
        return False
    inner = b[0] if len(b) == 1 else b[-2]
    return a[-1] == inner and _broadcasts(a[:-2], b[:-2])


SHAPE_RULES: dict[str, Callable[..., bool]] = {
    "any": lambda a: True,
    "nonscalar": lambda a: len(a) >= 1,
    "matrix": lambda a: len(a) == 2,
    "ndim2": lambda a: len(a) >= 2,
    "has_one": lambda a: 1 in a,
    "broadcast": _broadcasts,
    "into": lambda a, b: _broadcasts(a, b) and np.broadcast_shapes(a, b) == tuple(a),
    "same": lambda *s: all(x == s[0] for x in s),
    "cat": _cat_ok,
    "dot": lambda a, b: len(a) == len(b) == 1 and a == b,
    "mm": lambda a, b: len(a) == len(b) == 2 and a[1] == b[0],
    "mv": lambda a, b: len(a) == 2 and len(b) == 1 and a[1] == b[0],
    "vm": lambda a, b: len(a) == 1 and len(b) == 2 and a[0] == b[0],
    "bmm": lambda a, b: len(a) == len(b) == 3 and a[0] == b[0] and a[2] == b[1],
    "batched": _batched_ok,
    "mat_batched": lambda a, b: len(a) == 2 and len(b) >= 3 and a[1] == b[-2],
    "vec_batched": lambda a, b: len(a) == 1 and len(b) >= 3 and a[0] == b[-2],
    "linear": lambda x, w, b: len(x) == len(w) == 2 and x[1] == w[1] and b == w[:1],
    "linear_nobias": lambda x, w: len(x) == len(w) == 2 and x[1] == w[1],
    "linear_nd": lambda x, w, b: len(x) in (1, 3) and len(w) == 2 and x[-1] == w[1]
    and b == w[:1],
}


# -- the layers' shapes (conv, pooling, norms, embedding): a few fixed choices each, small
# enough for a whole-Jacobian gradcheck; `strategies._SHAPES` samples from them
LAYER_SHAPES: dict[str, tuple[tuple[tuple[int, ...], ...], ...]] = {
    "conv1d": (((2, 2, 5), (3, 2, 3), (3,)), ((1, 3, 4), (2, 3, 2), (2,))),
    "conv2d": (((2, 2, 4, 3), (3, 2, 2, 2), (3,)), ((1, 3, 4, 4), (2, 3, 3, 2), (2,))),
    "conv2d_nobias": (((2, 2, 4, 3), (3, 2, 2, 2)), ((1, 3, 4, 4), (2, 3, 3, 2))),
    "conv2d_groups": (((1, 4, 4, 3), (2, 2, 2, 2), (2,)), ((2, 2, 3, 3), (4, 1, 2, 2), (4,))),
    "conv_transpose2d": (((1, 2, 3, 2), (2, 3, 2, 2), (3,)), ((2, 3, 2, 2), (3, 1, 3, 2), (1,))),
    "image": (((1, 2, 4, 4),), ((2, 1, 3, 5),), ((3, 4, 4),)),
    "signal": (((2, 3, 5),), ((1, 2, 6),), ((3, 4),)),
    "columns": (((1, 8, 9),), ((2, 4, 9),)),
    "channels": (((3, 2),), ((4, 3, 2),), ((2, 2, 2, 3),)),
    "channels_affine": (((3, 2), (2,), (2,)), ((2, 2, 3, 2), (2,), (2,))),
    "last_dim_affine": (((2, 3, 4), (4,), (4,)), ((5, 3), (3,), (3,))),
    "groups_affine": (((2, 4, 3), (4,), (4,)), ((1, 4, 2, 2), (4,), (4,))),
    "table": (((5, 3),), ((6, 2),)),
    # einsum, tensordot, matrix_exp (op_table_contractions.py)
    "mm_pair": (((2, 3), (3, 4)), ((1, 2), (2, 2)), ((3, 1), (1, 2))),
    "bmm_pair": (((2, 2, 3), (2, 3, 2)), ((1, 3, 2), (1, 2, 2))),
    "heads_pair": (((2, 2, 3, 2), (2, 2, 2, 2)), ((1, 2, 1, 3), (1, 2, 2, 3))),
    "ellipsis_pair": (((2, 2, 3), (3, 2)), ((2, 1, 2, 2), (3, 2, 1))),
    "vector_pair": (((3,), (2,)), ((1,), (4,))),
    "same_pair": (((2, 3), (2, 3)), ((3, 1), (3, 1))),
    "chain_triple": (((2, 3), (3, 2), (2, 2)), ((1, 2), (2, 3), (3, 1))),
    "square": (((3, 3),), ((2, 2),)),
    "cube": (((2, 3, 2),), ((1, 2, 3),)),
    "square_batch": (((3, 3),), ((2, 2, 2),), ((1, 1),)),
    "tensordot_pair": (((2, 3, 2), (3, 2, 2)), ((3, 1, 2), (1, 2, 2))),
    "tensordot_lists": (((3, 2, 2), (2, 2, 3)), ((2, 1, 3), (3, 2, 2))),
    # packed sequences, weight norm, vdot (op_table_nn_utils.py)
    "sequences": (((3, 4, 2),), ((3, 3, 2),)),
    "weight_norm": (((2, 3), (2, 1)), ((4, 2), (4, 1))),
    "weight_norm_3d": (((2, 3, 2), (1, 3, 1)),),
    "vector_same": (((3,), (3,)), ((5,), (5,))),
    "bag_table": (((6, 3),), ((6, 2),)),
    "bag_weighted": (((6, 3), (5,)), ((6, 2), (5,))),
    "bilinear_no_bias": (((5, 2), (5, 3), (4, 2, 3)), ((2,), (3,), (1, 2, 3)),
                         ((2, 3, 2), (2, 3, 3), (2, 2, 3))),
}

SHAPE_RULES.update({kind: (lambda *s, kind=kind: tuple(s) in LAYER_SHAPES[kind])
                    for kind in LAYER_SHAPES})
