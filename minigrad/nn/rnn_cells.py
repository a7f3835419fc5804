"""One time step as a module: RNNCell, LSTMCell, GRUCell (as in torch.nn).

The same step as the full layers (`rnn.cell_step`), with parameters named `weight_ih`,
`weight_hh`, `bias_ih`, `bias_hh`. A loop over time written by hand with a cell makes the same
graph as `nn.RNN`/`nn.LSTM`/`nn.GRU`.
"""

from __future__ import annotations

from typing import Any

from minigrad.autograd.tensor import Tensor
from minigrad.nn.module import Module
from minigrad.nn.rnn import GATES, RNNBase, _parameter, cell_step
from minigrad.surface.factories import zeros


class RNNCellBase(Module):
    mode = "RNN_TANH"

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True, device: Any = None,
                 dtype: Any = None) -> None:
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        gates = GATES[self.mode] * hidden_size
        self.weight_ih = _parameter(gates, input_size, dtype=dtype, device=device)
        self.weight_hh = _parameter(gates, hidden_size, dtype=dtype, device=device)
        if bias:
            self.bias_ih = _parameter(gates, dtype=dtype, device=device)
            self.bias_hh = _parameter(gates, dtype=dtype, device=device)
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters  # (the same U(-1/sqrt(hidden), ...) as the layers)

    def _step(self, input: Tensor, hx: Any, mode: str | None = None) -> tuple:
        name, mode = type(self).__name__, mode or self.mode
        if input.ndim not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.ndim}D instead")
        if input.shape[-1] != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.shape[-1]} "
                               f"expected {self.input_size}")
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        blank = zeros(x.shape[0], self.hidden_size, dtype=x.dtype, device=x.device)
        states = [blank, blank] if hx is None and self.mode == "LSTM" else \
            [blank] if hx is None else list(hx) if self.mode == "LSTM" else [hx]
        if hx is not None and not batched:
            states = [s.unsqueeze(0) for s in states]
        for k, s in enumerate(states):
            if s.shape[0] != x.shape[0]:
                raise RuntimeError(f"Input batch size {x.shape[0]} doesn't match hidden{k} "
                                   f"batch size {s.shape[0]}")
            if s.shape[-1] != self.hidden_size:
                raise RuntimeError(f"hidden{k} has inconsistent hidden_size: got {s.shape[-1]}, "
                                   f"expected {self.hidden_size}")
        p = self._parameters
        w = [p[n] if n in p else getattr(self, n) for n in ("weight_ih", "weight_hh", "bias_ih",
                                                           "bias_hh")]
        h, c = cell_step(mode, x, states[0], states[1] if len(states) > 1 else None, *w)
        if not batched:
            h, c = h.squeeze(0), (None if c is None else c.squeeze(0))
        return h, c

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    """h' = tanh(x W_ih^T + b_ih + h W_hh^T + b_hh) (or relu)."""

    def __init__(self, input_size: int, hidden_size: int, bias: bool = True,
                 nonlinearity: str = "tanh", device: Any = None, dtype: Any = None) -> None:
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        if self.nonlinearity not in ("tanh", "relu"):  # (PyTorch checks it here, not earlier)
            raise RuntimeError(f"Unknown nonlinearity: {self.nonlinearity}")
        return self._step(input, hx, "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU")[0]


class LSTMCell(RNNCellBase):
    """(h', c') from x and (h, c): the gates i, f, g, o, then c' = f*c + i*g, h' = o*tanh(c')."""

    mode = "LSTM"

    def forward(self, input: Tensor, hx: Any = None) -> tuple[Tensor, Tensor]:
        return self._step(input, hx)


class GRUCell(RNNCellBase):
    """h' = (1-z)*n + z*h, with gates r, z and the candidate n = tanh(W_in x + r*(W_hn h))."""

    mode = "GRU"

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        return self._step(input, hx)[0]
