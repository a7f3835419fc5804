"""What `autograd.functional`'s six functions share: reading their tuples, checking `v` and
`strict`, calling `autograd.grad` on the outputs that need it, and filling zeros.

Each check raises PyTorch's error for the same misuse (`torch/autograd/functional.py`), so a
learner searching for the message finds PyTorch's answer.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from minigrad import autograd
from minigrad.autograd import tensor as _tensor

STRICT_OUTPUT = ("Output {0} of the user-provided function does not require gradients. The "
                 "outputs must be computed in a differentiable manner from the input when "
                 "running in strict mode.")
STRICT_GRAD_INPUTS = ("The gradient with respect to input {0} is independent of the inputs of "
                      "the user-provided function. This is not allowed in strict mode.")
STRICT_JACOBIAN = (
    "While computing the hessian, found that the jacobian of the user-provided function with "
    "respect to input {0} is independent of the input. This is not allowed in strict mode. "
    "You should ensure that your function is twice differentiable and that the jacobian "
    "depends on the inputs (this would be violated by a linear function for example).")
STRICT_HESSIAN = (
    "The hessian of the user-provided function with respect to input {0} is independent of "
    "the input. This is not allowed in strict mode. You should ensure that your function is "
    "thrice differentiable and that the hessian depends on the inputs.")
STRICT_NOT_REQUIRED = {"outputs": STRICT_OUTPUT, "grad_inputs": STRICT_GRAD_INPUTS,
                       "jacobian": STRICT_JACOBIAN, "hessian": STRICT_HESSIAN}
INDEPENDENT = {
    "back": "The output of the user-provided function is independent of input {0}. This is "
            "not allowed in strict mode.",
    "back_trick": "The gradient with respect to the input is independent of entry {0} in the "
                  "grad_outputs when using the double backward trick to compute forward mode "
                  "gradients. This is not allowed in strict mode.",
    "double_back": "The jacobian of the user-provided function is independent of input {0}. "
                   "This is not allowed in strict mode.",
    "double_back_trick": "The hessian of the user-provided function is independent of entry "
                         "{0} in the grad_jacobian. This is not allowed in strict mode as it "
                         "prevents from using the double backward trick to replace forward "
                         "mode AD."}


def is_tensor(x: Any) -> bool:
    return isinstance(x, _tensor.Tensor)


def as_tuple(inp: Any, arg_name: str, fn_name: str) -> tuple[bool, tuple]:
    """(was it a tuple, the tensors as a tuple); anything but a Tensor in it is refused."""
    is_tuple = isinstance(inp, tuple)
    items = inp if is_tuple else (inp,)
    for i, el in enumerate(items):
        if not is_tensor(el):
            where = (f"the value at index {i} has type {type(el)}" if is_tuple
                     else f"the given {arg_name} has type {type(el)}")
            raise TypeError(f"The {arg_name} given to {fn_name} must be either a Tensor or a "
                            f"tuple of Tensors but {where}.")
    return is_tuple, items


def outputs_of(func: Any, inputs: tuple, fn_name: str) -> tuple[bool, tuple]:
    """Call the user's function on the inputs; its outputs as a tuple."""
    return as_tuple(func(*inputs), "outputs of the user-provided function", fn_name)


def unpack(res: Any, to_unpack: Any) -> Any:
    """Undo `as_tuple` on a result: `to_unpack` says which levels were tuples to begin with
    (one flag, or (outputs, inputs) for a Jacobian's tuple of tuples)."""
    if isinstance(to_unpack, tuple):
        if not to_unpack[1]:
            res = tuple(el[0] for el in res)
        if not to_unpack[0]:
            res = res[0]
    elif not to_unpack:
        res = res[0]
    return res


def grad_preprocess(inputs: tuple, create_graph: bool, need_graph: bool) -> tuple:
    """Fresh inputs the function is differentiated at: still attached to the caller's graph
    (an alias, `view_as`) when `create_graph` asks for a differentiable result, else cut
    from it (`detach`) and made to require grad when `need_graph`."""
    return tuple(_named_as(inp, inp.view_as(inp) if create_graph and inp.requires_grad
                           else inp.detach().requires_grad_(need_graph)) for inp in inputs)


def _named_as(source: Any, fresh: Any) -> Any:
    """`fresh` labelled as `source` in a trace's narration (minigrad's `name`)."""
    if source.name is not None:
        fresh.name = source.name
    return fresh


def grad_postprocess(inputs: tuple, create_graph: bool) -> tuple:
    """Results cut from the graph unless `create_graph` (nested tuples too)."""
    if inputs and not is_tensor(inputs[0]):
        return tuple(grad_postprocess(inp, create_graph) for inp in inputs)
    return inputs if create_graph else tuple(inp.detach() for inp in inputs)


def validate_v(v: tuple, other: tuple, is_other_tuple: bool) -> None:
    """`v` must have one tensor per output (or input), each of its size."""
    if len(other) != len(v):
        if is_other_tuple:
            raise RuntimeError(f"v is a tuple of invalid length: should be {len(other)} but got "
                               f"{len(v)}.")
        raise RuntimeError("The given v should contain a single Tensor.")
    for idx, (el_v, el_other) in enumerate(zip(v, other)):
        if el_v.size() != el_other.size():
            prepend = f"Entry {idx} in " if is_other_tuple else ""
            raise RuntimeError(f"{prepend}v has invalid size: should be {el_other.size()} but "
                               f"got {el_v.size()}.")


def read_v(v: Any, against: tuple, against_is_tuple: bool, create_graph: bool, fn_name: str,
           none_message: str) -> tuple:
    """The vector `v` as a checked tuple; None is a `1` only for one one-element tensor."""
    if v is None:
        if len(against) != 1 or against[0].nelement() != 1:
            raise RuntimeError(none_message)
        return (None,)
    _, v = as_tuple(v, "v", fn_name)
    v = grad_preprocess(v, create_graph=create_graph, need_graph=False)
    validate_v(v, against, against_is_tuple)
    return v


def check_requires_grad(inputs: tuple, input_type: str, strict: bool) -> None:
    """In strict mode, every output (or gradient) must depend on the inputs."""
    if not strict:
        return
    for i, inp in enumerate(inputs):
        if inp is None:
            raise RuntimeError(f"The output of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode.")
        if not inp.requires_grad:
            raise RuntimeError(STRICT_NOT_REQUIRED[input_type].format(i))


def autograd_grad(outputs: tuple, inputs: tuple, grad_outputs: tuple | None = None,
                  create_graph: bool = False, retain_graph: bool | None = None) -> tuple:
    """`autograd.grad` over the outputs that require grad (None for every input if none
    does); an input the outputs do not reach gets None."""
    if grad_outputs is None:
        grad_outputs = (None,) * len(outputs)
    pairs = [(out, g) for out, g in zip(outputs, grad_outputs)
             if out is not None and out.requires_grad]
    if not pairs:
        return (None,) * len(inputs)
    return autograd.grad([out for out, _ in pairs], inputs, [g for _, g in pairs],
                         allow_unused=True, create_graph=create_graph,
                         retain_graph=retain_graph)


def fill_in_zeros(grads: tuple, refs: tuple, strict: bool, create_graph: bool,
                  stage: str) -> tuple:
    """Zeros where a gradient is None (the true value: nothing depends on that input), or
    PyTorch's error in strict mode."""
    res = []
    for i, g in enumerate(grads):
        if g is None:
            if strict:
                raise RuntimeError(INDEPENDENT[stage].format(i))
            g = zeros_like(refs[i])
        elif strict and create_graph and not g.requires_grad:
            what = "hessian" if "double" in stage else "jacobian"
            raise RuntimeError(f"The {what} of the user-provided function is independent of "
                               f"input {i}. This is not allowed in strict mode when "
                               "create_graph=True.")
        res.append(g)
    return tuple(res)


def zeros_like(t: Any) -> Any:
    return _tensor.Tensor._make(np.zeros_like(t.array), None, 0)


def stack(tensors: list, shape: tuple, like: Any) -> Any:
    """`tensors` (one row each) as one tensor of `shape`; differentiable when a row requires
    grad (written row by row into zeros, as PyTorch builds its basis), else plain numpy.
    (`like` gives the dtype when there is no row: an output with no elements.)"""
    if not tensors:
        return _tensor.Tensor._make(np.zeros(shape, like.array.dtype), None, 0)
    if not any(t.requires_grad for t in tensors):
        return _tensor.Tensor._make(np.stack([t.array for t in tensors]).reshape(shape),
                                    None, 0)
    out = tensors[0].new_zeros((len(tensors), *tensors[0].shape))
    for j, t in enumerate(tensors):
        out[j] = t
    return out.view(shape)
