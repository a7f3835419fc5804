"""Ops that neural networks are built from: softmax and log_softmax (more live in nn)."""

from __future__ import annotations

import numpy as np

from minigrad.function import Function


class Softmax(Function):
    """exp(a) / sum(exp(a)) along `dim`"""

    node_name = "SoftmaxBackward0"
    formula = r"d softmax/da: y * (grad - sum(grad * y))  (y = softmax(a))"
    saves_output = True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        e = np.exp(a.data - a.data.max(axis=dim, keepdims=True))  # a.max: np.max is slower
        return e / e.sum(axis=dim, keepdims=True)

    @staticmethod
    def backward(ctx, grad):
        y = ctx.output
        return y * (grad - (grad * y).sum(ctx.dim, keepdim=True))


class LogSoftmax(Function):
    """a - log(sum(exp(a))) along `dim`"""

    node_name = "LogSoftmaxBackward0"
    formula = r"d log_softmax/da: grad - softmax(a) * sum(grad)"
    saves_output = True

    @staticmethod
    def forward(ctx, a, dim):
        ctx.dim = dim
        shifted = a.data - a.data.max(axis=dim, keepdims=True)  # a.max: np.max is slower
        return shifted - np.log(np.exp(shifted).sum(axis=dim, keepdims=True))

    @staticmethod
    def backward(ctx, grad):
        return grad - ctx.output.exp() * grad.sum(ctx.dim, keepdim=True)
