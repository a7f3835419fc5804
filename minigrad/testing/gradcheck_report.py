"""How gradcheck reports a failure: `GradcheckError`, and the message that names the input,
the element, both values there and how many elements differ, with the inputs' and outputs'
names (`Labels`; gradgradcheck's `SecondOrderLabels` name the grad_outputs too).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad.surface.printing import tensor_repr

MAX_PRINTED = 100  # Jacobians with more entries are described, not printed


class GradcheckError(RuntimeError):
    """A gradient check failed. For a Jacobian mismatch the attributes say where:
    `output_index`, `input_index`, `input_element`, `output_element` (index tuples),
    `numerical_value`, `analytical_value`, and the two Jacobians `numerical`/`analytical`."""

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.__dict__.update(details)


def mismatch(a: np.ndarray, n: np.ndarray, i: int, j: int, out_shape: tuple, in_shape: tuple,
             atol: float, rtol: float, labels: Labels, mode: str = "") -> GradcheckError:
    """The error for Jacobians `a` (analytical) and `n` (numerical) of output i with respect
    to input j that differ; `mode` is "computed with forward mode " for forward AD's."""
    diff = np.abs(a - n)
    allowed = atol + rtol * np.abs(n)
    with np.errstate(invalid="ignore", divide="ignore"):
        ratio = np.where(diff <= allowed, 0.0,
                         np.where(np.isnan(diff), np.inf, diff / allowed))
    r, c = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
    in_el = tuple(int(v) for v in np.unravel_index(r, in_shape))
    out_el = tuple(int(v) for v in np.unravel_index(c, out_shape))
    wrong = int(np.sum(~(diff <= allowed)))
    lines = [
        f"Jacobian {mode}mismatch for output {i:d} with respect to input {j:d},",
        f"numerical:{jacobian_text(n, 'numerical')}",
        f"analytical:{jacobian_text(a, 'analytical')}",
        "",
        f"Worst element: {labels.input(j)}{at(in_el)}, {labels.output(i)}{at(out_el)} "
        f"(Jacobian row {r}, column {c}):",
        f"    numerical  = {float(n[r, c])!r}",
        f"    analytical = {float(a[r, c])!r}",
        f"    |analytical - numerical| = {diff[r, c]:.6g} > atol + rtol * |numerical| = "
        f"{allowed[r, c]:.6g}",
        f"{wrong} of {a.size} elements of this Jacobian differ (rows: the {a.shape[0]} elements "
        f"of input {j}, shape {tuple(in_shape)};",
        f"columns: the {a.shape[1]} elements of output {i}, shape {tuple(out_shape)}).",
    ]
    lines += labels.notes()
    return GradcheckError("\n".join(lines), output_index=i, input_index=j, input_element=in_el,
                          output_element=out_el, numerical_value=float(n[r, c]),
                          analytical_value=float(a[r, c]), numerical=n, analytical=a)


def jacobian_text(jac: np.ndarray, which: str) -> str:
    if jac.size <= MAX_PRINTED:
        return tensor_repr(jac, ["dtype=minigrad.float64"])
    return (f"<a {jac.shape[0]} x {jac.shape[1]} Jacobian, too big to print: see "
            f"GradcheckError.{which}>")


def index_text(idx: tuple) -> str:
    return f"[{', '.join(str(int(v)) for v in idx)}]" if len(idx) else ""


def at(idx: tuple) -> str:
    return f" at index {index_text(idx)}" if len(idx) else " (a scalar)"


class Labels:
    """How a report names inputs and outputs: `input 1 (b)` when the tensor has a name."""

    detached_hint = ""

    def __init__(self, inputs: tuple) -> None:
        self.wrt = [x for x in inputs if getattr(x, "requires_grad", False)]

    def input(self, j: int) -> str:
        name = getattr(self.wrt[j], "name", None) if j < len(self.wrt) else None
        return f"input {j} ({name})" if name else f"input {j}"

    def short(self, j: int) -> str:
        name = getattr(self.wrt[j], "name", None) if j < len(self.wrt) else None
        return name or f"input {j}"

    def output(self, i: int) -> str:
        return f"output {i}"

    def notes(self) -> list[str]:
        return []


class SecondOrderLabels(Labels):
    """gradgradcheck's inputs are fn's inputs then the grad_outputs; its outputs are the
    first-order gradients."""

    detached_hint = ("\nThe first-order gradient was computed outside the graph: a backward "
                     "that uses .array or numpy\ncannot be differentiated again; compute it "
                     "with Tensor operations.")

    def __init__(self, inputs: tuple, fn_wrt: list, returned: list) -> None:
        super().__init__(inputs)
        self.n_wrt = len(fn_wrt)
        self.fn_labels = Labels(tuple(fn_wrt))
        self.returned = returned

    def input(self, j: int) -> str:
        if j < self.n_wrt:
            return self.fn_labels.input(j)
        return f"grad_outputs[{j - self.n_wrt}]"

    def short(self, j: int) -> str:
        return self.fn_labels.short(j) if j < self.n_wrt else self.input(j)

    def output(self, i: int) -> str:
        if i < len(self.returned):
            return f"output {i} (the gradient of {self.fn_labels.short(self.returned[i])})"
        return f"output {i}"

    def notes(self) -> list[str]:
        return ["gradgradcheck checks the function (inputs, grad_outputs) -> the gradients "
                "backward computes",
                "with create_graph=True: a mismatch here is a wrong or non-differentiable "
                "backward."]
