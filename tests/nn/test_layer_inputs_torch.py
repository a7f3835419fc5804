"""Issue 35: one input check per layer family, in PyTorch's order and words: the input's dims,
its dtype against the weights', its sizes against the layer's, the layer's geometry (kernel,
stride, dilation, padding, groups); an empty batch computed where PyTorch computes it, an
empty sequence or plane refused where it refuses. Each case runs side by side with PyTorch
(a layer's output is compared by dtype and shape: the two libraries' random initial weights
differ; minigrad may add a hint after PyTorch's words).

Before: a zero-size batch crashed in Conv, ConvTranspose, pooling, BatchNorm and GroupNorm
("cannot reshape array of size 0"), or even updated BatchNorm's running statistics to NaN; an
empty sequence was an IndexError in RNN/LSTM/GRU; float64 inputs to float32 BatchNorm,
LayerNorm and GroupNorm were computed; kernel, stride or dilation 0 were numpy's errors.
"""

from __future__ import annotations

import pytest

import minigrad
from side_by_side import agree, outcome


def layer(t, name, *args, **kwargs):
    t.manual_seed(0)
    return getattr(t.nn, name)(*args, **kwargs)


def shape_of(result):
    """What is compared of a layer's output: its dtype and shape (RNNs: the output's)."""
    out = result[0] if isinstance(result, tuple) else result
    return str(out.dtype).rsplit(".", 1)[-1], tuple(out.shape)


def run(t, build, make_input, *more):
    return shape_of(build(t)(make_input(t), *[m(t) for m in more]))


def ones(*shape, dtype="float32"):
    return lambda t: t.ones(*shape, dtype=getattr(t, dtype))


def F(t):
    return t.nn.functional


CONV = {
    "Conv2d, an empty batch": (lambda t: layer(t, "Conv2d", 1, 2, 2), ones(0, 1, 3, 3)),
    "Conv1d, an empty batch": (lambda t: layer(t, "Conv1d", 1, 2, 2), ones(0, 1, 3)),
    "ConvTranspose2d, an empty batch": (lambda t: layer(t, "ConvTranspose2d", 1, 2, 2),
                                        ones(0, 1, 3, 3)),
    "Conv2d, float64 input": (lambda t: layer(t, "Conv2d", 1, 2, 2),
                              ones(1, 1, 3, 3, dtype="float64")),
    "Conv2d, int64 input": (lambda t: layer(t, "Conv2d", 1, 2, 2),
                            ones(1, 1, 3, 3, dtype="int64")),
    "Conv2d, float16 input": (lambda t: layer(t, "Conv2d", 1, 2, 2),
                              ones(1, 1, 3, 3, dtype="float16")),
    "Conv2d, kernel 0": (lambda t: layer(t, "Conv2d", 1, 1, 0), ones(1, 1, 3, 3)),
    "Conv1d, kernel 0": (lambda t: layer(t, "Conv1d", 1, 1, 0), ones(1, 1, 3)),
    "Conv2d, stride 0": (lambda t: layer(t, "Conv2d", 1, 1, 2, stride=0), ones(1, 1, 3, 3)),
    "Conv2d, stride -1": (lambda t: layer(t, "Conv2d", 1, 1, 2, stride=-1), ones(1, 1, 3, 3)),
    "Conv2d, dilation 0": (lambda t: layer(t, "Conv2d", 1, 1, 2, dilation=0),
                           ones(1, 1, 3, 3)),
    "Conv1d, dilation 0": (lambda t: layer(t, "Conv1d", 1, 1, 2, dilation=0), ones(1, 1, 3)),
    "Conv2d, dilation -1": (lambda t: layer(t, "Conv2d", 1, 1, 2, dilation=-1),
                            ones(1, 1, 3, 3)),
    "ConvTranspose2d, an empty plane": (lambda t: layer(t, "ConvTranspose2d", 1, 2, 2),
                                        ones(1, 1, 0, 3)),
    "ConvTranspose2d, dilation 0": (lambda t: layer(t, "ConvTranspose2d", 1, 1, 2, dilation=0),
                                    ones(1, 1, 3, 3)),
    "ConvTranspose2d, output too small": (lambda t: layer(t, "ConvTranspose2d", 1, 1, 1,
                                                          padding=1), ones(1, 1, 1, 1)),
    "F.conv2d, a weight with no output channels": (
        lambda t: lambda x: F(t).conv2d(x, t.ones(0, 1, 2, 2)), ones(1, 1, 3, 3)),
    "F.conv2d, groups 0": (lambda t: lambda x: F(t).conv2d(x, t.ones(1, 1, 2, 2), groups=0),
                           ones(1, 1, 3, 3)),
}


def _pool(name, *args, **kwargs):
    return lambda t: lambda x: getattr(F(t), name)(x, *args, **kwargs)


POOL = {}
for _name in ("max_pool2d", "avg_pool2d"):
    POOL.update({
        f"{_name}, an empty batch": (_pool(_name, 2), ones(0, 1, 4, 4)),
        f"{_name}, no channels": (_pool(_name, 2), ones(1, 0, 4, 4)),
        f"{_name}, an empty unbatched plane": (_pool(_name, 2), ones(0, 4, 4)),
        f"{_name}, an empty row": (_pool(_name, 2), ones(1, 1, 0, 4)),
        f"{_name}, kernel -1": (_pool(_name, -1), ones(1, 1, 4, 4)),
        f"{_name}, stride -1": (_pool(_name, 2, -1), ones(1, 1, 4, 4)),
        f"{_name}, padding -1": (_pool(_name, 2, padding=-1), ones(1, 1, 4, 4)),
        f"{_name}, bool input": (_pool(_name, 2), ones(1, 1, 4, 4, dtype="bool")),
    })
POOL.update({
    "max_pool2d, dilation 0": (_pool("max_pool2d", 2, dilation=0), ones(1, 1, 4, 4)),
    "avg_pool2d, a 2-D input": (_pool("avg_pool2d", 2), ones(4, 4)),
    "avg_pool2d, a 5-D input": (_pool("avg_pool2d", 2), ones(1, 1, 1, 4, 4)),
    "max_pool1d, an empty batch": (_pool("max_pool1d", 2), ones(0, 1, 4)),
    "max_pool1d, no channels": (_pool("max_pool1d", 2), ones(1, 0, 4)),
    "max_pool1d, an empty row": (_pool("max_pool1d", 2), ones(1, 1, 0)),
    "max_pool1d, kernel 0": (_pool("max_pool1d", 0), ones(1, 1, 4)),
    "max_pool1d, stride 0": (_pool("max_pool1d", 2, 0), ones(1, 1, 4)),
    "max_pool1d, int64 input": (_pool("max_pool1d", 2), ones(1, 1, 4, dtype="int64")),
    "max_pool1d, output too small": (_pool("max_pool1d", 2), ones(1, 1, 1)),
    "max_pool1d, padding over half the kernel": (_pool("max_pool1d", 2, padding=2),
                                                 ones(1, 1, 4)),
    "avg_pool1d, an empty batch": (_pool("avg_pool1d", 2), ones(0, 1, 4)),
    "avg_pool1d, no channels": (_pool("avg_pool1d", 2), ones(1, 0, 4)),
    "avg_pool1d, an empty row": (_pool("avg_pool1d", 2), ones(1, 1, 0)),
    "adaptive_avg_pool2d, an empty row": (_pool("adaptive_avg_pool2d", 2), ones(1, 1, 0, 4)),
    "adaptive_max_pool2d, an empty batch": (_pool("adaptive_max_pool2d", 2), ones(0, 1, 4, 4)),
    "adaptive_max_pool2d, no channels": (_pool("adaptive_max_pool2d", 2), ones(1, 0, 4, 4)),
    "adaptive_avg_pool2d, int64 input": (_pool("adaptive_avg_pool2d", 2),
                                         ones(1, 1, 4, 4, dtype="int64")),
    "adaptive_max_pool2d, int64 input": (_pool("adaptive_max_pool2d", 2),
                                         ones(1, 1, 4, 4, dtype="int64")),
})


def _bn(**kwargs):
    return lambda t: layer(t, "BatchNorm1d", 2, **kwargs)


NORM = {
    "BatchNorm1d training, an empty batch": (_bn(), ones(0, 2)),
    "BatchNorm1d training, an empty batch of sequences": (_bn(), ones(0, 2, 3)),
    "BatchNorm1d training, empty sequences": (_bn(), ones(2, 2, 0)),
    "BatchNorm1d, float64 input": (_bn(), ones(3, 2, dtype="float64")),
    "BatchNorm1d eval, float64 input": (lambda t: _bn()(t).eval(), ones(3, 2, dtype="float64")),
    "BatchNorm1d without affine, float64 input": (_bn(affine=False),
                                                  ones(3, 2, dtype="float64")),
    "BatchNorm1d, int64 input": (_bn(), ones(3, 2, dtype="int64")),
    "BatchNorm2d training, an empty batch": (lambda t: layer(t, "BatchNorm2d", 2),
                                             ones(0, 2, 3, 3)),
    "BatchNorm2d training, empty planes": (lambda t: layer(t, "BatchNorm2d", 2),
                                           ones(2, 2, 0, 3)),
    "LayerNorm, float64 input": (lambda t: layer(t, "LayerNorm", 2), ones(3, 2, dtype="float64")),
    "LayerNorm, int64 input": (lambda t: layer(t, "LayerNorm", 2), ones(3, 2, dtype="int64")),
    "LayerNorm without affine, int64 input": (
        lambda t: layer(t, "LayerNorm", 2, elementwise_affine=False), ones(3, 2, dtype="int64")),
    "LayerNorm, other shape": (lambda t: layer(t, "LayerNorm", 2), ones(3, 3)),
    "GroupNorm, an empty batch": (lambda t: layer(t, "GroupNorm", 1, 2), ones(0, 2, 3)),
    "GroupNorm, other channels": (lambda t: layer(t, "GroupNorm", 1, 2), ones(1, 3, 3)),
    "GroupNorm, channels not divisible": (lambda t: layer(t, "GroupNorm", 2, 2),
                                          ones(1, 3, 3)),
    "GroupNorm, a 1-D input": (lambda t: layer(t, "GroupNorm", 1, 2), ones(2)),
    "GroupNorm, float64 input": (lambda t: layer(t, "GroupNorm", 1, 2),
                                 ones(1, 2, 3, dtype="float64")),
    "GroupNorm, int64 input": (lambda t: layer(t, "GroupNorm", 1, 2),
                               ones(1, 2, 3, dtype="int64")),
}


def _rnn(kind, **kwargs):
    return lambda t: layer(t, kind, 2, 2, **kwargs)


def _state(kind, *shape, dtype="float32"):
    if kind == "LSTM":
        return lambda t: (t.ones(*shape, dtype=getattr(t, dtype)), t.ones(*shape))
    return ones(*shape, dtype=dtype)


RNN = {}
for _kind in ("RNN", "LSTM", "GRU"):
    RNN.update({
        f"{_kind}, an empty sequence": (_rnn(_kind), ones(0, 1, 2)),
        f"{_kind}, an empty unbatched sequence": (_rnn(_kind), ones(0, 2)),
        f"{_kind}, float64 input": (_rnn(_kind), ones(3, 1, 2, dtype="float64")),
        f"{_kind}, float16 input": (_rnn(_kind), ones(3, 1, 2, dtype="float16")),
        f"{_kind}, int64 input": (_rnn(_kind), ones(3, 1, 2, dtype="int64")),
        f"{_kind} in float64, float32 input": (
            lambda t, kind=_kind: layer(t, kind, 2, 2, dtype=t.float64), ones(3, 1, 2)),
        f"{_kind}, a 2-D state for a batch": (_rnn(_kind), ones(3, 1, 2), _state(_kind, 1, 2)),
        f"{_kind}, a 3-D state unbatched": (_rnn(_kind), ones(3, 2), _state(_kind, 1, 1, 2)),
        f"{_kind}, float64 input and other input size": (_rnn(_kind),
                                                         ones(3, 1, 3, dtype="float64")),
    })
RNN["RNN, a 4-D input"] = (_rnn("RNN"), ones(3, 1, 1, 2))
RNN["RNN, a 1-D input"] = (_rnn("RNN"), ones(2))
RNN["LSTM, a tensor for (h, c)"] = (_rnn("LSTM"), ones(3, 1, 2), ones(1, 1, 2))
RNN["LSTM, (h,) alone"] = (_rnn("LSTM"), ones(3, 1, 2), lambda t: (t.zeros(1, 1, 2),))
RNN["LSTM, three states"] = (_rnn("LSTM"), ones(3, 1, 2), lambda t: (t.zeros(1, 1, 2),) * 3)

OTHER = {
    "Dropout, int64 input": (lambda t: layer(t, "Dropout", 0.5), ones(4, dtype="int64")),
    "Dropout in place, a leaf that requires grad": (
        lambda t: layer(t, "Dropout", 0.5, inplace=True),
        lambda t: t.ones(4, requires_grad=True)),
    "Softmax, int64 input": (lambda t: layer(t, "Softmax", 0), ones(2, dtype="int64")),
    "Softmax over dim 0 of 2, int64 input": (lambda t: layer(t, "Softmax", 0),
                                             ones(2, 2, dtype="int64")),
    "LogSoftmax, bool input": (lambda t: layer(t, "LogSoftmax", 1), ones(2, 2, dtype="bool")),
}

CASES = {**CONV, **POOL, **NORM, **RNN, **OTHER}


@pytest.mark.parametrize("name", sorted(CASES))
def test_a_layer_checks_its_input_as_pytorch(name, torch_mod):
    build, make_input, *more = CASES[name]
    ours = outcome(lambda: run(minigrad, build, make_input, *more))
    theirs = outcome(lambda: run(torch_mod, build, make_input, *more))
    assert agree(ours, theirs), (ours, theirs)


EMPTY_BATCHES = {
    "Conv2d": (lambda t: layer(t, "Conv2d", 1, 2, 2), (0, 1, 3, 3)),
    "ConvTranspose2d": (lambda t: layer(t, "ConvTranspose2d", 1, 2, 2), (0, 1, 3, 3)),
    "max_pool2d": (lambda t: lambda x: F(t).max_pool2d(x, 2), (0, 1, 4, 4)),
    "avg_pool2d": (lambda t: lambda x: F(t).avg_pool2d(x, 2), (0, 1, 4, 4)),
    "BatchNorm1d": (lambda t: layer(t, "BatchNorm1d", 2), (0, 2)),
    "GroupNorm": (lambda t: layer(t, "GroupNorm", 1, 2), (0, 2, 3)),
}


@pytest.mark.parametrize("name", sorted(EMPTY_BATCHES))
def test_an_empty_batch_goes_backward_too(name, torch_mod):
    """Forward and backward of an empty batch: every gradient has its tensor's shape."""
    def run_both(t):
        build, shape = EMPTY_BATCHES[name]
        model = build(t)
        x = t.ones(*shape, requires_grad=True)
        model(x).sum().backward()
        params = list(model.parameters()) if hasattr(model, "parameters") else []
        return tuple(x.grad.shape), [(tuple(p.grad.shape), p.grad.abs().sum().item())
                                     for p in params]
    assert outcome(lambda: run_both(minigrad)) == outcome(lambda: run_both(torch_mod))


def test_batch_norm_of_an_empty_batch_keeps_its_running_statistics(torch_mod):
    """minigrad's were averaged with the NaN statistics of nothing."""
    def run_both(t):
        bn = layer(t, "BatchNorm1d", 2)
        bn(t.ones(0, 2))
        return bn.running_mean.tolist(), bn.running_var.tolist(), bn.num_batches_tracked.item()
    assert outcome(lambda: run_both(minigrad)) == outcome(lambda: run_both(torch_mod))


def test_dropout_in_place_changes_its_input(torch_mod):
    """`Dropout(p, inplace=True)(y)` left y unchanged; now it is written as in PyTorch."""
    def run_both(t):
        y = t.ones(6, requires_grad=True) * 1
        out = layer(t, "Dropout", 1.0, inplace=True)(y)
        return out is y, y.tolist(), y._version, y.grad_fn.name()
    assert outcome(lambda: run_both(minigrad)) == outcome(lambda: run_both(torch_mod))
