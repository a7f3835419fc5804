"""Recurrent layers: RNN, LSTM, GRU and their one-step cells, as in torch.nn.

Every time step is ordinary recorded ops (linear, tanh, sigmoid, *, +), and the steps' outputs
are stacked: the graph holds one small block per step and per layer, and backward walks back
through time one step at a time. PyTorch 2.13 does the same on the CPU (its `nn.LSTM` records
per-step `AddmmBackward0`, `SigmoidBackward0`, ..., then `StackBackward0`), so an explanation
of minigrad's graph is an explanation of PyTorch's. The gate layouts are PyTorch's: LSTM rows
(i, f, g, o), GRU rows (r, z, n).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from minigrad import ops
from minigrad.autograd.tensor import Tensor
from minigrad.nn import functional as F
from minigrad.nn import init, rnn_packed
from minigrad.nn.module import Module, Parameter
from minigrad.surface import dtypes
from minigrad.surface.factories import empty, zeros

GATES = {"RNN_TANH": 1, "RNN_RELU": 1, "LSTM": 4, "GRU": 3}


def cell_step(mode: str, x: Tensor, h: Tensor, c: Tensor | None, w_ih: Tensor | None,
              w_hh: Tensor, b_ih: Tensor | None, b_hh: Tensor | None,
              w_hr: Tensor | None = None) -> tuple[Tensor, Tensor | None]:
    """One time step: the new hidden state (and, for an LSTM, the new cell state). With `w_ih`
    None, `x` is the input already projected (x @ w_ih^T + b_ih, made once for every step).
    The same ops in the same order as PyTorch's own cells (aten/src/ATen/native/RNN.cpp), so
    the graph has its nodes and the backward its order."""
    project = (lambda: x) if w_ih is None else (lambda: F.linear(x, w_ih, b_ih))
    if mode == "GRU":  # (PyTorch projects the input first here, the hidden state first below)
        i_r, i_z, i_n = project().unsafe_chunk(3, 1)
        h_r, h_z, h_n = F.linear(h, w_hh, b_hh).unsafe_chunk(3, 1)
        r, z = (h_r + i_r).sigmoid(), (h_z + i_z).sigmoid()
        n = (i_n + h_n * r).tanh()
        return (h - n) * z + n, None
    gates = F.linear(h, w_hh, b_hh) + project()
    if mode == "RNN_TANH":
        return gates.tanh(), None
    if mode == "RNN_RELU":
        return gates.relu(), None
    i, f, g, o = gates.unsafe_chunk(4, 1)
    i, f, g, o = i.sigmoid(), f.sigmoid(), g.tanh(), o.sigmoid()
    c = f * c + i * g
    h = o * c.tanh()
    return (h if w_hr is None else F.linear(h, w_hr)), c


def _parameter(*shape: int, dtype: Any, device: Any = None) -> Parameter:
    return Parameter(empty(*shape, dtype=dtype or dtypes.float32, device=device))


class RNNBase(Module):
    """What RNN, LSTM and GRU share: the parameters per layer and direction, and the loop."""

    def __init__(self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
                 bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
                 bidirectional: bool = False, proj_size: int = 0, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        _check_sizes(dropout, num_layers, hidden_size, proj_size, mode)
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        gates = GATES[mode] * hidden_size
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            for direction in range(directions):
                size_in = input_size if layer == 0 else real_hidden * directions
                suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
                shapes = [("weight_ih", (gates, size_in)), ("weight_hh", (gates, real_hidden))]
                if bias:
                    shapes += [("bias_ih", (gates,)), ("bias_hh", (gates,))]
                if proj_size > 0:
                    shapes.append(("weight_hr", (proj_size, hidden_size)))
                for name, shape in shapes:
                    setattr(self, name + suffix, _parameter(*shape, dtype=dtype, device=device))
                    self._flat_weights_names.append(name + suffix)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)), as PyTorch."""
        bound = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -bound, bound)

    def _weights(self, layer: int, direction: int) -> tuple:
        suffix = f"_l{layer}" + ("_reverse" if direction == 1 else "")
        p = self._parameters
        names = ("weight_ih", "weight_hh", "bias_ih", "bias_hh", "weight_hr")
        return tuple(p[n + suffix] if n + suffix in p else getattr(self, n + suffix, None)
                     for n in names)  # (a parametrized or weight-normed one: an attribute)

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Any]:
        if isinstance(input, tuple) and hasattr(input, "batch_sizes"):  # a PackedSequence
            return rnn_packed.run(self, input, hx, cell_step)
        batched = input.ndim == 3
        self._check_input(input, hx)
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        h0, c0 = self._initial_state(input.shape[1], input.dtype, hx, batched, input.device)
        if input.shape[0] == 0:
            raise RuntimeError("Expected sequence length to be larger than 0 in RNN")
        output, h_n, c_n = self._layers(input, h0, c0)
        if not batched:
            output, h_n = output.squeeze(1), h_n.squeeze(1)
            c_n = None if c_n is None else c_n.squeeze(1)
        elif self.batch_first:
            output = output.transpose(0, 1)
        return output, (h_n if c_n is None else (h_n, c_n))

    def _check_input(self, input: Tensor, hx: Any) -> None:
        """PyTorch's checks, in its order: the input's dims, the states' dims, the input's
        dtype against the weights', its feature size (the states' shapes: _initial_state)."""
        name = type(self).__name__
        if input.ndim not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.ndim}D "
                             f"{'tensor ' if name == 'RNN' else ''}instead")
        if hx is not None:
            states = (hx[0], hx[1]) if self.mode == "LSTM" else (hx,)  # (PyTorch's errors)
            want = input.ndim
            if any(s.ndim != want for s in states):
                kind = "batched 3-D" if input.ndim == 3 else "unbatched 2-D"
                got = ", ".join(f"{s.ndim}-D" for s in states)
                raise RuntimeError(f"For {kind} input, hx and cx should also be {want}-D but "
                                   f"got ({got}) tensors" if self.mode == "LSTM" else
                                   f"For {kind} input, hx should also be {want}-D but got "
                                   f"{got} tensor")
        weight = self._weights(0, 0)[0]
        if input.array.dtype != weight.array.dtype:
            ours, theirs = dtypes.name(input.dtype), dtypes.name(weight.dtype)
            raise ValueError(f"RNN input dtype ({ours}) does not match weight dtype ({theirs}). "
                             f"Convert input: input.to({theirs}), or convert model: "
                             f"model.to({ours})")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.shape[-1]}")

    def _initial_state(self, n: int, dtype: Any, hx: Any, batched: bool,
                       device: Any = None) -> tuple:
        """(h_0, c_0) for a batch of `n` (zeros unless given; c_0 None but for an LSTM)."""
        directions = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        shapes = [(self.num_layers * directions, n, real_hidden)]
        if self.mode == "LSTM":
            shapes.append((self.num_layers * directions, n, self.hidden_size))
        if hx is None:
            states = [zeros(*shape, dtype=dtype, device=device) for shape in shapes]
        else:
            states = list(hx) if self.mode == "LSTM" else [hx]
            if not batched:
                states = [s.unsqueeze(1) for s in states]
            for k, (state, shape) in enumerate(zip(states, shapes)):
                if tuple(state.shape) != shape:
                    which = f"hidden[{k}]" if self.mode == "LSTM" else "hidden"
                    raise RuntimeError(f"Expected {which} size {shape}, got {list(state.shape)}")
            if len(states) != len(shapes):
                raise RuntimeError("lstm expects two hidden states")
        return states[0], (states[1] if self.mode == "LSTM" else None)

    def _layers(self, input: Tensor, h0: Tensor, c0: Tensor | None, run: Any = None,
                cat_dim: int = 2) -> tuple:
        """Every layer and direction: (the last layer's output, h_n, c_n). `run(inputs, h, c,
        weights, reverse)` is one layer in one direction (`_direction`, or rnn_packed's for
        a PackedSequence, whose outputs are joined on dim 1)."""
        run = run or self._direction
        directions = 2 if self.bidirectional else 1
        layer_input, last_h, last_c = input, [], []
        for layer in range(self.num_layers):
            outputs = []
            for direction in range(directions):
                k = layer * directions + direction
                out, h, c = run(layer_input, h0[k], None if c0 is None else c0[k],
                                self._weights(layer, direction), direction == 1)
                outputs.append(out)
                last_h.append(h)
                last_c.append(c)
            layer_input = outputs[0] if directions == 1 else ops.cat(outputs, dim=cat_dim)
            if self.dropout > 0 and self.training and layer < self.num_layers - 1:
                layer_input = F.dropout(layer_input, self.dropout, training=True)
        h_n = ops.stack(last_h, 0)
        return layer_input, h_n, (None if c0 is None else ops.stack(last_c, 0))

    def _direction(self, inputs: Tensor, h: Tensor, c: Tensor | None, weights: tuple,
                   reverse: bool) -> tuple:
        """One layer in one direction over every time step."""
        w_ih, w_hh, b_ih, b_hh, w_hr = weights
        steps = range(inputs.shape[0] - 1, -1, -1) if reverse else range(inputs.shape[0])
        outputs: list[Tensor] = [None] * inputs.shape[0]  # type: ignore[list-item]
        projected = F.linear(inputs, w_ih, b_ih).unbind(0)  # every step's input at once
        for t in steps:
            h, c = cell_step(self.mode, projected[t], h, c, None, w_hh, None, b_hh, w_hr)
            outputs[t] = h
        return ops.stack(outputs, 0), h, c

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


def _check_sizes(dropout: Any, num_layers: Any, hidden_size: Any, proj_size: int,
                 mode: str) -> None:
    """PyTorch's checks of an RNN's arguments, in its words."""
    if isinstance(dropout, bool) or not 0 <= float(dropout) <= 1:
        raise ValueError("dropout should be a number in range [0, 1] representing the "
                         "probability of an element being zeroed")
    if not isinstance(hidden_size, int):
        raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
    if hidden_size <= 0:
        raise ValueError("hidden_size must be greater than zero")
    if not isinstance(num_layers, int) or num_layers <= 0:
        raise ValueError("num_layers must be greater than zero")
    if proj_size < 0:
        raise ValueError("proj_size should be a positive integer or zero to disable projections")
    if proj_size >= hidden_size:
        raise ValueError("proj_size has to be smaller than hidden_size")
    if proj_size and mode != "LSTM":
        raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
    if dropout > 0 and num_layers == 1:
        warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                      "non-zero dropout expects num_layers greater than 1, but got "
                      f"dropout={dropout} and num_layers={num_layers}", UserWarning,
                      stacklevel=3)


class RNN(RNNBase):
    """h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh) (or relu), per layer and step."""

    def __init__(self, *args: Any, nonlinearity: str = "tanh", **kwargs: Any) -> None:
        if len(args) > 3:  # PyTorch's positional order: (input_size, hidden_size, num_layers,
            nonlinearity, args = args[3], args[:3] + args[4:]  # nonlinearity, bias, ...)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__("RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU", *args, **kwargs)


class LSTM(RNNBase):
    """Gates i, f, g, o from x_t and h_{t-1}; c_t = f*c_{t-1} + i*g; h_t = o*tanh(c_t)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)


class GRU(RNNBase):
    """Gates r, z; n = tanh(W_in x + b_in + r*(W_hn h + b_hn)); h_t = (1-z)*n + z*h_{t-1}."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("GRU", *args, **kwargs)
