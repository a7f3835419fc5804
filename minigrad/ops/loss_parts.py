"""The small ops PyTorch's composite losses record (cross_entropy with label smoothing or
probabilities, kl_div): a * number (MulBackward1), a / number (DivBackward1), masked_fill
(MaskedFillBackward0). Checked through the losses built on them (their op-table entries).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.autograd.function import Function
from minigrad.ops.tangent_rules import linear


class _ByNumber(Function):
    """a * number or a / number, recorded as PyTorch records them inside its composite losses
    (MulBackward1, DivBackward1: the C++ ops with a Scalar operand, which Python's `*` and
    `/` never reach). Checked through the losses built on it (their op-table entries)."""

    node_name = "MulBackward1"
    formula = r"d(a*k)/da = k"
    source = "({0} * {k})"
    gradients = ("{g} * k",)
    tangent = "{t0} * k"
    jvp = staticmethod(linear)  # the op itself, on the tangents

    @staticmethod
    def forward(ctx, a, *, k):
        ctx.k = k
        return a.array * a.array.dtype.type(k)

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.k


class _DivByNumber(_ByNumber):
    """a / number (DivBackward1)"""

    node_name = "DivBackward1"
    formula = r"d(a/k)/da = 1/k"
    source = "({0} / {k})"
    gradients = ("{g} / k",)
    tangent = "{t0} / k"

    @staticmethod
    def forward(ctx, a, *, k):
        ctx.k = k
        return a.array / a.array.dtype.type(k)

    @staticmethod
    def backward(ctx, grad):
        return grad / ctx.k


class _MaskedFill(Function):
    """a with the elements under `mask` set to `value` (MaskedFillBackward0)"""

    node_name = "MaskedFillBackward0"
    formula = r"d masked_fill(a)/da = 0 under the mask, 1 elsewhere"
    source = "{0}.masked_fill(mask, {value})"
    gradients = ("{g} where not mask",)
    tangent = "{t0} where not mask, 0 under it"

    @staticmethod
    def forward(ctx, a, *, mask, value):
        ctx.mask = mask
        return np.where(mask, a.array.dtype.type(value), a.array)

    @staticmethod
    def backward(ctx, grad):
        return _MaskedFill.apply(grad, mask=ctx.mask, value=0)

    @staticmethod
    def jvp(ctx, t):
        return _MaskedFill.apply(t, mask=ctx.mask, value=0)


def mul_number(a: Any, k: float) -> Any:
    return _ByNumber.apply(a, k=k)


def div_number(a: Any, k: float) -> Any:
    return _DivByNumber.apply(a, k=k)


def masked_fill(a: Any, mask: np.ndarray, value: float) -> Any:
    return _MaskedFill.apply(a, mask=mask, value=value)
